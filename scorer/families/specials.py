"""Specials that score: soy sauce and tea (by card colours), and take-out (face-down cards).

Wasabi, chopsticks, spoon, menu and an unused special order score nothing. Colours
are the printed background colours of :mod:`scorer.cards` (wasabi and nigiri share
yellow, as the book's tea example says); a special order counts as the card it
copies; face-down take-out cards show no colour ("they are no longer the card on
their face").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from scorer.cards import CARD_BACK
from scorer.families import Category, Line, RoundView, cards_count
from scorer.i18n import N_, NP_
from scorer.tableau import Played

SOY_SAUCE_POINTS = 4
TAKEOUT_POINTS = 2


def colours(cards: Iterable[Played]) -> Counter[str]:
    """How many cards of each background colour."""
    return Counter(c.card.colour for c in cards if c.slug != CARD_BACK)


def score_round(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    edition = view.rules.key
    palette = {p: colours(view.cards[p]) for p in view.players}
    most_colours = max((len(c) for c in palette.values()), default=0)
    for player in view.players:
        soy = view.count(player, "soy-sauce")
        if soy:
            mine = len(palette[player])
            colour_count = NP_("{n} colour", "{n} colours", mine)
            if mine == most_colours:
                detail = N_("{cards}, {colours}, most", cards=cards_count(soy), colours=colour_count)
            else:
                detail = N_("{cards}, {colours} (most: {most})", cards=cards_count(soy),
                            colours=colour_count, most=most_colours)
            out.setdefault(player, []).append(Line(
                Category("Soy Sauce", "soy-sauce", edition),
                SOY_SAUCE_POINTS * soy if mine == most_colours else 0, detail))
        tea = view.count(player, "tea")
        if tea:
            biggest = max(palette[player].values())
            out.setdefault(player, []).append(Line(
                Category("Tea", "tea", edition), tea * biggest,
                N_("{cards} × {same}", cards=cards_count(tea),
                   same=NP_("{n} card of one colour", "{n} cards of one colour", biggest))))
        face_down = sum(1 for c in view.cards[player] if c.slug == CARD_BACK)
        if face_down:
            out.setdefault(player, []).append(Line(
                Category("Take-out", "takeout-box", edition), TAKEOUT_POINTS * face_down,
                NP_("{n} face-down card", "{n} face-down cards", face_down)))
    return out
