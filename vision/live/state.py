"""The JSON shape of the live state (``LiveState.to_json``): what the live page receives after
each frame."""

from __future__ import annotations

from typing import Any, TypedDict

from scorer.results import ScoreJSON
from vision.live.notes import NoteJSON


class LiveCardJSON(TypedDict):
    """A card on the table in the last frame."""

    #: the tracker's id of it
    id: int
    #: ``x1, y1, x2, y2`` in the frame's pixels
    box: list[float]
    label: str
    #: its player's seat, -1 for none (the table before the game, a box of no card)
    seat: int
    player: str | None
    #: whether it shows in the frame (a hand may cover it)
    visible: bool
    #: what it is to the game: pending, played, gone, stray, new; background or unsure when
    #: it is not in play
    status: str
    #: the turn it was revealed in, -1 for none
    turn: int
    #: how the log writes it (its slug, or its stack)
    text: str


class LiveEventJSON(TypedDict):
    """What the game did in this frame: a turn read or amended, a round's end."""

    kind: str
    round: int
    turn: int
    #: the turn's log entry (game-record.md's per-turn log), None for a round's end
    log: dict[str, Any] | None
    text: str


class LiveStateJSON(TypedDict):
    """What the live view knows after one frame."""

    frame: int
    timestamp: float
    cards: list[LiveCardJSON]
    events: list[LiveEventJSON]
    #: the game record so far (game-record.md)
    record: dict[str, Any]
    #: each player's cards laid since the last turn
    pending: dict[str, list[str]]
    #: the scorer's result, None while the record cannot be scored (``score_error`` says why)
    scores: ScoreJSON | None
    score_error: str | None
    #: the reader's notes in English (``sushicam live``), and as typed values the page words
    #: in the player's language (``vision.live.notes``)
    notes: list[str]
    reader_notes: list[NoteJSON]
    #: seconds each step of the frame took
    seconds: dict[str, float]
    #: each card text shown, by the name players know
    names: dict[str, str]
