"""Nigiri (egg 1, salmon 2, squid 3), tripled on a wasabi. A wasabi alone scores nothing.

A special order copying a nigiri that lies on wasabi is not on wasabi (Party guide):
the stack parser already gives such a copy ``on_wasabi=False``.
"""

from __future__ import annotations

from collections import Counter

from scorer.families import Line, RoundView

_NAMES = {"egg-nigiri": "egg", "salmon-nigiri": "salmon", "squid-nigiri": "squid"}


def score_round(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    for player in view.players:
        parts: Counter[str] = Counter()
        points = 0
        for played in view.cards[player]:
            if played.card.kind != "nigiri":
                continue
            value = played.card.nigiri_points * (3 if played.on_wasabi else 1)
            points += value
            label = _NAMES[played.slug] + (" on wasabi" if played.on_wasabi else "")
            parts[f"{label} {value}"] += 1
        if parts:
            detail = ", ".join(f"{n}× {label}" if n > 1 else label for label, n in parts.items())
            out[player] = [Line("Nigiri", points, detail)]
    return out
