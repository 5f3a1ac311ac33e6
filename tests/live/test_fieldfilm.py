"""Films of the independent renderer (``vision.fieldtest.film``) and the live pipeline on one.

The film is drawn apart from ``vision.synth``: its own table, seats, camera and hands. Its
truth is the turn log the scorer reads, so a perfect live reading gives that log back.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.turns import TurnLog, replay
from vision.fieldtest.film import NIGIRI, render_film

#: a nigiri on a free wasabi, a special order on the tempura it copies, a dessert apart
SCRIPT = [
    {"reveals": {"Ann": ["wasabi"], "Ben": ["tempura"]}},
    {"reveals": {"Ann": ["squid-nigiri"], "Ben": ["special-order:tempura"]}},
    {"reveals": {"Ann": ["pudding"], "Ben": ["eel"]}},
]


def test_a_film_shows_the_round_its_log_says():
    film = render_film(5, players=3, turns=4)
    players = tuple(s["player"] for s in film.seats)
    assert players == film.players == ("Ann", "Ben", "Cid")
    assert len(film.log) == 4 and all(set(t["reveals"]) == set(players) for t in film.log)
    replay(TurnLog.from_json(film.log, players, "party"), players, "party")  # the scorer accepts it
    # every card laid is on the table; each turn, every player lays one
    assert len(film.cards) == 3 * 4
    first = next(iter(film.frames))
    assert first.shape == (720, 960, 3) and first.dtype == np.uint8
    assert np.array_equal(first, next(iter(render_film(5, players=3, turns=4).frames)))
    assert film.n_frames == int(film.duration * 10)


def test_a_nigiri_is_laid_on_the_free_wasabi_and_a_special_order_on_its_copy():
    film = render_film(2, log=SCRIPT)
    by_seat: dict[int, list] = {}
    for card in sorted(film.cards, key=lambda c: c.laid_at):
        by_seat.setdefault(card.seat, []).append(card)
    for cards in by_seat.values():
        for card in cards:
            below = [c for c in cards if c.column == card.column and c.row == card.row - 1]
            if card.slug in NIGIRI:
                assert below and below[0].slug == "wasabi"
            if card.slug == "special-order":
                assert below and below[0].slug == "tempura"
            if card.slug == "pudding":
                assert not below
    # the hand that brings a card arrives before the card is down and leaves after
    for hand in film.hands:
        if hand.carries is not None:
            assert hand.start < hand.carries.laid_at < hand.end


def test_a_film_on_a_party_menu_plays_only_that_menus_cards():
    from scorer import score_record
    from vision.deck import Deck
    from vision.fieldtest.film import PARTY_MENU

    film = render_film(3, players=5, turns=6, menu=PARTY_MENU)
    allowed = Deck.of("party", list(PARTY_MENU)).allowed
    assert {c.slug for c in film.cards} <= allowed
    record = film.record()
    assert record["menu"] == list(PARTY_MENU) and set(score_record(record)["players"]) == set(film.players)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_two_players_cards_touch(seed):
    """Five players round a table, columns five deep: each player's cards keep clear of the
    others' (the corners of cards of different players lie a centimetre apart or more)."""
    import cv2

    from vision.fieldtest.cards import CARD_W_CM

    film = render_film(seed, players=5, turns=6)
    quads = [np.asarray(c.plane.corners(1.0 / CARD_W_CM), np.float32) for c in film.cards]
    for i, a in enumerate(film.cards):
        for j, b in enumerate(film.cards[:i]):
            if a.player != b.player:
                assert cv2.intersectConvexConvex(quads[i], quads[j])[0] == 0, (a, b)


@pytest.mark.slow
def test_the_live_pipeline_reads_an_independent_film_turn_by_turn(model_dir):
    assert_read_turn_by_turn(render_film(2, log=SCRIPT), model_dir)


# the films read by the models of the tests that were here are recorded traces now
# (tests/live/test_traces.py): the live reader alone, replayed in seconds


def assert_read_turn_by_turn(film, model_dir) -> None:
    """The real models follow ``film`` and read its turns exactly as its log says."""
    from vision.live.pipeline import LiveGame, LivePipeline, live_detector
    from vision.recognizer import Recognizer

    game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None)
    pipeline = LivePipeline(live_detector(Recognizer.load(model_dir)), game)
    for timestamp, frame in film.timed_frames():
        pipeline.process(frame, timestamp)
    record = game.record()
    read = record["rounds"][0]["turns"] if record["rounds"] else []
    exact = sum(a.get("reveals") == b["reveals"] for a, b in zip(read, film.log, strict=False))
    print(f"turns exact: {exact}/{len(film.log)}; read {read}")
    assert [t.get("reveals") for t in read] == [t["reveals"] for t in film.log]
