"""A card the scorer cannot take is named on that card, in the player's words; the rest scores."""

from __future__ import annotations

import pytest

from scorer import score_record
from web.review import round_from_review


def card(card_id, label, seat, on=None):
    return {"id": card_id, "label": label, "seat": seat, "photo": None, "box": None, "confidence": None, "on": on}


def live(client, game_id, cards, number=1):
    response = client.post(f"/games/{game_id}/rounds/{number}/score",
                           json={"cards": cards, "scored_during_round": []})
    assert response.status_code == 200, response.data
    return response.get_json()


@pytest.fixture
def platter(make_game):
    """A Party game on the Points Platter menu (dumpling, edamame, special order...)."""
    return make_game("party", ("Ann", "Ben", "Cid"), menu="points-platter")


def test_a_special_order_copying_nothing_is_named_and_the_rest_still_scores(client, platter):
    cards = [card("a", "dumpling", 0), card("b", "dumpling", 0), card("so", "special-order", 0),
             card("e", "edamame", 1), card("f", "edamame", 2)]
    answer = live(client, platter, cards)
    assert answer["error"] is None
    assert answer["problems"] == [{"cards": ["so"], "left_out": ["so"],
                                   "message": "This special order copies nothing: set what it copies."}]
    players = answer["result"]["players"]
    # the rulebook: 2 dumplings score 3; an edamame scores 1 per opponent holding edamame
    assert [players[p]["rounds"][0] for p in ("Ann", "Ben", "Cid")] == [3, 1, 1]

    refused = client.post(f"/games/{platter}/rounds/1/confirm", json={"cards": cards, "scored_during_round": []})
    assert refused.status_code == 400
    body = refused.get_json()
    assert "copies nothing: set what it copies" in body["error"]
    assert "rounds[0]" not in body["error"] and "tableaux" not in body["error"]
    assert body["problems"][0]["cards"] == ["so"]

    cards[2]["on"] = "b"  # it copies a dumpling: three dumplings, 6 points, and it confirms
    answer = live(client, platter, cards)
    assert answer["problems"] == [] and answer["result"]["players"]["Ann"]["rounds"] == [6]
    assert client.post(f"/games/{platter}/rounds/1/confirm",
                       json={"cards": cards, "scored_during_round": []}).status_code == 200


def test_a_nigiri_on_a_tempura_is_named(client, make_game):
    game_id = make_game("original", ("Ann", "Ben"))
    cards = [card("t", "tempura", 0), card("s", "salmon-nigiri", 0, on="t"), card("u", "tempura", 1)]
    answer = live(client, game_id, cards)
    assert answer["problems"] == [{
        "cards": ["s"], "left_out": ["s"],
        "message": "Salmon Nigiri lies on Tempura, but a nigiri lies only on a wasabi: take it off."}]
    assert answer["result"]["players"]["Ann"]["rounds"] == [0]  # one tempura alone


def test_too_many_copies_name_every_copy_and_leave_out_the_extra(client, make_game):
    game_id = make_game("original", ("Ann", "Ben"))
    cards = [card(f"t{i}", "tempura", 0) for i in range(15)] + [card("x", "sashimi", 1)]
    answer = live(client, game_id, cards)
    [problem] = answer["problems"]
    assert problem["cards"] == [f"t{i}" for i in range(15)]  # every copy is marked to check
    assert problem["left_out"] == ["t14"]
    assert problem["message"].startswith("15 Tempura cards on the table, but the original deck holds 14")
    assert "'tempura'" not in problem["message"]
    assert answer["result"]["players"]["Ann"]["rounds"] == [7 * 5]  # 14 tempura: 7 pairs


def test_off_menu_and_off_edition_cards_are_said_by_name(client, make_game):
    party = make_game("party", ("Ann", "Ben", "Cid"), menu="sushi-go")
    answer = live(client, party, [card("e", "eel", 0), card("t", "tempura", 0), card("u", "tempura", 0)])
    assert answer["problems"] == [{"cards": ["e"], "left_out": ["e"],
                                   "message": "Eel is not on this game's menu: pick the card it really is."}]
    assert answer["result"]["players"]["Ann"]["rounds"] == [5]

    original = make_game("original", ("Ann", "Ben"))
    answer = live(client, original, [card("g", "tofu", 1), card("t", "tempura", 1), card("u", "tempura", 1)])
    assert answer["problems"][0]["message"] == "Tofu is not a card of Sushi Go!: pick the card it really is."
    assert answer["result"]["players"]["Ben"]["rounds"] == [5]


def test_the_live_score_matches_the_record_confirm_writes(client, make_game):
    """The stacks the problems are traced in are the tableaux confirm writes."""
    game_id = make_game("original", ("Ann", "Ben"))
    cards = [card("w", "wasabi", 0), card("t", "tempura", 1), card("s", "squid-nigiri", 0, on="w"),
             card("m", "maki-3", 1), card("e", "egg-nigiri", 0)]
    answer = live(client, game_id, cards)
    record = {"edition": "original", "players": ["Ann", "Ben"],
              "rounds": [round_from_review({"cards": cards, "scored_during_round": []}, ["Ann", "Ben"])]}
    assert answer["result"] == score_record(record)
    assert answer["problems"] == []


def test_a_card_of_another_edition_keeps_its_name_on_the_review_page(client, make_game):
    import json
    import re

    game_id = make_game("original", ("Ann", "Ben"))
    html = client.get(f"/games/{game_id}/rounds/1/review").data.decode()
    state = json.loads(re.search(r'id="review-state">(.*?)</script>', html, re.S).group(1))
    assert state["names"]["green-tea-ice-cream"]["name"] == "Green Tea Ice Cream"
    assert "tempura" not in state["names"]  # the edition's own cards are in the picker's list


def test_a_round_of_nonsense_stops_after_a_few_dozen_faults(client, platter):
    from web.problems import MAX_PROBLEMS

    cards = [card(f"s{i}", "special-order", i % 3) for i in range(MAX_PROBLEMS + 5)]
    answer = live(client, platter, cards)
    assert answer["result"] is None and len(answer["problems"]) == MAX_PROBLEMS
    assert answer["error"].startswith(f"more than {MAX_PROBLEMS} cards cannot be scored")
