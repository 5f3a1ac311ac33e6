"""Photographing a round again: one player's new photo replaces that player's cards only."""

from __future__ import annotations

import io
import json
import re

PLAYERS = ("Ann", "Ben", "Cid")


def review_state(client, game_id: int, number: int = 1) -> dict:
    html = client.get(f"/games/{game_id}/rounds/{number}/review").data.decode()
    return json.loads(re.search(r'id="review-state">(.*?)</script>', html, re.S).group(1))


def seat_photos(client, game_id, images, seats, draft=None, follow=False):
    data = {"mode": "players"}
    for seat in seats:
        data[f"seat-{seat}"] = (io.BytesIO(images.png(300, 200)), f"seat{seat}.png")
    if draft is not None:
        data["draft"] = json.dumps(draft)
    return client.post(f"/games/{game_id}/rounds/1/capture", data=data, follow_redirects=follow)


def by_seat(state) -> dict[str, list[str]]:
    return {p: sorted(c["label"] for c in state["review"]["cards"] if c["seat"] == s) for s, p in enumerate(PLAYERS)}


def test_a_retaken_photo_of_one_player_keeps_the_others_cards(client, make_game, recognizer, images):
    game_id = make_game("original", PLAYERS)
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.9), ("sashimi", [70, 10, 120, 90], 0.9)]
    assert seat_photos(client, game_id, images, [0, 1, 2]).status_code == 302
    first = review_state(client, game_id)
    photo_of = {p["seat"]: p["id"] for p in first["photos"]}

    recognizer.cards = [("dumpling", [10, 10, 60, 90], 0.9)]
    assert seat_photos(client, game_id, images, [1]).status_code == 302
    state = review_state(client, game_id)
    assert by_seat(state) == {"Ann": ["sashimi", "tempura"], "Ben": ["dumpling"], "Cid": ["sashimi", "tempura"]}
    photos = {p["seat"]: p["id"] for p in state["photos"]}
    assert photos[0] == photo_of[0] and photos[2] == photo_of[2] and photos[1] != photo_of[1]
    ids = [c["id"] for c in state["review"]["cards"]]
    assert len(ids) == len(set(ids))


def test_the_corrections_in_the_browser_survive_a_retaken_photo(client, make_game, recognizer, images):
    """The review page keeps unconfirmed corrections in the browser; the capture form sends them."""
    game_id = make_game("original", PLAYERS)
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.9), ("sashimi", [70, 10, 120, 90], 0.4)]
    seat_photos(client, game_id, images, [0, 1, 2])
    state = review_state(client, game_id)
    corrected = json.loads(json.dumps(state["review"]))
    anns_sashimi = next(c for c in corrected["cards"] if c["seat"] == 0 and c["label"] == "sashimi")
    anns_sashimi.update(label="squid-nigiri", confidence=None)
    corrected["cards"].append({"id": "n9", "label": "wasabi", "seat": 2, "photo": None, "box": None,
                               "confidence": None, "on": None})
    draft = {"from": state["version"], "review": corrected}

    recognizer.cards = [("maki-2", [10, 10, 60, 90], 0.9)]
    seat_photos(client, game_id, images, [1], draft=draft)
    after = by_seat(review_state(client, game_id))
    assert after == {"Ann": ["squid-nigiri", "tempura"], "Ben": ["maki-2"],
                     "Cid": ["sashimi", "tempura", "wasabi"]}

    # a draft made from another version of the round (another phone re-took it) is not used
    stale = {"from": "0" * 16, "review": corrected}
    recognizer.cards = [("pudding", [10, 10, 60, 90], 0.9)]
    seat_photos(client, game_id, images, [2], draft=stale)
    assert by_seat(review_state(client, game_id)) == {"Ann": ["squid-nigiri", "tempura"], "Ben": ["maki-2"],
                                                      "Cid": ["pudding"]}


def test_a_whole_table_photo_replaces_the_round_and_the_page_asks_first(client, make_game, recognizer, images):
    game_id = make_game("original", PLAYERS)
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.9)]
    seat_photos(client, game_id, images, [0, 1])
    html = client.get(f"/games/{game_id}/rounds/1/capture").data.decode()
    assert 'data-cards="2"' in html  # what the page's confirm question counts
    assert "a photo of the whole table replaces them all" in html
    client.post(f"/games/{game_id}/rounds/1/capture",
                data={"mode": "table", "table": (io.BytesIO(images.png(300, 200)), "t.png")})
    state = review_state(client, game_id)
    assert [p["seat"] for p in state["photos"]] == [None]


def test_warnings_for_a_photo_without_cards_and_a_player_without_photo(client, make_game, recognizer, images):
    game_id = make_game("original", PLAYERS)
    recognizer.cards = []
    page = seat_photos(client, game_id, images, [0, 1], follow=True).data.decode()
    assert "No card was found on Ann&#39;s photo" in page and "No card was found on Ben&#39;s photo" in page
    assert "No photo of Cid&#39;s cards" in page
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.9)]
    page = seat_photos(client, game_id, images, [0, 1, 2], follow=True).data.decode()
    assert "No card was found" not in page and "No photo of" not in page
