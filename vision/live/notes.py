"""What the live reader made of the table, as typed notes: a cause and its facts.

A :class:`LiveNote` says why the reader read the table as it did where a player might wonder
(a box taken for no card, a card seen late joining the turn before, a card re-read). It holds
no sentence a player reads: ``web/live_notes.py`` words each :class:`NoteCause` in the page's
language from the facts; ``str(note)`` is the English line ``sushicam live`` prints.

``round`` and ``turn`` count from 0, as :class:`vision.live.turns.LiveEvent`'s do; ``players``
are names as the game was told them; ``card`` and ``other`` are the log's card texts (a slug,
``special-order:<slug>``).

>>> note = LiveNote(NoteCause.JOINS_LATE, round=0, turn=2, players=("Ann",))
>>> str(note)
'round 1: the card of Ann seen late joins turn 3'
>>> LiveNote.from_json(note.to_json()) == note
True
>>> note.to_json()["cause"]
'joins-late'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NotRequired, TypedDict


class NoteCause(StrEnum):
    """Why the reader noted something (each names the rule of the reader that decided)."""

    BACKGROUND = "background"  # things boxed before the game started: the table, not cards
    LEFT_AT_ROUND_END = "left-at-round-end"  # cards in no whole turn when the players ended the round
    CLEAR_UP = "clear-up"  # cards seen only during the clear-up, in no whole turn
    REREAD = "reread"  # a card revealed, read under another name since (the log amended)
    EVENT_FITS_NO_TURN = "event-fits-no-turn"  # a tool back in the hand, a flip: no turn of the round fits it
    TURN_WITHOUT = "turn-without"  # a turn read with no card from some players
    STRAY = "stray"  # a box that came with a player's card, taken for no card
    LAID_OVER_ALIKE = "laid-over-alike"  # a card that seemed to move: a card of its name laid over it
    UNCOVERED_STRIP = "uncovered-strip"  # ... the strip of the card beneath seen
    BOXED_AGAIN = "boxed-again"  # a card boxed again where it lay: its track went to the card laid
    FIRST_OF_NEXT = "first-of-next"  # a card read late into a turn was the first of the next
    JOINS_LATE = "joins-late"  # a card seen late joins the turn before


class NoteJSON(TypedDict):
    """A note in the live state JSON (``reader_notes``): the cause and the facts it has."""

    cause: str
    round: NotRequired[int]
    turn: NotRequired[int]
    players: NotRequired[list[str]]
    card: NotRequired[str]
    other: NotRequired[str]
    count: NotRequired[int]
    event: NotRequired[str]


@dataclass(frozen=True)
class LiveNote:
    """One note: its :class:`NoteCause` and the facts that cause needs (the rest left empty)."""

    cause: NoteCause
    round: int | None = None
    turn: int | None = None  # the turn it is about
    players: tuple[str, ...] = ()
    card: str = ""  # the card it is about, as the log names it
    other: str = ""  # the second card: the name re-read as, the card that took the track
    count: int = 0  # how many cards or boxes
    event: str = ""  # the in-turn event (``chopsticks-used``, ``takeout-flip``...)

    def to_json(self) -> NoteJSON:
        out: NoteJSON = {"cause": self.cause.value}
        if self.round is not None:
            out["round"] = self.round
        if self.turn is not None:
            out["turn"] = self.turn
        if self.players:
            out["players"] = list(self.players)
        if self.card:
            out["card"] = self.card
        if self.other:
            out["other"] = self.other
        if self.count:
            out["count"] = self.count
        if self.event:
            out["event"] = self.event
        return out

    @classmethod
    def from_json(cls, value: NoteJSON) -> LiveNote:
        return cls(NoteCause(value["cause"]), value.get("round"), value.get("turn"),
                   tuple(value.get("players", ())), value.get("card", ""), value.get("other", ""),
                   value.get("count", 0), value.get("event", ""))

    def __str__(self) -> str:
        return f"round {(self.round or 0) + 1}: {_ENGLISH[self.cause](self)}" if self.round is not None \
            else _ENGLISH[self.cause](self)


def _player(note: LiveNote) -> str:
    return note.players[0] if note.players else "?"


def _turn(note: LiveNote, later: int = 0) -> int:
    return (note.turn or 0) + 1 + later


#: The English line of each cause (``sushicam live``'s notes; the web words them itself).
_ENGLISH = {
    NoteCause.BACKGROUND: lambda n: f"{n.count} thing(s) seen before the game started are taken for the table, "
                                    "not cards in play",
    NoteCause.LEFT_AT_ROUND_END: lambda n: f"{n.count} card(s) laid in no whole turn when the round was ended, "
                                           "left out",
    NoteCause.CLEAR_UP: lambda n: f"{n.count} card(s) seen during the clear-up, not in a whole turn, left out",
    NoteCause.REREAD: lambda n: f"{_player(n)}'s {n.card} re-read as {n.other}",
    NoteCause.EVENT_FITS_NO_TURN: lambda n: f"{n.event} by {_player(n)} fits no turn, left out",
    NoteCause.TURN_WITHOUT: lambda n: f"a turn without a card from {', '.join(n.players)}",
    NoteCause.STRAY: lambda n: f"a box at {_player(n)}'s place, seen with their card of turn {_turn(n)}, "
                               "is taken for no card",
    NoteCause.LAID_OVER_ALIKE: lambda n: f"{_player(n)}'s {n.card} moved: a card of its name laid over it",
    NoteCause.UNCOVERED_STRIP: lambda n: f"{_player(n)}'s {n.card} moved: a card laid over it, its strip seen",
    NoteCause.BOXED_AGAIN: lambda n: f"{_player(n)}'s {n.card} boxed again where it lay: the card that took its "
                                     f"track is {n.other}",
    NoteCause.FIRST_OF_NEXT: lambda n: f"the card of {_player(n)} read late into turn {_turn(n)} is the first of "
                                       f"turn {_turn(n, 1)}",
    NoteCause.JOINS_LATE: lambda n: f"the card of {', '.join(n.players)} seen late joins turn {_turn(n)}",
}
