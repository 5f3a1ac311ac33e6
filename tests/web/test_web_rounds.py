"""A round through the browser's routes: capture, review, confirm, correct; and its photos."""

from __future__ import annotations

import io
import json
import re

import pytest

from scorer import score_record
from vision.stacks import canonical
from web.review import round_from_review

PLAYERS = ["Ann", "Ben", "Cid"]


def review_state(client, game_id: int, number: int) -> dict:
    page = client.get(f"/games/{game_id}/rounds/{number}/review")
    assert page.status_code == 200
    match = re.search(r'<script type="application/json" id="review-state">(.*?)</script>', page.data.decode(), re.S)
    return json.loads(match.group(1))


def truth_cards(truth) -> list[tuple[str, list[float], float]]:
    return [(c["label"], c["box"], 0.9) for c in truth["cards"] if c["box"]]


def upload_table(client, game_id, number, jpeg: bytes, name="table.jpg"):
    return client.post(
        f"/games/{game_id}/rounds/{number}/capture",
        data={"mode": "table", "table": (io.BytesIO(jpeg), name)},
    )


@pytest.fixture
def photographed(client, make_game, recognizer, composed_table, images):
    """A game whose round 1 was photographed (the scripted recogniser reads the truth)."""
    image, truth = composed_table
    recognizer.cards = truth_cards(truth)
    game_id = make_game("original", PLAYERS)
    response = upload_table(client, game_id, 1, images.jpeg(image))
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/games/{game_id}/rounds/1/review")
    return game_id, truth


def test_capture_page_opens_the_phone_camera(client, make_game):
    game_id = make_game()
    html = client.get(f"/games/{game_id}/rounds/1/capture").data.decode()
    assert html.count('accept="image/*" capture="environment"') == 1 + len(PLAYERS)
    assert 'enctype="multipart/form-data"' in html


def test_capture_page_offers_a_photo_already_taken_beside_the_camera(client, make_game):
    """capture="environment" may open only the camera on a phone: each photo also has an input
    without it, which opens the photos already taken."""
    import re

    game_id = make_game()
    html = client.get(f"/games/{game_id}/rounds/1/capture").data.decode()
    inputs = dict(re.findall(r'<input type="file" name="([^"]+)"([^>]*)>', html))
    for name in ["table"] + [f"seat-{i}" for i in range(len(PLAYERS))]:
        assert 'capture="environment"' in inputs[name], name
        assert "capture" not in inputs[f"{name}-chosen"], name


def test_a_photo_chosen_in_the_second_input_is_read(client, make_game, recognizer, images):
    game_id = make_game("original", ["Ann", "Ben"])
    recognizer.cards = [("tempura", [10, 10, 60, 60], 0.9)]
    # a browser sends the untouched camera input as an empty file part
    response = client.post(f"/games/{game_id}/rounds/1/capture", data={
        "mode": "table", "table": (io.BytesIO(b""), ""),
        "table-chosen": (io.BytesIO(images.png(200, 100)), "chosen.png")})
    assert response.status_code == 302, response.data
    assert [c["label"] for c in review_state(client, game_id, 1)["review"]["cards"]] == ["tempura"]


@pytest.mark.parametrize("number", [2, 3, 4, 0])
def test_rounds_are_played_in_order(client, make_game, number):
    game_id = make_game()
    for path in ("capture", "review"):
        response = client.get(f"/games/{game_id}/rounds/{number}/{path}")
        assert response.status_code == 409
    response = client.post(f"/games/{game_id}/rounds/{number}/confirm", json={"cards": []})
    assert response.status_code == 409
    assert "round" in response.get_json()["error"]


