"""A short filmed game through the real committed model: the turns read must be the script's."""

from __future__ import annotations

import pytest

from vision.live.pipeline import LiveGame, LivePipeline, live_detector
from vision.synth.film import GameScript, plan_film

pytestmark = pytest.mark.slow

#: Three turns of two players: a nigiri laid on its wasabi while a hand rests on a card of the
#: other seat, a tempura pair, a lone miso soup; then the table is cleared.
SHORT = GameScript(
    ("Ann", "Ben"), "party",
    (({"reveals": {"Ann": ["wasabi"], "Ben": ["tempura"]}},
      {"reveals": {"Ann": ["squid-nigiri"], "Ben": ["tempura"]}},
      {"reveals": {"Ann": ["eel"], "Ben": ["miso-soup"]}}),),
    covered=frozenset({(0, 1)}),
)


def test_the_model_reads_a_filmed_round_turn_by_turn(model_dir):
    from vision.recognizer import Recognizer

    film = plan_film(SHORT, fps=5.0, seed=7, size=(960, 720))
    game = LiveGame(SHORT.players, SHORT.edition)
    pipeline = LivePipeline(live_detector(Recognizer.load(model_dir)), game)
    for timestamp, frame in film.frames():
        pipeline.process(frame, timestamp)
    assert game.record()["rounds"] == SHORT.record()["rounds"]
    scores, error = game.scores()
    # Ann: wasabi+squid 9, eel alone -3; Ben: a tempura pair 5, a lone miso soup 3
    assert error is None
    assert {p: v["rounds"] for p, v in scores["players"].items()} == {"Ann": [6], "Ben": [8]}


def test_the_model_reads_a_round_laid_in_columns_turn_by_turn(model_dir):
    """Three players laying like cards in columns (three salmon nigiri in one), a nigiri on a
    free wasabi, chopsticks used, a special order on its tempura, at a steady pace (the
    training card faces)."""
    from vision.recognizer import Recognizer
    from vision.synth.film import columns_script

    script = columns_script()
    film = plan_film(script, fps=10.0, seed=1, size=(960, 720))
    game = LiveGame(script.players, script.edition)
    pipeline = LivePipeline(live_detector(Recognizer.load(model_dir)), game)
    for timestamp, frame in film.frames():
        pipeline.process(frame, timestamp)
    read = game.record()["rounds"][0]["turns"]
    for k, scripted in enumerate(script.rounds[0]):
        assert read[k] == scripted, f"turn {k + 1}"
    assert len(read) == len(script.rounds[0])
