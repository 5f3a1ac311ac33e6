"""Whole filmed games, read through imperfect detections: the log and the scores must be exact."""

from __future__ import annotations

import pytest

from scorer import score_record


def rounds_of(result: dict) -> dict:
    return {p: v["rounds"] for p, v in result["players"].items()}


def test_the_scripts_score_as_computed_by_hand(duel, trio):
    script, by_hand = duel
    assert rounds_of(score_record(script.record())) == by_hand
    script, expected = trio
    result = score_record(script.record())
    assert {p: (v["rounds"], v["dessert"], v["total"]) for p, v in result["players"].items()} == {
        p: (rounds, dessert, total) for p, (rounds, dessert, total) in expected.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_duel_is_read_turn_by_turn_exactly(duel, follow, seed):
    script, by_hand = duel
    game = follow(script, seed)
    assert game.record()["rounds"] == script.record()["rounds"]
    scores, error = game.scores()
    assert error is None
    assert rounds_of(scores) == by_hand


@pytest.mark.parametrize("seed", [3, 4])
def test_three_rounds_of_three_players_are_read_exactly(trio, follow, seed):
    script, expected = trio
    game = follow(script, seed)
    assert game.record()["rounds"] == script.record()["rounds"]
    scores, _ = game.scores()
    assert {p: v["total"] for p, v in scores["players"].items()} == {p: s[2] for p, s in expected.items()}


def test_seats_given_by_points_read_the_same_game(duel, follow):
    script, _ = duel
    assert follow(script, 5, anchors=True).record()["rounds"] == script.record()["rounds"]


def test_a_slower_camera_reads_the_same_game(duel, follow):
    script, _ = duel
    assert follow(script, 6, fps=5.0).record()["rounds"] == script.record()["rounds"]


def test_nothing_is_logged_while_no_card_is_seen(duel, follow):
    script, _ = duel
    game = follow(script, 0, miss=1.0)  # a camera that sees nothing
    assert game.record()["rounds"] == []
    scores, error = game.scores()
    assert error is None and all(v["total"] == 0 for v in scores["players"].values())


def test_a_noisier_recogniser_still_reads_three_rounds_exactly(trio, follow):
    # one card in eight missed per frame, one in twenty misread, stray boxes, shakier boxes
    script, _ = trio
    game = follow(script, 0, miss=0.12, misread=0.05, ghost=0.04, jitter=0.04)
    assert game.record()["rounds"] == script.record()["rounds"]
