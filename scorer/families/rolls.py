"""Rolls: maki, futomaki (anniversary), temaki and uramaki (Party).

Maki: most icons 6, second 3 (Party with 6-8 players: 6/4/2). Only players with an
icon place, except futomaki, where "a player without futomaki can still be scored
in the rare case that having none puts them first or second" (anniversary book),
unless the 2-player "must have futomaki" rule is on.
"""

from __future__ import annotations

from scorer.families import Category, Line, RoundView, cards_count, icons_count
from scorer.i18n import N_, NP_, joined
from scorer.ranking import award_places, most_and_fewest, place_detail
from scorer.turns import URAMAKI_PLACES


def _majority(view: RoundView, kind: str, english: str, *, zero_places: bool) -> dict[str, list[Line]]:
    category = Category(english, kind, view.rules.key)
    icons = {p: view.icons(p, kind) for p in view.players}
    holders = {p for p in view.players if view.count(p, kind)}
    if kind == "futomaki" and "must-have-futomaki" in view.variants:
        eligible = {p: v for p, v in icons.items() if p in holders}
    elif zero_places:
        eligible = dict(icons)
    else:
        eligible = {p: v for p, v in icons.items() if v > 0}
    prizes = view.rules.maki_prizes(len(view.players))
    awards = award_places(eligible, prizes, split=view.split_ties)
    out: dict[str, list[Line]] = {}
    for player in view.players:
        if player in awards:
            points, place, tied = awards[player]
            detail = joined([icons_count(icons[player]), place_detail(place, tied, view.split_ties)])
            out[player] = [Line(category, points, detail)]
        elif player in holders:
            out[player] = [Line(category, 0, joined([icons_count(icons[player]), N_("no place")]))]
    return out


def _temaki(view: RoundView) -> dict[str, list[Line]]:
    counts = {p: view.count(p, "temaki") for p in view.players}
    awards = most_and_fewest(counts, most=4, fewest=-4, split=view.split_ties)
    category = Category("Temaki", "temaki", view.rules.key)
    return {
        p: [Line(category, points, joined([cards_count(counts[p]), detail]))]
        for p, (points, detail) in awards.items()
        if points or counts[p]
    } | {
        p: [Line(category, 0, cards_count(counts[p]))]
        for p in view.players if counts[p] and p not in awards
    }


def _uramaki(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    category = Category("Uramaki", "uramaki", view.rules.key)
    race = [s for s in view.during if s.reason == "uramaki"]
    for place, score in enumerate(race):
        detail = (N_("reached 10 icons (place {place} of the race)", place=place + 1) if place
                  else N_("reached 10 icons first"))
        out.setdefault(score.player, []).append(Line(category, score.points, detail))
    icons = {p: view.icons(p, "uramaki") for p in view.players if view.icons(p, "uramaki")}
    if icons:
        value = URAMAKI_PLACES[len(race)] if len(race) < len(URAMAKI_PLACES) else 0
        best = max(icons.values())
        for player, count in icons.items():
            if count == best:
                detail = NP_("{n} icon left, most at round end", "{n} icons left, most at round end", count)
                out.setdefault(player, []).append(Line(category, value, detail))
            else:
                out.setdefault(player, []).append(
                    Line(category, 0, NP_("{n} icon left", "{n} icons left", count)))
    return out


def score_round(view: RoundView) -> dict[str, list[Line]]:
    kinds = {c.card.kind for cards in view.cards.values() for c in cards}
    results: list[dict[str, list[Line]]] = []
    edition = view.rules.key
    if edition == "anniversary":
        results.append(_majority(view, "futomaki", "Futomaki", zero_places=True))
    elif "maki" in kinds:
        results.append(_majority(view, "maki", "Maki", zero_places=False))
    if "temaki" in kinds:
        results.append(_temaki(view))
    if "uramaki" in kinds or any(s.reason == "uramaki" for s in view.during):
        results.append(_uramaki(view))
    out: dict[str, list[Line]] = {}
    for result in results:
        for player, lines in result.items():
            out.setdefault(player, []).extend(lines)
    return out
