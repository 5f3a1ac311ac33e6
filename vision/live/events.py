"""A pure step from two successive frames of tracked cards to what happened to each card.

:func:`snapshot` reads one frame of the tracker's output (``vision.live.tracker.CardTracker``:
``data[TRACK_ID]``, ``data[LABEL]``, ``data[STATE]``, ``data[SEAT]``) into a :class:`Snapshot`
per card; :func:`step` compares the snapshots of two successive frames and says, per card:

- :class:`Laid`: a card that had not yet lain still now lies (or lies covered) on the table;
- :class:`Renamed`: a card lying there is read under another face-up name;
- :class:`Flipped`: a card turned face down (a take-out box) or face up (a reveal);
- :class:`Removed`: a card that had lain on the table is tracked no more.

It decides nothing about turns: that is ``vision.live.turns``'s part. The card history
(``vision.live.history``) tells the turn reader what it made of the tracks (``HistoryEvent``):
per frame :class:`SeenAgain`, :class:`Covered`, :class:`Left`, :class:`TurnedDown` and
:class:`Forgotten`; and, asked at each step of reading a turn (``CardHistory.settle``), which
boxes are a card already there: :class:`Folded`, :class:`Split`, :class:`GivenBack`,
:class:`Forgotten`.

>>> from vision.live.tracker import CardState
>>> before = {1: Snapshot(1, "tempura", CardState.ARRIVING, 0)}
>>> after = {1: Snapshot(1, "tempura", CardState.LYING, 0), 2: Snapshot(2, "eel", CardState.ARRIVING, 1)}
>>> step(before, after, 2.0)
[Laid(track_id=1, label='tempura', seat=0, at=2.0)]
>>> step(after, {2: Snapshot(2, "card-back", CardState.LYING, 1)}, 3.0)   # card 1 tracked no more
[Laid(track_id=2, label='card-back', seat=1, at=3.0), Removed(track_id=1, label='tempura', at=3.0)]
>>> step({2: Snapshot(2, "card-back", CardState.LYING, 1)}, {2: Snapshot(2, "eel", CardState.LYING, 1)}, 4.0)
[Flipped(track_id=2, label='eel', face_up=True, at=4.0)]
>>> step({2: Snapshot(2, "eel", CardState.LYING, 1)}, {}, 9.0)
[Removed(track_id=2, label='eel', at=9.0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scorer.cards import CARD_BACK
from vision.detections import LABEL, SEAT, STATE, TRACK_ID, Detections
from vision.live.tracker import CardState

#: The states of a card that lies on the table (in sight or not).
ON_TABLE = frozenset({CardState.LYING, CardState.COVERED, CardState.HIDDEN})


@dataclass(frozen=True)
class Snapshot:
    """One tracked card in one frame: its id, name, :class:`CardState` and seat (-1: none yet)."""

    track_id: int
    label: str
    state: CardState
    seat: int = -1


@dataclass(frozen=True)
class Laid:
    track_id: int
    label: str
    seat: int
    at: float


@dataclass(frozen=True)
class Renamed:
    track_id: int
    before: str
    label: str
    at: float


@dataclass(frozen=True)
class Flipped:
    track_id: int
    label: str
    face_up: bool  # True: revealed (it was face down); False: turned face down
    at: float


@dataclass(frozen=True)
class Removed:
    track_id: int
    label: str
    at: float


CardEvent = Laid | Renamed | Flipped | Removed


# --- what the card history (``vision.live.history.CardHistory.update``) tells the turn reader --


@dataclass(frozen=True)
class SeenAgain:
    """A new track is the card ``card_id`` already known, seen again, by the named ``rule``
    (one of ``history.SEEN_AGAIN``, or ``piece-place``)."""

    track_id: int
    card_id: int
    rule: str
    at: float


@dataclass(frozen=True)
class Covered:
    """The card ``card_id`` went out of sight under the card ``by`` laid over it: still on the table."""

    card_id: int
    by: int
    at: float


@dataclass(frozen=True)
class Left:
    """The card ``card_id`` is out of sight for good since ``at`` (its last sighting), with no
    card over it: off the table, or never a card (a glimpse, a misread)."""

    card_id: int
    at: float


@dataclass(frozen=True)
class TurnedDown:
    """The card ``card_id``, revealed this round and lying on the table, lies face down since
    ``at``, settled so: turned over by a take-out box (a card the rules take off the table as
    it scores is no such card)."""

    card_id: int
    at: float


@dataclass(frozen=True)
class Folded:
    """The card ``card_id`` is no card of its own but a box of the card ``into`` (a second box,
    a piece, a strip, the card under a second name), by the named ``rule``: its record is
    dropped, and its track stands for ``into`` from now on."""

    card_id: int
    into: int
    rule: str
    at: float


@dataclass(frozen=True)
class Split:
    """The track of the card ``card_id`` follows a card laid over it from now on, by the named
    ``rule``: the card that was ``card_id`` lies beneath, as ``beneath`` (an id no track
    follows), and keeps what it is to the game; ``card_id`` is the new card, laid at ``at``
    (when it came to lie there), pending."""

    card_id: int
    beneath: int
    rule: str
    at: float


@dataclass(frozen=True)
class GivenBack:
    """The played card ``card_id``, boxed again where it lay by the track of ``laid``, follows
    that track from now on; ``laid`` is the card a hand laid past it, which the card's own
    track had gone over to, read as ``label``, pending (rule ``rule``)."""

    card_id: int
    laid: int
    label: str
    rule: str
    at: float


@dataclass(frozen=True)
class Forgotten:
    """The card ``card_id`` is dropped from the history, by the named ``rule``: never a card of
    the game (seen too briefly), or gone from the table with its round."""

    card_id: int
    rule: str
    at: float


HistoryEvent = SeenAgain | Covered | Left | TurnedDown | Folded | Split | GivenBack | Forgotten


def snapshot(tracked: Detections) -> dict[int, Snapshot]:
    """The tracker's output of one frame as a :class:`Snapshot` per track id."""
    ids = [int(i) for i in tracked.data[TRACK_ID]]
    labels = [str(x) for x in tracked.data[LABEL]]
    states = [CardState(str(s)) for s in tracked.data.get(STATE, [CardState.LYING] * len(ids))]
    seats = [int(s) for s in tracked.data.get(SEAT, [-1] * len(ids))]
    return {i: Snapshot(i, lab, st, seat) for i, lab, st, seat in zip(ids, labels, states, seats, strict=True)}


def _card_step(old: Snapshot | None, new: Snapshot, now: float) -> list[CardEvent]:
    """What happened to one card still tracked between two frames."""
    if new.state not in ON_TABLE:
        return []
    if old is None or old.state not in ON_TABLE:
        return [Laid(new.track_id, new.label, new.seat, now)]
    if old.label == new.label:
        return []
    if CARD_BACK in (old.label, new.label):
        return [Flipped(new.track_id, new.label, old.label == CARD_BACK, now)]
    return [Renamed(new.track_id, old.label, new.label, now)]


def step(before: Mapping[int, Snapshot], after: Mapping[int, Snapshot], now: float) -> list[CardEvent]:
    """The events between two successive frames' snapshots, by track id: laid, renamed and
    flipped cards in the order of their ids, then the cards removed."""
    events: list[CardEvent] = []
    for track_id in sorted(after):
        events += _card_step(before.get(track_id), after[track_id], now)
    for track_id in sorted(set(before) - set(after)):
        old = before[track_id]
        if old.state in ON_TABLE:
            events.append(Removed(track_id, old.label, now))
    return events