def test_table_photo_review_holds_the_recognisers_seats_and_stacks(client, photographed, recognizer, composed_table):
    """The review reproduces the detect line exactly: each seat's cards, stacks included."""
    from vision.describe import describe_image

    game_id, _ = photographed
    image, _ = composed_table
    line = describe_image(recognizer, image, seats=len(PLAYERS))
    state = review_state(client, game_id, 1)
    assert len(state["photos"]) == 1
    assert state["photos"][0]["url"] == f"/photos/{state['photos'][0]['id']}"
    assert {c["photo"] for c in state["review"]["cards"]} == {state["photos"][0]["id"]}
    assert len(state["review"]["cards"]) == len(line["cards"])
    tableaux = round_from_review(state["review"], PLAYERS)["tableaux"]
    for seat, player in enumerate(PLAYERS):
        assert canonical(tableaux[player]) == canonical(line["seats"][seat]["tableau"])
    assert any(isinstance(entry, list) for entry in line["tableau"])  # the photo has a stack


def test_one_photo_per_player(client, make_game, recognizer, images):
    game_id = make_game()
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.95), ("tempura", [70, 10, 120, 90], 0.3)]
    response = client.post(
        f"/games/{game_id}/rounds/1/capture",
        data={"mode": "players", "seat-1": (io.BytesIO(images.png(200, 150)), "ben.png"),
              "seat-2": (io.BytesIO(images.png(200, 150)), "cid.png")},
    )
    assert response.status_code == 302
    state = review_state(client, game_id, 1)
    assert [p["seat"] for p in state["photos"]] == [1, 2]
    seats = [c["seat"] for c in state["review"]["cards"]]
    assert seats == [1, 1, 2, 2]
    assert [c["confidence"] for c in state["review"]["cards"]] == pytest.approx([0.95, 0.3] * 2)


def test_confirm_scores_the_round_and_shows_the_scoreboard(client, photographed):
    game_id, _ = photographed
    state = review_state(client, game_id, 1)
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"])
    assert response.status_code == 200
    assert response.get_json()["redirect"] == f"/games/{game_id}#round-1"
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record["rounds"] == [round_from_review(state["review"], PLAYERS)]
    expected = score_record(record)
    html = client.get(f"/games/{game_id}").data.decode()
    for player in PLAYERS:
        row = re.search(rf'data-player="{player}">(.*?)</tr>', html, re.S).group(1)
        assert re.search(r'data-round="1">(\d+)<', row).group(1) == str(expected["players"][player]["rounds"][0])
        assert re.search(r'data-col="total">(\d+)<', row).group(1) == str(expected["players"][player]["total"])
    assert "Round 1 confirmed" in html
    for player in PLAYERS:  # the readable breakdown: every line the scorer explains
        for line in expected["players"][player]["breakdown"][0]:
            assert f'<span class="detail">{line["detail"]}</span>' in html


def test_a_corrected_card_changes_the_score(client, photographed):
    game_id, _ = photographed
    review = review_state(client, game_id, 1)["review"]
    maki = next(c for c in review["cards"] if c["label"] == "maki-1")
    owner = PLAYERS[maki["seat"]]
    before = score_record({"edition": "original", "players": PLAYERS, "rounds": [round_from_review(review, PLAYERS)]})
    maki["label"] = "sashimi"  # the maki was really one more sashimi
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=review).status_code == 200
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record["rounds"] == [round_from_review(review, PLAYERS)]
    assert "maki-1" not in record["rounds"][0]["tableaux"][owner]
    after = score_record(record)
    assert after["players"][owner]["rounds"] != before["players"][owner]["rounds"]


def test_every_confirmed_photo_becomes_yolo_training_data(client, photographed, data_dir):
    game_id, _ = photographed
    state = review_state(client, game_id, 1)
    photo = state["photos"][0]
    review = state["review"]
    review["cards"].append({"id": "drawn", "label": "chopsticks", "seat": 2, "photo": photo["id"],
                            "box": [1400, 900, 1550, 1150], "confidence": None, "on": None})
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=review).status_code == 200
    training = data_dir / "training"
    classes = (training / "classes.txt").read_text().split()
    images = list((training / "images").glob("*.jpg"))
    labels = list((training / "labels").glob("*.txt"))
    assert len(images) == len(labels) == 1
    assert images[0].stem == labels[0].stem
    lines = [line.split() for line in labels[0].read_text().splitlines()]
    assert len(lines) == len(review["cards"])
    found = sorted(classes[int(parts[0])] for parts in lines)
    assert found == sorted(c["label"] for c in review["cards"])
    chopsticks = next(p for p in lines if classes[int(p[0])] == "chopsticks")
    cx, cy, w, h = map(float, chopsticks[1:])
    assert (cx * photo["width"], cy * photo["height"]) == pytest.approx((1475, 1025), abs=0.5)
    assert (w * photo["width"], h * photo["height"]) == pytest.approx((150, 250), abs=0.5)
    assert "names:" in (training / "data.yaml").read_text()


