"""Turn the tracked cards of a live table into the per-turn log the scorer replays.

:class:`TurnDetector` ``.update(tracked, timestamp) -> list[LiveEvent]`` watches the cards
that :class:`~vision.live.tracker.CardTracker` and :class:`~vision.live.tracker.SeatMemory` follow
(``data[TRACK_ID]``, ``data[LABEL]``, ``data[SEAT]``, ``data[VISIBLE]``,
``data[LABEL_SINCE]``) and reads the game from what appears and goes:

- a **turn**: every seat has laid at least one new card, face up and named the same for
  ``settle_s``, and nothing new has happened for ``quiet_s`` (a card gone again within
  ``seen_s`` was a hand or a misread, not a card; one in sight under ``glimpse_s``, gone
  since, is no card of any turn) (players reveal together; a card
  laid face down first waits for its reveal). Two new cards at one seat: chopsticks or spoon.
  Turns are told apart by the table going still, not by a pace: once nothing new has happened
  for ``still_s``, the cards laid make a turn even if a seat has none in it (its card unseen,
  or late). Such a seat's card that shows later joins that turn: laid while the others wait
  (only seats missing from the last turn have new cards), or found with the next turn's cards
  as one card too many for that seat. A card that joined it while the others waited goes to
  the next turn if that turn would be read without its seat: it was that turn's first card
  (the seat's card of the turn before was lost, e.g. misread), so a lost card costs one turn.
  A seat's cards are taken in the order laid: a card first seen as the strip the next card
  of its column leaves of it (never boxed whole) was laid before that card. A box that came
  with a seat's card, beyond what it may lay at once, is a **stray**, no card of its next
  turn: players take their next card only once every player has revealed.
- a **special order** names the card it lies on: ``"special-order:<slug>"``.
- a card that **goes** after it was revealed: chopsticks or a spoon going back to a hand
  (``chopsticks-used``/``spoon-used``, put on the turn that seat played two cards); uramaki
  scored and miso soups played together need nothing (the scorer replays those rules); a
  card turned **face down** is a take-out box flip (``takeout-flip``).
- a revealed card **re-read**: read under another name in ``reread_share`` of the sightings of
  the last ``reread_s`` in which it lay whole and uncovered, and twice as often as under its
  logged name since its reveal (e.g. misread as a hand laid it, named right once still): the
  log takes that name (a ``"turn-amended"`` event, with a note),
  and a special order lying on it copies that name. A card a newer one of its seat lies on
  shows a strip, often misread: it keeps its name.
- **round end**: every card revealed in the round, desserts aside, has left the table.

The log is :attr:`TurnDetector.rounds` (``{"turns": [...]}`` per round, see
``docs/turn-log.md``) and :meth:`TurnDetector.record` makes the whole game record.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from scorer.cards import (
    CARD_BACK,
    NEVER_COPIED,
    RETURNS_TO_HAND,
    SPECIAL_ORDER,
    is_dessert,
    leaves_by_rule,
    stays_all_round,
)
from scorer.errors import RecordError
from scorer.turns import Turn, TurnLog, replay
from scorer.turns import TurnEvent as LogEvent
from vision.boxes import area as _area
from vision.boxes import intersection as _intersection
from vision.boxes import iou as _iou
from vision.detections import FIRST_SEEN, LABEL_SINCE, SEAT, TRACK_ID, VISIBLE, Detections
from vision.live.notes import LiveNote, NoteCause
from vision.live.tuning import TurnTuning


class Status(StrEnum):
    """What a card seen on the table is to the game."""

    PENDING = "pending"  # laid since the last turn, in no turn yet
    PLAYED = "played"  # revealed in a turn, on the table
    GONE = "gone"  # revealed in a turn, gone from the table
    STRAY = "stray"  # a box of no card (see ``TurnDetector._strays``), never played


class EventKind(StrEnum):
    """What the game did (:class:`LiveEvent`)."""

    TURN = "turn"  # a new turn read
    AMENDED = "turn-amended"  # an earlier turn gained an event or a better read card
    ROUND_END = "round-end"  # the round ended


# a card's move: when it began to lie elsewhere, where it lay before, where it came to lie
_Move = tuple[float, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class LiveEvent:
    """Something the game did (:class:`EventKind`): a new turn (``turn`` holds it), an earlier
    turn amended, the round's end. ``round`` and ``index`` count from 0. (The log's own in-turn
    events are ``scorer.turns.LiveEvent``.)
    """

    kind: EventKind
    round: int
    index: int
    timestamp: float
    turn: Turn | None = None

    def __str__(self) -> str:
        what = {EventKind.TURN: "turn", EventKind.AMENDED: "amended turn", EventKind.ROUND_END: "end of round"}[self.kind]
        at = f"round {self.round + 1}" + (f", {what} {self.index + 1}" if self.turn else f": {what}")
        return at if self.turn is None else f"{at}: {self.turn.to_json()}"


@dataclass
class _Card:
    track_id: int
    seat: int
    first_seen: float
    last_seen: float
    label: str
    label_since: float
    box: np.ndarray
    full_box: np.ndarray
    face: str = ""  # the last settled face-up name
    status: Status = Status.PENDING
    round: int = -1
    turn: int = -1
    gone_at: float | None = None
    flipped: bool = False
    text: str = ""  # what the log says it was revealed as
    covered_by: int | None = None  # the card laid over it when it went out of sight
    joined_alone: bool = False  # put on the turn before as its seat's late card, laid alone
    # (time, name) of each sighting since its reveal in which it lay whole, uncovered
    whole_reads: list[tuple[float, str]] = field(default_factory=list)
    whole_counts: dict[str, int] = field(default_factory=dict)  # all such sightings, per name
    # the areas of its last boxes in sight: its usual size (``full_box`` is its largest box,
    # which can hold the hand that laid it)
    areas: deque[float] = field(default_factory=lambda: deque(maxlen=60))
    # when the tracker first boxed it (``first_seen`` is when the game first had it: a card
    # lying there before the seats were learned, or before the recogniser was sure of it,
    # comes to the game late, in one frame with others)
    boxed_at: float = math.inf
    # where it lay whole, still (its last such box), and its last move since its reveal: (when
    # it began to lie elsewhere, where it lay before, where it came to lie)
    rest: np.ndarray | None = None
    moving: tuple[float, np.ndarray] | None = None
    moved: _Move | None = None
    kept_at: float = -math.inf  # when a box of its usual size last lay about where it lay

    def size(self) -> float:
        """Its usual area in the picture: the median of its last boxes in sight."""
        return float(np.median(self.areas)) if self.areas else _area(self.full_box)

    def settled(self, now: float, settle_s: float) -> bool:
        """Face up and named the same for ``settle_s`` (while it was seen)."""
        until = now if self.gone_at is None else self.gone_at
        return self.label != CARD_BACK and until - self.label_since >= settle_s


class _Next:
    """A rule that does not apply: the next rule decides."""


NEXT = _Next()
_Verdict = float | None | _Next
_Memo = dict[str, dict[str, int]]

#: The rules that say whether a new track is a card already known, seen again, in the order
#: they are tried (each a ``TurnDetector._again_<name>`` method): the first that applies decides.
SEEN_AGAIN = ("stray-place", "turned-over", "renamed-in-place", "whole-in-place", "strip-or-lost")


@dataclass(frozen=True)
class Decision:
    """Which rule decided what the reader made of a track: ``track_id`` (the tracker's) is the
    card ``card_id`` of the game, at ``at`` (:attr:`TurnDetector.trace`)."""

    rule: str
    track_id: int
    card_id: int
    at: float


@dataclass(frozen=True)
class _Held:
    """An in-turn event waiting for its turn: it belongs to a turn after ``after``."""

    seat: int
    when: float
    event: LogEvent
    after: int
    order: tuple = ()  # where a flipped card was in the order of play


@dataclass
class _TurnRecord:
    start: float
    cards: dict[int, list[int]]  # seat -> track ids in reveal order
    read_at: float = -math.inf  # when the turn was read
    events: list[LogEvent] = field(default_factory=list)  # tools going back to a hand
    flips: dict[int, list[tuple[tuple, str]]] = field(default_factory=dict)  # seat -> (order, card)

    def add(self, held: _Held) -> None:
        if held.event.event == "takeout-flip":
            self.flips.setdefault(held.seat, []).append((held.order, held.event.cards[0]))
        else:
            self.events.append(held.event)


@dataclass
class TurnDetector:
    """Read turns, in-turn events and round ends from tracked, seated cards.

    ``players`` are the names in seat order (seat 0 first, as :class:`SeatMemory` numbers
    them); ``edition`` names the rules the log is checked against.
    """

    players: Sequence[str]
    edition: str = "party"
    tuning: TurnTuning = field(default_factory=TurnTuning)
    _cards: dict[int, _Card] = field(default_factory=dict, init=False, repr=False)
    _rounds: list[list[_TurnRecord]] = field(default_factory=lambda: [[]], init=False, repr=False)
    _finished: list[TurnLog] = field(default_factory=list, init=False, repr=False)
    _held: list[_Held] = field(default_factory=list, init=False, repr=False)
    _alias: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    # where the pieces folded into a card were boxed (by the card's id; see :meth:`_fold`)
    _pieces: dict[int, list[np.ndarray]] = field(default_factory=dict, init=False, repr=False)
    _source: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _next_hidden: int = field(default=0, init=False, repr=False)  # ids for cards no track follows (below 0)
    _fixed: dict[tuple[int, int], Turn] = field(default_factory=dict, init=False, repr=False)
    notes: list[LiveNote] = field(default_factory=list, init=False)  # what it made of the table
    #: the last decisions of the named rules, newest last (see :class:`Decision`)
    trace: deque[Decision] = field(default_factory=lambda: deque(maxlen=500), init=False, repr=False)
    _now: float = field(default=-math.inf, init=False, repr=False)  # the last frame's time

    def __post_init__(self) -> None:
        self.players = tuple(self.players)
        if not self.players:
            raise ValueError("a live game needs the players' names in seat order")
        if len(set(self.players)) != len(self.players):
            raise ValueError("player names must differ")

    # --- the log ---------------------------------------------------------------------------

    @property
    def round_index(self) -> int:
        return len(self._finished)

    @property
    def rounds(self) -> list[dict]:
        """Every round so far as ``{"turns": [...]}`` (the current one last, once it has a turn)."""
        logs = [*self._finished, self._log(self.round_index)]
        return [{"turns": log.to_json()} for log in logs if log.turns]

    def record(self, **extra) -> dict:
        """The game record so far (``edition``, ``players``, ``rounds``), for ``score_record``."""
        return {"edition": self.edition, "players": list(self.players), "rounds": self.rounds, **extra}

    def turn(self, round_index: int, index: int) -> Turn:
        if round_index < len(self._finished):
            return self._finished[round_index].turns[index]
        return self._turn(round_index, index)

    def pending(self) -> dict[str, list[str]]:
        """Per player, the cards laid since the last turn (face down shows as ``card-back``)."""
        out: dict[str, list[str]] = {p: [] for p in self.players}
        for card in sorted(self._cards.values(), key=lambda c: c.first_seen):
            if card.status == Status.PENDING and 0 <= card.seat < len(self.players):
                out[self.players[card.seat]].append(card.label)
        return out

    def card_states(self) -> dict[int, dict]:
        """What each tracked card is to the game now (by the id the tracker gave it)."""
        out = {}
        for track_id, card in self._cards.items():
            out[track_id] = {"status": card.status, "round": card.round, "turn": card.turn,
                             "text": card.text or card.label, "flipped": card.flipped}
        for alias, original in self._alias.items():
            if original in out:
                out[alias] = out[original]
        return out

    def _log(self, round_index: int) -> TurnLog:
        return TurnLog(tuple(self._turn(round_index, i) for i in range(len(self._rounds[round_index]))))

    def fix_turn(self, round_index: int, index: int, value: object) -> Turn:
        """A player's correction of a turn read (``{"reveals": ..., "events": ...}``, as in
        ``docs/turn-log.md``): it replaces what was read, for good. The round with it must
        still be one the rules allow, else :class:`~scorer.errors.RecordError` says why."""
        if not 0 <= round_index < len(self._rounds) or not 0 <= index < len(self._rounds[round_index]):
            raise RecordError(f"round {round_index + 1}, turn {index + 1}", "no such turn read yet")
        turns: list[object] = [self.turn(round_index, i).to_json() for i in range(len(self._rounds[round_index]))]
        turns[index] = value
        log = TurnLog.from_json(turns, self.players, self.edition, f"round {round_index + 1}")
        replay(log, self.players, self.edition)  # the rules must allow the round with it
        self._fixed[(round_index, index)] = log.turns[index]
        if round_index < len(self._finished):
            self._finished[round_index] = log
        return log.turns[index]

    def reseat(self, seats: dict[int, int]) -> None:
        """Cards (by track id) the seats now give another seat: they are that player's, in the
        turns of this round already read too (a finished round, or a turn a player fixed,
        stays as it is). A track that is a card seen again (its alias) does not move it."""
        for track_id, seat in seats.items():
            card = self._cards.get(track_id)
            if card is None or card.seat == seat:
                continue
            for record in self._rounds[self.round_index]:
                if card.track_id in record.cards.get(card.seat, []):
                    record.cards[card.seat].remove(card.track_id)
                    if not record.cards[card.seat]:
                        del record.cards[card.seat]
                    mine = [*record.cards.get(seat, []), card.track_id]
                    record.cards[seat] = sorted(mine, key=lambda i: (self._cards[i].first_seen, i))
            card.seat = seat

    def _turn(self, round_index: int, index: int) -> Turn:
        if (round_index, index) in self._fixed:
            return self._fixed[(round_index, index)]
        record = self._rounds[round_index][index]
        reveals = tuple(
            (self.players[seat], tuple(self._cards[i].text for i in record.cards[seat]))
            for seat in range(len(self.players)) if record.cards.get(seat)
        )
        # one take-out box turns a player's cards over at once: one event, cards in play order
        flips = tuple(
            LogEvent(self.players[seat], "takeout-flip", tuple(text for _, text in sorted(record.flips[seat])))
            for seat in sorted(record.flips)
        )
        return Turn(reveals, (*record.events, *flips))

    # --- the end of the picture -------------------------------------------------------------

    def finish(self, timestamp: float | None = None) -> list[LiveEvent]:
        """The table is seen no more (the film or the camera ended, the players end the
        round): the cards laid since the last turn make their turn now, as last seen.

        A turn is otherwise read only once the table has lain still a while after its last
        card (``quiet_s``, ``still_s``): cards laid just before the picture ends would never
        make their turn. Cards seen too briefly to be cards, and cards still face down, stay
        out of it as they would have. ``timestamp``: when (default: the last frame's time)."""
        now = self._now if timestamp is None else max(float(timestamp), self._now)
        events: list[LiveEvent] = []
        while True:  # a pending turn, then any next one the cards laid already make
            emitted = self._emit(now, closing=True)
            events += emitted
            if not any(e.kind == EventKind.TURN for e in emitted):
                return events

    def end_round(self, timestamp: float | None = None) -> list[LiveEvent]:
        """The players end the round (the table is not cleared yet, or the clear-up went
        unseen): the turn in play closes (:meth:`finish`), then the round. Cards of it still
        on the table stay its cards; a new card laid is the next round's. A box still
        pending in no turn is left out (a stray: never played)."""
        events = self.finish(timestamp)
        now = self._now if timestamp is None else max(float(timestamp), self._now)
        if not self._rounds[self.round_index]:
            return events
        left = [c for c in self._cards.values() if c.status == Status.PENDING]
        for card in left:
            card.status, card.round = Status.STRAY, self.round_index
        if left:
            self.notes.append(LiveNote(NoteCause.LEFT_AT_ROUND_END, self.round_index, count=len(left)))
        return [*events, *self._close_round(now)]

    # --- one frame -------------------------------------------------------------------------

    def update(self, tracked: Detections, timestamp: float) -> list[LiveEvent]:
        now = float(timestamp)
        self._now = max(self._now, now)
        events: list[LiveEvent] = []
        present = self._observe(tracked, now)
        events += self._vanished(present, now)
        events += self._relabelled(now)
        events += self._round_end(now)
        events += self._emit(now)
        return events

    def _observe(self, tracked: Detections, now: float) -> set[int]:
        ids = [int(i) for i in tracked.data[TRACK_ID]]
        seats = tracked.data.get(SEAT, np.full(len(ids), -1))
        labels = tracked.labels
        since = tracked.data.get(LABEL_SINCE, np.full(len(ids), now))
        boxed = tracked.data.get(FIRST_SEEN, np.full(len(ids), now))
        visible = tracked.data.get(VISIBLE, np.ones(len(ids), bool))
        in_sight = {self._alias.get(i, i) for i, v in zip(ids, visible, strict=True) if v}
        present = set()
        for k, raw_id in enumerate(ids):
            card_id = self._alias.get(raw_id, raw_id)
            if self._source.get(card_id, card_id) != raw_id:
                continue  # an old track of a card now followed under a new one
            box = np.asarray(tracked.xyxy[k], float)
            card = self._cards.get(card_id)
            if card is None and (owner := self._piece_again(box, int(seats[k]))) is not None:
                # boxed right where a piece of a played card was boxed before: that piece again
                self._alias[raw_id] = owner.track_id
                self.trace.append(Decision("piece-place", raw_id, owner.track_id, now))
                continue
            if card is None:
                card = self._same_card(raw_id, labels[k], int(seats[k]), box, in_sight, now)
                if card is not None:
                    card.label_since = max(float(since[k]), card.label_since)
            if card is None:
                card = _Card(raw_id, int(seats[k]), now, now, labels[k], float(since[k]), box, box.copy(),
                             boxed_at=float(boxed[k]))
                self._cards[raw_id] = card
            present.add(card.track_id)
            if card.seat < 0 <= int(seats[k]):
                card.seat = int(seats[k])
            if labels[k] != card.label:
                card.label, card.label_since = labels[k], max(float(since[k]), card.label_since)
            if bool(visible[k]):
                card.last_seen = now
                card.box = box
                if _area(box) > _area(card.full_box):
                    card.full_box = box.copy()
                card.areas.append(_area(box))
            if card.label != CARD_BACK and card.settled(now, self.tuning.settle_s):
                card.face = card.label
            if bool(visible[k]) and card.status == Status.PLAYED and not card.flipped:
                self._note_reading(card, box, now)
                self._note_place(card, box, now)
        return present

    def _note_reading(self, card: _Card, box: np.ndarray, now: float) -> None:
        """Keep the name a revealed card is read under while it lies whole in sight: only such
        readings may correct its reveal. A card a newer one of its seat lies on (the next of
        a column, a nigiri on its wasabi, a special order on its copy) shows a strip, often
        misread; those readings are not kept."""
        area = _area(card.full_box)
        whole = _area(box) >= self.tuning.whole_share * area and not any(
            o is not card and o.seat == card.seat and o.first_seen > card.first_seen and o.gone_at is None
            and o.status != Status.GONE and _intersection(card.full_box, o.box) >= self.tuning.over_share * area
            for o in self._cards.values())
        if whole:
            card.whole_reads.append((now, card.label))
            card.whole_counts[card.label] = card.whole_counts.get(card.label, 0) + 1
        card.whole_reads = [r for r in card.whole_reads if now - r[0] <= self.tuning.reread_s]

    def _note_place(self, card: _Card, box: np.ndarray, now: float) -> None:
        """Follow where a revealed card lies whole: a box of its usual size about where it lay
        (``moved_iou``; a still card's box varies by a few pixels, and by a dozen when boxed
        with a hand beside it) keeps its place; one lying elsewhere for ``settle_s`` is a move
        (see :meth:`_laid_over_alike`), and so is one lying still about where it lay, come
        back after the card was out of sight (:meth:`_back_off_place`).

        Its place follows only boxes right where it lay (``same_place_iou``: a box that
        shakes, a camera drifting). Boxes about where it lay, the hand's, pass it by: each of
        them overlapping the one before, they led the place step by step onto the card laid
        over it, and the move of the card beneath, uncovered, would go unseen."""
        size = card.size()
        if not self.tuning.whole_share * size <= _area(box) <= self.tuning.with_hand * size:
            return  # a strip of it, or boxed with a hand
        if card.rest is None:
            card.rest, card.moving, card.kept_at = box.copy(), None, now
            return
        overlap = _iou(card.rest, box)
        if overlap >= self.tuning.same_place_iou:
            card.rest, card.moving, card.kept_at = box.copy(), None, now
        elif overlap >= self.tuning.moved_iou and not self._back_off_place(card, box, now):
            card.moving, card.kept_at = None, now  # about where it lay (a hand's box beside it)
        elif card.moving is None or _iou(card.moving[1], box) < self.tuning.moved_iou:
            card.moving = (now, box.copy())
        elif now - card.moving[0] >= self.tuning.settle_s:
            card.moved = (card.moving[0], card.rest, box.copy())
            card.rest, card.moving, card.kept_at = box.copy(), None, now

    def _back_off_place(self, card: _Card, box: np.ndarray, now: float) -> bool:
        """Whether ``box``, about where ``card`` lay, is where it came to lie after it was out
        of sight (no box of its usual size about its place for ``hidden_s``: under the hand
        laying a card on it), or lies right where such a box lay since: a card of its name laid
        a few pixels off it, its track gone over to the new card.

        Why: a card of its name laid a few pixels off it hides it under the hand for a moment;
        the box that comes back, the new card's, lies still mostly over its place, and with no
        move seen the new card would never be counted. A box that merely changes at one edge
        while the card is in sight (a few pixels short for a few frames) is no such return."""
        if card.moving is not None:  # lying still where such a box came back?
            return card.moving[0] - card.kept_at >= self.tuning.hidden_s and _iou(card.moving[1], box) >= self.tuning.same_place_iou
        return now - card.kept_at >= self.tuning.hidden_s

    def _same_card(self, raw_id: int, label: str, seat: int, box: np.ndarray,
                   in_sight: set[int], now: float) -> _Card | None:
        """A new track that is a card the game already knows, seen again: the card of its seat
        out of sight that the rules of :data:`SEEN_AGAIN` score best (see :meth:`_seen_again`);
        the rule that decided goes to :attr:`TurnDetector.trace`."""
        best, best_score, best_rule = None, -math.inf, ""
        memo: dict[str, dict[str, int]] = {}
        for card in self._cards.values():
            if card.seat != seat or card.track_id in in_sight:
                continue
            rule, score = self._seen_again(card, label, box, now, memo)
            # (a place a stray lay in wins outright; the last such stray)
            if score is not None and (score > best_score or score == math.inf):
                best, best_score, best_rule = card, score, rule
        if best is None:
            return None
        self.trace.append(Decision(best_rule, raw_id, best.track_id, now))
        if best.status == Status.GONE or best.covered_by is not None:
            best.status, best.gone_at, best.covered_by = Status.PLAYED, None, None
        self._alias[raw_id] = best.track_id
        self._source[best.track_id] = raw_id
        return best

    def _seen_again(self, card: _Card, label: str, box: np.ndarray, now: float,
                    memo: dict[str, dict[str, int]]) -> tuple[str, float | None]:
        """How well a new track's ``box`` named ``label`` is ``card`` seen again (None: it is
        not), and the rule that said so: the rules of :data:`SEEN_AGAIN`, in order; the first
        that applies decides. ``memo`` keeps what the rules replayed say lies on the seat's
        table, once per frame."""
        for name in SEEN_AGAIN:
            verdict = getattr(self, "_again_" + name.replace("-", "_"))(card, label, box, now, memo)
            if verdict is not NEXT:
                return name, verdict
        return "", None

    def _again_stray_place(self, card: _Card, label: str, box: np.ndarray, now: float, memo: _Memo) -> _Verdict:
        """Boxed again right where a stray lay (a pattern of the cloth comes and goes): that stray."""
        if card.status != Status.STRAY:
            return NEXT
        return math.inf if _iou(card.full_box, box) >= self.tuning.same_place_iou else None

    def _again_turned_over(self, card: _Card, label: str, box: np.ndarray, now: float, memo: _Memo) -> _Verdict:
        """Turned over where it lay (a card revealed, or flipped by a take-out box) while the
        tracker lost it: one of the two names the card back, within ``flip_s`` of its last
        sighting; turned up about where it lay, turned down exactly there."""
        if (card.status == Status.GONE or CARD_BACK not in (card.label, label) or card.label == label
                or now - card.last_seen > self.tuning.flip_s):
            return NEXT
        overlap = _iou(card.box, box)
        needed = self.tuning.turned_up_iou if card.label == CARD_BACK else self.tuning.turned_down_iou
        return overlap if overlap >= needed else None

    def _again_renamed_in_place(self, card: _Card, label: str, box: np.ndarray, now: float,
                                memo: _Memo) -> _Verdict:
        """Read under another name right where a played card went out of sight, within
        ``flip_s``: the recogniser changed its mind (a card laid on it lies a strip off it, and a
        card the rules keep on the table does not leave it mid-round); its turn is amended once
        the new name settles."""
        if (card.status == Status.PLAYED and card.round == self.round_index and CARD_BACK not in (card.label, label)
                and card.label != label and stays_all_round(card.face)
                and now - card.last_seen <= self.tuning.flip_s and _iou(card.box, box) >= self.tuning.same_place_iou):
            return _iou(card.box, box)
        return NEXT

    def _again_whole_in_place(self, card: _Card, label: str, box: np.ndarray, now: float, memo: _Memo) -> _Verdict:
        """Boxed whole under its name right where a played card of this round lay whole, out of
        sight under its track: the tracker's track of it went over to a piece of it and lost it
        there (seen whole again seconds later, it is no new card). Not a card another card still
        lies on: it cannot show whole where it lay, and a box of its name there is the next card
        of its column passing over it in a hand, on its way to the column's end."""
        if (card.status == Status.PLAYED and card.round == self.round_index and card.face == label
                and _iou(card.full_box, box) >= self.tuning.same_place_iou and not self._under_a_card(card)):
            return _iou(card.full_box, box)
        return NEXT

    def _again_strip_or_lost(self, card: _Card, label: str, box: np.ndarray, now: float, memo: _Memo) -> _Verdict:
        """A strip of a card still played, found again after a hand laid a card on it; or a card
        lost from sight (gone, or covered) back near where it went (a column straightened, a hand
        that stayed long), when the rules replayed so far say it is still on the table: the
        nearer the better, within ``reid_distance`` of its lengths."""
        if not self._strip_of(card, label, box) and not self._may_come_back(card, label, box, memo):
            return None
        size = max(card.full_box[2] - card.full_box[0], card.full_box[3] - card.full_box[1], 1.0)
        d = float(np.linalg.norm((box[:2] + box[2:]) / 2 - (card.full_box[:2] + card.full_box[2:]) / 2)) / size
        return -d if d <= self.tuning.reid_distance else None

    def _may_come_back(self, card: _Card, label: str, box: np.ndarray, memo: _Memo) -> bool:
        """Whether ``card``, lost from sight, may be what ``box`` shows (see :meth:`_again_strip_or_lost`)."""
        lost = card.status == Status.GONE or card.covered_by is not None
        kept_dessert = card.round < self.round_index and is_dessert(card.face)
        if not lost or (card.round != self.round_index and not kept_dessert) or card.face != label:
            return False
        if card.face in RETURNS_TO_HAND:
            return False  # tools leave for a hand; their event is already on the log
        lain_over = card.covered_by is None and self._lain_over(card)
        if kept_dessert or card.covered_by is not None or lain_over:
            # a covered card seen again shows a strip of itself, within where it lay; a
            # dessert kept from an earlier round, seen again, lies where it lay (a new
            # one laid on it only overlaps it). A box of its whole size, while the card
            # laid on it still lies there, is no strip of it: the next card of its column
            # passing over it in a hand, or laid at the column's end
            if (self._under_a_card(card) or lain_over) and _area(box) > self.tuning.part * card.size():
                return False
            within = self.tuning.dessert_within if kept_dessert and card.covered_by is None else self.tuning.strip_within
            return _intersection(card.full_box, box) >= within * _area(box)
        if "expected" not in memo:
            memo["expected"] = self._expected_on_table(card.seat)
        here = sum(1 for c in self._cards.values() if c.seat == card.seat and c.status == Status.PLAYED
                   and c.round == self.round_index and c.face == label and not c.flipped)
        # else the rules took it off the table (miso soups, scored uramaki...)
        return memo["expected"].get(label, 0) > here

    def _strip_of(self, card: _Card, label: str, box: np.ndarray) -> bool:
        """Whether ``box`` is a strip of ``card``: a card of this round, same name, and a box
        of at most half its size lying mostly within where it lay. A card laid on another shows
        whole; the one beneath shrinks to its strip, which a hand passing over it can make the
        tracker lose and find again as a new track."""
        if card.status != Status.PLAYED or card.round != self.round_index or card.face != label:
            return False
        return (_area(box) <= self.tuning.strip_size * _area(card.full_box)
                and _intersection(card.full_box, box) >= self.tuning.strip_inside * _area(box))

    def _expected_on_table(self, seat: int) -> dict[str, int]:
        """How many of each face the rules leave in front of ``seat`` after this round's turns."""
        try:
            result = replay(self._log(self.round_index), self.players, self.edition)
        except RecordError:
            return {}
        out: dict[str, int] = {}
        for played in result.tableaux[self.players[seat]].cards:
            out[played.printed] = out.get(played.printed, 0) + 1
        return out

    def _vanished(self, present: set[int], now: float) -> list[LiveEvent]:
        events = []
        for card in list(self._cards.values()):
            if card.track_id in present:
                card.covered_by = None
                continue
            if card.status == Status.GONE or card.gone_at is not None:
                continue
            if card.covered_by is not None:
                cover = self._cards.get(card.covered_by)
                if cover is not None and cover.status != Status.GONE and cover.gone_at is None:
                    continue  # still under the card laid on it
                # the card on it left the table (a column cleared away): so did this one
                card.last_seen = cover.gone_at if cover is not None and cover.gone_at else card.last_seen
            elif card.status == Status.PLAYED and (cover := self._covering(card)) is not None:
                card.covered_by = cover.track_id
                continue
            card.gone_at = card.last_seen
            if card.status == Status.STRAY:
                continue  # kept: boxed there again, it is the same stray (:meth:`_same_card`)
            if card.status == Status.PENDING:
                if not card.settled(now, self.tuning.settle_s) or card.last_seen - card.first_seen < self.tuning.seen_s:
                    # never a card of the game: a misread, a hand reaching over the table
                    del self._cards[card.track_id]
                continue
            card.status = Status.GONE
            tool_event = RETURNS_TO_HAND.get(card.face)
            if tool_event and card.round == self.round_index:
                event = LogEvent(self.players[card.seat], tool_event)
                events += self._attach(_Held(card.seat, card.last_seen, event, card.turn))
        return events

    def _under_a_card(self, card: _Card) -> bool:
        """Whether a card laid over ``card`` as it went out of sight still lies on the table."""
        cover = self._cards.get(card.covered_by) if card.covered_by is not None else None
        return cover is not None and cover.status != Status.GONE and cover.gone_at is None

    def _lain_over(self, card: _Card) -> bool:
        """Whether a card of ``card``'s seat laid after it, still played, lies over its place
        (``cover_share`` of where it lay whole): ``card`` lies beneath it, whether or not its
        going out of sight was seen as that card's laying (a strip misread under another name
        goes out of sight long after the card over it came).

        Why: such a card can show only the strip the card over it leaves; a whole box of its
        name at the end of its column is the next card laid there, not it found again."""
        area = max(_area(card.full_box), 1e-9)
        return any(o is not card and o.seat == card.seat and o.round == card.round and o.status == Status.PLAYED
                   and o.gone_at is None and o.first_seen > card.first_seen
                   and _intersection(card.full_box, o.full_box) >= self.tuning.cover_share * area
                   for o in self._cards.values())

    def _covering(self, card: _Card) -> _Card | None:
        """The newer card of the same seat laid over ``card`` as it went out of sight.

        A covered card may leave only a thin strip in sight, or none, and a recogniser may lose
        it: a nigiri on its wasabi, the next card of a column. It is still on the table.
        """
        best, best_share = None, self.tuning.cover_share
        area = max(_area(card.full_box), 1e-9)
        for other in self._cards.values():
            # laid over it as it went out of sight, not long before or after
            laid = other.first_seen
            if (other is card or other.seat != card.seat or other.status == Status.GONE
                    or other.gone_at is not None or laid <= card.first_seen
                    or not card.last_seen - self.tuning.quiet_s <= laid <= card.last_seen + self.tuning.settle_s + self.tuning.cover_late_s):
                continue
            inter = _intersection(card.full_box, other.full_box)
            if inter / area >= best_share:
                best, best_share = other, inter / area
        return best

    def _relabelled(self, now: float) -> list[LiveEvent]:
        """Revealed cards whose settled name changed: a take-out flip, or a better read."""
        events = []
        for card in self._cards.values():
            if card.status != Status.PLAYED or card.round != self.round_index:
                continue
            if now - card.label_since < self.tuning.settle_s or card.gone_at is not None:
                continue
            if card.label == CARD_BACK and not card.flipped and not leaves_by_rule(card.face):
                card.flipped = True
                flip = LogEvent(self.players[card.seat], "takeout-flip", (card.text,))
                order = (card.turn, card.first_seen, card.track_id)
                events += self._attach(_Held(card.seat, card.label_since, flip, card.turn, order))
            elif (not card.flipped and card.covered_by is None and (card.round, card.turn) not in self._fixed
                  and self._reread(card, now)):  # a player's fix stands
                # the vote settled on another name while the card lay whole: the reveal was
                # misread (under a hand, or read small), correct the log
                events += self._rename(card, now)
        return events

    def _reread(self, card: _Card, now: float) -> bool:
        """Whether the card, lying whole and uncovered, has been read for ``reread_s`` under a
        name other than the one the log gives it, in ``reread_share`` of those readings, and
        since its reveal twice as often as under the logged name: a card the recogniser reads
        under two names by turns (maki-2, maki-3) keeps the one it was revealed as."""
        reads, logged = card.whole_reads, card.text.split(":")[0]
        if card.label == CARD_BACK or card.label == logged or len(reads) < self.tuning.reread_reads:
            return False
        if card.whole_counts.get(card.label, 0) < self.tuning.reread_lead * card.whole_counts.get(logged, 0):
            return False
        if now - reads[0][0] < self.tuning.reread_span * self.tuning.reread_s:
            return False
        return sum(name == card.label for _, name in reads) >= self.tuning.reread_share * len(reads)

    def _rename(self, card: _Card, now: float) -> list[LiveEvent]:
        """Give a revealed card its re-read name in the log, with the special order that copies
        it; left as it was if the rules would not allow the round so read."""
        orders = [o for o in self._cards.values()
                  if o.face == SPECIAL_ORDER and o.status != Status.PENDING and o.round == card.round
                  and o.seat == card.seat and o is not card and self._copied_card(o) is card]
        before = {c.track_id: (c.face, c.text) for c in (card, *orders)}
        card.face = card.label
        card.whole_reads = []
        for c in (card, *orders):
            c.text = self._reveal_text(c)
        try:
            replay(self._log(card.round), self.players, self.edition)
        except RecordError:
            for c in (card, *orders):
                c.face, c.text = before[c.track_id]
            return []
        events = []
        for c in (card, *orders):
            old = before[c.track_id][1]
            if c.text != old:
                self.notes.append(LiveNote(NoteCause.REREAD, c.round, c.turn, (self.players[c.seat],), old, c.text))
                events.append(LiveEvent(EventKind.AMENDED, c.round, c.turn, now, self._turn(c.round, c.turn)))
        return events

    def _attach(self, held: _Held) -> list[LiveEvent]:
        """Put an in-turn event on the turn it belongs to, or hold it for that turn."""
        turns = self._rounds[self.round_index]
        fits = [i for i in range(held.after + 1, len(turns)) if self._fits(held, turns[i], i)]
        if not fits:
            self._held.append(held)
            return []
        index = min(fits, key=lambda i: abs(turns[i].start - held.when))
        turns[index].add(held)
        return [LiveEvent(EventKind.AMENDED, self.round_index, index, held.when,
                          self._turn(self.round_index, index))]

    def _fits(self, held: _Held, turn: _TurnRecord, index: int) -> bool:
        """A flip belongs to a turn its seat played a take-out box in; a tool going back to
        a hand, to a turn its seat played two cards in (and had not used that tool yet)."""
        cards = turn.cards.get(held.seat, [])
        if held.event.event == "takeout-flip":
            return any(self._cards[k].face == "takeout-box" for k in cards if k in self._cards)
        used = sum(e == held.event for e in turn.events)
        return len(cards) >= 2 + used

    def _round_end(self, now: float) -> list[LiveEvent]:
        """The round is over once every card that only a clear-up removes has gone.

        Desserts stay for the end of the game; cards the rules discard during the round
        (miso soups, scored uramaki, used tools) prove nothing: two miso soups in the
        first turn leave an empty table in the middle of a round.
        """
        turns = self._rounds[self.round_index]
        if not turns:
            return []
        mine = [c for c in self._cards.values() if c.round == self.round_index and c.status != Status.PENDING]
        lasting = [c for c in mine if not is_dessert(c.face) and stays_all_round(c.face)]
        if not lasting or any(c.status != Status.GONE for c in lasting):
            return []
        # cards seen for a moment and gone with the clear-up never made a whole turn
        leftovers = [c for c in self._cards.values() if c.status == Status.PENDING and c.gone_at is not None]
        for card in leftovers:
            del self._cards[card.track_id]
        if leftovers:
            self.notes.append(LiveNote(NoteCause.CLEAR_UP, self.round_index, count=len(leftovers)))
        return self._close_round(now)

    def _close_round(self, now: float) -> list[LiveEvent]:
        """End the round in play: in-turn events still held go on the turn they fit or are
        left out (with a note), the round's cards that left the table are forgotten."""
        turns = self._rounds[self.round_index]
        # (cards of a round the players ended while they still lay there went since)
        mine = [c for c in self._cards.values() if 0 <= c.round <= self.round_index and c.status != Status.PENDING]
        events: list[LiveEvent] = []
        for held in self._held:
            turns_after = range(held.after + 1, len(turns))
            if held.event.event == "takeout-flip" and turns_after:
                # the take-out box itself went unseen: the flip happened in the nearest turn
                index = min(turns_after, key=lambda i: abs(turns[i].start - held.when))
                turns[index].add(held)
                continue
            self.notes.append(LiveNote(NoteCause.EVENT_FITS_NO_TURN, self.round_index,
                                       players=(held.event.player,), event=held.event.event))
        self._held.clear()
        ended = LiveEvent(EventKind.ROUND_END, self.round_index, len(turns) - 1, now)
        self._finished.append(self._log(self.round_index))
        for card in mine:  # the round's cards that went are forgotten; desserts stay
            if card.status == Status.GONE and not is_dessert(card.face):
                del self._cards[card.track_id]
        self._alias = {a: o for a, o in self._alias.items() if o in self._cards}
        self._pieces = {o: places for o, places in self._pieces.items() if o in self._cards}
        self._source = {c: r for c, r in self._source.items() if c in self._cards}
        self._rounds.append([])
        return [*events, ended]

    def _ready(self, now: float, closing: bool) -> tuple[list[_Card], list[_Card]] | None:
        """The cards pending that may make a turn now, and those of them not settled yet; None
        while a card still being read holds the turn back, or the seats are not known yet."""
        pending = [c for c in self._cards.values() if c.status == Status.PENDING]
        if not pending:
            return None
        pending = self._tracks_given_back(pending, now)
        # a card face down or still being read holds the turn back while it is in sight
        # a face-down card holds the turn back while it lies there; a face-up card the
        # recogniser keeps naming differently does so for ``unsure_s`` at most, then counts
        # under its most-voted name
        unsure = [c for c in pending if not c.settled(now, self.tuning.settle_s)]
        waiting = [c for c in unsure
                   if c.label == CARD_BACK or (not closing and now - c.first_seen < self.tuning.unsure_s)]
        if not closing and any(now - c.last_seen <= self.tuning.quiet_s for c in waiting):
            return None
        # seen for a moment and out of sight since, while a card of the same seat that came with
        # it or after stays in sight: the card on its way in, read under another name (the
        # tracker lets go of it soon); not a card the player laid
        # (a card the rules take off the table at once, a scored uramaki, is no such card)
        passing, second_boxes = [], []
        for c in pending:
            if now - c.last_seen <= self.tuning.just_seen_s or c.last_seen - c.first_seen >= self.tuning.seen_s:
                continue
            known = self._second_name(c)
            if known is not None:
                second_boxes.append((c, known))
                passing.append(c)
            elif not leaves_by_rule(c.label) and any(
                    o is not c and o.seat == c.seat and o.first_seen >= c.first_seen
                    and o.last_seen > c.last_seen + self.tuning.just_seen_s for o in pending):
                passing.append(c)
        for box, known in second_boxes:
            # a box of a card already there, under another name: its track, if found again,
            # stands for that card
            self._fold(box, known)
        pending = [c for c in pending if c not in waiting and c not in passing]
        if not pending or any(not 0 <= c.seat < len(self.players) for c in pending):
            return None  # the seats are not known yet
        return pending, unsure

    def _emit(self, now: float, closing: bool = False) -> list[LiveEvent]:
        """The turn the cards laid make, once the table has lain still long enough.

        ``closing``: the table is seen no more (see :meth:`finish`): nothing will settle
        further, so the cards laid make their turn now, each under the name it was last read
        as; a card still face down was never revealed and is in no turn."""
        ready = self._ready(now, closing)
        if ready is None:
            return []
        pending, unsure = ready
        quiet_s, still_s = (0.0, 0.0) if closing else (self.tuning.quiet_s, self.tuning.still_s)

        def latest(cards: list[_Card]) -> float:
            return max(max(c.first_seen, c.label_since if c not in unsure else c.first_seen) for c in cards)

        # a card in sight for a moment only (``glimpse_s``: a card in a hand on its way in, a
        # misread under a hand) and out of sight since is no card of any turn: left for the
        # next turn, it would make one of its own with the other seats' glimpses (a turn after
        # the last). It is forgotten once the tracker lets go
        # of it. (A card the rules take off the table at once, a scored uramaki, is seen for a
        # moment only.)
        pending = [c for c in pending if c.last_seen - c.first_seen >= self.tuning.glimpse_s or now - c.last_seen <= self.tuning.just_seen_s
                   or leaves_by_rule(c.label)]
        if not pending:
            return []
        # a card seen a little longer, out of sight since (a misread under a hand), closes no
        # turn that lacks a seat, nor completes one: only a whole turn takes it
        sure = [c for c in pending if c.last_seen - c.first_seen >= self.tuning.seen_s or now - c.last_seen <= self.tuning.just_seen_s]
        late, alone = self._late(sure, now)
        events: list[LiveEvent] = []
        if late:
            # the last turn missed these seats' cards: they join it once the table is still
            if now - latest(pending) < quiet_s:
                return []
            events += self._join_last_turn(late, now, alone)
            pending = [c for c in pending if c not in late]
            if not pending:
                return events
        pending = self._one_turn(pending)
        if not pending:
            return events
        last = latest(pending)
        if now - last < quiet_s:
            return events
        pending = self._without_second_boxes(pending, now)
        if not pending:
            return events
        if len({c.seat for c in pending}) < len(self.players):
            if now - last < still_s:
                return events
            filled = self._fill_missing_seats([c for c in pending if c in sure], now, events)
            if filled is None:
                return events
            pending = filled
        return [*events, *self._record_turn(pending, now)]

    def _fill_missing_seats(self, pending: list[_Card], now: float, events: list[LiveEvent]) -> list[_Card] | None:
        """A turn some seats laid no card in, once the table has lain still ``still_s``: the
        cards of those seats that joined the last turn, or were laid over their like, come
        forward (an amended last turn goes to ``events``); a seat still missing is noted."""
        if not pending:
            return None
        pulled, amended_turn = self._pull_forward({c.seat for c in pending}, now)
        pending += pulled
        events += amended_turn
        seats = {c.seat for c in pending}
        pending += self._laid_over_alike(set(range(len(self.players))) - seats, now)
        seats = {c.seat for c in pending}
        missing = [self.players[s] for s in range(len(self.players)) if s not in seats]
        if missing:
            self.notes.append(LiveNote(NoteCause.TURN_WITHOUT, self.round_index, len(self._rounds[self.round_index]),
                                       tuple(missing)))
        return pending

    def _record_turn(self, pending: list[_Card], now: float) -> list[LiveEvent]:
        """Make ``pending`` the next turn of the round: the turn's event, after the amended
        turns the held in-turn events made."""
        events: list[LiveEvent] = []
        turns = self._rounds[self.round_index]
        record = _TurnRecord(min(c.first_seen for c in pending), {}, read_at=now)
        for card in sorted(pending, key=lambda c: (c.first_seen, c.track_id)):
            card.status = Status.PLAYED if card.gone_at is None else Status.GONE
            card.round, card.turn = self.round_index, len(turns)
            card.face = card.label if card.label != CARD_BACK else card.face
            record.cards.setdefault(card.seat, []).append(card.track_id)
        for card in pending:
            card.text = self._reveal_text(card)
        turns.append(record)
        self._strays(record)
        index = len(turns) - 1
        held, self._held = self._held, []
        amended = []
        for h in held:
            amended += self._attach(h)
        # the new turn is announced once, with the events it just received
        events += [e for e in amended if (e.round, e.index) != (self.round_index, index)]
        return [*events, LiveEvent(EventKind.TURN, self.round_index, index, now, self._turn(self.round_index, index))]

    def _strays(self, record: _TurnRecord) -> None:
        """Mark as strays the cards still pending of each seat of the turn just read that were
        first boxed before the turn's last card was (``glimpse_s`` later at most: cards lying
        there are boxed in the same few frames) and within ``wave_s`` of their seat's card of
        it.

        Players take their next card only once every player has revealed: a card of the next
        turn is boxed after the last of this one, and seconds after its own seat's. A box
        that came with a seat's card, beyond what the seat may lay at once
        (:meth:`_one_turn`), is no next card: left pending, it made a turn of its own once the
        table lay still (a stretch of cloth beside a card, boxed just after it and read as a
        card, would be that seat's card of the next turn, alone, and every turn after it one off).
        A card its seat's card of the turn shows under, as a strip never boxed whole (see
        :meth:`_laid_order`), was laid on that card after it, however soon it was boxed. A
        stray is shown, never played, and the seats giving it another player later leave it
        a stray (else, given to another player, it would take the place of that player's card)."""
        played = [self._cards[i] for ids in record.cards.values() for i in ids if i in self._cards]
        if not played:
            return
        last = max(_boxed(c) for c in played)
        for card in self._cards.values():
            if card.status != Status.PENDING or _boxed(card) > last + self.tuning.glimpse_s:
                continue
            if self._seen_after_next_turn(card):
                continue  # its seat was seen late: its cards came together, laid turns apart
            mine = [c for c in played if c.seat == card.seat]
            if any(self._shows_under(c, card) for c in mine):
                continue  # its seat's card of the turn is the strip it leaves: it was laid on it
            if any(abs(_boxed(card) - _boxed(c)) <= self.tuning.wave_s for c in mine):
                card.status = Status.STRAY
                self.notes.append(LiveNote(NoteCause.STRAY, self.round_index, len(self._rounds[self.round_index]) - 1,
                                           (self.players[card.seat],)))

    def _seen_after_next_turn(self, card: _Card) -> bool:
        """Whether other seats' cards still pending, surely cards (seen ``seen_s``), were boxed
        before ``card``: the next turn had begun before it was first boxed. Players take their
        next card only once every player has revealed, so a card boxed with its seat's card of
        the turn just read, after that, is no box that came with that card: the seat was out
        of the detector's sight until then, and its cards of two turns were boxed together
        (taken for a stray, its card of the later turn would leave that turn without it)."""
        return any(o.status == Status.PENDING and o.seat != card.seat and 0 <= o.seat < len(self.players)
                   and _boxed(o) < _boxed(card) and o.last_seen - o.first_seen >= self.tuning.seen_s
                   for o in self._cards.values())

    def _laid_over_alike(self, seats: set[int], now: float) -> list[_Card]:
        """The cards of ``seats``, missing from the turn about to be read, laid almost wholly
        over a card of the same name, which the tracker took for that card moved.

        A card revealed does not move by itself: one of a seat's cards that came to lie whole a
        few pixels off where it lay (still overlapping it), after the last turn was read, is
        the card of its name laid over it, the first beneath it, its sliver unseen (its track
        goes over to the new card, which would otherwise never be counted). The card beneath keeps its turn under a new id; the new card, followed by the
        track from now on, is this turn's.
        """
        out: list[_Card] = []
        for seat in sorted(seats):
            moved = [(move, c) for c in self._cards.values() if c.seat == seat and c.last_seen >= now
                     and (move := self._laid_over_since_last_turn(c)) is not None]
            if not moved:
                continue
            move, card = max(moved, key=lambda m: m[0][0])
            out.append(self._split(card, move, now))
            self.notes.append(LiveNote(NoteCause.LAID_OVER_ALIKE, self.round_index, card.turn, (self.players[seat],),
                                       card.text or card.face))
        return out

    def _split(self, card: _Card, move: _Move, now: float) -> _Card:
        """Give ``card`` (moved, ``move`` its last move: see :meth:`_laid_over_alike`) a new id,
        lying beneath where it lay, and return the new card of its name that its track now
        follows."""
        track_id = card.track_id
        self._next_hidden -= 1
        hidden = self._next_hidden
        when, before, after = move
        card.track_id, card.box, card.covered_by = hidden, before.copy(), track_id
        card.rest, card.moving, card.moved = before.copy(), None, None
        self._cards[hidden] = card
        for record in self._rounds[self.round_index]:  # a card that moves is of this round
            for ids in record.cards.values():
                ids[:] = [hidden if i == track_id else i for i in ids]
        for piece, original in list(self._alias.items()):
            if original == track_id:
                self._alias[piece] = hidden
        if track_id in self._pieces:
            self._pieces[hidden] = self._pieces.pop(track_id)
        new = _Card(track_id, card.seat, when, now, card.label, when, after.copy(), after.copy(), boxed_at=when)
        new.areas.append(_area(after))
        self._cards[track_id] = new
        return new

    def _tracks_given_back(self, pending: list[_Card], now: float) -> list[_Card]:
        """``pending`` with each card that is a played card seen again given back that card's
        track: a new track boxed right where a played card of its seat lay before it moved
        away, since the last turn was read, to lie elsewhere under another name, named as that
        card was revealed. A revealed card stays where it lay: its track went over to a card
        a hand laid past it (the tracker followed the hand), and the card, boxed again, became
        the new track. The played card follows the new track from now on; the track that
        left follows the card laid, pending.

        Why: a hand laying a card passes over a card of an earlier turn; that card's track
        follows the new card, and the earlier card comes back as a new track. Read as they
        come, the next turn would get the earlier card again and the new card's reads would
        rename the earlier turn."""
        turns = self._rounds[self.round_index]
        since = turns[-1].read_at if turns else -math.inf
        out = []
        for new in pending:
            left = None
            for card in self._cards.values():
                move = card.moved
                if (card.seat != new.seat or card.status != Status.PLAYED or card.round != self.round_index
                        or card.flipped or move is None or move[0] <= since or card.face != new.label
                        or card.label in (card.face, CARD_BACK) or now - card.last_seen > self.tuning.just_seen_s
                        or now - new.last_seen > self.tuning.just_seen_s):
                    continue
                # moved away (not a card laid over it: see _laid_over_alike), and boxed again
                # right where it lay
                if _iou(move[1], move[2]) < self.tuning.laid_over_iou and _iou(move[1], new.box) >= self.tuning.same_place_iou:
                    left = card
                    break
            if left is None:
                out.append(new)
                continue
            out.append(self._give_back(left, new, now))
        return out

    def _give_back(self, card: _Card, new: _Card, now: float) -> _Card:
        """Make ``card`` (played, its track gone over to a card laid elsewhere) follow the
        track of ``new`` (boxed again where ``card`` lay), and ``new`` follow the track that
        left, as the card laid: pending, named as that track reads it, since it moved."""
        when = card.moved[0] if card.moved is not None else now
        card_raw, new_raw = self._source.get(card.track_id, card.track_id), self._source.get(new.track_id, new.track_id)
        self._alias[new_raw], self._source[card.track_id] = card.track_id, new_raw
        self._alias[card_raw], self._source[new.track_id] = new.track_id, card_raw
        laid_box, laid_label, laid_since = card.box.copy(), card.label, card.label_since
        card.box, card.label, card.label_since = new.box.copy(), card.face, new.label_since
        card.rest, card.moving, card.moved, card.kept_at = new.box.copy(), None, None, now
        card.whole_reads = [r for r in card.whole_reads if r[1] == card.face]
        card.whole_counts = {card.face: card.whole_counts.get(card.face, 0)}
        new.box, new.full_box, new.label, new.label_since = laid_box, laid_box.copy(), laid_label, laid_since
        new.first_seen = new.boxed_at = when
        new.areas.clear()
        new.areas.append(_area(laid_box))
        self.notes.append(LiveNote(NoteCause.BOXED_AGAIN, self.round_index, card.turn, (self.players[card.seat],),
                                   card.text or card.face, laid_label))
        return new

    def _second_name(self, glimpse: _Card) -> _Card | None:
        """The card ``glimpse`` is a box of: a box seen for a moment right where a card lay in
        sight before and after it is that card read under another name for a moment (the
        recogniser boxed it twice), not a card laid on it (the next card of a column, a nigiri
        on its wasabi, lies a strip off it).

        Right where it lay: as the glimpse was boxed first, or last (a second track on the
        strip of a column's card may be boxed for a frame over both cards, then right on the
        strip; measured by its first box only, it would stay a card and, given the strip again
        later, make a turn of its own). Found a box of the card, its track stands for that card
        from then on."""
        return next((o for o in self._cards.values()
                     if o is not glimpse and o.first_seen < glimpse.first_seen
                     and o.last_seen > glimpse.last_seen + self.tuning.just_seen_s
                     and max(_iou(o.box, glimpse.full_box), _iou(o.full_box, glimpse.full_box),
                             _iou(o.box, glimpse.box)) >= self.tuning.same_place_iou), None)

    def _pull_forward(self, seats: set[int], now: float) -> tuple[list[_Card], list[LiveEvent]]:
        """The cards of seats missing from the turn about to be read that were put on the last
        turn as its late cards, laid alone: they were this turn's first cards, not late ones.

        A seat whose card of one turn was never seen (hidden, or misread into a card already
        there) and that lays first in the next turn looks alike to a late player: its card
        alone on the table while the others have not laid yet. Read as late, it would leave
        this turn without the seat, whose next card, laid first again, would join this one:
        every turn after the lost card one off. Taken back here, the lost card costs its own
        turn only. (A seat whose late card was late indeed lays a card of this turn too.)
        """
        turns = self._rounds[self.round_index]
        index = len(turns) - 1
        if not turns or (self.round_index, index) in self._fixed:
            return [], []
        record = turns[index]
        pulled: list[_Card] = []
        for seat in range(len(self.players)):
            cards = [self._cards[i] for i in record.cards.get(seat, []) if i in self._cards]
            if seat in seats or not cards or not all(c.joined_alone for c in cards):
                continue
            # its events (a tool used for two cards) stay on the turn: they fit no other
            del record.cards[seat]
            for card in cards:
                card.joined_alone = False
            pulled += cards
            self.notes.append(LiveNote(NoteCause.FIRST_OF_NEXT, self.round_index, index, (self.players[seat],)))
        if not pulled:
            return [], []
        return pulled, [LiveEvent(EventKind.AMENDED, self.round_index, index, now, self._turn(self.round_index, index))]

    def _late(self, pending: list[_Card], now: float) -> tuple[list[_Card], bool]:
        """Pending cards of seats the last turn has no card from, that belong to that turn.

        The last turn was read without a seat's card (the table went still without it: the card
        unseen, or not laid yet). That seat's cards laid since join it when only seats missing
        from it laid cards (the others wait for the late player), or when the seat has more
        cards than it may lay in one turn (its card of that turn, found only with the next):
        its earliest ones, the extra. A card lying on a same-named card of its seat is left to
        :meth:`_one_turn` (a strip of that card found again, or a card laid on it now),
        unless it is a strip that card shows beside it, whole in sight: the earlier card of a
        column whose track went over to the card laid on it, read late (it would make a turn
        of its own, and every turn after it would be one off).
        Also whether those seats laid them alone (the other seats waiting, or laying late).
        """
        turns = self._rounds[self.round_index]
        if not turns or (self.round_index, len(turns) - 1) in self._fixed:
            return [], False
        missing = {s for s in range(len(self.players)) if not turns[-1].cards.get(s)}
        if not missing:
            return [], False
        alone = all(c.seat in missing for c in pending)
        out: list[_Card] = []
        for seat in sorted(missing):
            mine = self._laid_order([c for c in pending if c.seat == seat])
            mine = [c for c in mine if not any(
                o.seat == seat and o.status != Status.PENDING and o.round == self.round_index
                and o.face == c.label and _lies_on(o, c, self.tuning.lies_on) and not self._strip_beside(c, o, now)
                for o in self._cards.values())]
            allowed = 1 + self._tools_in_hand(seat) + sum(c.label == "menu" for c in mine)
            if alone:
                out += mine[:allowed]
            elif len(mine) > allowed:
                out += mine[:len(mine) - allowed]
        return out, alone

    def _join_last_turn(self, cards: list[_Card], now: float, alone: bool) -> list[LiveEvent]:
        """Put late cards on the last turn of the round (see :meth:`_late`); ``alone``: laid
        while no other seat laid a card (see :meth:`_pull_forward`)."""
        turns = self._rounds[self.round_index]
        index = len(turns) - 1
        record = turns[index]
        for card in sorted(cards, key=lambda c: (c.first_seen, c.track_id)):
            card.status = Status.PLAYED if card.gone_at is None else Status.GONE
            card.round, card.turn = self.round_index, index
            card.face = card.label if card.label != CARD_BACK else card.face
            card.joined_alone = alone
            record.cards.setdefault(card.seat, []).append(card.track_id)
        for card in cards:
            card.text = self._reveal_text(card)
        players = sorted({self.players[c.seat] for c in cards})
        self.notes.append(LiveNote(NoteCause.JOINS_LATE, self.round_index, index, tuple(players)))
        return [LiveEvent(EventKind.AMENDED, self.round_index, index, now, self._turn(self.round_index, index))]

    def _one_turn(self, pending: list[_Card]) -> list[_Card]:
        """The pending cards one turn holds: each player reveals one card a turn, two with
        a tool (chopsticks, spoon) they have on the table or a menu.

        A seat's cards beyond that are either a second reading of a card it laid (a card slid
        in and found again where it came to rest, a strip taken for a new card: the same name,
        lying on it) — that card, followed under its first id from now on — or cards of the
        next turn, laid before this one was read: they wait for it.
        """
        out: list[_Card] = []
        now = max(c.last_seen for c in self._cards.values())
        self._fold_second_readings(pending, now)
        for seat in {c.seat for c in pending}:
            out += self._seat_cards(seat, pending, now)
        return out

    def _fold_second_readings(self, pending: list[_Card], now: float) -> None:
        """Take out of ``pending`` the boxes that are a card already played seen again: a strip
        a move uncovered (the card beneath, split off under a new id), a second box on a card
        played, a piece of a card played."""
        for card in list(pending):
            uncovered = self._uncovered_by_move(card, now)
            if uncovered is not None:
                # the strip is the card beneath, under a new id; the turn's card is the one
                # its track followed, under the track's name
                under, move = uncovered
                pending.append(self._split(under, move, now))
                self._fold(card, under)
                pending.remove(card)
                self.notes.append(LiveNote(NoteCause.UNCOVERED_STRIP, self.round_index, under.turn,
                                           (self.players[under.seat],), under.text or under.face))
                continue
            # a second box on a card played and in sight now, where it lies now (a strip of it
            # found twice); a card laid over part of it lies mostly outside its strip
            old = next((c for c in self._cards.values() if c.seat == card.seat and c.status == Status.PLAYED
                        and c.round == self.round_index and c.face == card.label and c.last_seen >= now
                        and _containment(c.box, card.box) >= self.tuning.piece_within), None)
            # a piece of a card played, whatever the recogniser calls it: a box much smaller
            # than a card lying within where a played card lay whole (a strip left of it by the
            # card laid on it); a card laid there is a whole card. Of any seat: tableaux never
            # overlap, and a piece seen as the player laid a card on it may be given the seat
            # that laid nothing just then. Smaller than the card's usual size, not its largest
            # box: boxed with the hand that laid it, a wasabi showed twice its size, and the
            # nigiri laid on it later would be taken for a piece of it. But a card in sight
            # whole now, lying off the piece, left no piece there: the piece is the card it was
            # laid on, its track gone over to the new card (a card laid on its like). A card
            # of this round gone out of sight whose cover was not found is such a card too:
            # none but tools and the cards the rules discard leave the table mid-round (a card
            # misread and lost under a hand shows its strip as the next card is laid over it;
            # read as a card of that turn, it would push the new card into a turn of its own)
            old = old or next((c for c in self._cards.values() if self._still_on_table(c)
                               and c.round == self.round_index
                               and _area(card.full_box) <= self.tuning.piece * c.size()
                               and _intersection(c.full_box, card.full_box) >= self.tuning.piece_within * _area(card.full_box)
                               and not self._strip_beside(card, c, now)), None)
            if old is not None:
                # only the alias: a card gone out of sight stays gone (the piece, often misnamed,
                # is no sighting of it to follow), and keeps its place on the table by the rules
                self._fold(card, old)
                pending.remove(card)
    def _seat_cards(self, seat: int, pending: list[_Card], now: float) -> list[_Card]:
        """The cards of ``pending`` that ``seat`` reveals this turn: as many as it may lay at
        once, in the order laid; boxes beyond those that are a card of this round found again
        or a card boxed twice are folded into that card, the rest wait for the next turn."""
        mine = self._laid_order([c for c in pending if c.seat == seat])
        allowed = 1 + self._tools_in_hand(seat) + sum(c.label == "menu" for c in mine)
        if len(mine) > allowed:
            # a card of this round found again where it lies (a strip under a newer card)
            for card in list(mine):
                old = next((c for c in self._cards.values() if c.seat == seat and c.status != Status.PENDING
                            and c.round == self.round_index and c.face == card.label
                            and _lies_on(c, card, self.tuning.lies_on) and not self._past_its_place(card, c)), None)
                if old is not None and len(mine) > allowed:
                    self._fold(card, old)
                    mine.remove(card)
            # a piece of a card played, under another name: a box lying within where a
            # played card of the seat lay, its usual size at most ``part`` of that card's (a
            # card laid over it shows its whole size, as a nigiri laid on its wasabi does).
            # A hand laying a card beside a played card covers part of it, and what shows of
            # it, boxed just before the new card and misread, would be read as the seat's
            # card of the turn, the new card as a box that came with it. Played: on the table by
            # the rules (a card they keep all round is there though out of the reader's sight)
            for card in list(mine):
                old = next((c for c in self._cards.values() if c.seat == seat and self._still_on_table(c)
                            and c.round == self.round_index and card.size() <= self.tuning.part * c.size()
                            and max(_intersection(c.full_box, card.full_box), _intersection(_place(c), card.full_box))
                            >= self.tuning.part_within * _area(card.full_box)), None)
                if old is not None and len(mine) > allowed:
                    self._fold(card, old)
                    mine.remove(card)
        kept: list[_Card] = []
        for card in mine:
            if len(kept) < allowed:
                kept.append(card)
                continue
            # one card boxed twice: the same name, or another boxed with it (see
            # :meth:`_boxed_together`)
            twin = next((k for k in kept if _lies_on(k, card, self.tuning.twin_lies_on) and not self._left_a_strip(k, card, now)
                         and (k.label == card.label or self._boxed_together(k, card))), None)
            if twin is not None:
                self._fold(card, twin)
        return kept

    def _past_its_place(self, box: _Card, card: _Card) -> bool:
        """Whether ``box`` shows a whole card reaching past where ``card`` lay whole, on one side,
        by ``past_share`` of its length or more: the next card of a column laid over ``card``
        (which shows a strip of itself from then on), not ``card`` found again where it lies.

        Why: a card laid over part of one of its name lies on it as much as a second box of
        that card does; what tells them apart is where the box ends, not how much they share."""
        if _area(box.full_box) < self.tuning.whole_share * card.size():
            return False
        b, c = box.full_box, card.full_box
        length = float(max(c[2] - c[0], c[3] - c[1]))
        past = float(max(c[0] - b[0], c[1] - b[1], b[2] - c[2], b[3] - c[3]))
        return past >= self.tuning.past_share * length

    def _uncovered_by_move(self, strip: _Card, now: float) -> tuple[_Card, _Move] | None:
        """The played card of ``strip``'s seat that moved off where it lay since the last turn
        was read, over part of that place, ``strip`` lying within the part it left and beside
        it (:meth:`_strip_beside`): its track went over to a card laid on it, and ``strip`` is
        what shows of it. Its track follows the new card; the strip is the card beneath.

        Why: a maki roll laid over one of its kind leaves a strip showing fewer rolls, named as
        another maki; kept as the turn's card under its own name (right for a pudding, whose
        strip names it), the turn would get the wrong card. (:meth:`_laid_over_alike` reads the
        same move, but only for a seat with no card in the turn.)"""
        area = _area(strip.full_box)
        for card in self._cards.values():
            if card.seat != strip.seat or (move := self._laid_over_since_last_turn(card)) is None:
                continue
            if (area <= self.tuning.piece * card.size() and _intersection(move[1], strip.full_box) >= self.tuning.piece_within * area
                    and self._strip_beside(strip, card, now)):
                return card, move
        return None

    def _laid_over_since_last_turn(self, card: _Card) -> _Move | None:
        """The last move of ``card``, played this round and named as revealed, if it came
        since the last turn was read, over part of where it lay (a card laid over it, not a card
        moved elsewhere), and it lies where it came to lie still: the move a card of its name
        laid over it makes of it (see :meth:`_laid_over_alike`, :meth:`_uncovered_by_move`)."""
        turns = self._rounds[self.round_index]
        since = turns[-1].read_at if turns else -math.inf
        move = card.moved
        if (card.status != Status.PLAYED or card.round != self.round_index or card.label != card.face
                or move is None or move[0] <= since):
            return None
        if _iou(move[1], move[2]) >= self.tuning.laid_over_iou and _iou(card.box, move[2]) >= self.tuning.moved_iou:
            return move
        return None

    def _without_second_boxes(self, pending: list[_Card], now: float) -> list[_Card]:
        """``pending`` less the cards that are a second box of a played card of this round,
        looked for once the table is still (no hand over a card then): a box seen for
        ``seen_s``, never bigger than ``part`` of that card, lying within where it lay and
        within the card as it lies in sight now. A card laid on another is seen whole once the
        hand lets go of it (a card laid over a corner of another may leave that card's
        uncovered part boxed a second time for seconds, under another name). Such a box is that card, followed under its first id."""
        out = []
        for card in pending:
            old = None
            if card.last_seen - card.first_seen >= self.tuning.seen_s:
                old = next((c for c in self._cards.values() if c.status == Status.PLAYED
                            and c.round == self.round_index and c.last_seen >= now
                            and _area(card.full_box) <= self.tuning.part * c.size()
                            and _intersection(c.full_box, card.full_box) >= self.tuning.piece_within * _area(card.full_box)
                            and _intersection(c.box, card.box) >= self.tuning.piece_within * _area(card.box)), None)
            if old is None:
                out.append(card)
                continue
            self._fold(card, old)
        return out

    def _fold(self, box: _Card, card: _Card) -> None:
        """Forget ``box`` as a card of its own: it is ``card`` (a piece, a second box of it),
        and its track stands for ``card`` from now on."""
        self._alias[box.track_id] = card.track_id
        self._pieces.setdefault(card.track_id, []).append(box.box.copy())
        del self._cards[box.track_id]

    def _piece_again(self, box: np.ndarray, seat: int) -> _Card | None:
        """The played card of ``seat`` (this round) a piece of which was boxed right where
        ``box`` lies (``same_place_iou``), if any: a new track there is that piece again.

        Why: the strip of a covered card is often boxed twice, under two names (a maki strip
        shows fewer rolls); the second box, folded into the card, can lose its track under a
        hand and come back as a new one, which lies beside the next card laid and would be
        taken for a card laid before it."""
        for owner_id, places in self._pieces.items():
            owner = self._cards.get(owner_id)
            if (owner is None or owner.seat != seat or owner.status != Status.PLAYED
                    or owner.round != self.round_index):
                continue
            if any(_iou(place, box) >= self.tuning.same_place_iou for place in places):
                return owner
        return None

    def _boxed_together(self, a: _Card, b: _Card) -> bool:
        """Whether ``a`` and ``b`` are parts of one card, boxed apart: first boxed within
        ``glimpse_s`` of each other, the later not the strip of a card the earlier was laid on.

        A player lays one card at a time: a band of glare across a card can make the
        recogniser box it as two overlapping parts from the frame it is laid, under two names.
        The strip of a card beneath shows only once the card over it lies there (a strip never
        boxed whole, beside the card laid on it, is a card of its own)."""
        if abs(a.boxed_at - b.boxed_at) > self.tuning.glimpse_s:
            return False
        first, later = sorted((a, b), key=lambda c: (c.boxed_at, c.track_id))
        return not self._shows_under(later, first)

    @staticmethod
    def _still_on_table(card: _Card) -> bool:
        """Whether ``card``, revealed, lies on the table still by the rules: played, or gone
        out of sight while no rule takes it off the table mid-round (not a tool, not a card
        discarded as it scores, not flipped)."""
        return card.status == Status.PLAYED or (card.status == Status.GONE and not card.flipped and stays_all_round(card.face))

    def _left_a_strip(self, under: _Card, over: _Card, now: float) -> bool:
        """Whether ``under``, seen bigger before, shows only a strip now, mostly outside
        ``over``, which lies whole in sight: ``over`` is the next card of its column, laid on
        it, not a second box of it (a second box of a card leaves the card its size).

        Why: a card laid on its like before the last turn was read (the seats learned late)
        must not be taken, with the card beneath, for one card boxed twice.

        Mostly outside: a quarter of the strip's box or more. A second box of a card lies
        within the card's box, but boxes are upright: a card lying turned in its column boxes
        the strip it leaves with much of the card over it (about half of the strip's box)."""
        return (under.last_seen >= now and over.last_seen >= now
                and _area(under.box) <= self.tuning.strip_left * _area(under.full_box)
                and _area(over.box) >= self.tuning.whole_share * over.size()
                and _intersection(under.box, over.box) < self.tuning.strip_outside * _area(under.box))

    def _laid_order(self, cards: list[_Card]) -> list[_Card]:
        """One seat's cards in the order they were laid: as first boxed, but a card seen only
        as the strip another of them, of another name, leaves of it (:meth:`_shows_under`)
        before that one.

        First boxed, not first had by the game: cards that lay there before the seats were
        learned come to the game in one frame, a card with one of a later turn).

        A card first boxed once the next card of its column covered it was laid before that
        card, though seen after it (a strip never boxed whole beside the card laid on it a
        turn later). Of the same name, such a strip is as often a second, partial box of the
        card itself (boxed whole and, half outside that box, in part), and the two are one
        card (:meth:`_one_turn`'s twins)."""
        order = sorted(cards, key=lambda c: (_boxed(c), c.track_id))
        for card in list(order):
            over = next((o for o in order if o is not card and o.label != card.label
                         and self._shows_under(card, o)), None)
            if over is not None and order.index(over) < order.index(card):
                order.remove(card)
                order.insert(order.index(over), card)
        return order

    def _strip_beside(self, strip: _Card, card: _Card, now: float) -> bool:
        """Whether ``card`` lies whole in sight now and ``strip`` shows under it
        (:meth:`_shows_under`): the card it was laid on, not a piece of itself."""
        return card.last_seen >= now and _area(card.box) >= self.tuning.whole_share * card.size() and self._shows_under(strip, card)

    def _shows_under(self, strip: _Card, card: _Card) -> bool:
        """Whether ``strip`` is a card ``card`` lies on, seen only since: never boxed bigger
        than a strip (``piece`` of ``card``'s size), lying mostly outside ``card`` (its part
        left uncovered) and against it. A strip of ``card`` itself (a second box on it) lies
        within it."""
        area = _area(strip.full_box)
        if area > self.tuning.piece * card.size() or _intersection(strip.full_box, card.box) >= self.tuning.under_outside * area:
            return False
        reach = self.tuning.reach * float(np.max(strip.full_box[2:] - strip.full_box[:2]))
        return _intersection(strip.full_box + np.array([-reach, -reach, reach, reach]), card.full_box) > 0

    def _tools_in_hand(self, seat: int) -> int:
        """Tools ``seat`` played this round and not used in a turn read so far (one that went
        back to the hand while this turn was laid is this turn's)."""
        turns = self._rounds[self.round_index]
        played = sum(1 for c in self._cards.values() if c.seat == seat and c.round == self.round_index
                     and c.status != Status.PENDING and c.face in RETURNS_TO_HAND)
        used = sum(1 for record in turns for e in record.events
                   if e.player == self.players[seat] and e.event in RETURNS_TO_HAND.values())
        return max(played - used, 0)

    def _reveal_text(self, card: _Card) -> str:
        if card.face != SPECIAL_ORDER:
            return card.face
        copied = self._copied_by(card)
        return SPECIAL_ORDER if copied is None else f"{SPECIAL_ORDER}:{copied}"

    def _copied_by(self, order: _Card) -> str | None:
        """The name of the card a special order lies on."""
        copied = self._copied_card(order)
        return None if copied is None else copied.face

    def _copied_card(self, order: _Card) -> _Card | None:
        """The card a special order lies on: the earlier card of its seat it covers most."""
        under = [c for c in self._cards.values()
                 if c.seat == order.seat and c is not order and c.round == self.round_index
                 and c.turn < order.turn and c.status == Status.PLAYED and not c.flipped
                 and c.face not in NEVER_COPIED and c.face != ""]
        if not under:
            return None
        o = order.full_box
        centre = (o[:2] + o[2:]) / 2

        def covered(c: _Card) -> tuple[float, float]:
            b = c.full_box
            inter = _intersection(o, b)
            dist = float(np.linalg.norm(centre - (b[:2] + b[2:]) / 2))
            return inter / max(_area(b), 1e-9), -dist

        return max(under, key=covered)


def _place(card: _Card) -> np.ndarray:
    """Where ``card`` lay whole and still (its largest box until it has: a box of a card on its
    way in, slid by a hand, is as large as the card where it comes to lie)."""
    return card.rest if card.rest is not None else card.full_box


def _boxed(card: _Card) -> float:
    """When ``card`` was first boxed (the tracker's first box, or the game's first sighting)."""
    return min(card.boxed_at, card.first_seen)


def _lies_on(a: _Card, b: _Card, share: float) -> bool:
    """Whether two cards lie on each other: ``share`` of the smaller box in the other, where
    they lie now or where they showed whole (a card slid in shows whole on its way too)."""
    return max(_containment(a.box, b.box), _containment(a.full_box, b.full_box)) >= share


def _containment(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the smaller of two boxes lying in the other."""
    return _intersection(a, b) / max(min(_area(a), _area(b)), 1e-9)
