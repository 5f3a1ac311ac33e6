"""The card history's rules of card identity, each on a small hand-made table.

The history alone decides that a box is a card already there (a second box, a piece, a strip,
a card laid over its like): asked at a step of reading a turn (``CardHistory.settle``), it
answers in events, and each rule that decided is named. The oracle is each scene's geometry,
drawn by hand: a strip drawn inside a card is a piece of it, a card drawn 30 pixels over its
like is a new card on it. No test here names a threshold.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import MappingProxyType

import numpy as np

from tests.live.stages import TrackedReader
from vision.detections import LABEL, LABEL_SINCE, SEAT, TRACK_ID, VISIBLE, Detections
from vision.live.events import Folded, Forgotten, GivenBack, Left, Split
from vision.live.facts import Ask, CardTurn, Status, Step, TurnFacts
from vision.live.history import CardHistory

A = (100.0, 100.0, 200.0, 255.0)  # where a card lies (100 by 155 pixels)
TOP = (100.0, 100.0, 200.0, 130.0)  # the top strip of that card
OVER = (100.0, 130.0, 200.0, 285.0)  # a card laid 30 pixels down over it: TOP shows of the one beneath
ASIDE = (400.0, 100.0, 500.0, 255.0)  # a card's place beside it, apart


def played(*ids: int, face: str = "tempura", last_read_at: float = 1.0, status: Status = Status.PLAYED,
           round_index: int = 0) -> TurnFacts:
    """Facts of a round whose first turn, read at ``last_read_at``, revealed the cards ``ids``."""
    turn = CardTurn(status, round=0, turn=0, text=face, face=face, revealed_at=0.0)
    return TurnFacts(round=round_index, last_read_at=last_read_at, cards=MappingProxyType(dict.fromkeys(ids, turn)))


class Table:
    """A history fed hand-made frames, 10 a second: each card ``(track id, label, box)`` or
    ``(track id, label, box, visible)``, all at seat 0, each named so since ``since[id]``."""

    def __init__(self, facts: TurnFacts | None = None) -> None:
        self.history = CardHistory()
        self.facts = facts or TurnFacts()
        self.since: dict[int, float] = {}
        self.t = 0.0
        self.events: list = []

    def show(self, seconds: float, *cards) -> None:
        for _ in range(round(seconds * 10)):
            for c in cards:
                self.since.setdefault(c[0], self.t)
            self.events += self.history.update(Detections(
                xyxy=np.array([c[2] for c in cards], float).reshape(-1, 4),
                data={TRACK_ID: np.array([c[0] for c in cards], int),
                      LABEL: np.array([c[1] for c in cards], dtype=object),
                      SEAT: np.zeros(len(cards), int),
                      VISIBLE: np.array([c[3] if len(c) > 3 else True for c in cards], bool),
                      LABEL_SINCE: np.array([self.since[c[0]] for c in cards], float)}), self.t, self.facts)
            self.t = round(self.t + 0.1, 6)

    def rename(self, track_id: int) -> None:
        """The card ``track_id`` is read under another name from now on."""
        self.since[track_id] = self.t

    def settle(self, step: Step, *cards: int, allowed: int = 0, seats: tuple[int, ...] = ()) -> list:
        at = round(self.t - 0.1, 6)  # the last frame's time
        return self.history.settle(Ask(step, at, cards, seats, allowed), self.facts)


def test_a_card_seen_a_moment_then_gone_is_forgotten_and_one_seen_long_has_left_only():
    glimpse = Table()
    glimpse.show(0.3, (1, "eel", A))
    glimpse.show(0.1)
    assert glimpse.events == [Left(1, 0.2), Forgotten(1, "glimpse-left", 0.3)]
    assert not glimpse.history.cards
    laid = Table()
    laid.show(3.0, (1, "eel", A))
    laid.show(0.1)
    assert laid.events == [Left(1, 2.9)] and 1 in laid.history.cards  # a card laid, taken away


def test_a_box_seen_a_moment_right_where_a_card_lies_is_that_card_under_a_second_name():
    table = Table()
    table.show(1.0, (1, "eel", A))
    table.show(0.3, (1, "eel", A), (2, "tempura", A))
    table.show(2.0, (1, "eel", A), (2, "tempura", A, False))
    assert table.settle(Step.GLIMPSES, 2) == [Folded(2, 1, "second-name", 3.2)]
    assert set(table.history.cards) == {1} and table.history.alias[2] == 1
    # a box a card's length along, seen a moment, is no box of that card
    apart = Table()
    apart.show(1.0, (1, "eel", A))
    apart.show(0.3, (1, "eel", A), (2, "tempura", ASIDE))
    apart.show(2.0, (1, "eel", A), (2, "tempura", ASIDE, False))
    assert apart.settle(Step.GLIMPSES, 2) == [] and set(apart.history.cards) == {1, 2}


def _strip_on_played(label: str, strip=TOP, seconds: float = 1.0) -> Table:
    """A played wasabi in sight at ``A``, and a box ``label`` on ``strip`` seen ``seconds``."""
    table = Table(played(1, face="wasabi"))
    table.show(2.0, (1, "wasabi", A))
    table.show(seconds, (1, "wasabi", A), (2, label, strip))
    return table


def test_a_box_within_a_played_card_is_a_second_box_of_it_or_a_piece_of_it():
    assert _strip_on_played("wasabi").settle(Step.IN_TURN, 2) == [Folded(2, 1, "second-box-in-sight", 2.9)]
    assert _strip_on_played("salmon-nigiri").settle(Step.IN_TURN, 2) == [Folded(2, 1, "piece-of-played", 2.9)]
    beside = _strip_on_played("wasabi", ASIDE)  # a whole card laid beside it is a card
    assert beside.settle(Step.IN_TURN, 2) == [] and 2 in beside.history.cards


def test_a_box_within_a_played_card_seen_a_while_once_the_table_is_still_is_a_second_box_of_it():
    assert _strip_on_played("eel", seconds=2.0).settle(Step.STILL, 2) == [Folded(2, 1, "second-box", 3.9)]
    assert _strip_on_played("eel", seconds=0.5).settle(Step.STILL, 2) == []  # seen a moment: left to the turn


def test_a_seats_box_beyond_what_it_may_lay_lying_on_its_played_card_is_that_card():
    """Ann's played maki lies at ``A``; two new boxes: its top strip, and a card beside it. With
    one card to lay, the strip is the maki found again where it lies (under its name) or a
    part of it misread; with chopsticks in hand (two cards) both would be laid."""
    def seat(strip_label: str) -> Table:
        table = Table(played(1, face="maki-3"))
        table.show(2.0, (1, "maki-3", A))
        table.show(1.0, (1, "maki-3", A), (2, strip_label, TOP), (3, "eel", ASIDE))
        return table

    assert seat("maki-3").settle(Step.SEAT_EXTRA, 2, 3, allowed=1) == [Folded(2, 1, "found-again-where-it-lies", 2.9)]
    assert seat("tempura").settle(Step.SEAT_EXTRA, 2, 3, allowed=1) == [Folded(2, 1, "misnamed-part", 2.9)]
    assert seat("maki-3").settle(Step.SEAT_EXTRA, 2, 3, allowed=2) == []


def test_one_card_boxed_twice_as_it_is_laid_is_one_card():
    table = Table()
    table.show(2.0, (2, "tempura", A), (3, "tempura", (100.0, 110.0, 200.0, 265.0)))
    assert table.settle(Step.SEAT_EXTRA, 2, 3, allowed=1) == [Folded(3, 2, "twin", 1.9)]
    apart = Table()
    apart.show(2.0, (2, "tempura", A), (3, "tempura", ASIDE))
    assert apart.settle(Step.SEAT_EXTRA, 2, 3, allowed=1) == []  # two cards: one waits for its turn


def _moved(to, facts: TurnFacts | None = None) -> Table:
    """A played tempura at ``A`` whose track comes to lie at ``to`` after the last turn was read."""
    table = Table(facts or played(1))
    table.show(3.0, (1, "tempura", A))
    table.show(2.0, (1, "tempura", to))
    return table


def test_a_card_laid_almost_wholly_over_its_like_is_a_new_card_the_one_beneath_keeps_its_place():
    table = _moved(OVER)
    [split] = table.settle(Step.SEATS_MISSING, seats=(0,))
    assert split == Split(1, split.beneath, "laid-over-alike", 4.9) and split.beneath < 0
    beneath, new = table.history.cards[split.beneath], table.history.cards[1]
    assert beneath.box.tolist() == list(A) and new.box.tolist() == list(OVER) and new.label == "tempura"
    assert _moved(ASIDE).settle(Step.SEATS_MISSING, seats=(0,)) == []  # a card moved elsewhere: no card laid


def test_a_strip_a_card_laid_over_its_like_uncovers_is_the_card_beneath():
    """A maki-3 laid over the lower part of Ann's maki-3 takes its track; the top strip left,
    read as a maki-2, is the card beneath, not a card laid: the track's card is the new one."""
    table = Table(played(1, face="maki-3"))
    table.show(3.0, (1, "maki-3", A))
    table.show(1.5, (1, "maki-3", OVER))
    table.show(0.5, (1, "maki-3", OVER), (2, "maki-2", TOP))
    split, folded = table.settle(Step.IN_TURN, 2)
    assert split == Split(1, split.beneath, "uncovered-strip", 4.9)
    assert folded == Folded(2, split.beneath, "uncovered-strip", 4.9)
    assert table.history.cards[split.beneath].box.tolist() == list(A) and 2 not in table.history.cards


