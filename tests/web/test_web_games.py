"""Setting up a game, its page, exporting, deleting, and its remembered seat areas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer import score_record


def test_new_game_form_lists_editions_and_party_menus(client):
    page = client.get("/games/new")
    assert page.status_code == 200
    html = page.data.decode()
    for text in ("Sushi Go!", "Sushi Go Party!", "10th Anniversary", "My First Meal", "Dinner for Two", "Custom menu"):
        assert text in html


def test_new_game_starts_an_empty_scoreboard(client, make_game):
    game_id = make_game("original", ["Ann", "Ben"])
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200
    html = page.data.decode()
    assert "Ann · Ben" in html
    assert "Photograph round 1" in html


def test_party_game_keeps_its_official_menu(client, make_game):
    game_id = make_game("party", ["Ann", "Ben", "Cid"], menu="points-platter")
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record == {"edition": "party", "players": ["Ann", "Ben", "Cid"], "rounds": [], "menu": "points-platter"}


def test_party_game_with_a_custom_menu(client, make_game):
    kinds = ["nigiri", "temaki", "eel", "tofu", "onigiri", "wasabi", "tea", "fruit"]
    game_id = make_game("party", ["Ann", "Ben", "Cid", "Dee"], menu="custom", menu_kind=kinds)
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record["menu"] == kinds


def test_variants_are_stored(client, make_game):
    game_id = make_game("anniversary", ["Ann", "Ben"], variant=["sushi-golf"])
    assert client.get(f"/games/{game_id}/record.json").get_json()["variants"] == ["sushi-golf"]


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"player": ["Ann", "Ben"]}, "choose an edition"),
        ({"edition": "deluxe", "player": ["Ann", "Ben"]}, "choose an edition"),
        ({"edition": "original", "player": ["Ann", ""]}, "at least 2 players"),
        ({"edition": "original", "player": ["Ann", "ann"]}, "two players are called"),
        ({"edition": "original", "player": ["Ann", "B" * 30]}, "longer than 24"),
        ({"edition": "original", "player": ["A", "B", "C", "D", "E", "F"]}, "6 players"),
        ({"edition": "party", "player": [str(i) for i in range(9)], "menu": "sushi-go"}, "at most 8"),
        ({"edition": "party", "player": ["Ann", "Ben"]}, "choose a menu"),
        ({"edition": "party", "player": ["Ann", "Ben"], "menu": "custom"}, "pick the kinds"),
        ({"edition": "party", "player": ["Ann", "Ben"], "menu": "omakase"}, "unknown menu"),
        ({"edition": "party", "player": ["Ann", "Ben"], "menu": "custom",
          "menu_kind": ["nigiri", "maki", "temaki", "tofu", "eel", "tea", "wasabi", "pudding"]}, "kinds of rolls"),
        # the custom-menu note: no spoon with 2 players
        ({"edition": "party", "player": ["Ann", "Ben"], "menu": "custom",
          "menu_kind": ["nigiri", "maki", "tofu", "eel", "tempura", "spoon", "wasabi", "pudding"]}, "spoon"),
        ({"edition": "original", "player": ["Ann", "Ben"], "variant": ["teleport"]}, "unknown original variant"),
        ({"edition": "anniversary", "player": ["Ann", "Ben", "Cid"], "variant": ["sushi-battle"]}, "sushi-battle"),
    ],
)
def test_a_setup_that_cannot_be_played_is_refused_with_its_reason(client, form, message):
    response = client.post("/games/new", data=form)
    assert response.status_code == 400
    html = response.data.decode()
    assert message in html
    assert 'class="form-error"' in html
    # nothing was stored
    assert "Not started" not in client.get("/").data.decode()


def test_refused_setup_keeps_what_was_typed(client):
    response = client.post("/games/new", data={"edition": "original", "player": ["Zoë", "Zoë"]})
    assert response.status_code == 400
    assert response.data.decode().count('value="Zoë"') == 2


def test_unknown_game_is_404_page_and_json(client):
    page = client.get("/games/42")
    assert page.status_code == 404
    assert "no game 42" in page.data.decode()
    as_json = client.get("/games/42", headers={"Accept": "application/json"})
    assert as_json.status_code == 404
    assert as_json.get_json() == {"error": "no game 42"}
    assert client.get("/games/42/record.json").status_code == 404


def test_export_is_a_downloadable_game_record_the_scorer_accepts(client, make_game):
    game_id = make_game()
    response = client.get(f"/games/{game_id}/record.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    score_record(json.loads(response.data))  # a valid record


def test_delete_removes_the_game_and_its_photos(client, make_game, recognizer, images, data_dir):
    game_id = make_game()
    client.post(f"/games/{game_id}/rounds/1/capture",
                data={"mode": "table", "table": (__import__("io").BytesIO(images.png(200, 150)), "t.png")})
    photos = list((data_dir / "photos").glob("*.jpg"))
    assert len(photos) == 1
    response = client.post(f"/games/{game_id}/delete")
    assert response.status_code == 302
    assert client.get(f"/games/{game_id}").status_code == 404
    assert not photos[0].exists()
    assert client.post(f"/games/{game_id}/delete").status_code == 404


def test_seat_areas_are_remembered_for_the_game(client, make_game):
    game_id = make_game()
    areas = [[0, 0.5, 1, 1], [0, 0, 0.5, 0.5], [0.5, 0, 1, 0.5]]
    response = client.post(f"/games/{game_id}/seats", json={"areas": areas})
    assert response.status_code == 200
    assert response.get_json() == {"areas": areas}
    review = client.get(f"/games/{game_id}/rounds/1/review").data.decode()
    assert '"seatAreas": [[0.0, 0.5, 1.0, 1.0]' in review
    assert client.post(f"/games/{game_id}/seats", json={"areas": None}).get_json() == {"areas": None}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"areas": [[0, 0, 1, 1]]}, "one seat area per player (3), not 1"),
        ({"areas": [[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 2, 1]]}, "seat 3: the area must lie inside"),
        ({"areas": [[0, 0, 1, 1], [0, 0, 1, 1], [0.5, 0, 0.2, 1]]}, "seat 3: the area must lie inside"),
        ({"areas": [[0, 0, 1, 1], [0, 0, 1, 1], "top"]}, "seat 3: an area is [x1, y1, x2, y2]"),
        ({"areas": [[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, True, 1]]}, "seat 3: an area is"),
        ({"seats": []}, "one area per player"),
        ([1, 2], "one area per player"),
    ],
)
def test_bad_seat_areas_are_refused(client, make_game, body, message):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/seats", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_seat_areas_need_json(client, make_game):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/seats", data="areas=1", content_type="text/plain")
    assert response.status_code == 400
    assert "not valid JSON" in response.get_json()["error"]
    assert client.post("/games/9/seats", json={"areas": None}).status_code == 404


def test_the_anniversary_edition_says_which_kinds_photos_cannot_name_and_leads_to_teaching(client, make_game):
    import html as html_lib
    import re

    from scorer.cards import CARDS

    page = html_lib.unescape(client.get("/games/new").data.decode())
    [note] = re.findall(r'<p class="panel hint unread-kinds[^"]*" data-edition="anniversary".*?</p>', page, re.S)
    # the bundled model's classes (its meta.json) against the anniversary-only cards of the catalogue
    meta = json.loads((Path(__file__).resolve().parents[2] / "models" / "meta.json").read_text())
    unread = {re.sub(r"-\d+$", "", s) for s, c in CARDS.items() if c.in_edition("anniversary")
              and s not in meta["classes"]}
    assert len(unread) == 6
    for name in ("Futomaki", "Gyoza", "Strawberry Pudding", "Frozen Yogurt", "Bubble Tea", "Mochi"):
        assert name in note
    assert "6 kinds" in note and "by hand" in note
    assert 'href="/teach?edition=anniversary"' in note or "/teach" in note
    assert 'data-edition="original"' not in "".join(re.findall(r'<p class="panel hint unread-kinds.*?>', page))

    # until taught, the picker of an anniversary game offers those cards to add by hand
    game_id = make_game("anniversary", ["Ann", "Ben"])
    review = client.get(f"/games/{game_id}/rounds/1/review").data.decode()
    state = json.loads(html_lib.unescape(re.search(r'id="review-state">(.*?)</script>', review, re.S).group(1)))
    offered = {c["slug"] for c in state["cards"] if c.get("in_game", True)}
    assert {"futomaki-2", "gyoza", "mochi", "bubble-tea-3", "frozen-yogurt-0", "strawberry-pudding-2"} <= offered


def test_mid_game_the_desserts_column_says_it_counts_cards_in_words(client, make_game):
    import html as html_lib
    import re

    game_id = make_game("original", ["Ann", "Ben"])
    cards = [{"id": "p", "label": "pudding", "seat": 0}, {"id": "q", "label": "pudding", "seat": 0},
             {"id": "t", "label": "tempura", "seat": 1}]
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": cards}).status_code == 200
    page = html_lib.unescape(client.get(f"/games/{game_id}").data.decode())
    [head] = re.findall(r'<th scope="col" class="num" data-col="dessert">(.*?)</th>', page, re.S)
    # a text header (no icon-only header on a phone), saying it is no points column yet
    assert "Dessert cards" in head and "game end" in head and "<svg" not in head
    [ann] = re.findall(r'data-player="Ann".*?data-col="dessert">(.*?)</td>', page, re.S)
    assert re.sub(r"<[^>]+>", "", ann).strip() == "2 cards"
