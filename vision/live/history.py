"""The one history of each card on a live table: where it lies, what it is read as, what lies on it.

:class:`CardHistory` ``.update(tracked, now) -> list[HistoryEvent]`` follows the tracker's
cards (:class:`~vision.live.tracker.CardTracker`, seated by
:class:`~vision.live.seating.SeatMemory`) frame by frame into a :class:`CardRecord` per card: its boxes (the last, the largest, where
it lay whole and still, its last move), its name and since when, the sightings in which it
lay whole (the only ones that may re-read it), the card laid over it as it went out of sight.
Everything decided from boxes is decided here, by named rules:

- whether a new track is a card already known, seen again (:data:`SEEN_AGAIN`, tried in
  order; the rule that decided goes to :attr:`CardHistory.trace` as a :class:`Decision`), or
  a piece folded into a card boxed again where it was boxed (``piece-place``);
- what covers a card gone out of sight (:meth:`CardHistory.covering`), whether a card lies
  under another (:meth:`CardHistory.lain_over`, :meth:`CardHistory.shows_under`), the order
  a seat's cards were laid in (:meth:`CardHistory.laid_order`), the card a special order lies
  on (:meth:`CardHistory.copied_card`);
- a pending card out of sight for good, seen too briefly to be a card, is forgotten
  (:data:`GLIMPSE_LEFT`);
- at each step of the turn reader's reading of a turn (:class:`~vision.live.facts.Step`: it
  tells the history which cards it is about to count, an :class:`~vision.live.facts.Ask`),
  which of those boxes are a card already there (:meth:`CardHistory.settle`, the rules of
  :data:`SETTLE` in order): a second box, a piece, a card read under a second name, a strip a
  move uncovered, a card laid over its like that the tracker took for that card moved, a
  track gone over to a card laid elsewhere; and, a round over, the cards that left with it.

and tells the turn reader (``vision.live.turns``) what became of the cards, in events
(``vision.live.events``): per frame :class:`~vision.live.events.SeenAgain`,
:class:`~vision.live.events.Covered`, :class:`~vision.live.events.Left`,
:class:`~vision.live.events.TurnedDown`, :class:`~vision.live.events.Forgotten`; asked to
settle, :class:`~vision.live.events.Folded`, :class:`~vision.live.events.Split`,
:class:`~vision.live.events.GivenBack`, :class:`~vision.live.events.Forgotten`. The turn
reader changes no record: it decides turns from these events, the facts it keeps and the
records it reads.

What a card is to the game (pending, in a turn, gone, a stray; its round, turn and logged
name) is the turn reader's alone. Some rules here depend on it (a strip comes back only of a
card played this round; a card gone from the table may be seen again while the rules leave
one of its name there): they read it from the :class:`~vision.live.facts.TurnFacts` they are
given, a frozen value the turn reader builds from its state (:meth:`update` is given one per
frame, and each query below that needs it its own). The history keeps none of it and never
calls the turn reader; the turn reader never reads a box.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from scorer.cards import (
    CARD_BACK,
    NEVER_COPIED,
    RETURNS_TO_HAND,
    is_dessert,
    leaves_by_rule,
    stays_all_round,
)
from vision.boxes import area as _area
from vision.boxes import intersection as _intersection
from vision.boxes import iou as _iou
from vision.detections import FIRST_SEEN, LABEL_SINCE, SEAT, TRACK_ID, VISIBLE, Detections
from vision.live.events import (
    Covered,
    Folded,
    Forgotten,
    GivenBack,
    HistoryEvent,
    Left,
    SeenAgain,
    Split,
    TurnedDown,
)
from vision.live.facts import Ask, CardTurn, Status, Step, TurnFacts
from vision.live.tuning import HistoryTuning, TurnTuning

# a card's move: when it began to lie elsewhere, where it lay before, where it came to lie
Move = tuple[float, np.ndarray, np.ndarray]


@dataclass
class CardRecord:
    """One card as the history follows it, by the id of the track that first showed it. Only
    the history writes a record; the turn reader reads it."""

    track_id: int
    seat: int
    first_seen: float
    last_seen: float
    label: str
    label_since: float
    box: np.ndarray
    full_box: np.ndarray
    # the last name it was read under face up, settled, and when it was last read so (the
    # name the game counts it under is :meth:`CardHistory.face`)
    settled_name: str = ""
    settled_at: float = -math.inf
    gone_at: float | None = None
    flipped: bool = False  # lies face down since its reveal, settled (:meth:`CardHistory.turned_down`)
    covered_by: int | None = None  # the card laid over it when it went out of sight
    # (time, name) of each sighting since its reveal in which it lay whole, uncovered (a
    # re-read counts those since its last one: ``CardTurn.reads_from``)
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
    moved: Move | None = None
    kept_at: float = -math.inf  # when a box of its usual size last lay about where it lay
    piece_seen: float = -math.inf  # when a box folded into it (a track that does not follow it) was last in sight

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

#: The rules that say whether a new track is a card already known, seen again, in the order
#: they are tried (each a ``CardHistory._again_<name>`` method): the first that applies decides.
SEEN_AGAIN = ("stray-place", "turned-over", "renamed-in-place", "whole-in-place", "strip-or-lost")

#: The rules that settle which boxes are a card already there at each step of the turn
#: reader's reading of a turn (:meth:`CardHistory.settle`), in the order they are tried: the
#: first that finds a box to be another card decides for that box (each a
#: ``CardHistory._settle_<step>`` method; the rule that decided goes to the trace).
SETTLE: Mapping[Step, tuple[str, ...]] = MappingProxyType({
    Step.WEIGH: ("left-where-boxed",),
    Step.GLIMPSES: ("second-name",),
    Step.IN_TURN: ("uncovered-strip", "second-box-in-sight", "piece-of-played"),
    Step.SEAT_EXTRA: ("found-again-where-it-lies", "misnamed-part", "twin"),
    Step.STILL: ("second-box",),
    Step.SEATS_MISSING: ("laid-over-alike",),
    Step.CLEARED: ("cleared-away",),
    Step.ROUND_OVER: ("gone-with-round",),
})
#: The rule that drops a pending card out of sight for good, seen too briefly to be a card.
GLIMPSE_LEFT = "glimpse-left"


@dataclass(frozen=True)
class Decision:
    """Which rule decided what the reader made of a track, at ``at`` (:attr:`CardHistory.trace`):
    ``track_id`` (the tracker's, or a card's id) is the card ``card_id`` of the game (seen
    again, folded into it, given back to it); for a card split off, ``track_id`` follows the
    new card and ``card_id`` is the card beneath; for a card forgotten, the two are its id."""

    rule: str
    track_id: int
    card_id: int
    at: float


@dataclass
class CardHistory:
    """Every card seen on the table, by id (:attr:`cards`), and what its tracks are.

    ``alias`` maps a track that is a card already known (a piece, a second box, the card seen
    again) to that card's id; ``source`` maps a card to the track that follows it now; ``pieces``
    keeps where the pieces folded into a card were boxed (:meth:`_fold`). What the turn reader
    made of the cards comes with each call that needs it (:class:`~vision.live.facts.TurnFacts`).
    """

    tuning: HistoryTuning = field(default_factory=HistoryTuning)
    #: the times the turn reader reads by too (a card settled, the table quiet, a glimpse)
    times: TurnTuning = field(default_factory=TurnTuning)
    cards: dict[int, CardRecord] = field(default_factory=dict)
    alias: dict[int, int] = field(default_factory=dict)
    pieces: dict[int, list[np.ndarray]] = field(default_factory=dict)
    source: dict[int, int] = field(default_factory=dict)
    next_hidden: int = 0  # ids for cards no track follows (below 0)
    #: the last decisions of the named rules, newest last (see :class:`Decision`)
    trace: deque[Decision] = field(default_factory=lambda: deque(maxlen=500), repr=False)
    _decided: list[Decision] = field(default_factory=list, init=False, repr=False)  # this frame's

    def update(self, tracked: Detections, now: float, facts: TurnFacts | None = None) -> list[HistoryEvent]:
        """One frame of tracked cards in (see :meth:`observe`), with what the turn reader has
        made of the game so far (``facts``; by default none played yet); what became of the cards out:
        a track found to be a card already known (:class:`SeenAgain`), a card gone out of
        sight under one laid over it (:class:`Covered`), a card out of sight for good
        (:class:`Left`), in the order of the cards."""
        self._decided = []
        facts = facts if facts is not None else TurnFacts()
        present = self.observe(tracked, now, facts)
        events: list[HistoryEvent] = [SeenAgain(d.track_id, d.card_id, d.rule, d.at) for d in self._decided]
        events += self.out_of_sight(present, now, facts)
        return events + self.turned_down(now, facts)

    def turned_down(self, now: float, facts: TurnFacts) -> list[HistoryEvent]:
        """The cards revealed this round, on the table, that lie face down now, named so for
        ``settle_s``, unless the rules take them off the table as they score: ``flipped`` from
        now on (:class:`TurnedDown`), in the order of the cards."""
        events: list[HistoryEvent] = []
        for card in self.cards.values():
            if (card.label == CARD_BACK and not card.flipped and self.played_now(card, facts)
                    and now - card.label_since >= self.times.settle_s and not leaves_by_rule(self.face(card, facts))):
                card.flipped = True
                events.append(TurnedDown(card.track_id, card.label_since))
        return events

    def reseat(self, seats: Mapping[int, int]) -> dict[int, int]:
        """Give the cards (by id) the seats the seat memory now gives them; the cards that
        changed seat, each with the seat it had. A track that is a card seen again (its alias)
        does not move it."""
        moved = {}
        for card_id, seat in seats.items():
            card = self.cards.get(card_id)
            if card is not None and card.seat != seat:
                moved[card_id], card.seat = card.seat, seat
        return moved

    def _decide(self, decision: Decision) -> None:
        self.trace.append(decision)
        self._decided.append(decision)

    def out_of_sight(self, present: set[int], now: float, facts: TurnFacts) -> list[HistoryEvent]:
        """Follow the cards not ``present`` in this frame: one that went out of sight as a newer
        card of its seat was laid over it is covered, still on the table, for as long as that
        card lies there (:meth:`covering`); one out of sight otherwise, or whose cover left the
        table (a column cleared away), has left since its last sighting (``gone_at``)."""
        events: list[HistoryEvent] = []
        for card in list(self.cards.values()):
            if card.track_id in present:
                card.covered_by = None
                continue
            if card.gone_at is not None:
                continue
            if card.covered_by is not None:
                cover = self.cards.get(card.covered_by)
                if cover is not None and cover.gone_at is None:
                    continue  # still under the card laid on it
                # the card on it left the table (a column cleared away): so did this one
                card.last_seen = cover.gone_at if cover is not None and cover.gone_at else card.last_seen
            elif self.in_play(card, facts) and (cover := self.covering(card)) is not None:
                card.covered_by = cover.track_id
                events.append(Covered(card.track_id, cover.track_id, now))
                continue
            card.gone_at = card.last_seen
            events.append(Left(card.track_id, card.last_seen))
            if not facts.told(card.track_id) and (not card.settled(now, self.times.settle_s)
                                                  or card.last_seen - card.first_seen < self.times.seen_s):
                # pending, and never named the same long enough or seen long enough to be a
                # card: a misread, a hand reaching over the table
                events.append(self._forget(card, GLIMPSE_LEFT, now))
        return events

    def _forget(self, card: CardRecord, rule: str, now: float) -> Forgotten:
        """Drop ``card`` (never a card of the game, or gone with its round), by ``rule``. The
        tracks that stood for it keep pointing at it until its round is over
        (:meth:`_drop_dangling`)."""
        del self.cards[card.track_id]
        self.trace.append(Decision(rule, card.track_id, card.track_id, now))
        return Forgotten(card.track_id, rule, now)

    # --- what the turn reader made of the cards (:class:`~vision.live.facts.TurnFacts`) -----

    @staticmethod
    def face(card: CardRecord, facts: TurnFacts) -> str:
        """The name the game counts ``card`` under (:func:`face`)."""
        return face(card, facts.of(card.track_id))

    @staticmethod
    def revealed(card: CardRecord, facts: TurnFacts) -> bool:
        """Whether the turn reader put ``card`` in a turn."""
        return facts.revealed(card.track_id)

    def in_play(self, card: CardRecord, facts: TurnFacts) -> bool:
        """Whether ``card`` was revealed in a turn and lies on the table still."""
        return card.gone_at is None and self.revealed(card, facts)

    def gone(self, card: CardRecord, facts: TurnFacts) -> bool:
        """Whether ``card`` was revealed in a turn and has left the table since."""
        return card.gone_at is not None and self.revealed(card, facts)

    def played_now(self, card: CardRecord, facts: TurnFacts) -> bool:
        """Whether ``card`` was revealed in a turn of the round in play and lies on the table still."""
        return self.in_play(card, facts) and facts.round_of(card.track_id) == facts.round

    def _drop_dangling(self) -> None:
        """Drop the aliases, sources and pieces of cards no longer kept."""
        self.alias = {a: o for a, o in self.alias.items() if o in self.cards}
        self.pieces = {o: places for o, places in self.pieces.items() if o in self.cards}
        self.source = {c: r for c, r in self.source.items() if c in self.cards}

    def observe(self, tracked: Detections, now: float, facts: TurnFacts) -> set[int]:
        """Follow this frame's tracked cards (``data[TRACK_ID]``, ``data[LABEL]``, ``data[SEAT]``,
        ``data[VISIBLE]``, ``data[LABEL_SINCE]``, ``data[FIRST_SEEN]``): each track is a card
        already known (itself, a piece of one, one seen again: see :data:`SEEN_AGAIN`) or a new
        card. The ids of the cards present in the frame."""
        ids = [int(i) for i in tracked.data[TRACK_ID]]
        seats = tracked.data.get(SEAT, np.full(len(ids), -1))
        labels = tracked.labels
        since = tracked.data.get(LABEL_SINCE, np.full(len(ids), now))
        boxed = tracked.data.get(FIRST_SEEN, np.full(len(ids), now))
        visible = tracked.data.get(VISIBLE, np.ones(len(ids), bool))
        in_sight = {self.alias.get(i, i) for i, v in zip(ids, visible, strict=True) if v}
        present = set()
        for k, raw_id in enumerate(ids):
            card_id = self.alias.get(raw_id, raw_id)
            if self.source.get(card_id, card_id) != raw_id:
                # an old track of a card now followed under a new one, or a piece of it
                if bool(visible[k]) and (owner := self.cards.get(card_id)) is not None:
                    owner.piece_seen = now
                continue
            box = np.asarray(tracked.xyxy[k], float)
            card = self.cards.get(card_id)
            if card is None and (owner := self.piece_again(box, int(seats[k]), facts)) is not None:
                # boxed right where a piece of a played card was boxed before: that piece again
                self.alias[raw_id] = owner.track_id
                self._decide(Decision("piece-place", raw_id, owner.track_id, now))
                continue
            if card is None:
                card = self.same_card(raw_id, labels[k], int(seats[k]), box, in_sight, now, facts)
                if card is not None:
                    card.label_since = max(float(since[k]), card.label_since)
            if card is None:
                card = CardRecord(raw_id, int(seats[k]), now, now, labels[k], float(since[k]), box, box.copy(),
                             boxed_at=float(boxed[k]))
                self.cards[raw_id] = card
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
            if card.label != CARD_BACK and card.settled(now, self.times.settle_s):
                card.settled_name, card.settled_at = card.label, now
            if bool(visible[k]) and self.in_play(card, facts) and not card.flipped:
                self.note_reading(card, box, now)
                self.note_place(card, box, now)
        return present

    def note_reading(self, card: CardRecord, box: np.ndarray, now: float) -> None:
        """Keep the name a revealed card is read under while it lies whole in sight: only such
        readings may correct its reveal. A card a newer one of its seat lies on (the next of
        a column, a nigiri on its wasabi, a special order on its copy) shows a strip, often
        misread; those readings are not kept."""
        area = _area(card.full_box)
        whole = _area(box) >= self.tuning.whole_share * area and not any(
            o is not card and o.seat == card.seat and o.first_seen > card.first_seen and o.gone_at is None
            and _intersection(card.full_box, o.box) >= self.tuning.over_share * area
            for o in self.cards.values())
        if whole:
            card.whole_reads.append((now, card.label))
            card.whole_counts[card.label] = card.whole_counts.get(card.label, 0) + 1
        card.whole_reads = [r for r in card.whole_reads if now - r[0] <= self.times.reread_s]

    def note_place(self, card: CardRecord, box: np.ndarray, now: float) -> None:
        """Follow where a revealed card lies whole: a box of its usual size about where it lay
        (``moved_iou``; a still card's box varies by a few pixels, and by a dozen when boxed
        with a hand beside it) keeps its place; one lying elsewhere for ``settle_s`` is a move
        (see :meth:`_settle_seats_missing`), and so is one lying still about where it lay, come
        back after the card was out of sight (:meth:`back_off_place`).

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
        elif overlap >= self.tuning.moved_iou and not self.back_off_place(card, box, now):
            card.moving, card.kept_at = None, now  # about where it lay (a hand's box beside it)
        elif card.moving is None or _iou(card.moving[1], box) < self.tuning.moved_iou:
            card.moving = (now, box.copy())
        elif now - card.moving[0] >= self.times.settle_s:
            card.moved = (card.moving[0], card.rest, box.copy())
            card.rest, card.moving, card.kept_at = box.copy(), None, now

    def back_off_place(self, card: CardRecord, box: np.ndarray, now: float) -> bool:
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

    def same_card(self, raw_id: int, label: str, seat: int, box: np.ndarray,
                  in_sight: set[int], now: float, facts: TurnFacts) -> CardRecord | None:
        """A new track that is a card the game already knows, seen again: the card of its seat
        out of sight that the rules of :data:`SEEN_AGAIN` score best (see :meth:`seen_again`);
        the rule that decided goes to :attr:`trace`."""
        best, best_score, best_rule = None, -math.inf, ""
        for card in self.cards.values():
            if card.seat != seat or card.track_id in in_sight:
                continue
            rule, score = self.seen_again(card, label, box, now, facts)
            # (a place a stray lay in wins outright; the last such stray)
            if score is not None and (score > best_score or score == math.inf):
                best, best_score, best_rule = card, score, rule
        if best is None:
            return None
        self._decide(Decision(best_rule, raw_id, best.track_id, now))
        if self.gone(best, facts) or best.covered_by is not None:
            # back on the table (the turn reader, sent the SeenAgain, has it played again)
            best.gone_at, best.covered_by = None, None
        self.alias[raw_id] = best.track_id
        self.source[best.track_id] = raw_id
        return best

    def seen_again(self, card: CardRecord, label: str, box: np.ndarray, now: float,
                   facts: TurnFacts) -> tuple[str, float | None]:
        """How well a new track's ``box`` named ``label`` is ``card`` seen again (None: it is
        not), and the rule that said so: the rules of :data:`SEEN_AGAIN`, in order; the first
        that applies decides; ``facts``: what the turn reader made of the game so far."""
        for name in SEEN_AGAIN:
            verdict = getattr(self, "_again_" + name.replace("-", "_"))(card, label, box, now, facts)
            if verdict is not NEXT:
                return name, verdict
        return "", None

    def _again_stray_place(self, card: CardRecord, label: str, box: np.ndarray, now: float, facts: TurnFacts) -> _Verdict:
        """Boxed again right where a stray lay (a pattern of the cloth comes and goes): that stray."""
        if not facts.stray(card.track_id):
            return NEXT
        return math.inf if _iou(card.full_box, box) >= self.tuning.same_place_iou else None

    def _again_turned_over(self, card: CardRecord, label: str, box: np.ndarray, now: float, facts: TurnFacts) -> _Verdict:
        """Turned over where it lay (a card revealed, or flipped by a take-out box) while the
        tracker lost it: one of the two names the card back, within ``flip_s`` of its last
        sighting; turned up about where it lay, turned down exactly there."""
        if (self.gone(card, facts) or CARD_BACK not in (card.label, label) or card.label == label
                or now - card.last_seen > self.tuning.flip_s):
            return NEXT
        overlap = _iou(card.box, box)
        needed = self.tuning.turned_up_iou if card.label == CARD_BACK else self.tuning.turned_down_iou
        return overlap if overlap >= needed else None

    def _again_renamed_in_place(self, card: CardRecord, label: str, box: np.ndarray, now: float,
                                facts: TurnFacts) -> _Verdict:
        """Read under another name right where a played card went out of sight, within
        ``flip_s``: the recogniser changed its mind (a card laid on it lies a strip off it, and a
        card the rules keep on the table does not leave it mid-round); its turn is amended once
        the new name settles."""
        if (self.played_now(card, facts) and CARD_BACK not in (card.label, label)
                and card.label != label and stays_all_round(self.face(card, facts))
                and now - card.last_seen <= self.tuning.flip_s and _iou(card.box, box) >= self.tuning.same_place_iou):
            return _iou(card.box, box)
        return NEXT

    def _again_whole_in_place(self, card: CardRecord, label: str, box: np.ndarray, now: float, facts: TurnFacts) -> _Verdict:
        """Boxed whole under its name right where a played card of this round lay whole, out of
        sight under its track: the tracker's track of it went over to a piece of it and lost it
        there (seen whole again seconds later, it is no new card). Not a card another card still
        lies on: it cannot show whole where it lay, and a box of its name there is the next card
        of its column passing over it in a hand, on its way to the column's end."""
        if (self.played_now(card, facts) and self.face(card, facts) == label
                and _iou(card.full_box, box) >= self.tuning.same_place_iou and not self.under_a_card(card)):
            return _iou(card.full_box, box)
        return NEXT

    def _again_strip_or_lost(self, card: CardRecord, label: str, box: np.ndarray, now: float, facts: TurnFacts) -> _Verdict:
        """A strip of a card still played, found again after a hand laid a card on it; or a card
        lost from sight (gone, or covered) back near where it went (a column straightened, a hand
        that stayed long), when the rules replayed so far say it is still on the table: the
        nearer the better, within ``reid_distance`` of its lengths."""
        if not self.strip_of(card, label, box, facts) and not self.may_come_back(card, label, box, now, facts):
            return None
        size = max(card.full_box[2] - card.full_box[0], card.full_box[3] - card.full_box[1], 1.0)
        d = float(np.linalg.norm((box[:2] + box[2:]) / 2 - (card.full_box[:2] + card.full_box[2:]) / 2)) / size
        return -d if d <= self.tuning.reid_distance else None

    def may_come_back(self, card: CardRecord, label: str, box: np.ndarray, now: float, facts: TurnFacts) -> bool:
        """Whether ``card``, lost from sight, may be what ``box`` shows (see :meth:`_again_strip_or_lost`)."""
        lost = self.gone(card, facts) or card.covered_by is not None
        kept_dessert = facts.round_of(card.track_id) < facts.round and is_dessert(self.face(card, facts))
        if not lost or (facts.round_of(card.track_id) != facts.round and not kept_dessert) or self.face(card, facts) != label:
            return False
        if self.face(card, facts) in RETURNS_TO_HAND:
            return False  # tools leave for a hand; their event is already on the log
        lain_over = card.covered_by is None and self.lain_over(card, facts)
        if kept_dessert or card.covered_by is not None or lain_over:
            # a covered card seen again shows a strip of itself, within where it lay; a
            # dessert kept from an earlier round, seen again, lies where it lay (a new
            # one laid on it only overlaps it). A box of its whole size, while the card
            # laid on it still lies there, is no strip of it: the next card of its column
            # passing over it in a hand, or laid at the column's end
            if (self.under_a_card(card) or lain_over) and _area(box) > self.tuning.part * card.size():
                return False
            within = self.tuning.dessert_within if kept_dessert and card.covered_by is None else self.tuning.strip_within
            return _intersection(card.full_box, box) >= within * _area(box)
        if card.gone_at is not None and now - card.piece_seen <= self.tuning.piece_left_s:
            # a piece of it lay in sight until a moment ago: the card lies there still, under
            # the card of its name just laid over it (the box), not lost
            return False
        here = sum(1 for c in self.cards.values() if c.seat == card.seat and self.played_now(c, facts)
                   and self.face(c, facts) == label and not c.flipped)
        # else the rules took it off the table (miso soups, scored uramaki...)
        return facts.left_on_table(card.seat).get(label, 0) > here

    def strip_of(self, card: CardRecord, label: str, box: np.ndarray, facts: TurnFacts) -> bool:
        """Whether ``box`` is a strip of ``card``: a card of this round, same name, and a box
        of at most half its size lying mostly within where it lay. A card laid on another shows
        whole; the one beneath shrinks to its strip, which a hand passing over it can make the
        tracker lose and find again as a new track."""
        if not self.played_now(card, facts) or self.face(card, facts) != label:
            return False
        return (_area(box) <= self.tuning.strip_size * _area(card.full_box)
                and _intersection(card.full_box, box) >= self.tuning.strip_inside * _area(box))

    def under_a_card(self, card: CardRecord) -> bool:
        """Whether a card laid over ``card`` as it went out of sight still lies on the table."""
        cover = self.cards.get(card.covered_by) if card.covered_by is not None else None
        return cover is not None and cover.gone_at is None

    def lain_over(self, card: CardRecord, facts: TurnFacts) -> bool:
        """Whether a card of ``card``'s seat laid after it, still played, lies over its place
        (``cover_share`` of where it lay whole): ``card`` lies beneath it, whether or not its
        going out of sight was seen as that card's laying (a strip misread under another name
        goes out of sight long after the card over it came).

        Why: such a card can show only the strip the card over it leaves; a whole box of its
        name at the end of its column is the next card laid there, not it found again."""
        area = max(_area(card.full_box), 1e-9)
        return any(o is not card and o.seat == card.seat and facts.round_of(o.track_id) == facts.round_of(card.track_id)
                   and self.in_play(o, facts) and o.first_seen > card.first_seen
                   and _intersection(card.full_box, o.full_box) >= self.tuning.cover_share * area
                   for o in self.cards.values())

    def covering(self, card: CardRecord) -> CardRecord | None:
        """The newer card of the same seat laid over ``card`` as it went out of sight.

        A covered card may leave only a thin strip in sight, or none, and a recogniser may lose
        it: a nigiri on its wasabi, the next card of a column. It is still on the table.
        """
        best, best_share = None, self.tuning.cover_share
        area = max(_area(card.full_box), 1e-9)
        for other in self.cards.values():
            # laid over it as it went out of sight, not long before or after
            laid = other.first_seen
            if (other is card or other.seat != card.seat
                    or other.gone_at is not None or laid <= card.first_seen
                    or not card.last_seen - self.times.quiet_s <= laid <= card.last_seen + self.times.settle_s + self.tuning.cover_late_s):
                continue
            inter = _intersection(card.full_box, other.full_box)
            if inter / area >= best_share:
                best, best_share = other, inter / area
        return best

    def second_name(self, glimpse: CardRecord) -> CardRecord | None:
        """The card ``glimpse`` is a box of: a box seen for a moment right where a card lay in
        sight before and after it is that card read under another name for a moment (the
        recogniser boxed it twice), not a card laid on it (the next card of a column, a nigiri
        on its wasabi, lies a strip off it).

        Right where it lay: as the glimpse was boxed first, or last (a second track on the
        strip of a column's card may be boxed for a frame over both cards, then right on the
        strip; measured by its first box only, it would stay a card and, given the strip again
        later, make a turn of its own). Found a box of the card, its track stands for that card
        from then on."""
        return next((o for o in self.cards.values()
                     if o is not glimpse and o.first_seen < glimpse.first_seen
                     and o.last_seen > glimpse.last_seen + self.times.just_seen_s
                     and max(_iou(o.box, glimpse.full_box), _iou(o.full_box, glimpse.full_box),
                             _iou(o.box, glimpse.box)) >= self.tuning.same_place_iou), None)

    def past_its_place(self, box: CardRecord, card: CardRecord) -> bool:
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

    def uncovered_by_move(self, strip: CardRecord, now: float, facts: TurnFacts) -> tuple[CardRecord, Move] | None:
        """The played card of ``strip``'s seat that moved off where it lay since the last turn
        was read, over part of that place, ``strip`` lying within the part it left and beside
        it (:meth:`strip_beside`): its track went over to a card laid on it, and ``strip`` is
        what shows of it. Its track follows the new card; the strip is the card beneath.

        Why: a maki roll laid over one of its kind leaves a strip showing fewer rolls, named as
        another maki; kept as the turn's card under its own name (right for a pudding, whose
        strip names it), the turn would get the wrong card. (:meth:`_settle_seats_missing` reads the
        same move, but only for a seat with no card in the turn.)"""
        area = _area(strip.full_box)
        for card in self.cards.values():
            if card.seat != strip.seat or (move := self.laid_over_since_last_turn(card, facts)) is None:
                continue
            if (area <= self.tuning.piece * card.size() and _intersection(move[1], strip.full_box) >= self.tuning.piece_within * area
                    and self.strip_beside(strip, card, now)):
                return card, move
        return None

    def laid_over_since_last_turn(self, card: CardRecord, facts: TurnFacts) -> Move | None:
        """The last move of ``card``, played this round and named as revealed, if it came
        since the last turn was read, over part of where it lay (a card laid over it, not a card
        moved elsewhere), and it lies where it came to lie still: the move a card of its name
        laid over it makes of it (see :meth:`_settle_seats_missing`, :meth:`uncovered_by_move`)."""
        since = facts.last_read_at
        move = card.moved
        if (not self.played_now(card, facts) or card.label != self.face(card, facts)
                or move is None or move[0] <= since):
            return None
        if _iou(move[1], move[2]) >= self.tuning.laid_over_iou and _iou(card.box, move[2]) >= self.tuning.moved_iou:
            return move
        return None

    def _fold(self, box: CardRecord, card: CardRecord) -> None:
        """Forget ``box`` as a card of its own: it is ``card`` (a piece, a second box of it),
        and its track stands for ``card`` from now on."""
        self.alias[box.track_id] = card.track_id
        self.pieces.setdefault(card.track_id, []).append(box.box.copy())
        del self.cards[box.track_id]

    def piece_again(self, box: np.ndarray, seat: int, facts: TurnFacts) -> CardRecord | None:
        """The played card of ``seat`` (this round) a piece of which was boxed right where
        ``box`` lies (``same_place_iou``), if any: a new track there is that piece again.

        Why: the strip of a covered card is often boxed twice, under two names (a maki strip
        shows fewer rolls); the second box, folded into the card, can lose its track under a
        hand and come back as a new one, which lies beside the next card laid and would be
        taken for a card laid before it."""
        for owner_id, places in self.pieces.items():
            owner = self.cards.get(owner_id)
            if owner is None or owner.seat != seat or not self.played_now(owner, facts):
                continue
            if any(_iou(place, box) >= self.tuning.same_place_iou for place in places):
                return owner
        return None

    def boxed_together(self, a: CardRecord, b: CardRecord) -> bool:
        """Whether ``a`` and ``b`` are parts of one card, boxed apart: first boxed within
        ``glimpse_s`` of each other, the later not the strip of a card the earlier was laid on.

        A player lays one card at a time: a band of glare across a card can make the
        recogniser box it as two overlapping parts from the frame it is laid, under two names.
        The strip of a card beneath shows only once the card over it lies there (a strip never
        boxed whole, beside the card laid on it, is a card of its own)."""
        if abs(a.boxed_at - b.boxed_at) > self.times.glimpse_s:
            return False
        first, later = sorted((a, b), key=lambda c: (c.boxed_at, c.track_id))
        return not self.shows_under(later, first)

    def still_on_table(self, card: CardRecord, facts: TurnFacts) -> bool:
        """Whether ``card``, revealed, lies on the table still by the rules: played, or gone
        out of sight while no rule takes it off the table mid-round (not a tool, not a card
        discarded as it scores, not flipped)."""
        return self.in_play(card, facts) or (self.gone(card, facts) and not card.flipped and stays_all_round(self.face(card, facts)))

    def left_a_strip(self, under: CardRecord, over: CardRecord, now: float) -> bool:
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

    def laid_order(self, cards: list[CardRecord]) -> list[CardRecord]:
        """One seat's cards in the order they were laid: as first boxed, but a card seen only
        as the strip another of them, of another name, leaves of it (:meth:`shows_under`)
        before that one.

        First boxed, not first had by the game: cards that lay there before the seats were
        learned come to the game in one frame, a card with one of a later turn).

        A card first boxed once the next card of its column covered it was laid before that
        card, though seen after it (a strip never boxed whole beside the card laid on it a
        turn later). Of the same name, such a strip is as often a second, partial box of the
        card itself (boxed whole and, half outside that box, in part), and the two are one
        card (:meth:`twin_of`)."""
        order = sorted(cards, key=lambda c: (boxed(c), c.track_id))
        for card in list(order):
            over = next((o for o in order if o is not card and o.label != card.label
                         and self.shows_under(card, o)), None)
            if over is not None and order.index(over) < order.index(card):
                order.remove(card)
                order.insert(order.index(over), card)
        return order

    def strip_beside(self, strip: CardRecord, card: CardRecord, now: float) -> bool:
        """Whether ``card`` lies whole in sight now and ``strip`` shows under it
        (:meth:`shows_under`): the card it was laid on, not a piece of itself."""
        return card.last_seen >= now and _area(card.box) >= self.tuning.whole_share * card.size() and self.shows_under(strip, card)

    def shows_under(self, strip: CardRecord, card: CardRecord) -> bool:
        """Whether ``strip`` is a card ``card`` lies on, seen only since: never boxed bigger
        than a strip (``piece`` of ``card``'s size), lying mostly outside ``card`` (its part
        left uncovered) and against it. A strip of ``card`` itself (a second box on it) lies
        within it."""
        area = _area(strip.full_box)
        if area > self.tuning.piece * card.size() or _intersection(strip.full_box, card.box) >= self.tuning.under_outside * area:
            return False
        reach = self.tuning.reach * float(np.max(strip.full_box[2:] - strip.full_box[:2]))
        return _intersection(strip.full_box + np.array([-reach, -reach, reach, reach]), card.full_box) > 0

    def copied_card(self, order: CardRecord, facts: TurnFacts) -> CardRecord | None:
        """The card a special order lies on: the earlier card of its seat it covers most."""
        under = [c for c in self.cards.values()
                 if c.seat == order.seat and c is not order and self.played_now(c, facts)
                 and facts.turn_of(c.track_id) < facts.turn_of(order.track_id) and not c.flipped
                 and self.face(c, facts) not in NEVER_COPIED and self.face(c, facts) != ""]
        if not under:
            return None
        o = order.full_box
        centre = (o[:2] + o[2:]) / 2

        def covered(c: CardRecord) -> tuple[float, float]:
            b = c.full_box
            inter = _intersection(o, b)
            dist = float(np.linalg.norm(centre - (b[:2] + b[2:]) / 2))
            return inter / max(_area(b), 1e-9), -dist

        return max(under, key=covered)

    def _split(self, card: CardRecord, move: Move, now: float) -> CardRecord:
        """Give ``card`` (moved, ``move`` its last move: see :meth:`_settle_seats_missing`) a new id,
        lying beneath where it lay, and return the new card of its name that its track now
        follows."""
        track_id = card.track_id
        self.next_hidden -= 1
        hidden = self.next_hidden
        when, before, after = move
        card.track_id, card.box, card.covered_by = hidden, before.copy(), track_id
        card.rest, card.moving, card.moved = before.copy(), None, None
        self.cards[hidden] = card
        for piece, original in list(self.alias.items()):
            if original == track_id:
                self.alias[piece] = hidden
        if track_id in self.pieces:
            self.pieces[hidden] = self.pieces.pop(track_id)
        new = CardRecord(track_id, card.seat, when, now, card.label, when, after.copy(), after.copy(), boxed_at=when)
        new.areas.append(_area(after))
        self.cards[track_id] = new
        return new

    def _give_back(self, card: CardRecord, new: CardRecord, now: float, facts: TurnFacts) -> CardRecord:
        """Make ``card`` (played, its track gone over to a card laid elsewhere) follow the
        track of ``new`` (boxed again where ``card`` lay), and ``new`` follow the track that
        left, as the card laid: pending, named as that track reads it, since it moved."""
        when = card.moved[0] if card.moved is not None else now
        card_raw, new_raw = self.source.get(card.track_id, card.track_id), self.source.get(new.track_id, new.track_id)
        self.alias[new_raw], self.source[card.track_id] = card.track_id, new_raw
        self.alias[card_raw], self.source[new.track_id] = new.track_id, card_raw
        laid_box, laid_label, laid_since = card.box.copy(), card.label, card.label_since
        card.box, card.label, card.label_since = new.box.copy(), self.face(card, facts), new.label_since
        card.rest, card.moving, card.moved, card.kept_at = new.box.copy(), None, None, now
        card.whole_reads = [r for r in card.whole_reads if r[1] == self.face(card, facts)]
        card.whole_counts = {self.face(card, facts): card.whole_counts.get(self.face(card, facts), 0)}
        new.box, new.full_box, new.label, new.label_since = laid_box, laid_box.copy(), laid_label, laid_since
        new.first_seen = new.boxed_at = when
        new.areas.clear()
        new.areas.append(_area(laid_box))
        return new

    # --- what the turn reader is about to count: boxes that are a card already there ------

    def settle(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """The turn reader is at a step of reading a turn (``ask``: the step, the cards it is
        about); the boxes among them that are a card already there, by the rules of
        :data:`SETTLE` for that step, in their order: a box folded into the card it is
        (:class:`Folded`), a card split from the track that followed it onto a card laid over
        it (:class:`Split`), a track given back to a played card it went off (:class:`GivenBack`),
        cards dropped (:class:`Forgotten`). Each rule that decides goes to :attr:`trace`.
        ``facts``: what the turn reader has made of the game, as it asks."""
        handler = getattr(self, "_settle_" + ask.step.value.replace("-", "_"))
        events: list[HistoryEvent] = handler(ask, facts)
        return events

    def _asked(self, ask: Ask) -> list[CardRecord]:
        """The cards of ``ask`` the history still keeps, in its order."""
        return [self.cards[i] for i in ask.cards if i in self.cards]

    def _note(self, rule: str, track_id: int, card_id: int, at: float) -> None:
        self.trace.append(Decision(rule, track_id, card_id, at))

    def _folded(self, box: CardRecord, into: CardRecord, rule: str, at: float) -> Folded:
        """Fold ``box`` into ``into`` by ``rule`` (:meth:`_fold`), told as an event."""
        box_id = box.track_id
        self._fold(box, into)
        self._note(rule, box_id, into.track_id, at)
        return Folded(box_id, into.track_id, rule, at)

    def _split_off(self, card: CardRecord, move: Move, rule: str, at: float) -> Split:
        """Split ``card`` from its track by ``rule`` (:meth:`_split`), told as an event."""
        track_id = card.track_id
        self._split(card, move, at)
        self._note(rule, track_id, card.track_id, at)
        return Split(track_id, card.track_id, rule, at)

    def _settle_weigh(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``left-where-boxed``: a pending card boxed right where a played card of its seat lay
        before it moved away (:meth:`left_where_boxed`) is that card seen again; its track goes
        back to it, and the track that left follows the card laid.

        Why: a hand laying a card passes over a card of an earlier turn; that card's track
        follows the new card, and the earlier card comes back as a new track. Read as they
        come, the next turn would get the earlier card again and the new card's reads would
        rename the earlier turn."""
        events: list[HistoryEvent] = []
        for new in self._asked(ask):
            left = self.left_where_boxed(new, ask.at, facts)
            if left is None:
                continue
            laid_label = left.label
            self._give_back(left, new, ask.at, facts)
            self._note(SETTLE[Step.WEIGH][0], new.track_id, left.track_id, ask.at)
            events.append(GivenBack(left.track_id, new.track_id, laid_label, SETTLE[Step.WEIGH][0], ask.at))
        return events

    def _settle_glimpses(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``second-name``: a box seen for a moment right where a card lay in sight before and
        after it is that card read under another name (:meth:`second_name`). All are judged
        on the table as it lies before any is folded."""
        found = [(box, known) for box in self._asked(ask) if (known := self.second_name(box)) is not None]
        return [self._folded(box, known, SETTLE[Step.GLIMPSES][0], ask.at) for box, known in found]

    def _settle_in_turn(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """The cards a turn is about to be read from that are a card already played seen again,
        each by the first rule that applies: ``uncovered-strip``, a strip a move uncovered
        (:meth:`uncovered_by_move`: the played card beneath is split off under a new id, the
        strip folded into it, the track's card is the turn's); ``second-box-in-sight``, a second
        box on a played card in sight (:meth:`second_box_in_sight`); ``piece-of-played``, a
        piece of a card played (:meth:`piece_of_played`). A piece folded into a card gone out
        of sight leaves it gone: the piece, often misnamed, is no sighting of it to follow."""
        uncovered, in_sight, piece = SETTLE[Step.IN_TURN]
        events: list[HistoryEvent] = []
        for card in self._asked(ask):
            found = self.uncovered_by_move(card, ask.at, facts)
            if found is not None:
                under, move = found
                split = self._split_off(under, move, uncovered, ask.at)
                facts = facts.moved(split.card_id, split.beneath)  # it keeps what it is to the game
                events += [split, self._folded(card, under, uncovered, ask.at)]
                continue
            old = self.second_box_in_sight(card, ask.at, facts)
            rule = in_sight
            if old is None:
                old, rule = self.piece_of_played(card, ask.at, facts), piece
            if old is not None:
                events.append(self._folded(card, old, rule, ask.at))
        return events

    def _settle_seat_extra(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """One seat's cards of the turn, in the order laid, more than the ``allowed`` it may
        lay: those that are a card of this round, folded into it while the seat has too many,
        each rule over all of them in turn: ``found-again-where-it-lies``
        (:meth:`found_again_where_it_lies`: a strip under a newer card), ``misnamed-part``
        (:meth:`misnamed_part`); then of the cards beyond the first ``allowed`` left, ``twin``:
        one card boxed twice (:meth:`twin_of`: the same name, or boxed with it)."""
        again, part, twin = SETTLE[Step.SEAT_EXTRA]
        mine = self._asked(ask)
        events: list[HistoryEvent] = []
        for rule, rule_of in ((again, self.found_again_where_it_lies), (part, self.misnamed_part)):
            for card in list(mine):
                if len(mine) <= ask.allowed:
                    break
                old = rule_of(card, facts)
                if old is not None:
                    events.append(self._folded(card, old, rule, ask.at))
                    mine.remove(card)
        kept = mine[:ask.allowed]
        for card in mine[ask.allowed:]:
            old = self.twin_of(kept, card, ask.at)
            if old is not None:
                events.append(self._folded(card, old, twin, ask.at))
        return events

    def _settle_still(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``second-box``: once the table is still (no hand over a card then), a card of the
        turn seen for ``seen_s`` that is a second box of a played card of this round
        (:meth:`second_box_of`)."""
        events: list[HistoryEvent] = []
        for card in self._asked(ask):
            if card.last_seen - card.first_seen < self.times.seen_s:
                continue
            old = self.second_box_of(card, ask.at, facts)
            if old is not None:
                events.append(self._folded(card, old, SETTLE[Step.STILL][0], ask.at))
        return events

    def _settle_seats_missing(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``laid-over-alike``: of each seat with no card in the turn about to be read, the card
        in sight that came to lie whole a few pixels off where it lay since the last turn was
        read, still overlapping it (:meth:`laid_over_since_last_turn`; the latest such move),
        is a card of its name laid almost wholly over it, which the tracker took for that card
        moved: the card beneath keeps its turn under a new id, the track follows the new card.

        Why: a card revealed does not move by itself; the card laid over it, its sliver unseen,
        would otherwise never be counted."""
        events: list[HistoryEvent] = []
        for seat in sorted(ask.seats):
            moved = [(move, c) for c in self.cards.values() if c.seat == seat and c.last_seen >= ask.at
                     and (move := self.laid_over_since_last_turn(c, facts)) is not None]
            if not moved:
                continue
            move, card = max(moved, key=lambda m: m[0][0])
            split = self._split_off(card, move, SETTLE[Step.SEATS_MISSING][0], ask.at)
            facts = facts.moved(split.card_id, split.beneath)
            events.append(split)
        return events

    def _settle_cleared(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``cleared-away``: the round ended with its cards leaving the table; the cards pending,
        out of sight (seen for a moment, gone with the clear-up), never made a turn."""
        rule = SETTLE[Step.CLEARED][0]
        return [self._forget(c, rule, ask.at) for c in list(self.cards.values())
                if not facts.told(c.track_id) and c.gone_at is not None]

    def _settle_round_over(self, ask: Ask, facts: TurnFacts) -> list[HistoryEvent]:
        """``gone-with-round``: the round is over (``facts``: the next in play); its cards that
        left the table are dropped, desserts aside (they count at the game's end), and the
        tracks that stood for cards dropped."""
        rule = SETTLE[Step.ROUND_OVER][0]
        gone = [c for c in list(self.cards.values())
                if 0 <= facts.round_of(c.track_id) < facts.round and facts.of(c.track_id).status == Status.GONE
                and not is_dessert(self.face(c, facts))]
        events: list[HistoryEvent] = [self._forget(c, rule, ask.at) for c in gone]
        self._drop_dangling()
        return events

    # --- boxes that are a card already there ----------------------------------------------

    def left_where_boxed(self, new: CardRecord, now: float, facts: TurnFacts) -> CardRecord | None:
        """The played card of ``new``'s seat that moved away since the last turn was read, to lie
        elsewhere under another name, boxed again by ``new`` right where it lay, named as it
        was revealed (see :meth:`_settle_weigh`): its track went over to a card a
        hand laid past it."""
        for card in self.cards.values():
            move = card.moved
            if (card.seat != new.seat or not self.played_now(card, facts)
                    or card.flipped or move is None or move[0] <= facts.last_read_at or self.face(card, facts) != new.label
                    or card.label in (self.face(card, facts), CARD_BACK) or now - card.last_seen > self.times.just_seen_s
                    or now - new.last_seen > self.times.just_seen_s):
                continue
            # moved away (not a card laid over it: see laid_over_since_last_turn), and boxed
            # again right where it lay
            if _iou(move[1], move[2]) < self.tuning.laid_over_iou and _iou(move[1], new.box) >= self.tuning.same_place_iou:
                return card
        return None

    def on_its_like(self, card: CardRecord, now: float, facts: TurnFacts) -> bool:
        """Whether ``card`` lies on a revealed card of its seat and this round named as it is
        read (a strip of that card found again, or a card laid on it now), unless it is a strip
        that card shows beside it, whole in sight (:meth:`strip_beside`)."""
        return any(o.seat == card.seat and facts.told(o.track_id) and facts.round_of(o.track_id) == facts.round
                   and self.face(o, facts) == card.label and lies_on(o, card, self.tuning.lies_on)
                   and not self.strip_beside(card, o, now)
                   for o in self.cards.values())

    def second_box_in_sight(self, card: CardRecord, now: float, facts: TurnFacts) -> CardRecord | None:
        """The played card of ``card``'s seat, named as it, in sight now, that ``card``'s box lies
        on (``piece_within`` of the smaller box): a strip of it found twice. A card laid over
        part of it lies mostly outside its strip."""
        return next((c for c in self.cards.values() if c.seat == card.seat and self.played_now(c, facts)
                     and self.face(c, facts) == card.label and c.last_seen >= now
                     and containment(c.box, card.box) >= self.tuning.piece_within), None)

    def piece_of_played(self, card: CardRecord, now: float, facts: TurnFacts) -> CardRecord | None:
        """The card of this round still on the table by the rules that ``card`` is a piece of,
        whatever the recogniser calls it: a box much smaller than that card's usual size
        (``piece``) lying within where it lay whole (a strip left of it by the card laid on it);
        a card laid there is a whole card.

        Of any seat: tableaux never overlap, and a piece seen as the player laid a card on it
        may be given the seat that laid nothing just then. Smaller than the card's usual size,
        not its largest box: boxed with the hand that laid it, a wasabi showed twice its size,
        and the nigiri laid on it later would be taken for a piece of it. But a card in sight
        whole now, lying off the piece, left no piece there: the piece is the card it was laid
        on, its track gone over to the new card (a card laid on its like). A card of this round
        gone out of sight whose cover was not found is such a card too: none but tools and the
        cards the rules discard leave the table mid-round (a card misread and lost under a hand
        shows its strip as the next card is laid over it; read as a card of that turn, it would
        push the new card into a turn of its own)."""
        return next((c for c in self.cards.values() if self.still_on_table(c, facts)
                     and facts.round_of(c.track_id) == facts.round
                     and _area(card.full_box) <= self.tuning.piece * c.size()
                     and _intersection(c.full_box, card.full_box) >= self.tuning.piece_within * _area(card.full_box)
                     and not self.strip_beside(card, c, now)), None)

    def found_again_where_it_lies(self, card: CardRecord, facts: TurnFacts) -> CardRecord | None:
        """A revealed card of ``card``'s seat and this round, named as it, that ``card`` lies on
        (``lies_on``), not reaching past its place (:meth:`past_its_place`): that card found
        again where it lies (a strip under a newer card)."""
        return next((c for c in self.cards.values() if c.seat == card.seat and facts.told(c.track_id)
                     and facts.round_of(c.track_id) == facts.round and self.face(c, facts) == card.label
                     and lies_on(c, card, self.tuning.lies_on) and not self.past_its_place(card, c)), None)

    def misnamed_part(self, card: CardRecord, facts: TurnFacts) -> CardRecord | None:
        """The card of ``card``'s seat and this round, on the table by the rules (a card they
        keep all round is there though out of sight), that ``card`` is a part of under another
        name: ``card`` lies within where it lay (``part_within``), its usual size at most
        ``part`` of that card's (a card laid over it shows its whole size, as a nigiri laid on
        its wasabi does).

        Why: a hand laying a card beside a played card covers part of it, and what shows of it,
        boxed just before the new card and misread, would be read as the seat's card of the
        turn, the new card as a box that came with it."""
        return next((c for c in self.cards.values() if c.seat == card.seat and self.still_on_table(c, facts)
                     and facts.round_of(c.track_id) == facts.round and card.size() <= self.tuning.part * c.size()
                     and max(_intersection(c.full_box, card.full_box), _intersection(place(c), card.full_box))
                     >= self.tuning.part_within * _area(card.full_box)), None)

    def twin_of(self, kept: list[CardRecord], card: CardRecord, now: float) -> CardRecord | None:
        """The card of ``kept`` that ``card`` is a second box of: lying on it (``twin_lies_on``),
        not the next card of its column laid on it (:meth:`left_a_strip`), and named as it or
        boxed with it (:meth:`boxed_together`)."""
        return next((k for k in kept if lies_on(k, card, self.tuning.twin_lies_on) and not self.left_a_strip(k, card, now)
                     and (k.label == card.label or self.boxed_together(k, card))), None)

    def second_box_of(self, card: CardRecord, now: float, facts: TurnFacts) -> CardRecord | None:
        """The played card of this round, in sight now, that ``card`` is a second box of: never
        bigger than ``part`` of it, lying within where it lay and within it as it lies now
        (``piece_within``). A card laid over a corner of another may leave that card's uncovered
        part boxed a second time for seconds, under another name."""
        return next((c for c in self.cards.values() if self.played_now(c, facts) and c.last_seen >= now
                     and _area(card.full_box) <= self.tuning.part * c.size()
                     and _intersection(c.full_box, card.full_box) >= self.tuning.piece_within * _area(card.full_box)
                     and _intersection(c.box, card.box) >= self.tuning.piece_within * _area(card.box)), None)


def face(card: CardRecord, turn: CardTurn) -> str:
    """The name the game counts ``card`` under, ``turn`` what the turn reader made of it: the
    name it was revealed as (``turn.face``), until it is read face up and settled since (its
    ``settled_name``; a card revealed before its name settled counts under the name it showed).
    A card not revealed counts under its settled name."""
    return turn.face if turn.revealed_at >= card.settled_at else card.settled_name


def place(card: CardRecord) -> np.ndarray:
    """Where ``card`` lay whole and still (its largest box until it has: a box of a card on its
    way in, slid by a hand, is as large as the card where it comes to lie)."""
    return card.rest if card.rest is not None else card.full_box


def boxed(card: CardRecord) -> float:
    """When ``card`` was first boxed (the tracker's first box, or the game's first sighting)."""
    return min(card.boxed_at, card.first_seen)


def lies_on(a: CardRecord, b: CardRecord, share: float) -> bool:
    """Whether two cards lie on each other: ``share`` of the smaller box in the other, where
    they lie now or where they showed whole (a card slid in shows whole on its way too)."""
    return max(containment(a.box, b.box), containment(a.full_box, b.full_box)) >= share


def containment(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the smaller of two boxes lying in the other."""
    return _intersection(a, b) / max(min(_area(a), _area(b)), 1e-9)
