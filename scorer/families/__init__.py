"""Scoring rules, one module per card family.

Each round-scoring module has ``score_round(view) -> {player: [Line, ...]}``;
:mod:`scorer.families.desserts` also has ``score_game_end(game)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scorer.editions import Edition
from scorer.tableau import Played
from scorer.turns import DuringRoundScore


@dataclass(frozen=True)
class Line:
    """One category of one player's score: ``Maki: 5 icons, most: 6``."""

    category: str
    points: int
    detail: str

    def to_json(self) -> dict:
        return {"category": self.category, "points": self.points, "detail": self.detail}

    def __str__(self) -> str:
        return f"{self.category}: {self.detail}: {self.points}"


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


def plural(count: int, noun: str) -> str:
    """A count with its noun.

    >>> plural(1, "card"), plural(3, "card")
    ('1 card', '3 cards')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


__all__ = ["Line", "RoundView", "plural", "Sequence"]
