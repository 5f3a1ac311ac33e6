"""Specials that score: soy sauce and tea (by card colours), and take-out (face-down cards).

Wasabi, chopsticks, spoon, menu and an unused special order score nothing. Colours
are the printed background colours of :mod:`scorer.cards` (wasabi and nigiri share
yellow, as the book's tea example says); a special order counts as the card it
copies; face-down take-out cards show no colour ("they are no longer the card on
their face").
"""

from __future__ import annotations

from collections import Counter

from scorer.cards import CARD_BACK
from scorer.families import Line, RoundView, plural

SOY_SAUCE_POINTS = 4
TAKEOUT_POINTS = 2


def colours(cards) -> Counter[str]:
    """How many cards of each background colour."""
    return Counter(c.card.colour for c in cards if c.slug != CARD_BACK)


def score_round(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    palette = {p: colours(view.cards[p]) for p in view.players}
    most_colours = max((len(c) for c in palette.values()), default=0)
    for player in view.players:
        soy = view.count(player, "soy-sauce")
        if soy:
            mine = len(palette[player])
            if mine == most_colours:
                out.setdefault(player, []).append(Line(
                    "Soy Sauce", SOY_SAUCE_POINTS * soy,
                    f"{plural(soy, 'card')}, {plural(mine, 'colour')}, most"))
            else:
                out.setdefault(player, []).append(Line(
                    "Soy Sauce", 0, f"{plural(soy, 'card')}, {plural(mine, 'colour')} (most: {most_colours})"))
        tea = view.count(player, "tea")
        if tea:
            biggest = max(palette[player].values())
            out.setdefault(player, []).append(Line(
                "Tea", tea * biggest, f"{plural(tea, 'card')} × {biggest} cards of one colour"))
        face_down = sum(1 for c in view.cards[player] if c.slug == CARD_BACK)
        if face_down:
            out.setdefault(player, []).append(Line(
                "Take-out", TAKEOUT_POINTS * face_down, plural(face_down, "face-down card")))
    return out