def test_a_track_gone_over_to_a_card_laid_elsewhere_goes_back_to_the_card_where_it_lay():
    """Ann's tempura's track follows an eel a hand lays beside it (it moves to ``ASIDE`` and is
    read as an eel); the tempura, boxed again where it lay by a new track, is that card: it
    takes the new track, and the track that left is the eel, pending."""
    table = _moved(ASIDE)
    table.rename(1)
    table.show(0.2, (1, "eel", ASIDE))
    table.show(0.2, (1, "eel", ASIDE), (2, "tempura", A))
    assert table.settle(Step.WEIGH, 2) == [GivenBack(1, 2, "eel", "left-where-boxed", 5.3)]
    card, laid = table.history.cards[1], table.history.cards[2]
    assert card.box.tolist() == list(A) and card.label == "tempura"
    assert laid.box.tolist() == list(ASIDE) and laid.label == "eel"


def test_a_round_over_drops_its_cards_gone_but_its_desserts_and_the_clear_up_drops_its_glimpses():
    table = Table()
    table.show(2.0, (1, "tempura", A), (2, "pudding", ASIDE), (3, "eel", TOP))
    table.show(0.1)  # all cleared away
    gone = CardTurn(Status.GONE, round=0, turn=0, text="tempura", face="tempura")
    pudding = CardTurn(Status.GONE, round=0, turn=0, text="pudding", face="pudding")
    table.facts = TurnFacts(round=0, cards=MappingProxyType({1: gone, 2: pudding}))
    assert table.settle(Step.CLEARED) == [Forgotten(3, "cleared-away", 2.0)]  # pending: never in a turn
    table.facts = TurnFacts(round=1, cards=MappingProxyType({1: gone, 2: pudding}))
    assert table.settle(Step.ROUND_OVER) == [Forgotten(1, "gone-with-round", 2.0)]
    assert set(table.history.cards) == {2}


