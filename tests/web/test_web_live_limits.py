"""Live games: a game being played keeps its place, and a frame's time cannot wedge a game."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import web.live

PLAYERS = "Ann, Ben"


def jpeg() -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    return data.tobytes()


def start(client):
    return client.post("/live/", json={"players": PLAYERS, "edition": "party"})


def frame(client, session: str, at: str | None):
    headers = {"Content-Type": "image/jpeg"} | ({} if at is None else {"X-Frame-Time": at})
    return client.post(f"/live/{session}/frame", data=jpeg(), headers=headers)


def test_a_game_being_played_is_never_dropped_for_a_new_one(client):
    ids = []
    for _ in range(web.live.MAX_SESSIONS):
        response = start(client)
        assert response.status_code == 201
        ids.append(response.get_json()["id"])
    refused = start(client)
    assert refused.status_code == 503
    assert "being played" in refused.get_json()["error"]
    for session in ids:  # every game still answers: none was dropped
        assert client.get(f"/live/{session}/state").status_code == 200
    page = client.post("/live/", data={"players": PLAYERS, "edition": "party"})
    assert page.status_code == 503 and b"being played" in page.data


def test_a_game_left_alone_makes_room_the_longest_unused_first(client, monkeypatch):
    clock = [web.live.time.monotonic()]
    monkeypatch.setattr(web.live.time, "monotonic", lambda: clock[0])
    ids = []
    for _ in range(web.live.MAX_SESSIONS):
        ids.append(start(client).get_json()["id"])
        clock[0] += 1
    clock[0] += web.live.IDLE_S - 3  # the first two games are idle now, the others not yet
    assert client.get(f"/live/{ids[0]}").status_code == 200  # the first is opened again: in play
    response = start(client)
    assert response.status_code == 201
    assert client.get(f"/live/{ids[1]}/state").status_code == 404  # the idle one made room
    for session in [ids[0], *ids[2:]]:
        assert client.get(f"/live/{session}/state").status_code == 200


@pytest.mark.parametrize("at", ["1e300", "3600", "-1", "nan", "inf"])
def test_a_frame_time_far_ahead_is_refused_and_the_game_goes_on(client, at):
    session = start(client).get_json()["id"]
    assert frame(client, session, "0.5").status_code == 200
    before = client.get(f"/live/{session}/state").get_json()
    response = frame(client, session, at)
    assert response.status_code == 400
    assert "X-Frame-Time" in response.get_json()["error"]
    assert client.get(f"/live/{session}/state").get_json() == before  # nothing changed
    assert frame(client, session, "1.0").status_code == 200  # the next good frame is taken
    assert client.get(f"/live/{session}/state").get_json()["frame"] != before["frame"]


def test_a_film_sent_faster_than_it_plays_is_taken(client):
    session = start(client).get_json()["id"]
    for index in range(20):
        assert frame(client, session, f"{index * 5.0:.3f}").status_code == 200
