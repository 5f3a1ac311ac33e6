"""The per-turn log: replayed into tableaux and turn-order scores (docs/turn-log.md)."""

from __future__ import annotations

import pytest

from scorer import TurnLogError, score_record
from scorer.game import Game


def party_round(turns, players=("A", "B", "C"), **extra):
    rnd = {"turns": turns, **extra}
    return {"edition": "party", "players": list(players), "rounds": [rnd]}


def test_replayed_tableau_matches_the_recorded_one():
    record = party_round([
        {"reveals": {"A": ["wasabi"], "B": ["chopsticks"], "C": ["tempura"]}},
        {"reveals": {"A": ["squid-nigiri"], "B": ["tempura", "tempura"], "C": ["tempura"]},
         "events": [{"player": "B", "event": "chopsticks-used"}]},
    ], tableaux={"A": [["wasabi", "squid-nigiri"]], "B": ["tempura", "tempura"], "C": ["tempura", "tempura"]})
    result = score_record(record)["players"]
    assert [result[p]["rounds"][0] for p in "ABC"] == [9, 5, 5]


def test_takeout_flips_earlier_cards_and_special_order_copies():
    record = party_round([
        {"reveals": {"A": ["eel"], "B": ["tofu"], "C": []}},
        {"reveals": {"A": ["takeout-box"], "B": ["special-order:tofu"], "C": []},
         "events": [{"player": "A", "event": "takeout-flip", "cards": ["eel"]}]},
    ])
    game = Game.from_record(record)
    assert game.rounds[0].tableau("A").slugs() == ("card-back",)
    result = score_record(record)["players"]
    assert result["A"]["rounds"] == [2] and result["B"]["rounds"] == [6]


def test_flip_of_a_card_played_this_turn_is_refused():
    record = party_round([
        {"reveals": {"A": ["eel", "takeout-box"]},
         "events": [{"player": "A", "event": "takeout-flip", "cards": ["eel"]}]},
    ])
    with pytest.raises(TurnLogError, match="earlier turn"):
        score_record(record)


def test_uramaki_race_places_and_same_turn_tie_break_by_icons():
    record = party_round([
        {"reveals": {"A": ["uramaki-5"], "B": ["uramaki-5"], "C": ["uramaki-5"]}},
        {"reveals": {"A": ["uramaki-5"], "B": ["uramaki-5"], "C": ["uramaki-3"]}},
        {"reveals": {"A": ["uramaki-3"], "B": [], "C": ["uramaki-4"]}},
    ])
    game = Game.from_record(record)
    assert [(s.player, s.points) for s in game.rounds[0].scored_during_round] == [("A", 8), ("B", 8), ("C", 2)]
    # A's 3 icons left at the end find no place: the race's three places are taken
    assert score_record(record)["players"]["A"]["rounds"] == [8]


def test_recorded_scored_during_round_must_agree_with_the_log():
    record = party_round([{"reveals": {"A": ["uramaki-5", "uramaki-5"]},
                           "events": []}],
                         scored_during_round=[{"player": "B", "for": "uramaki", "points": 8}])
    with pytest.raises(TurnLogError, match="scored_during_round"):
        score_record(record)


def test_log_round_trips():
    record = party_round([{"reveals": {"A": ["spoon"], "B": ["wasabi"], "C": ["tofu"]}},
                          {"reveals": {"A": ["tofu"], "B": ["egg-nigiri"], "C": ["tofu"]},
                           "events": [{"player": "A", "event": "spoon-used"}]}])
    game = Game.from_record(record)
    assert Game.from_record(game.to_record()) == game
    assert game.rounds[0].tableau("B").to_json() == [["wasabi", "egg-nigiri"]]


def test_strawberry_lead_carries_over_rounds():
    turns1 = [{"reveals": {"A": ["strawberry-pudding-3"], "B": ["gyoza"]}}]
    turns2 = [{"reveals": {"A": ["gyoza"], "B": ["strawberry-pudding-3"]}}]  # ties A, who played none
    record = {"edition": "anniversary", "players": ["A", "B"], "rounds": [{"turns": turns1}, {"turns": turns2}]}
    game = Game.from_record(record)
    assert [s.player for r in game.rounds for s in r.scored_during_round] == ["A", "B"]


def test_mochi_rolls_in_the_log_give_the_die():
    rounds = [{"turns": [{"reveals": {"A": ["mochi"], "B": ["gyoza"]},
                          "events": [{"player": "A", "event": "mochi-roll", "value": 2}]}]},
              {"tableaux": {"A": [], "B": []}}, {"tableaux": {"A": [], "B": []}}]
    record = {"edition": "anniversary", "players": ["A", "B"], "rounds": rounds}
    players = score_record(record)["players"]
    assert players["A"]["dessert"] == 6  # 2 pips beat B's untouched 1


def test_the_documented_example_scores_as_documented():
    """docs/turn-log.md: "prints Ann 5, Ben 13, Cid 3"."""
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "turn-log.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    record = {"edition": "party", "players": ["Ann", "Ben", "Cid"], "rounds": [example]}
    assert {p: s["total"] for p, s in score_record(record)["players"].items()} == {"Ann": 5, "Ben": 13, "Cid": 3}
