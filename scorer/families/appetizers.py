"""Appetizers: tempura, sashimi, dumpling/gyoza, and Party's eel, tofu, edamame, onigiri, miso soup.

>>> dumpling_points(5), dumpling_points(7), onigiri_points({"circle": 1, "triangle": 1, "square": 2})
(15, 15, 10)
"""

from __future__ import annotations

from collections import Counter

from scorer.families import Category, Line, RoundView, cards_count
from scorer.i18n import N_, NP_, joined

DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
ONIGIRI_POINTS = (0, 1, 4, 9, 16)
EDAMAME_CAP = 4
MISO_POINTS = 3


def dumpling_points(count: int) -> int:
    return DUMPLING_POINTS[min(count, len(DUMPLING_POINTS) - 1)]


def onigiri_points(shapes: Counter[str] | dict[str, int]) -> int:
    """Sets of different shapes, each scored by its size (1/4/9/16)."""
    left = Counter(shapes)
    total = 0
    while +left:
        total += ONIGIRI_POINTS[len(+left)]
        left.subtract(Counter(set((+left).keys())))
    return total


def eel_points(count: int) -> int:
    return 0 if count == 0 else -3 if count == 1 else 7


def tofu_points(count: int) -> int:
    return {0: 0, 1: 2, 2: 6}.get(count, 0)


def score_round(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    edition = view.rules.key

    def add(player: str, english: str, kind: str, points: int, detail: object) -> None:
        out.setdefault(player, []).append(Line(Category(english, kind, edition), points, detail))

    with_edamame = [p for p in view.players if view.count(p, "edamame")]
    for player in view.players:
        count = Counter(c.card.kind for c in view.cards[player])
        if count["tempura"]:
            pairs = count["tempura"] // 2
            add(player, "Tempura", "tempura", 5 * pairs,
                joined([cards_count(count["tempura"]), NP_("{n} pair", "{n} pairs", pairs)]))
        if count["sashimi"]:
            sets = count["sashimi"] // 3
            add(player, "Sashimi", "sashimi", 10 * sets,
                joined([cards_count(count["sashimi"]), NP_("{n} set of 3", "{n} sets of 3", sets)]))
        if count["dumpling"]:
            name = "Gyoza" if edition == "anniversary" else "Dumpling"
            add(player, name, "dumpling", dumpling_points(count["dumpling"]), cards_count(count["dumpling"]))
        if count["eel"]:
            add(player, "Eel", "eel", eel_points(count["eel"]), cards_count(count["eel"]))
        if count["tofu"]:
            add(player, "Tofu", "tofu", tofu_points(count["tofu"]), cards_count(count["tofu"]))
        if count["edamame"]:
            opponents = len(with_edamame) - 1
            each = min(opponents, EDAMAME_CAP)
            detail = N_("{cards} × {opponents} with edamame", cards=cards_count(count["edamame"]),
                        opponents=NP_("{n} opponent", "{n} opponents", opponents))
            if opponents > EDAMAME_CAP:
                detail = N_("{detail} (at most {cap} each)", detail=detail, cap=EDAMAME_CAP)
            add(player, "Edamame", "edamame", each * count["edamame"], detail)
        if count["onigiri"]:
            shapes = Counter(c.slug for c in view.cards[player] if c.card.kind == "onigiri")
            add(player, "Onigiri", "onigiri", onigiri_points(shapes),
                joined([cards_count(count["onigiri"]), NP_("{n} shape", "{n} shapes", len(shapes))]))
        if count["miso-soup"]:
            add(player, "Miso Soup", "miso-soup", MISO_POINTS * count["miso-soup"],
                NP_("{n} bowl", "{n} bowls", count["miso-soup"]))
    return out
