"""Appetizers: tempura, sashimi, dumpling/gyoza, and Party's eel, tofu, edamame, onigiri, miso soup.

>>> dumpling_points(5), dumpling_points(7), onigiri_points({"circle": 1, "triangle": 1, "square": 2})
(15, 15, 10)
"""

from __future__ import annotations

from collections import Counter

from scorer.families import Line, RoundView, plural

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

    def add(player: str, category: str, points: int, detail: str) -> None:
        out.setdefault(player, []).append(Line(category, points, detail))

    with_edamame = [p for p in view.players if view.count(p, "edamame")]
    for player in view.players:
        count = Counter(c.card.kind for c in view.cards[player])
        if count["tempura"]:
            pairs = count["tempura"] // 2
            add(player, "Tempura", 5 * pairs, f"{plural(count['tempura'], 'card')}, {plural(pairs, 'pair')}")
        if count["sashimi"]:
            sets = count["sashimi"] // 3
            add(player, "Sashimi", 10 * sets, f"{plural(count['sashimi'], 'card')}, {plural(sets, 'set')} of 3")
        if count["dumpling"]:
            name = "Gyoza" if view.rules.key in ("anniversary",) else "Dumpling"
            add(player, name, dumpling_points(count["dumpling"]), plural(count["dumpling"], "card"))
        if count["eel"]:
            add(player, "Eel", eel_points(count["eel"]), plural(count["eel"], "card"))
        if count["tofu"]:
            add(player, "Tofu", tofu_points(count["tofu"]), plural(count["tofu"], "card"))
        if count["edamame"]:
            each = min(len(with_edamame) - 1, EDAMAME_CAP)
            add(player, "Edamame", each * count["edamame"],
                f"{plural(count['edamame'], 'card')} × {plural(len(with_edamame) - 1, 'opponent')} with edamame"
                + (f" (at most {EDAMAME_CAP} each)" if len(with_edamame) - 1 > EDAMAME_CAP else ""))
        if count["onigiri"]:
            shapes = Counter(c.slug for c in view.cards[player] if c.card.kind == "onigiri")
            add(player, "Onigiri", onigiri_points(shapes),
                f"{plural(count['onigiri'], 'card')}, {plural(len(shapes), 'shape')}")
        if count["miso-soup"]:
            add(player, "Miso Soup", MISO_POINTS * count["miso-soup"], plural(count["miso-soup"], "bowl"))
    return out
