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

from vision.live.trace import Trace, replay, reveals_read

TRACES = sorted((Path(__file__).parent / "traces").glob("*.json"))


@pytest.mark.parametrize("path", TRACES, ids=[p.stem for p in TRACES])
def test_a_recorded_film_is_read_turn_by_turn(path):
    trace = Trace.from_json_text(path.read_text())
    assert reveals_read(replay(trace)) == [t["reveals"] for t in trace.log]


def test_there_are_traces_to_replay():
    assert len(TRACES) >= 4


def test_a_recorded_film_that_ends_a_second_after_its_last_cards_are_laid_reads_that_turn():
    """The film is cut a second after its last card is laid (when the renderer lays it): too
    soon for the table to lie still, so the last turn is read only because the replay closes
    the turn in play when the film ends, as the live app and ``sushicam eval-live`` do."""
    from vision.fieldtest.film import PARTY_MENU, render_film

    trace = Trace.from_json_text((Path(__file__).parent / "traces" / "three-players-party-menu.json").read_text())
    source = trace.source
    film = render_film(source["seed"], players=source["players"], turns=source["turns"], menu=PARTY_MENU)
    assert film.log == trace.log  # the film the trace was recorded from
    end = max(card.laid_at for card in film.cards) + 1.0
    cut = Trace(trace.players, trace.edition, trace.menu, trace.log,
                [(t, d) for t, d in trace.frames if t <= end], source)
    assert len(cut.frames) < len(trace.frames)
    assert reveals_read(replay(cut)) == [t["reveals"] for t in trace.log]


STACKED = Path(__file__).parent / "traces" / "dev" / "four-players-stacked-columns.json"
MAKI_COLUMN = Path(__file__).parent / "traces" / "dev" / "four-players-maki-column.json"


def test_cards_laid_at_the_end_of_a_column_of_their_kind_are_each_the_next_card():
    """Four players laying like cards in columns, each card slid in from the player's edge over
    the column to its far end (a development film). On its way, a sashimi is boxed whole right
    where the sashimi beneath the column's last card lay: that card still lies under the one
    laid on it, so the box is the new card. A column's earlier card, long out of sight beneath
    the later ones, is not the whole card of its name laid at the column's end."""
    trace = Trace.from_json_text(STACKED.read_text())
    read = reveals_read(replay(trace))
    assert read == [t["reveals"] for t in trace.log]


def test_a_whole_card_at_the_end_of_its_column_is_not_an_earlier_card_of_it_seen_again():
    """Four players (a development film of the stacked style); one lays five maki-3 in one
    column, each over the lower part of the one before. The earlier ones show strips only,
    read as maki-1 and lost from sight; the fifth, laid whole at the column's end, is that
    turn's card, not the second seen again: every turn is read."""
    trace = Trace.from_json_text(MAKI_COLUMN.read_text())
    read = reveals_read(replay(trace))
    assert read == [t["reveals"] for t in trace.log]


def test_strips_boxed_twice_and_misnamed_as_hands_pass_are_no_cards_laid():
    """Three players (a development film of the stacked style); one lays a maki-2 column, then
    tempura beside it. The maki strips are boxed twice, under another maki's name, and lose
    their tracks under the hands laying the next cards: boxed again where they lay, they are
    the strips, not cards laid before the tempura, and no turn is read one off."""
    trace = Trace.from_json_text((Path(__file__).parent / "traces" / "dev" / "three-players-maki-strips.json").read_text())
    read = reveals_read(replay(trace))
    assert read == [t["reveals"] for t in trace.log]


def test_boxes_the_recogniser_doubted_through_a_turn_are_no_cards_of_the_next():
    """Five players (a development film of the stacked style) laying columns of like cards. A
    strip of one player's column is boxed for seconds, too unsure to count, before a turn is
    read; once the recogniser is sure of it, it is no card of the next turn (taken for one, it
    would stand for that player's card, which then made a turn of its own). The film ends as
    the last hands leave the table: the turn in play is closed once, and what that player's
    seat shows beyond its card makes no turn more. A tempura laid at the end of its column,
    while a piece of the tempura beneath lay in sight until it came, is the new card, not the
    one beneath found again. Every turn is read, and no more."""
    trace = Trace.from_json_text((Path(__file__).parent / "traces" / "dev" / "five-players-doubted-boxes.json").read_text())
    read = reveals_read(replay(trace))
    assert read == [t["reveals"] for t in trace.log]
