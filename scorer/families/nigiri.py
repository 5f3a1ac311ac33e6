"""Nigiri (egg 1, salmon 2, squid 3), tripled on a wasabi. A wasabi alone scores nothing.

A special order copying a nigiri that lies on wasabi is not on wasabi (Party guide):
the stack parser already gives such a copy ``on_wasabi=False``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scorer.families import Category, Line, RoundView
from scorer.i18n import ENGLISH, N_, joined
from scorer.names import card_name

_NAMES = {"egg-nigiri": "egg", "salmon-nigiri": "salmon", "squid-nigiri": "squid"}


@dataclass(frozen=True)
class NigiriName:
    """English names the topping ("squid"); the other languages print the card's name."""

    slug: str

    def render(self, lang: str = ENGLISH) -> str:
        return _NAMES[self.slug] if lang == ENGLISH else card_name(self.slug, lang)


def score_round(view: RoundView) -> dict[str, list[Line]]:
    out: dict[str, list[Line]] = {}
    for player in view.players:
        parts: Counter[tuple[str, bool, int]] = Counter()
        points = 0
        for played in view.cards[player]:
            if played.card.kind != "nigiri":
                continue
            value = played.card.nigiri_points * (3 if played.on_wasabi else 1)
            points += value
            parts[(played.slug, played.on_wasabi, value)] += 1
        if parts:
            labels = []
            for (slug, on_wasabi, value), n in parts.items():
                label = (N_("{nigiri} on wasabi {value}", nigiri=NigiriName(slug), value=value)
                         if on_wasabi else N_("{nigiri} {value}", nigiri=NigiriName(slug), value=value))
                labels.append(N_("{n}× {label}", n=n, label=label) if n > 1 else label)
            out[player] = [Line(Category("Nigiri", "nigiri", view.rules.key), points, joined(labels))]
    return out
