"""The JSON shapes of a score result (``scorer.score_record``): the contract of
``../shared/spec/game-record.md``'s output, ``rounds``, ``dessert`` and ``total`` per player, and
the keys this scorer adds beside them (the spec allows extra keys).
"""

from __future__ import annotations

from typing import TypedDict


class LineJSON(TypedDict):
    """One scored line of a breakdown: its category, points and what earned them, in English
    (:class:`scorer.families.Line`; pages word them again from the record)."""

    category: str
    points: int
    detail: str


class PlayerScoreJSON(TypedDict):
    """One player's score."""

    #: each round's points without desserts (the spec's)
    rounds: list[int]
    #: the end-of-game dessert score, 0 before the record has its 3 rounds (the spec's)
    dessert: int
    #: ``rounds`` and ``dessert`` summed (the spec's)
    total: int
    #: each round's lines
    breakdown: list[list[LineJSON]]
    dessert_breakdown: list[LineJSON]
    #: dessert cards played over the game: the tie-break
    dessert_cards: int


class ScoreJSON(TypedDict):
    """A scored record."""

    edition: str
    #: by player name, in the record's order (the spec's)
    players: dict[str, PlayerScoreJSON]
    #: the highest total (lowest in sushi golf), ties broken by dessert cards; still tied: all
    winners: list[str]
    #: whether the record holds every round of the game (desserts are scored then)
    complete: bool
