"""The home page (every game kept) and importing game records."""

from __future__ import annotations

import io
import json
from html import unescape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RECORD = {
    "edition": "original",
    "players": ["Ann", "Ben"],
    "rounds": [
        {"tableaux": {"Ann": ["maki-3", "tempura", "tempura"], "Ben": ["maki-1", "pudding"]}},
        {"tableaux": {"Ann": ["sashimi", "sashimi", "sashimi"], "Ben": [["wasabi", "salmon-nigiri"]]}},
        {"tableaux": {"Ann": ["pudding"], "Ben": ["dumpling", "dumpling", "pudding"]}},
    ],
}


def test_home_page_lists_games_newest_first_with_their_state(client, make_game):
    assert "No games yet" in client.get("/").data.decode()
    make_game("original", ["Ann", "Ben"])
    client.post("/games/import", data={"record_text": json.dumps(RECORD)})
    html = client.get("/").data.decode()
    assert html.count('class="game-card"') == 2
    assert "Finished" in html and "Not started" in html
    assert html.index("Finished") < html.index("Not started")  # the import is the newer game


def test_import_a_file_and_continue_the_game(client):
    response = client.post("/games/import", data={"record": (io.BytesIO(json.dumps(RECORD).encode()), "game.json")})
    assert response.status_code == 302
    game_url = response.headers["Location"]
    html = client.get(game_url).data.decode()
    assert "Imported a game of Ann, Ben with 3 round(s)" in html
    assert "wins with" in html
    exported = client.get(f"{game_url}/record.json").get_json()
    assert exported == RECORD


def test_imported_rounds_can_be_corrected(client):
    response = client.post("/games/import", data={"record_text": json.dumps({**RECORD, "rounds": RECORD["rounds"][:1]})})
    game_url = response.headers["Location"]
    review = client.get(f"{game_url}/rounds/1/review")
    assert review.status_code == 200
    html = review.data.decode()
    assert '"label": "maki-3"' in html
    assert "Photograph round 2" in client.get(game_url).data.decode()


def test_export_then_import_gives_the_same_game(client, make_game):
    game_id = make_game("party", ["Ann", "Ben", "Cid"], menu="my-first-meal")
    cards = [{"id": "a", "label": "miso-soup", "seat": 0}, {"id": "b", "label": "tea", "seat": 1}]
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": cards}).status_code == 200
    exported = client.get(f"/games/{game_id}/record.json").data
    response = client.post("/games/import", data={"record": (io.BytesIO(exported), "x.json")})
    copy = client.get(response.headers["Location"] + "/record.json").data
    assert json.loads(copy) == json.loads(exported)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "choose a game record file"),
        ({"record_text": "   "}, "choose a game record file"),
        ({"record_text": "{'edition': 1}"}, "not valid JSON"),
        ({"record_text": "[" * 50000}, "nested too deeply"),
        ({"record": (io.BytesIO(b"\xff\xfe\x00"), "x.json")}, "not UTF-8"),
        ({"record": (io.BytesIO(b" " * 1_000_001), "x.json")}, "larger than 1 MB"),
        ({"record_text": json.dumps({**RECORD, "edition": "deluxe"})}, "unknown edition 'deluxe'"),
        ({"record_text": json.dumps({**RECORD, "rounds": RECORD["rounds"] * 2})}, "6 rounds"),
        ({"record_text": json.dumps({**RECORD, "players": ["Ann", "Ann"]})}, "listed twice"),
        # issue 14: each of these was a 500
        ({"record_text": json.dumps({**RECORD, "edition": ["original"]})}, "unknown edition"),
        ({"record_text": '{"edition": "original", "players": ["Ann", "Ben"], "rounds": [], "x": '
          + "9" * 5000 + "}"}, "thousands of digits"),
        ({"record_text": json.dumps({**RECORD, "players": ["Ann", "B\ud800n"]})}, "broken text"),
        ({"record_text": json.dumps({**RECORD, "players": ["Ann", "Be\x00n"]})}, "control characters"),
        # issue 46: a game without rounds had its players read before the scorer checked them
        ({"record_text": '{"edition":"original","players":[["A"],"B"],"rounds":[]}'},
         "players[0]: a player's name is a non-empty text"),
        ({"record_text": '{"edition":"original","players":[{"A": 1},"B"],"rounds":[]}'}, "players[0]"),
    ],
)
def test_a_bad_import_is_refused_beside_the_import_form(client, data, message):
    response = client.post("/games/import", data=data)
    assert response.status_code == 400
    html = unescape(response.data.decode())
    assert message in html
    assert "<details open>" in html
    assert "No games yet" in html


