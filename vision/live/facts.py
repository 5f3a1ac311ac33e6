"""What the turn reader has made of the game so far, as one frozen value the card history reads.

The turn reader (``vision.live.turns``) alone decides what a card is to the game: a
:class:`CardTurn` per card id (its :class:`Status`, round, turn, logged name). Some of the card
history's rules (``vision.live.history``) depend on it: a strip comes back only of a card played
this round, a card gone from the table may be seen again while the rules leave one of its name
there. The turn reader hands those facts over as a :class:`TurnFacts`, built from its state
(:meth:`TurnReader.facts`), to :meth:`CardHistory.update` and to each history query that needs
them; the history keeps none of it, and never calls the turn reader.

At each step of reading a turn (:class:`Step`) the turn reader tells the history which cards
it is about to count (an :class:`Ask`); the history settles which of those boxes are a card
already there, by its own named rules (:meth:`CardHistory.settle`), and answers in events.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType

from scorer.errors import RecordError
from scorer.turns import TurnLog, replay


class Status(StrEnum):
    """What a card seen on the table is to the game."""

    PENDING = "pending"  # laid since the last turn, in no turn yet
    PLAYED = "played"  # revealed in a turn, on the table
    GONE = "gone"  # revealed in a turn, gone from the table
    STRAY = "stray"  # a box of no card (see ``TurnReader._strays``), never played


@dataclass(frozen=True)
class CardTurn:
    """What one card is to the game, as the turn reader alone keeps it (by card id): its
    :class:`Status`, the round and turn it was revealed in (-1: none; a stray left at a round's
    end has that round), what the log says it was revealed as, whether it was put on the turn
    before as its seat's late card, laid alone (see :meth:`TurnReader._pull_forward`), and when
    its reads last began to count towards a re-read (``reads_from``: its last re-read tried).
    ``face`` is the name it was revealed as, at ``revealed_at``: the name it showed then, settled
    or not (see :func:`vision.live.history.face`)."""

    status: Status = Status.PENDING
    round: int = -1
    turn: int = -1
    text: str = ""
    joined_alone: bool = False
    reads_from: float = -math.inf
    face: str = ""
    revealed_at: float = -math.inf


PENDING = CardTurn()


@dataclass(frozen=True)
class TurnFacts:
    """The turn reader's game at one moment: ``round`` (the round in play, from 0),
    ``last_read_at`` (when its last turn was read; -inf before the first), ``cards`` (what each
    card is to the game, by card id; a card not there is pending), ``log`` (the round's turns
    read so far), and the ``players`` and ``edition`` the log is replayed with."""

    round: int = 0
    last_read_at: float = -math.inf
    cards: Mapping[int, CardTurn] = field(default_factory=lambda: MappingProxyType({}))
    log: TurnLog = TurnLog(())
    players: tuple[str, ...] = ()
    edition: str = "party"

    def moved(self, old: int, new: int) -> TurnFacts:
        """These facts with what the card ``old`` is to the game kept under its new id ``new``
        (a card split from the track that followed it, ``events.Split``)."""
        if old not in self.cards:
            return self
        cards = {k: v for k, v in self.cards.items() if k != old}
        cards[new] = self.cards[old]
        return replace(self, cards=MappingProxyType(cards))

    def of(self, card_id: int) -> CardTurn:
        """What the card ``card_id`` is to the game."""
        return self.cards.get(card_id, PENDING)

    def told(self, card_id: int) -> bool:
        """Whether the turn reader has said what the card is (in a turn, or a stray): not pending."""
        return self.of(card_id).status != Status.PENDING

    def revealed(self, card_id: int) -> bool:
        """Whether the card was revealed in a turn (on the table or gone from it since)."""
        return self.of(card_id).status in (Status.PLAYED, Status.GONE)

    def stray(self, card_id: int) -> bool:
        """Whether the turn reader found the card a stray: a box of no card, never played."""
        return self.of(card_id).status == Status.STRAY

    def round_of(self, card_id: int) -> int:
        """The round the card was played (or left a stray) in; -1 while pending."""
        return self.of(card_id).round

    def turn_of(self, card_id: int) -> int:
        """The turn of its round the card was played in; -1 while pending, and for a stray."""
        return self.of(card_id).turn

    def left_on_table(self, seat: int) -> Mapping[str, int]:
        """How many of each face the rules leave in front of ``seat`` after the round's turns
        (the scorer's replay of :attr:`log`); none if the rules do not allow the log."""
        return _left_on_table(self.log, self.players, self.edition).get(self.players[seat], {})


class Step(StrEnum):
    """A step of the turn reader's reading of a turn, at which it asks the card history to
    settle which of the boxes it is about to count are a card already there (:class:`Ask`;
    the rules of each step: ``vision.live.history.SETTLE``)."""

    WEIGH = "weigh"  # the cards pending, about to be weighed for a turn
    GLIMPSES = "glimpses"  # pending cards seen for a moment, out of sight since
    IN_TURN = "in-turn"  # the cards a turn is about to be read from
    SEAT_EXTRA = "seat-extra"  # one seat's cards of the turn, in the order laid, beyond what it may lay
    STILL = "still"  # the turn's cards, the table still
    SEATS_MISSING = "seats-missing"  # seats with no card in the turn about to be read
    CLEARED = "cleared"  # the round ended by its cards leaving the table
    ROUND_OVER = "round-over"  # the round closed (the facts: the next round in play)


@dataclass(frozen=True)
class Ask:
    """What the turn reader tells the history at a :class:`Step` of reading a turn, at ``at``:
    the ``cards`` it is about (card ids, in its order: a seat's in the order laid), the
    ``seats`` (``SEATS_MISSING``), how many cards the seat may lay in the turn (``allowed``,
    ``SEAT_EXTRA``: one, more with a tool in hand or a menu)."""

    step: Step
    at: float
    cards: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    allowed: int = 0


@lru_cache(maxsize=16)
def _left_on_table(log: TurnLog, players: tuple[str, ...], edition: str) -> dict[str, dict[str, int]]:
    """Per player, how many of each face the rules leave on the table after ``log``."""
    try:
        result = replay(log, players, edition)
    except RecordError:
        return {}
    out: dict[str, dict[str, int]] = {}
    for player in players:
        faces = out.setdefault(player, {})
        for played in result.tableaux[player].cards:
            faces[played.printed] = faces.get(played.printed, 0) + 1
    return out
