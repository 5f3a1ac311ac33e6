"""Helpers to build game records tersely in the scorer's tests."""

from __future__ import annotations

import pytest

from scorer import score_record


def make_record(edition: str, *rounds: dict, players=None, **extra) -> dict:
    """A record whose rounds are given as {player: tableau}; players default to the first round's keys."""
    if players is None:
        players = list(rounds[0]) if rounds else ["Ann", "Ben"]
    record = {"edition": edition, "players": list(players), "rounds": []}
    for tableaux in rounds:
        rnd = {"tableaux": {p: tableaux.get(p, []) for p in players}}
        record["rounds"].append(rnd)
    record.update(extra)
    return record


def round_points(edition: str, tableaux: dict, **extra) -> dict[str, int]:
    """Each player's points for a single round."""
    result = score_record(make_record(edition, tableaux, **extra))
    return {p: s["rounds"][0] for p, s in result["players"].items()}


def dessert_points(edition: str, desserts: dict, **extra) -> dict[str, int]:
    """Each player's end-of-game dessert score.

    Party shuffles in only 5/3/2 dessert cards per round (7/5/3 with 6-8 players), so
    the desserts are spread over the three rounds as the deck allows.
    """
    players = list(desserts)
    rounds: list[dict] = [{}, {}, {}]
    capacity = [5, 3, 2] if len(players) <= 5 else [7, 5, 3]
    if edition != "party":
        capacity = [10**6, 0, 0]
    r = 0
    for player, cards in desserts.items():
        for entry in cards:
            while capacity[r] == 0:
                r += 1
            rounds[r].setdefault(player, []).append(entry)
            capacity[r] -= 1
    record = make_record(edition, *rounds, players=players, **extra)
    result = score_record(record)
    return {p: s["dessert"] for p, s in result["players"].items()}


def category(result: dict, player: str, name: str, round_index: int = 0) -> int:
    lines = result["players"][player]["breakdown"][round_index]
    return sum(line["points"] for line in lines if line["category"] == name)


@pytest.fixture(name="make_record")
def make_record_fixture():
    return make_record


@pytest.fixture(name="round_points")
def round_points_fixture():
    return round_points


@pytest.fixture(name="dessert_points")
def dessert_points_fixture():
    return dessert_points


@pytest.fixture(name="category")
def category_fixture():
    return category