def test_a_game_the_scorer_no_longer_accepts_still_lists(app, client, make_game):
    """A stored round the scorer refuses (e.g. after a rules fix) shows its error, not a 500."""
    from web.db import get_db

    game_id = make_game("original", ["Ann", "Ben"])
    with app.app_context():
        get_db().execute(
            "INSERT INTO round (game_id, number, review, record, confirmed) VALUES (?, 1, ?, ?, 'now')",
            (game_id, json.dumps({"cards": []}), json.dumps({"tableaux": {"Ann": ["tempora"], "Ben": []}})),
        )
    assert "unknown card" in client.get("/").data.decode()
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200
    assert "cannot be scored" in page.data.decode()


# --- any body the import form can be sent -----------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
NAMES = st.sampled_from(["Ann", "Ben", "Cid"]) | JSON_VALUES
CARDS = st.sampled_from(["tempura", "maki-3", "pudding", "wasabi", "squid-nigiri", "eel"]) | JSON_VALUES
TABLEAUX = st.dictionaries(NAMES.filter(lambda n: isinstance(n, str)), st.lists(CARDS | st.lists(CARDS, max_size=3), max_size=4)
                           | JSON_VALUES, max_size=4)
ROUNDS = st.lists(st.fixed_dictionaries({}, optional={"tableaux": TABLEAUX | JSON_VALUES, "turns": JSON_VALUES,
                                                      "scored_during_round": JSON_VALUES}) | JSON_VALUES,
                  max_size=4)
# records shaped nearly as the scorer wants them, each key holding anything as well
RECORDS = st.fixed_dictionaries(
    {},
    optional={"edition": st.sampled_from(["original", "anniversary", "party"]) | JSON_VALUES,
              "players": st.lists(NAMES, max_size=4) | JSON_VALUES,
              "rounds": ROUNDS | JSON_VALUES,
              "menu": st.sampled_from(["sushi-go", "master-menu"]) | JSON_VALUES,
              "variants": JSON_VALUES, "mochi": JSON_VALUES},
) | JSON_VALUES


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=RECORDS)
def test_no_record_body_makes_the_import_fail_with_a_5xx(client, record):
    """Whatever JSON is imported, the answer is the game (302) or the reason (400), never a 500."""
    response = client.post("/games/import", data={"record_text": json.dumps(record)})
    assert response.status_code in (302, 400), (response.status_code, record)


def test_games_of_the_same_players_are_told_apart_by_edition_and_menu(client, make_game):
    import re

    make_game("party", ["Ann", "Ben", "Cid"], menu="points-platter")
    make_game("party", ["Ann", "Ben", "Cid"], menu="custom", menu_kind=[
        "nigiri", "uramaki", "tempura", "sashimi", "eel", "wasabi", "special-order", "pudding"])
    make_game("original", ["Ann", "Ben", "Cid"])
    html = unescape(client.get("/").data.decode())
    metas = [re.sub(r"\s+", " ", m) for m in re.findall(r'<span class="game-meta">(.*?)</span>', html, re.S)]
    assert any(m.startswith("Sushi Go Party! · Points Platter ·") for m in metas)
    assert any(m.startswith("Sushi Go Party! · Custom menu: uramaki, tempura, sashimi, eel, wasabi, "
                            "special order, pudding ·") for m in metas)
    assert any(m.startswith("Sushi Go! · started") for m in metas)