def test_a_photo_with_cards_entered_by_hand_is_not_training_data(client, photographed, data_dir):
    game_id, _ = photographed
    review = review_state(client, game_id, 1)["review"]
    review["cards"].append({"id": "hand", "label": "chopsticks", "seat": 0, "photo": None,
                            "box": None, "confidence": None, "on": None})
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json=review)
    assert response.status_code == 200
    assert response.get_json()["training_examples"] == 0  # its labels would miss a card
    assert not (data_dir / "training" / "labels").exists()


def test_correcting_a_past_round_updates_the_totals(client, make_game):
    game_id = make_game("original", ["Ann", "Ben"])
    hand = lambda cards, seat: [  # noqa: E731
        {"id": f"{seat}-{i}", "label": label, "seat": seat, "photo": None, "box": None, "confidence": None, "on": None}
        for i, label in enumerate(cards)
    ]
    rounds = [
        hand(["tempura", "tempura", "pudding"], 0) + hand(["sashimi"], 1),
        hand(["dumpling"], 0) + hand(["pudding", "pudding"], 1),
        hand(["maki-3"], 0) + hand(["maki-1", "salmon-nigiri"], 1),
    ]
    for number, cards in enumerate(rounds, start=1):
        response = client.post(f"/games/{game_id}/rounds/{number}/confirm", json={"cards": cards})
        assert response.status_code == 200, response.get_json()
    before = score_record(client.get(f"/games/{game_id}/record.json").get_json())
    html = client.get(f"/games/{game_id}").data.decode()
    assert "wins with" in html and "Ben" in html

    corrected = hand(["tempura", "tempura", "pudding", "pudding", "pudding"], 0) + hand(["sashimi"], 1)
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": corrected}).status_code == 200
    after = score_record(client.get(f"/games/{game_id}/record.json").get_json())
    assert after["players"]["Ann"]["dessert"] > before["players"]["Ann"]["dessert"]
    html = client.get(f"/games/{game_id}").data.decode()
    total = re.search(r'data-player="Ann">.*?data-col="total">(\d+)<', html, re.S).group(1)
    assert int(total) == after["players"]["Ann"]["total"]
    # the review of the corrected round reopens with the corrected cards
    state = review_state(client, game_id, 1)
    assert [c["label"] for c in state["review"]["cards"]][:5] == ["tempura", "tempura", "pudding", "pudding", "pudding"]


