"""``sushicam live --serve``: the live page's server while phones watch its MJPEG stream.

The server is the one ``serve_live`` starts (waitress on a free port), fed as the capture loop
feeds it, and watched through real sockets.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from vision.synth.film import plan_film, simulate_detections
from web.live import STREAM_VIEWERS
from web.live_cli import serve_live

PROMPT = 5.0  # seconds: a page slower than this is a page that does not load


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str, timeout: float = PROMPT) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_pages_answer_while_screens_watch_and_the_streams_end_with_the_source(tmp_path, duel, monkeypatch, capsys):
    import web
    from vision.live.pipeline import LiveGame

    real = web.create_app
    monkeypatch.setattr(web, "create_app", lambda config=None: real(
        {**(config or {}), "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test"}))
    script, _ = duel
    film = plan_film(script, fps=5.0, seed=2)
    game = LiveGame(script.players, script.edition)
    port = free_port()
    publish, done = serve_live(game, "127.0.0.1", port)
    session = re.search(r"/live/(\S+)", capsys.readouterr().err)[1]
    rng = np.random.default_rng(0)
    picture = np.full((240, 320, 3), 60, np.uint8)
    for index in range(20):  # the capture loop's first frames
        publish(game.update(simulate_detections(film.truth(index), rng), film.time(index)), picture)

    # more phones than the stream takes, and more than the server has threads beside it
    viewers, refused = [], []
    for _ in range(STREAM_VIEWERS + 3):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROMPT)
        connection.request("GET", f"/live/{session}/stream.mjpg")
        response = connection.getresponse()
        if response.status == 200:
            assert response.getheader("Content-Type").startswith("multipart/x-mixed-replace")
            assert response.readline() == b"--frame\r\n"
            viewers.append((connection, response))
        else:
            assert response.status == 503
            assert "already watch" in json.loads(response.read())["error"]
            refused.append(response)
            connection.close()
    assert len(viewers) == STREAM_VIEWERS and refused

    # every page, its state polls and the still picture for the refused phones still answer
    paths = [f"/live/{session}", f"/live/{session}/state", f"/live/{session}/snapshot.jpg", "/"] * 2
    started = time.monotonic()
    with ThreadPoolExecutor(len(paths)) as pool:
        answers = list(pool.map(lambda path: get(port, path), paths))
    assert time.monotonic() - started < PROMPT
    assert [status for status, _, _ in answers] == [200] * len(paths)
    kind, still = answers[2][1], answers[2][2]
    assert kind == "image/jpeg" and still.startswith(b"\xff\xd8")

    # the video ends: every stream sends its last frame and ends, its thread free again
    threading.Thread(target=done, daemon=True).start()
    for connection, response in viewers:
        rest = response.read()  # raises a timeout if the stream never ends
        assert rest.rstrip().endswith(b"\xff\xd9") or rest == b""
        connection.close()
    status, _, body = get(port, f"/live/{session}/stream.mjpg")  # a late phone: the last frame, then the end
    assert status == 200 and b"\xff\xd8" in body
