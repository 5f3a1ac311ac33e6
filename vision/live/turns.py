"""Turn the cards of a live table into the per-turn log the scorer replays.

:class:`TurnReader` ``.update(changes, timestamp) -> list[LiveEvent]`` reads the events of
the card history (:class:`~vision.live.history.CardHistory`: the one record per card, fed
the tracker's seated cards) and the records' game facts (when a card was laid and last
seen, its name and since when); what a card is to the game (:class:`CardTurn`: pending,
played, gone, a stray; its round, turn and logged name) it keeps itself, by card id, and
hands the history as one frozen value (:meth:`TurnReader.facts`, a
:class:`~vision.live.facts.TurnFacts`) where its rules need it; it writes no record, and
decides nothing about what a box is. At each step of reading a turn it tells the history
which cards it is about to count (an :class:`~vision.live.facts.Ask` at a
:class:`~vision.live.facts.Step`); the history settles which of them are a card already there
by its own named rules (``CardHistory.settle``), and this reader follows its events: a box
``Folded`` into a card is no card of the turn, a card ``Split`` off keeps its turn under its
new id while the track's new card is pending, a ``GivenBack`` track is noted, a card
``Forgotten`` is dropped from its state. It asks the history four questions still, none that
changes a record: the order a seat laid its cards in (``laid_order``), whether a card lies on
a played card of its name (``on_its_like``: it waits, rather than join the last turn late),
whether a box is the strip a card of the turn shows under it (``shows_under``: no stray), and
the card a special order lies on (``copied_card``). It reads no box itself, and reads the game
from what appears and goes:

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
  turn: players take their next card only once every player has revealed. So is a box first
  boxed before the last turn was read, at a seat with a card in it, that the recogniser was
  unsure of for ``doubted_s`` or more (``doubted-through-turn``): it lay there through that
  turn as no card. The picture's end closes the turn in play, once (:meth:`TurnReader.finish`).
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

The log is :attr:`TurnReader.rounds` (``{"turns": [...]}`` per round, see
``docs/turn-log.md``) and :meth:`TurnReader.record` makes the whole game record.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from scorer.cards import (
    CARD_BACK,
    RETURNS_TO_HAND,
    SPECIAL_ORDER,
    is_dessert,
    leaves_by_rule,
    stays_all_round,
)
from scorer.errors import RecordError
from scorer.turns import Turn, TurnLog, replay
from scorer.turns import TurnEvent as LogEvent
from vision.live.events import (
    Folded,
    Forgotten,
    GivenBack,
    HistoryEvent,
    Left,
    SeenAgain,
    Split,
    TurnedDown,
)
from vision.live.facts import PENDING, Ask, CardTurn, Status, Step, TurnFacts
from vision.live.history import CardHistory, CardRecord, Decision, boxed, face
from vision.live.notes import LiveNote, NoteCause
from vision.live.tuning import TurnTuning


class EventKind(StrEnum):
    """What the game did (:class:`LiveEvent`)."""

    TURN = "turn"  # a new turn read
    AMENDED = "turn-amended"  # an earlier turn gained an event or a better read card
    ROUND_END = "round-end"  # the round ended


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
class TurnReader:
    """Read turns, in-turn events and round ends from the card history's events.

    ``players`` are the names in seat order (seat 0 first, as :class:`SeatMemory` numbers
    them); ``edition`` names the rules the log is checked against; ``cards`` the card history
    whose :meth:`CardHistory.update` events :meth:`update` is given.
    """

    players: Sequence[str]
    edition: str = "party"
    tuning: TurnTuning = field(default_factory=TurnTuning)
    #: the card history whose events :meth:`update` reads (a new one if none is given)
    cards: InitVar[CardHistory | None] = None
    _rounds: list[list[_TurnRecord]] = field(default_factory=lambda: [[]], init=False, repr=False)
    _finished: list[TurnLog] = field(default_factory=list, init=False, repr=False)
    _held: list[_Held] = field(default_factory=list, init=False, repr=False)
    _fixed: dict[tuple[int, int], Turn] = field(default_factory=dict, init=False, repr=False)
    #: what each card is to the game, by card id (a card not here is pending)
    _states: dict[int, CardTurn] = field(default_factory=dict, init=False, repr=False)
    notes: list[LiveNote] = field(default_factory=list, init=False)  # what it made of the table
    _now: float = field(default=-math.inf, init=False, repr=False)  # the last frame's time
    _closed: bool = field(default=False, init=False, repr=False)  # the turn in play closed since the last frame
    #: the decisions of this reader's own named rules (a box taken for a stray), newest last
    _decisions: deque[Decision] = field(default_factory=lambda: deque(maxlen=500), init=False, repr=False)

    def __post_init__(self, cards: CardHistory | None) -> None:
        #: the one history of the cards (their boxes, names, what lies on what), fed by
        #: :meth:`CardHistory.update`; what a card is to the game (status, round, turn, logged
        #: name) this reader keeps in its own state (:class:`CardTurn`), handed to the
        #: history's rules as :meth:`facts`
        self.history = cards if cards is not None else CardHistory(times=self.tuning)
        self.players = tuple(self.players)
        if not self.players:
            raise ValueError("a live game needs the players' names in seat order")
        if len(set(self.players)) != len(self.players):
            raise ValueError("player names must differ")

    @property
    def _cards(self) -> dict[int, CardRecord]:
        return self.history.cards

    def _state(self, card: CardRecord) -> CardTurn:
        """What ``card`` is to the game."""
        return self._states.get(card.track_id, PENDING)

    def _set(self, card: CardRecord, **changes) -> None:
        """Change what ``card`` is to the game (the fields of :class:`CardTurn` named)."""
        self._states[card.track_id] = replace(self._state(card), **changes)

    def _play(self, card: CardRecord, round_index: int, turn: int, now: float) -> None:
        """Put ``card`` in turn ``turn`` of round ``round_index`` at ``now``: on the table, or
        gone from it already; revealed as the name it shows (face up), settled or not."""
        shown = card.label if card.label != CARD_BACK else self._face(card)
        self._set(card, status=Status.PLAYED if card.gone_at is None else Status.GONE, round=round_index, turn=turn,
                  face=shown, revealed_at=now)

    def _face(self, card: CardRecord) -> str:
        """The name the game counts ``card`` under (:func:`vision.live.history.face`)."""
        return face(card, self._state(card))

    def _stray(self, card: CardRecord, round_index: int) -> None:
        """``card`` is a stray, a box of no card."""
        self._set(card, status=Status.STRAY, round=round_index)

    def _settle(self, ask: Ask) -> list[HistoryEvent]:
        """Tell the history the step of reading a turn this reader is at (``ask``); what it
        settled (:meth:`CardHistory.settle`), with what each card is to the game following the
        cards it split off (under their new ids) and the cards it dropped."""
        events = self.history.settle(ask, self.facts())
        for event in events:
            if isinstance(event, Split):
                self._follow_split(event)
            elif isinstance(event, Forgotten):
                self._states.pop(event.card_id, None)
        return events

    def _follow_split(self, split: Split) -> None:
        """The card beneath (``split.beneath``) keeps what it was to the game and its place in
        the turns of this round (a card that moves is of this round); the card laid over it,
        followed by the track now, is pending."""
        if split.card_id in self._states:
            self._states[split.beneath] = self._states.pop(split.card_id)
        for record in self._rounds[self.round_index]:
            for ids in record.cards.values():
                ids[:] = [split.beneath if i == split.card_id else i for i in ids]

    @property
    def trace(self) -> deque[Decision]:
        """The last decisions of the named rules, newest last: the history's
        (:attr:`CardHistory.trace`) and this reader's, each in the order made, merged by time."""
        merged = heapq.merge(self.history.trace, self._decisions, key=lambda d: d.at)
        return deque(merged, maxlen=self.history.trace.maxlen)

    def facts(self) -> TurnFacts:
        """What this reader has made of the game so far, as the card history's rules read it:
        the round in play, when its last turn was read, what each card is to the game, the
        round's turns (:class:`~vision.live.facts.TurnFacts`). A value: it does not follow
        the game after it is made."""
        turns = self._rounds[self.round_index]
        return TurnFacts(self.round_index, turns[-1].read_at if turns else -math.inf,
                         MappingProxyType(dict(self._states)), self._log(self.round_index),
                         tuple(self.players), self.edition)

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
            if self._state(card).status == Status.PENDING and 0 <= card.seat < len(self.players):
                out[self.players[card.seat]].append(card.label)
        return out

    def card_states(self) -> dict[int, dict]:
        """What each tracked card is to the game now (by the id the tracker gave it)."""
        out = {}
        for track_id, card in self._cards.items():
            state = self._state(card)
            out[track_id] = {"status": state.status, "round": state.round, "turn": state.turn,
                             "text": state.text or card.label, "flipped": card.flipped}
        for alias, original in self.history.alias.items():
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

    def reseat(self, moved: Mapping[int, int]) -> None:
        """Cards (by card id) the card history gave another seat (:meth:`CardHistory.reseat`),
        each with the seat it had: they are their new seat's player's in the turns of this
        round already read too (a finished round, or a turn a player fixed, stays as it is)."""
        for card_id, was in moved.items():
            card = self._cards.get(card_id)
            if card is None:
                continue
            for record in self._rounds[self.round_index]:
                if card.track_id in record.cards.get(was, []):
                    record.cards[was].remove(card.track_id)
                    if not record.cards[was]:
                        del record.cards[was]
                    mine = [*record.cards.get(card.seat, []), card.track_id]
                    record.cards[card.seat] = sorted(mine, key=lambda i: (self._cards[i].first_seen, i))

    def _turn(self, round_index: int, index: int) -> Turn:
        if (round_index, index) in self._fixed:
            return self._fixed[(round_index, index)]
        record = self._rounds[round_index][index]
        reveals = tuple(
            (self.players[seat], tuple(self._state(self._cards[i]).text for i in record.cards[seat]))
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
        round): the cards laid since the last turn make their turn now, as last seen: one
        turn, the turn in play, closed once.

        A turn is otherwise read only once the table has lain still a while after its last
        card (``quiet_s``, ``still_s``): cards laid just before the picture ends would never
        make their turn. Cards seen too briefly to be cards, and cards still face down, stay
        out of it as they would have. Boxes beyond what a seat may lay in that turn stay
        pending, in no turn: a turn is read once the table lies still after its cards, so the
        turn in play is the only one not read yet; what a seat shows beyond its card of it is
        no next turn (the hand that laid a card leaving, the strip a card left of the one
        beneath), and read as one it would be a turn more than were played. Called again
        before another frame, it closes nothing. ``timestamp``: when (default: the last frame's time)."""
        if self._closed:
            return []  # closed already, and no frame came since: the same table
        self._closed = True
        now = self._now if timestamp is None else max(float(timestamp), self._now)
        return self._emit(now, closing=True)

    def end_round(self, timestamp: float | None = None) -> list[LiveEvent]:
        """The players end the round (the table is not cleared yet, or the clear-up went
        unseen): the turn in play closes (:meth:`finish`), then the round. Cards of it still
        on the table stay its cards; a new card laid is the next round's. A box still
        pending in no turn is left out (a stray: never played)."""
        events = self.finish(timestamp)
        now = self._now if timestamp is None else max(float(timestamp), self._now)
        if not self._rounds[self.round_index]:
            return events
        left = [c for c in self._cards.values() if self._state(c).status == Status.PENDING]
        for card in left:
            self._stray(card, self.round_index)
        if left:
            self.notes.append(LiveNote(NoteCause.LEFT_AT_ROUND_END, self.round_index, count=len(left)))
        return [*events, *self._close_round(now)]

    # --- one frame -------------------------------------------------------------------------

    def update(self, changes: Sequence[HistoryEvent], timestamp: float) -> list[LiveEvent]:
        """One frame: what the card history made of it (:meth:`CardHistory.update`'s events)
        in, what the game did out."""
        now = float(timestamp)
        self._now = max(self._now, now)
        self._closed = False
        events: list[LiveEvent] = []
        for change in changes:
            if isinstance(change, SeenAgain) and (card := self._cards.get(change.card_id)) is not None:
                self._seen_again(card)
            elif isinstance(change, Left) and (card := self._cards.get(change.card_id)) is not None:
                events += self._left(card)
            elif isinstance(change, Forgotten):
                self._states.pop(change.card_id, None)
        events += self._relabelled(now, {c.card_id for c in changes if isinstance(c, TurnedDown)})
        events += self._round_end(now)
        events += self._emit(now)
        return events

    def _seen_again(self, card: CardRecord) -> None:
        """A card the history found again (:class:`~vision.live.events.SeenAgain`): one
        revealed and gone from the table is on it again, played."""
        if self._state(card).status == Status.GONE:
            self._set(card, status=Status.PLAYED)

    def _left(self, card: CardRecord) -> list[LiveEvent]:
        """What a card out of sight for good (:class:`~vision.live.events.Left`) is to the game:
        a stray stays (boxed there again, it is the same stray), a card pending stays pending
        (one laid too briefly to be a card the history forgets: ``Forgotten``), a revealed card
        is gone, and a tool going back to its hand is an event of the turn its seat played two
        cards in."""
        state = self._state(card)
        if state.status in (Status.STRAY, Status.PENDING):
            return []
        self._set(card, status=Status.GONE)
        tool_event = RETURNS_TO_HAND.get(self._face(card))
        if tool_event and state.round == self.round_index:
            event = LogEvent(self.players[card.seat], tool_event)
            return self._attach(_Held(card.seat, card.last_seen, event, state.turn))
        return []

    def _relabelled(self, now: float, turned_down: set[int]) -> list[LiveEvent]:
        """Revealed cards whose settled name changed: a take-out flip (the cards of
        ``turned_down``, :class:`~vision.live.events.TurnedDown`), or a better read."""
        events = []
        for card in self._cards.values():
            state = self._state(card)
            if state.status != Status.PLAYED or state.round != self.round_index:
                continue
            if now - card.label_since < self.tuning.settle_s or card.gone_at is not None:
                continue
            if card.track_id in turned_down:
                flip = LogEvent(self.players[card.seat], "takeout-flip", (state.text,))
                order = (state.turn, card.first_seen, card.track_id)
                events += self._attach(_Held(card.seat, card.label_since, flip, state.turn, order))
            elif (not card.flipped and card.covered_by is None and (state.round, state.turn) not in self._fixed
                  and self._reread(card, now)):  # a player's fix stands
                # the vote settled on another name while the card lay whole: the reveal was
                # misread (under a hand, or read small), correct the log
                events += self._rename(card, now)
        return events

    def _reread(self, card: CardRecord, now: float) -> bool:
        """Whether the card, lying whole and uncovered, has been read for ``reread_s`` under a
        name other than the one the log gives it, in ``reread_share`` of those readings, and
        since its reveal twice as often as under the logged name: a card the recogniser reads
        under two names by turns (maki-2, maki-3) keeps the one it was revealed as."""
        state = self._state(card)
        reads, logged = [r for r in card.whole_reads if r[0] > state.reads_from], state.text.split(":")[0]
        if card.label == CARD_BACK or card.label == logged or len(reads) < self.tuning.reread_reads:
            return False
        if card.whole_counts.get(card.label, 0) < self.tuning.reread_lead * card.whole_counts.get(logged, 0):
            return False
        if now - reads[0][0] < self.tuning.reread_span * self.tuning.reread_s:
            return False
        return sum(name == card.label for _, name in reads) >= self.tuning.reread_share * len(reads)

    def _rename(self, card: CardRecord, now: float) -> list[LiveEvent]:
        """Give a revealed card its re-read name in the log, with the special order that copies
        it; left as it was if the rules would not allow the round so read."""
        round_index = self._state(card).round
        facts = self.facts()
        orders = [o for o in self._cards.values()
                  if self._face(o) == SPECIAL_ORDER and self._state(o).status != Status.PENDING
                  and self._state(o).round == round_index
                  and o.seat == card.seat and o is not card and self.history.copied_card(o, facts) is card]
        # (the card's face is its settled name already; its reads count afresh from now)
        before = {c.track_id: self._state(c).text for c in (card, *orders)}
        self._set(card, reads_from=now)
        for c in (card, *orders):
            self._set(c, text=self._reveal_text(c))
        try:
            replay(self._log(round_index), self.players, self.edition)
        except RecordError:
            for c in (card, *orders):
                self._set(c, text=before[c.track_id])
            return []
        events = []
        for c in (card, *orders):
            old, state = before[c.track_id], self._state(c)
            if state.text != old:
                self.notes.append(LiveNote(NoteCause.REREAD, state.round, state.turn, (self.players[c.seat],), old,
                                           state.text))
                events.append(LiveEvent(EventKind.AMENDED, state.round, state.turn, now,
                                        self._turn(state.round, state.turn)))
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
            return any(self._face(self._cards[k]) == "takeout-box" for k in cards if k in self._cards)
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
        mine = [c for c in self._cards.values()
                if self._state(c).round == self.round_index and self._state(c).status != Status.PENDING]
        lasting = [c for c in mine if not is_dessert(self._face(c)) and stays_all_round(self._face(c))]
        if not lasting or any(self._state(c).status != Status.GONE for c in lasting):
            return []
        # cards seen for a moment and gone with the clear-up never made a whole turn
        leftovers = [e for e in self._settle(Ask(Step.CLEARED, now)) if isinstance(e, Forgotten)]
        if leftovers:
            self.notes.append(LiveNote(NoteCause.CLEAR_UP, self.round_index, count=len(leftovers)))
        return self._close_round(now)

    def _close_round(self, now: float) -> list[LiveEvent]:
        """End the round in play: in-turn events still held go on the turn they fit or are
        left out (with a note); the history drops the round's cards that left the table
        (``Step.ROUND_OVER``)."""
        turns = self._rounds[self.round_index]
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
        self._rounds.append([])
        # (cards of a round the players ended while they still lay there went since)
        self._settle(Ask(Step.ROUND_OVER, now))
        return [*events, ended]

    def _ready(self, now: float, closing: bool) -> tuple[list[CardRecord], list[CardRecord]] | None:
        """The cards pending that may make a turn now, and those of them not settled yet; None
        while a card still being read holds the turn back, or the seats are not known yet."""
        pending = [c for c in self._cards.values() if self._state(c).status == Status.PENDING]
        if not pending:
            return None
        self._tracks_given_back(pending, now)
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
        glimpses = [c for c in pending if now - c.last_seen > self.tuning.just_seen_s
                    and c.last_seen - c.first_seen < self.tuning.seen_s]
        # a box of a card already there, under another name, the history folds into it
        # (``second-name``): its track, if found again, stands for that card
        second_names = _folded(self._settle(Ask(Step.GLIMPSES, now, _ids(glimpses))))
        passing = [c for c in glimpses if c.track_id in second_names or (not leaves_by_rule(c.label) and any(
            o is not c and o.seat == c.seat and o.first_seen >= c.first_seen
            and o.last_seen > c.last_seen + self.tuning.just_seen_s for o in pending))]
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

        def latest(cards: list[CardRecord]) -> float:
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
        pending = self._doubted_through_turn(pending, now)
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

    def _doubted_through_turn(self, pending: list[CardRecord], now: float) -> list[CardRecord]:
        """``pending`` less the boxes that lay on the table through the last turn read as no
        card (rule ``doubted-through-turn``): first boxed before that turn was read, at a seat
        with a card in it, and in play only ``doubted_s`` or more after they were first boxed
        (the recogniser unsure of them all along: a strip of a column, a card's edge misread).
        Each is a stray, never played.

        A card laid comes in play within a few frames of its first box. A box the recogniser
        doubted for seconds, across a turn its seat laid its card in, is no card of the turn
        in play: taken for one, it was put before the seat's card of that turn (boxed first),
        which then made a turn of its own, and every turn after it one off. (A seat missing
        from the last turn has such a card joined to that turn first, :meth:`_late`.)"""
        turns = self._rounds[self.round_index]
        if not turns:
            return pending
        index = len(turns) - 1
        last = turns[index]
        out = []
        for card in pending:
            if (last.cards.get(card.seat) and card.boxed_at < last.read_at
                    and card.first_seen - card.boxed_at >= self.tuning.doubted_s):
                self._stray(card, self.round_index)
                self._decisions.append(Decision("doubted-through-turn", card.track_id, card.track_id, now))
                self.notes.append(LiveNote(NoteCause.STRAY, self.round_index, index, (self.players[card.seat],)))
                continue
            out.append(card)
        return out

    def _fill_missing_seats(self, pending: list[CardRecord], now: float, events: list[LiveEvent]) -> list[CardRecord] | None:
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

    def _record_turn(self, pending: list[CardRecord], now: float) -> list[LiveEvent]:
        """Make ``pending`` the next turn of the round: the turn's event, after the amended
        turns the held in-turn events made."""
        events: list[LiveEvent] = []
        turns = self._rounds[self.round_index]
        record = _TurnRecord(min(c.first_seen for c in pending), {}, read_at=now)
        for card in sorted(pending, key=lambda c: (c.first_seen, c.track_id)):
            self._play(card, self.round_index, len(turns), now)
            record.cards.setdefault(card.seat, []).append(card.track_id)
        for card in pending:
            self._set(card, text=self._reveal_text(card))
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
        :meth:`CardHistory.laid_order`), was laid on that card after it, however soon it was boxed. A
        stray is shown, never played, and the seats giving it another player later leave it
        a stray (else, given to another player, it would take the place of that player's card)."""
        played = [self._cards[i] for ids in record.cards.values() for i in ids if i in self._cards]
        if not played:
            return
        last = max(boxed(c) for c in played)
        for card in self._cards.values():
            if self._state(card).status != Status.PENDING or boxed(card) > last + self.tuning.glimpse_s:
                continue
            if self._seen_after_next_turn(card):
                continue  # its seat was seen late: its cards came together, laid turns apart
            mine = [c for c in played if c.seat == card.seat]
            if any(self.history.shows_under(c, card) for c in mine):
                continue  # its seat's card of the turn is the strip it leaves: it was laid on it
            if any(abs(boxed(card) - boxed(c)) <= self.tuning.wave_s for c in mine):
                self._stray(card, self._state(card).round)
                self.notes.append(LiveNote(NoteCause.STRAY, self.round_index, len(self._rounds[self.round_index]) - 1,
                                           (self.players[card.seat],)))

    def _seen_after_next_turn(self, card: CardRecord) -> bool:
        """Whether other seats' cards still pending, surely cards (seen ``seen_s``), were boxed
        before ``card``: the next turn had begun before it was first boxed. Players take their
        next card only once every player has revealed, so a card boxed with its seat's card of
        the turn just read, after that, is no box that came with that card: the seat was out
        of the detector's sight until then, and its cards of two turns were boxed together
        (taken for a stray, its card of the later turn would leave that turn without it)."""
        return any(self._state(o).status == Status.PENDING and o.seat != card.seat and 0 <= o.seat < len(self.players)
                   and boxed(o) < boxed(card) and o.last_seen - o.first_seen >= self.tuning.seen_s
                   for o in self._cards.values())

    def _laid_over_alike(self, seats: set[int], now: float) -> list[CardRecord]:
        """The cards of ``seats``, missing from the turn about to be read, that the history
        finds laid almost wholly over a card of the same name, which the tracker took for that
        card moved (``laid-over-alike``, :meth:`CardHistory.settle`): the card beneath keeps its
        turn under a new id; the new card, followed by the track from now on, is this turn's.
        """
        out: list[CardRecord] = []
        for event in self._settle(Ask(Step.SEATS_MISSING, now, seats=tuple(sorted(seats)))):
            if isinstance(event, Split):
                out.append(self._cards[event.card_id])
                card = self._cards[event.beneath]
                state = self._state(card)
                self.notes.append(LiveNote(NoteCause.LAID_OVER_ALIKE, self.round_index, state.turn,
                                           (self.players[card.seat],), state.text or self._face(card)))
        return out

    def _tracks_given_back(self, pending: list[CardRecord], now: float) -> None:
        """The history gives a played card seen again its track back (``left-where-boxed``,
        :meth:`CardHistory.settle`): a pending card boxed right where a played card of its seat
        lay before it moved away is that card, and the track that left follows the card laid,
        pending (the same record of ``pending``, now that card's). A note says so."""
        for event in self._settle(Ask(Step.WEIGH, now, _ids(pending))):
            if isinstance(event, GivenBack):
                left = self._cards[event.card_id]
                state = self._state(left)
                self.notes.append(LiveNote(NoteCause.BOXED_AGAIN, self.round_index, state.turn,
                                           (self.players[left.seat],), state.text or self._face(left), event.label))

    def _pull_forward(self, seats: set[int], now: float) -> tuple[list[CardRecord], list[LiveEvent]]:
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
        pulled: list[CardRecord] = []
        for seat in range(len(self.players)):
            cards = [self._cards[i] for i in record.cards.get(seat, []) if i in self._cards]
            if seat in seats or not cards or not all(self._state(c).joined_alone for c in cards):
                continue
            # its events (a tool used for two cards) stay on the turn: they fit no other
            del record.cards[seat]
            for card in cards:
                self._set(card, joined_alone=False)
            pulled += cards
            self.notes.append(LiveNote(NoteCause.FIRST_OF_NEXT, self.round_index, index, (self.players[seat],)))
        if not pulled:
            return [], []
        return pulled, [LiveEvent(EventKind.AMENDED, self.round_index, index, now, self._turn(self.round_index, index))]

    def _late(self, pending: list[CardRecord], now: float) -> tuple[list[CardRecord], bool]:
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
        facts = self.facts()
        out: list[CardRecord] = []
        for seat in sorted(missing):
            mine = self.history.laid_order([c for c in pending if c.seat == seat])
            mine = [c for c in mine if not self.history.on_its_like(c, now, facts)]
            allowed = 1 + self._tools_in_hand(seat) + sum(c.label == "menu" for c in mine)
            if alone:
                out += mine[:allowed]
            elif len(mine) > allowed:
                out += mine[:len(mine) - allowed]
        return out, alone

    def _join_last_turn(self, cards: list[CardRecord], now: float, alone: bool) -> list[LiveEvent]:
        """Put late cards on the last turn of the round (see :meth:`_late`); ``alone``: laid
        while no other seat laid a card (see :meth:`_pull_forward`)."""
        turns = self._rounds[self.round_index]
        index = len(turns) - 1
        record = turns[index]
        for card in sorted(cards, key=lambda c: (c.first_seen, c.track_id)):
            self._play(card, self.round_index, index, now)
            self._set(card, joined_alone=alone)
            record.cards.setdefault(card.seat, []).append(card.track_id)
        for card in cards:
            self._set(card, text=self._reveal_text(card))
        players = sorted({self.players[c.seat] for c in cards})
        self.notes.append(LiveNote(NoteCause.JOINS_LATE, self.round_index, index, tuple(players)))
        return [LiveEvent(EventKind.AMENDED, self.round_index, index, now, self._turn(self.round_index, index))]

    def _one_turn(self, pending: list[CardRecord]) -> list[CardRecord]:
        """The pending cards one turn holds: each player reveals one card a turn, two with
        a tool (chopsticks, spoon) they have on the table or a menu.

        A seat's cards beyond that are either a second reading of a card it laid (a card slid
        in and found again where it came to rest, a strip taken for a new card: the same name,
        lying on it) — that card, followed under its first id from now on — or cards of the
        next turn, laid before this one was read: they wait for it.
        """
        out: list[CardRecord] = []
        now = max(c.last_seen for c in self._cards.values())
        self._fold_second_readings(pending, now)
        for seat in {c.seat for c in pending}:
            out += self._seat_cards(seat, pending, now)
        return out

    def _fold_second_readings(self, pending: list[CardRecord], now: float) -> None:
        """Take out of ``pending`` the boxes the history finds a card already played seen again
        (``Step.IN_TURN``): a strip a move uncovered (the card beneath split off under a new id,
        the card its track followed this turn's, under the track's name), a second box on a
        card played, a piece of a card played."""
        for event in self._settle(Ask(Step.IN_TURN, now, _ids(pending))):
            if isinstance(event, Split):
                pending.append(self._cards[event.card_id])
                under = self._cards[event.beneath]
                state = self._state(under)
                self.notes.append(LiveNote(NoteCause.UNCOVERED_STRIP, self.round_index, state.turn,
                                           (self.players[under.seat],), state.text or self._face(under)))
            elif isinstance(event, Folded):
                pending[:] = [c for c in pending if c.track_id != event.card_id]

    def _seat_cards(self, seat: int, pending: list[CardRecord], now: float) -> list[CardRecord]:
        """The cards of ``pending`` that ``seat`` reveals this turn: as many as it may lay at
        once, in the order laid. Of the boxes beyond those, the history folds the ones that are
        a card of this round found again, or a card boxed twice, into that card
        (``Step.SEAT_EXTRA``); the rest wait for the next turn."""
        mine = self.history.laid_order([c for c in pending if c.seat == seat])
        allowed = 1 + self._tools_in_hand(seat) + sum(c.label == "menu" for c in mine)
        folded = _folded(self._settle(Ask(Step.SEAT_EXTRA, now, _ids(mine), allowed=allowed)))
        return [c for c in mine if c.track_id not in folded][:allowed]

    def _without_second_boxes(self, pending: list[CardRecord], now: float) -> list[CardRecord]:
        """``pending`` less the cards the history finds a second box of a played card of this
        round, looked for once the table is still (no hand over a card then: ``second-box``,
        :meth:`CardHistory.settle`). Such a box is that card, followed under its first id."""
        folded = _folded(self._settle(Ask(Step.STILL, now, _ids(pending))))
        return [c for c in pending if c.track_id not in folded]

    def _tools_in_hand(self, seat: int) -> int:
        """Tools ``seat`` played this round and not used in a turn read so far (one that went
        back to the hand while this turn was laid is this turn's)."""
        turns = self._rounds[self.round_index]
        played = sum(1 for c in self._cards.values() if c.seat == seat and self._state(c).round == self.round_index
                     and self._state(c).status != Status.PENDING and self._face(c) in RETURNS_TO_HAND)
        used = sum(1 for record in turns for e in record.events
                   if e.player == self.players[seat] and e.event in RETURNS_TO_HAND.values())
        return max(played - used, 0)

    def _reveal_text(self, card: CardRecord) -> str:
        if self._face(card) != SPECIAL_ORDER:
            return self._face(card)
        copied = self._copied_by(card)
        return SPECIAL_ORDER if copied is None else f"{SPECIAL_ORDER}:{copied}"

    def _copied_by(self, order: CardRecord) -> str | None:
        """The name of the card a special order lies on."""
        copied = self.history.copied_card(order, self.facts())
        return None if copied is None else self._face(copied)


def _ids(cards: Sequence[CardRecord]) -> tuple[int, ...]:
    """The card ids of ``cards``, in their order."""
    return tuple(c.track_id for c in cards)


def _folded(events: Sequence[HistoryEvent]) -> set[int]:
    """The cards the history folded into another (:class:`~vision.live.events.Folded`)."""
    return {e.card_id for e in events if isinstance(e, Folded)}
