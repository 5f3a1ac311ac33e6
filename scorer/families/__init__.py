"""Scoring rules, one module per card family.

Each round-scoring module has ``score_round(view) -> {player: [Line, ...]}``;
:mod:`scorer.families.desserts` also has ``score_game_end(game)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scorer.editions import Edition
from scorer.i18n import ENGLISH, N_, NP_, Text
from scorer.names import kind_name
from scorer.results import LineJSON
from scorer.tableau import Played
from scorer.turns import DuringRoundScore


@dataclass(frozen=True)
class Category:
    """A breakdown's category: its English name as the JSON has it, and the kind it names."""

    english: str
    kind: str
    edition: str | None = None

    def render(self, lang: str = ENGLISH) -> str:
        return self.english if lang == ENGLISH else kind_name(self.kind, lang, self.edition)

    def __str__(self) -> str:
        return self.english


@dataclass(frozen=True)
class Line:
    """One category of one player's score: ``Maki: 5 icons, most: 6``.

    ``category`` and ``detail`` render in any language (:mod:`scorer.i18n`); the JSON holds
    their English.
    """

    category: Category
    points: int
    detail: object

    def to_json(self) -> LineJSON:
        return {"category": str(self.category), "points": self.points, "detail": str(self.detail)}

    def render(self, lang: str = ENGLISH) -> str:
        return N_("{category}: {detail}: {points}", category=self.category, detail=self.detail,
                  points=self.points).render(lang)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class RoundView:
    """What the rules of one round look at."""

    rules: Edition
    players: tuple[str, ...]
    cards: Mapping[str, tuple[Played, ...]]  # each player's cards as they score
    during: tuple[DuringRoundScore, ...]
    variants: tuple[str, ...] = ()

    @property
    def split_ties(self) -> bool:
        return self.rules.ties == "split"

    def count(self, player: str, kind: str) -> int:
        return sum(1 for c in self.cards[player] if c.card.kind == kind)

    def icons(self, player: str, kind: str) -> int:
        return sum(c.card.icons for c in self.cards[player] if c.card.kind == kind)


def cards_count(n: int) -> Text:
    """``"1 card"``, ``"3 cards"``: the count most details start with.

    >>> str(cards_count(1)), str(cards_count(3)), cards_count(3).render("is")
    ('1 card', '3 cards', '3 spil')
    """
    return NP_("{n} card", "{n} cards", n)


def icons_count(n: int) -> Text:
    return NP_("{n} icon", "{n} icons", n)


__all__ = ["Category", "Line", "RoundView", "Sequence", "cards_count", "icons_count"]
