"""``sushicam live --serve``: the live page beside the ``live`` command of ``vision.live.cli``.

The vision package reads the game and knows nothing of the web app; this module adds the
option that serves the page (the annotated stream and the scoreboard) while the command reads
a camera or a video, so the one pipeline of ``sushicam live`` feeds both.
"""

from __future__ import annotations

import argparse
import sys
import time

PAGE_THREADS = 4  # server threads kept for pages beside the MJPEG streams


def register(subparsers) -> None:
    live = subparsers.choices.get("live")
    if live is None:
        return
    live.description = (live.description or "") + (
        " With --serve, the live page shows the annotated camera and the scoreboard at "
        "http://HOST:PORT/live/<id>.")
    live.add_argument("--serve", action="store_true",
                      help="also serve the live page (annotated stream and scoreboard)")
    live.add_argument("--host", default="127.0.0.1")
    live.add_argument("--port", type=int, default=5000)
    follow = live.get_default("handler")
    live.set_defaults(handler=lambda args: _live(follow, args))
    bench = subparsers.choices.get("bench-live")
    if bench is not None:
        bench.add_argument("--web", action="store_true",
                           help="time the browser's path instead: each frame POSTed as a JPEG to the "
                                "web app's /live/<id>/frame (Flask test client), as the live page does")
        # the command's own handler, kept: this module adds to it, never imports the command
        time_it = bench.get_default("handler")
        bench.set_defaults(handler=lambda args: bench_web(args) if args.web else time_it(args))


def bench_web(args: argparse.Namespace) -> int:
    """Frames/s of the live page's path: HTTP request, JPEG checks and decode, the pipeline,
    the JSON answer; and the turns the page read against the film's script."""
    import json
    import tempfile

    from tqdm import tqdm

    from vision.live.bench import bench_film
    from vision.recognizer import Recognizer
    from web import create_app

    recognizer = Recognizer.load(args.model, threads=args.threads)
    script, jpegs, (width, height) = bench_film(args)
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"TESTING": True, "DATA_DIR": data, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                          "RECOGNIZER_FACTORY": lambda: recognizer})
        client = app.test_client()
        setup: dict = {"players": list(script.players), "edition": script.edition}
        if getattr(script, "menu", None):  # a game of the app on that menu, continued live
            from web.db import get_db
            from web.store import create_game

            with app.app_context():
                setup = {"game": create_game(get_db(), script.edition, script.players, list(script.menu))}
        session = client.post("/live/", json=setup)
        frame_url = f"/live/{session.get_json()['id']}/frame"
        started = time.perf_counter()
        for timestamp, jpeg in tqdm(jpegs, desc="posting", unit="frame", leave=False):
            response = client.post(frame_url, data=jpeg.tobytes(), headers={
                "Content-Type": "image/jpeg", "X-Frame-Time": f"{timestamp:.3f}"})
            if response.status_code != 200:
                raise OSError(f"the app answered {response.status_code}: {response.get_json()}")
        total = time.perf_counter() - started
        rounds = [r["turns"] for r in response.get_json()["record"]["rounds"]]
    want = [list(turns) for turns in script.rounds]
    exact = sum(a == b for got, scripted in zip(rounds, want, strict=False) for a, b in zip(got, scripted, strict=False))
    report = {"path": "web (POST /live/<id>/frame, Flask test client)", "frames": len(jpegs),
              "size": [width, height], "fps": round(len(jpegs) / total, 2), "turns_read": sum(map(len, rounds)),
              "turns_exact": exact, "turns_in_script": sum(map(len, want))}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"live page's path: {report['fps']} frames/s over {len(jpegs)} frames of {width}x{height}")
        print(f"turns exact: {exact} of the {report['turns_in_script']} scripted ({report['turns_read']} read)")
    return 0


def _live(follow, args: argparse.Namespace) -> int:
    """``follow``: the ``live`` command's own handler, given a ``watch`` with --serve."""
    if not args.serve:
        return follow(args)
    return follow(args, watch=lambda game: serve_live(game, args.host, args.port))


def serve_live(game, host: str, port: int):
    """The web app in a thread with a live session fed by the command's capture loop:
    ``(publish(state, frame), wait_for_ctrl_c())``."""
    import secrets
    import threading

    from waitress import create_server

    from web import create_app
    from web.live import STREAM_VIEWERS, LiveSession, init_app
    from web.serve import configure, url_host

    app = create_app()
    lan = configure(app, host, https=False)  # the Host check, and the join code beyond this computer
    session = init_app(app).add(LiveSession(id=secrets.token_urlsafe(8), game=game, source="server"))
    # each MJPEG viewer holds a thread while it watches (web.live caps them per game): the
    # others answer the pages, their state polls and snapshots
    viewers = int(app.config.get("LIVE_STREAM_VIEWERS", STREAM_VIEWERS))
    server = create_server(app, host=host, port=port, threads=viewers + PAGE_THREADS)
    threading.Thread(target=server.run, daemon=True).start()
    if app.config["JOIN_CODE"]:
        print(f"join code for other devices: {app.config['JOIN_CODE']}", file=sys.stderr, flush=True)
    # 0.0.0.0 is no name a browser may use (the Host check refuses it): this computer's, and the LAN's
    for name in ("localhost", lan) if host in ("0.0.0.0", "::") else (host,):
        if name:
            print(f"live page: http://{url_host(name)}:{port}/live/{session.id}", file=sys.stderr, flush=True)

    def done() -> None:
        session.ended = True  # the streams send the last frame and end, freeing their threads
        print("the source has ended; the live page stays up until Ctrl-C", file=sys.stderr, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        session.stopped = True

    return session.publish, done
