"""sushicam's rules engine: validate a game record and score it exactly, for every edition.

>>> result = score_record({"edition": "original", "players": ["Ann", "Ben"],
...     "rounds": [{"tableaux": {"Ann": ["maki-3", "tempura", "tempura"], "Ben": ["maki-1"]}}]})
>>> result["players"]["Ann"]["rounds"], result["players"]["Ben"]["rounds"], result["winners"]
([11], [3], ['Ann'])
>>> result["players"]["Ann"]["breakdown"][0][0]
{'category': 'Maki', 'points': 6, 'detail': '3 icons, most'}
"""

from __future__ import annotations

from scorer.errors import (
    DeckCountError,
    DessertError,
    DuringRoundError,
    EditionError,
    FormatError,
    MenuError,
    PlayerCountError,
    RecordError,
    StackError,
    TurnLogError,
    UnknownCardError,
    UnknownPlayerError,
    VariantError,
)
from scorer.game import Game, Round
from scorer.results import LineJSON, PlayerScoreJSON, ScoreJSON
from scorer.scoring import explain, score_game


def score_record(record: object) -> ScoreJSON:
    """Validate ``record`` (game-record.md) and score it; raises :class:`RecordError`."""
    return score_game(Game.from_record(record))


def explain_record(record: object, lang: str = "en") -> str:
    """The readable breakdown of ``record``: per player, round and category, in ``lang``."""
    game = Game.from_record(record)
    return explain(game, score_game(game), lang)


__all__ = [
    "DeckCountError",
    "DessertError",
    "DuringRoundError",
    "EditionError",
    "FormatError",
    "Game",
    "LineJSON",
    "MenuError",
    "PlayerCountError",
    "PlayerScoreJSON",
    "RecordError",
    "Round",
    "ScoreJSON",
    "StackError",
    "TurnLogError",
    "UnknownCardError",
    "UnknownPlayerError",
    "VariantError",
    "explain_record",
    "score_record",
]
