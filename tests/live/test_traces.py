"""Recorded films replayed through the live game: the turn log read, against the film's own.

Each ``traces/*.json`` holds a film of the independent renderer (``vision.fieldtest.film``,
drawn apart from the live reader) as the real models read it, frame by frame
(:class:`vision.live.trace.Trace`), and the film's turn log: the truth. Replaying a trace runs
the live reader alone, in seconds, so a change to the tracker, the events or the turn reader
is judged by the turns it reads, not by the boxes it keeps. Record a trace again with
``tests/live/measure_films.py ... --record DIR`` when the models change.

- ``three-players-drawn-cards``: three players, four turns, the film's whole card set; a
  card goes unseen until the next turn's card lies beside it.
- ``three-players-party-menu``: three players at uneven angles, five turns, columns, nigiri
  on wasabi, special orders on their copies, names restricted to the game's menu.
- ``five-players-party-menu``: five players round the table, small far cards.
- ``five-players-far-columns``: far from the camera a card laid over a card of its kind
  leaves a strip boxed together with it; a hand over a card leaves half of it in sight.

``traces/dev/`` holds films of the development set ``film-dev`` (stacked columns), each with
the test that says what it shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.live.pipeline import LiveGame
from vision.live.trace import Trace

TRACES = sorted((Path(__file__).parent / "traces").glob("*.json"))


def replay(trace: Trace) -> LiveGame:
    game = LiveGame(trace.players, trace.edition, menu=trace.menu)
    for timestamp, detections in trace.frames:
        game.update(detections, timestamp)
    game.finish()
    return game


@pytest.mark.parametrize("path", TRACES, ids=[p.stem for p in TRACES])
def test_a_recorded_film_is_read_turn_by_turn(path):
    trace = Trace.from_json_text(path.read_text())
    game = replay(trace)
    rounds = game.record()["rounds"]
    read = [t["reveals"] for t in rounds[0]["turns"]] if rounds else []
    assert read == [t["reveals"] for t in trace.log]


def test_there_are_traces_to_replay():
    assert len(TRACES) >= 4


STACKED = Path(__file__).parent / "traces" / "dev" / "four-players-stacked-columns.json"
MAKI_COLUMN = Path(__file__).parent / "traces" / "dev" / "four-players-maki-column.json"


def test_cards_laid_at_the_end_of_a_column_of_their_kind_are_each_the_next_card():
    """Four players laying like cards in columns, each card slid in from the player's edge over
    the column to its far end (a development film). On its way, a sashimi is boxed whole right
    where the sashimi beneath the column's last card lay: that card still lies under the one
    laid on it, so the box is the new card. A column's earlier card, long out of sight beneath
    the later ones, is not the whole card of its name laid at the column's end."""
    trace = Trace.from_json_text(STACKED.read_text())
    read = [t["reveals"] for t in replay(trace).record()["rounds"][0]["turns"]]
    assert read == [t["reveals"] for t in trace.log]


def test_a_whole_card_at_the_end_of_its_column_is_not_an_earlier_card_of_it_seen_again():
    """Four players (a development film of the stacked style); one lays five maki-3 in one
    column, each over the lower part of the one before. The earlier ones show strips only,
    read as maki-1 and lost from sight; the fifth, laid whole at the column's end, is that
    turn's card, not the second seen again: every turn is read."""
    trace = Trace.from_json_text(MAKI_COLUMN.read_text())
    read = [t["reveals"] for t in replay(trace).record()["rounds"][0]["turns"]]
    assert read == [t["reveals"] for t in trace.log]


def test_strips_boxed_twice_and_misnamed_as_hands_pass_are_no_cards_laid():
    """Three players (a development film of the stacked style); one lays a maki-2 column, then
    tempura beside it. The maki strips are boxed twice, under another maki's name, and lose
    their tracks under the hands laying the next cards: boxed again where they lay, they are
    the strips, not cards laid before the tempura, and no turn is read one off."""
    trace = Trace.from_json_text((Path(__file__).parent / "traces" / "dev" / "three-players-maki-strips.json").read_text())
    read = [t["reveals"] for t in replay(trace).record()["rounds"][0]["turns"]]
    assert read == [t["reveals"] for t in trace.log]
