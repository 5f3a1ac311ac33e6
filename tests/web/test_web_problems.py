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


def test_too_many_copies_are_a_warning_counted_in_cards_and_score_as_they_are(client, make_game):
    game_id = make_game("original", ("Ann", "Ben"))
    cards = [card(f"t{i}", "tempura", 0) for i in range(15)] + [card("x", "sashimi", 1)]
    answer = live(client, game_id, cards)
    assert answer["problems"] == [] and answer["error"] is None
    [warning] = answer["warnings"]
    assert warning["cards"] == [f"t{i}" for i in range(15)]  # every copy is marked to check
    # the rulebook's original deck holds 14 tempura: one card too many, counted as a card
    assert warning["message"].startswith("1 of these 15 Tempura cards is more than the Sushi Go! deck's 14")
    assert "'tempura'" not in warning["message"]
    assert answer["over_deck"] == ["tempura"]
    assert answer["result"]["players"]["Ann"]["rounds"] == [7 * 5]  # 15 tempura: 7 pairs


def test_a_deck_count_exceeded_is_confirmed_anyway_and_kept_in_the_record(client, make_game):
    game_id = make_game("party", ("Ann", "Ben", "Cid"), menu="my-first-meal")
    cards = [card(f"w{i}", "wasabi", i % 3) for i in range(10)] + [card("t", "tempura", 0)]
    body = {"cards": cards, "scored_during_round": []}
    refused = client.post(f"/games/{game_id}/rounds/1/confirm", json=body)
    assert refused.status_code == 400
    answer = refused.get_json()
    # the Party rulebook's deck holds 3 wasabi: 7 of the 10 are more than it
    assert "7 of these 10 Wasabi cards are more than the Sushi Go Party! deck's 3" in answer["error"]
    assert "Confirm anyway" in answer["error"] and "rounds[" not in answer["error"]
    assert answer["confirm_anyway"] == ["wasabi"]
    assert client.get(f"/games/{game_id}/record.json").get_json()["rounds"] == []

    confirmed = client.post(f"/games/{game_id}/rounds/1/confirm", json={**body, "over_deck": ["wasabi"]})
    assert confirmed.status_code == 200, confirmed.data
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record["rounds"][0]["over_deck"] == ["wasabi"]
    assert len(record["rounds"][0]["tableaux"]["Ann"]) == 5  # every wasabi kept
    # the exported record scores as it is, in the scorer the CLI runs
    assert score_record(record)["players"]["Ann"]["rounds"] == [0]
    assert client.get(f"/games/{game_id}").status_code == 200


def test_a_deck_count_not_exceeded_any_more_leaves_the_record_clean(client, make_game):
    game_id = make_game("original", ("Ann", "Ben"))
    cards = [card("t", "tempura", 0), card("u", "tempura", 1)]
    confirmed = client.post(f"/games/{game_id}/rounds/1/confirm",
                            json={"cards": cards, "scored_during_round": [], "over_deck": ["tempura"]})
    assert confirmed.status_code == 200, confirmed.data
    assert "over_deck" not in client.get(f"/games/{game_id}/record.json").get_json()["rounds"][0]


def test_uramaki_left_on_the_table_names_the_player_and_offers_the_entry(client, make_game):
    game_id = make_game("party", ("Ann", "Ben", "Cid"), menu="points-platter")
    ura = [card("u1", "uramaki-5", 0), card("u2", "uramaki-5", 0), card("u3", "uramaki-5", 0)]
    answer = live(client, game_id, ura + [card("t", "dumpling", 1)])
    [problem] = answer["problems"]
    assert problem["cards"] == ["u1", "u2", "u3"]
    assert problem["message"].startswith("Ann's uramaki show 15 icons")
    assert "Scored during the round" in problem["message"] and "scored_during_round" not in problem["message"]
    assert problem["fix"]["during"] == {"player": "Ann", "for": "uramaki", "points": 8}
    assert problem["fix"]["remove"] == ["u1", "u2", "u3"]  # discarded on reaching 10 icons
    assert answer["result"] is not None  # the rest scores meanwhile

    # the fix, as offered: the first place in the uramaki race scores 8 (rulebook)
    fixed = client.post(f"/games/{game_id}/rounds/1/score", json={
        "cards": [card("t", "dumpling", 1)], "scored_during_round": [problem["fix"]["during"]]}).get_json()
    assert fixed["problems"] == [] and fixed["result"]["players"]["Ann"]["rounds"] == [8]


def test_a_fault_of_the_points_scored_during_the_round_is_said_without_record_syntax(client, make_game):
    game_id = make_game("party", ("Ann", "Ben", "Cid"), menu="points-platter")
    answer = client.post(f"/games/{game_id}/rounds/1/score", json={
        "cards": [card("t", "dumpling", 1)],
        "scored_during_round": [{"player": "Ann", "for": "uramaki", "points": 7}]}).get_json()
    assert answer["error"] == ("Round 1: Scored during the round: uramaki place 1 scores 8 (or the points "
                               "of a tie with the place before): correct its points.")


def test_an_unknown_card_suggests_the_nearest(client, make_game):
    game_id = make_game("original", ("Ann", "Ben"))
    response = client.post(f"/games/{game_id}/rounds/1/score", json={"cards": [card("a", "tempra", 0)]})
    assert response.status_code == 400
    assert "unknown card 'tempra' (did you mean 'tempura'?)" in response.get_json()["error"]


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
    assert answer["error"].startswith(f"More than {MAX_PROBLEMS} cards cannot be scored")


def test_the_live_page_says_a_fault_in_the_players_words():
    """The live page's "Not scorable yet" names the round and the cards, not the record path."""
    from types import SimpleNamespace

    from scorer import RecordError
    from web.live import with_score_words

    record = {"edition": "party", "players": ["Ann", "Ben"],
              "rounds": [{"tableaux": {"Ann": ["soy-sauce"] * 4, "Ben": []}}]}
    with pytest.raises(RecordError) as caught:
        score_record(record)
    game = SimpleNamespace(score_fault=caught.value, edition="party", players=["Ann", "Ben"])
    state = with_score_words({"score_error": str(caught.value)}, game)
    # the Party deck holds 3 soy sauce (rulebook): 1 of the 4 is more
    assert state["score_error"] == ("Round 1: 1 of these 4 Soy Sauce cards is more than the Sushi Go Party! "
                                    "deck's 3: check them.")