# --- the turn reader decides turns only ----------------------------------------------------

#: What the turn reader may ask of the history: its records and traces to read, the queries
#: that order a seat's cards and find what lies under what, and ``settle``, the one call that
#: lets the history apply its own rules.
READER_MAY_USE = {"cards", "alias", "trace", "settle", "laid_order", "on_its_like", "shows_under", "copied_card"}


def test_the_turn_reader_calls_none_of_the_historys_own_changes():
    """Every use of ``self.history`` in turns.py is one of :data:`READER_MAY_USE`, and it
    writes no attribute of a card record (the history alone changes them)."""
    tree = ast.parse((Path(__file__).parents[2] / "vision" / "live" / "turns.py").read_text())
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute) and node.value.attr == "history"}
    assert used <= READER_MAY_USE, used - READER_MAY_USE
    written = [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
               and not (isinstance(node.value, ast.Name) and node.value.id == "self")]
    assert written == []


class _ReadOnly:
    """The history as the turn reader may use it (:data:`READER_MAY_USE`); anything else raises."""

    def __init__(self, history: CardHistory) -> None:
        object.__setattr__(self, "_real", history)

    def __getattr__(self, name: str):
        if name not in READER_MAY_USE:
            raise AssertionError(f"the turn reader used the history's {name}")
        return getattr(self._real, name)

    def __setattr__(self, name: str, value) -> None:
        raise AssertionError(f"the turn reader set the history's {name}")


def test_a_turn_reader_on_a_history_it_may_only_read_and_ask_reads_its_turns():
    """Two turns of a two-player round, the second Ann's tempura laid over her first: read
    through a history that raises on any other use, as the live game reads them."""
    game = TrackedReader(["Ann", "Ben"])
    game.turns.history = _ReadOnly(game.history)  # type: ignore[assignment]

    clock = [0.0]

    def frames(seconds: float, *cards) -> None:
        for _ in range(round(seconds * 10)):
            game.update(Detections(
                xyxy=np.array([c[3] for c in cards], float).reshape(-1, 4),
                data={TRACK_ID: np.array([c[0] for c in cards], int), LABEL: np.array([c[1] for c in cards], dtype=object),
                      SEAT: np.array([c[2] for c in cards], int), VISIBLE: np.ones(len(cards), bool),
                      LABEL_SINCE: np.zeros(len(cards))}), clock[0])
            clock[0] = round(clock[0] + 0.1, 6)

    frames(6.0, (1, "tempura", 0, A), (2, "eel", 1, ASIDE))
    frames(6.0, (1, "tempura", 0, OVER), (2, "eel", 1, ASIDE), (3, "squid-nigiri", 1, (400.0, 300.0, 500.0, 455.0)))
    game.turns.finish()
    assert [t["reveals"] for t in game.turns.rounds[0]["turns"]] == [
        {"Ann": ["tempura"], "Ben": ["eel"]}, {"Ann": ["tempura"], "Ben": ["squid-nigiri"]}]