def test_rounds_entered_by_hand_when_there_is_no_photo(client, make_game):
    game_id = make_game()
    state = review_state(client, game_id, 1)
    assert state["photos"] == [] and state["review"]["cards"] == []
    assert state["cards"] and all({"slug", "name", "colour", "family"} <= set(c) for c in state["cards"])
    cards = [{"id": "a", "label": "wasabi", "seat": 0, "photo": None, "box": None, "confidence": None, "on": None},
             {"id": "b", "label": "squid-nigiri", "seat": 0, "photo": None, "box": None, "confidence": None, "on": "a"}]
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": cards}).status_code == 200
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert record["rounds"][0]["tableaux"] == {"Ann": [["wasabi", "squid-nigiri"]], "Ben": [], "Cid": []}


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([{"id": "a", "label": "tempora", "seat": 0}], "unknown card 'tempora'"),
        ([{"id": "a", "label": "tempura", "seat": 3}], "seat 3 is not a player"),
        ([{"id": "a", "label": "tempura", "seat": "0"}], "is not a player"),
        ([{"id": "a", "label": "tempura", "seat": 0}, {"id": "a", "label": "eel", "seat": 0}], "used twice"),
        ([{"id": "a", "label": "tempura", "seat": 0, "photo": 999, "box": [0, 0, 5, 5]}], "not a photo of this round"),
        ([{"id": "a", "label": "tempura", "seat": 0, "on": "zz"}], "not in the review"),
        ([{"id": "a", "label": "wasabi", "seat": 0}, {"id": "b", "label": "egg-nigiri", "seat": 1, "on": "a"}], "another seat"),
        ([{"id": "a", "label": "wasabi", "seat": 0, "on": "b"}, {"id": "b", "label": "wasabi", "seat": 0, "on": "a"}], "loop"),
        # the scorer's rules: a nigiri lies on a wasabi, nothing else
        ([{"id": "a", "label": "tempura", "seat": 0}, {"id": "b", "label": "egg-nigiri", "seat": 0, "on": "a"}],
         "Egg Nigiri lies on Tempura"),
        # too many copies for the deck
        ([{"id": str(i), "label": "chopsticks", "seat": 0} for i in range(5)], "of these 5 Chopsticks cards"),
    ],
)
def test_a_review_that_cannot_be_a_round_is_refused(client, make_game, cards, message):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": cards})
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert client.get(f"/games/{game_id}/record.json").get_json()["rounds"] == []


@pytest.mark.parametrize("body", ["[]", '{"cards": 3}', "not json", "", '{"cards": [1]}', "[" * 5000])
def test_a_garbled_confirm_body_is_a_400(client, make_game, body):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/confirm", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"]


def test_a_box_outside_the_photo_is_refused(client, photographed):
    game_id, _ = photographed
    state = review_state(client, game_id, 1)
    card = state["review"]["cards"][0]
    card["box"] = [5000, 5000, 6000, 6000]
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"])
    assert response.status_code == 400
    assert "outside the photo" in response.get_json()["error"]


def test_a_new_photo_replaces_the_rounds_earlier_one(client, photographed, images, data_dir):
    game_id, _ = photographed
    first = review_state(client, game_id, 1)["photos"][0]
    stored = list((data_dir / "photos").glob("*.jpg"))
    assert upload_table(client, game_id, 1, images.png(300, 200), "again.png").status_code == 302
    second = review_state(client, game_id, 1)["photos"][0]
    assert second["id"] != first["id"]
    assert not stored[0].exists()
    assert client.get(first["url"]).status_code == 404
    assert client.get(second["url"]).status_code == 200


def test_photos_are_served_by_id_as_jpeg(client, photographed, data_dir):
    game_id, _ = photographed
    photo = review_state(client, game_id, 1)["photos"][0]
    response = client.get(photo["url"])
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    assert response.data[:3] == b"\xff\xd8\xff"
    stored = next((data_dir / "photos").glob("*.jpg"))
    assert response.data == stored.read_bytes()
    assert not stored.is_relative_to(data_dir.parent / "static")
    assert client.get("/photos/12345").status_code == 404
    assert client.get("/photos/..%2Fsushicam.sqlite").status_code == 404


@pytest.mark.parametrize(
    ("files", "status", "message"),
    [
        ({}, 400, "choose a photo"),
        ({"table": (io.BytesIO(b""), "empty.jpg")}, 400, "empty"),
        ({"table": (io.BytesIO(b"%PDF-1.4 pretending"), "photo.jpg")}, 415, "send a JPEG, PNG, WebP or HEIC photo"),
        ({"table": (io.BytesIO(b"GIF89a" + b"\x00" * 40), "anim.gif")}, 415, "JPEG, PNG, WebP or HEIC"),
    ],
)
def test_bad_uploads_are_refused_on_the_capture_page(client, make_game, files, status, message):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/capture", data={"mode": "table", **files})
    assert response.status_code == status
    html = response.data.decode()
    assert message in html
    assert 'class="form-error"' in html
    assert client.get(f"/games/{game_id}/rounds/1/review").status_code == 200
    assert review_state(client, game_id, 1)["photos"] == []


