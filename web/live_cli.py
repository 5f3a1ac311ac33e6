"""``sushicam live --serve``: the live page beside the ``live`` command of ``vision.live.cli``.

The vision package reads the game and knows nothing of the web app; this module adds the
option that serves the page (the annotated stream and the scoreboard) while the command reads
a camera or a video, so the one pipeline of ``sushicam live`` feeds both.
"""

from __future__ import annotations

import argparse
import sys
import time


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
    live.set_defaults(handler=_live)


def _live(args: argparse.Namespace) -> int:
    from vision.live import cli

    if not args.serve:
        return cli._live(args)
    return cli._live(args, watch=lambda game: serve_live(game, args.host, args.port))


def serve_live(game, host: str, port: int):
    """The web app in a thread with a live session fed by the command's capture loop:
    ``(publish(state, frame), wait_for_ctrl_c())``."""
    import secrets
    import threading

    from waitress import create_server

    from web import create_app
    from web.live import LiveSession, init_app

    app = create_app()
    session = init_app(app).add(LiveSession(id=secrets.token_urlsafe(8), game=game, source="server"))
    server = create_server(app, host=host, port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    print(f"live page: http://{host}:{port}/live/{session.id}", file=sys.stderr, flush=True)

    def done() -> None:
        print("the source has ended; the live page stays up until Ctrl-C", file=sys.stderr, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        session.stopped = True

    return session.publish, done
