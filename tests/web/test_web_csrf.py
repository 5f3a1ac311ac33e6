"""CSRF protection on every state-changing form and fetch; the stateless API is exempt."""

from __future__ import annotations

import io

import pytest


def setup_game(client, token_of) -> int:
    token = token_of(client.get("/games/new").data)
    response = client.post("/games/new", data={"csrf_token": token, "edition": "original", "player": ["Ann", "Ben"]})
    assert response.status_code == 302
    return int(response.headers["Location"].rsplit("/", 1)[1])


def test_every_page_carries_a_token_and_every_form_sends_it(csrf_client, token_of):
    game_id = setup_game(csrf_client, token_of)
    for path in ("/", "/games/new", f"/games/{game_id}", f"/games/{game_id}/rounds/1/capture"):
        html = csrf_client.get(path).data.decode()
        assert token_of(html)
        assert html.count('method="post"') == html.count('name="csrf_token"'), path


@pytest.mark.parametrize(
    ("path", "kwargs"),
    [
        ("/games/new", {"data": {"edition": "original", "player": ["Ann", "Ben"]}}),
        ("/games/import", {"data": {"record_text": '{"edition": "original", "players": ["A", "B"], "rounds": []}'}}),
        ("/games/{id}/delete", {}),
        ("/games/{id}/seats", {"json": {"areas": None}}),
        ("/games/{id}/rounds/1/capture", {"data": {"mode": "table", "table": (io.BytesIO(b"x"), "a.jpg")}}),
        ("/games/{id}/rounds/1/confirm", {"json": {"cards": []}}),
    ],
)
def test_a_state_changing_request_without_the_token_is_refused(csrf_client, token_of, path, kwargs):
    game_id = setup_game(csrf_client, token_of)
    response = csrf_client.post(path.format(id=game_id), **kwargs)
    assert response.status_code == 400
    assert "security token" in response.data.decode()
    # nothing happened
    record = csrf_client.get(f"/games/{game_id}/record.json").get_json()
    assert record["rounds"] == []
    assert csrf_client.get("/").data.decode().count('class="game-card"') == 1


def test_fetch_calls_send_the_token_in_a_header(csrf_client, token_of):
    game_id = setup_game(csrf_client, token_of)
    token = token_of(csrf_client.get(f"/games/{game_id}/rounds/1/review").data)
    response = csrf_client.post(f"/games/{game_id}/rounds/1/confirm", json={"cards": []},
                                headers={"X-CSRFToken": token})
    assert response.status_code == 200
    response = csrf_client.post(f"/games/{game_id}/seats", json={"areas": None}, headers={"X-CSRFToken": "forged"})
    assert response.status_code == 400
    assert "security token" in response.get_json()["error"]


def test_the_stateless_api_needs_no_token(csrf_client):
    record = {"edition": "original", "players": ["A", "B"], "rounds": [{"tableaux": {"A": ["tempura"], "B": []}}]}
    assert csrf_client.post("/api/score", json=record).status_code == 200