def test_a_gif_named_jpg_is_judged_by_its_content(client, make_game):
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 64)).save(buffer, format="GIF")
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(buffer.getvalue()), "photo.jpg")})
    assert response.status_code == 415
    assert "GIF images are not accepted" in response.data.decode()


def test_a_png_named_txt_is_accepted(client, make_game, images):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(images.png(120, 90)), "notes.txt")})
    assert response.status_code == 302


def test_decompression_bomb_is_refused_before_decoding(client, make_game):
    from PIL import Image

    # 3000x3000 of one colour compresses to a few KB but is 9 megapixels (the test cap is 4)
    buffer = io.BytesIO()
    Image.new("L", (3000, 3000)).save(buffer, format="PNG", optimize=True)
    assert len(buffer.getvalue()) < 100_000
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(buffer.getvalue()), "bomb.png")})
    assert response.status_code == 413
    assert "megapixels" in response.data.decode()


def test_an_upload_over_the_size_cap_is_413(client, make_game):
    game_id = make_game()
    big = io.BytesIO(b"\xff\xd8\xff" + b"\x00" * 3_100_000)
    response = client.post(f"/games/{game_id}/rounds/1/capture", data={"mode": "table", "table": (big, "big.jpg")})
    assert response.status_code == 413
    assert "larger than the 3 MB limit" in response.data.decode()


def test_an_unknown_capture_mode_is_refused(client, make_game, images):
    game_id = make_game()
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "video", "table": (io.BytesIO(images.png(80, 80)), "a.png")})
    assert response.status_code == 400
    assert "unknown capture mode" in response.data.decode()


def test_without_a_model_the_photo_is_kept_to_mark_by_hand(data_dir, images):
    from web.app import create_app

    def no_model():
        raise FileNotFoundError("no meta.json in models: not a sushicam model folder")

    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "WTF_CSRF_ENABLED": False, "RECOGNIZER_FACTORY": no_model})
    client = app.test_client()
    client.post("/games/new", data={"edition": "original", "player": ["Ann", "Ben"]})
    response = upload_table(client, 1, 1, images.png(200, 100), "t.png")
    assert response.status_code == 302
    html = client.get("/games/1/rounds/1/review").data.decode()  # the flashed warning shows once
    assert "could not be loaded" in html and "Draw the cards" in html
    state = review_state(client, 1, 1)
    assert len(state["photos"]) == 1 and state["review"]["cards"] == []


def test_capture_uses_the_games_seat_areas(client, make_game, recognizer, images):
    game_id = make_game("original", ["Ann", "Ben"])
    # Ben sits on the left half, Ann on the right half of the photo
    client.post(f"/games/{game_id}/seats", json={"areas": [[0.5, 0, 1, 1], [0, 0, 0.5, 1]]})
    recognizer.cards = [("tempura", [10, 10, 60, 60], 0.9), ("eel", [150, 10, 190, 60], 0.9)]
    assert upload_table(client, game_id, 1, images.png(200, 100), "t.png").status_code == 302
    cards = review_state(client, game_id, 1)["review"]["cards"]
    assert {(c["label"], c["seat"]) for c in cards} == {("tempura", 1), ("eel", 0)}


def test_capture_names_only_the_cards_of_the_games_menu(client, make_game, recognizer, images):
    # the Sushi Go Party! rulebook's "SUSHI GO!" menu tile (sushi-go-party.es.txt, l. 61-63)
    sushi_go = {"egg-nigiri", "salmon-nigiri", "squid-nigiri", "maki-1", "maki-2", "maki-3", "tempura",
                "sashimi", "dumpling", "chopsticks", "wasabi", "pudding"}
    game_id = make_game("party", PLAYERS, menu="sushi-go")
    assert upload_table(client, game_id, 1, images.png(640, 480)).status_code == 302
    assert set(recognizer.allowed) == sushi_go
    # an original-edition game: its own deck, which has no eel or card backs
    game_id = make_game("original", PLAYERS)
    assert upload_table(client, game_id, 1, images.png(640, 480)).status_code == 302
    assert "tempura" in recognizer.allowed and not {"eel", "card-back"} & set(recognizer.allowed)
