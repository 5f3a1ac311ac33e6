"""What ``sushicam bench-live`` times: the whole live pipeline over a film, checked turn by
turn against the film's own log, and the film it times by default. Both the command and the
web app's ``bench-live --web`` use them.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any


def time_pipeline(detect, frames, players, edition: str, rounds, *, seat_anchors=None,
                  decode=None, menu=None) -> dict:
    """Time the whole live pipeline over a film and check what it read, turn by turn.

    ``frames``: ``(timestamp, frame)`` pairs (a frame is a picture, or encoded bytes that
    ``decode`` turns into one, timed as the first stage); ``rounds``: the film's true turn
    log (a list of turn lists, as in a game record); ``players`` in seat order, and
    ``seat_anchors`` if the seats are known. Any film goes: the scripted ones of
    ``vision.synth.film`` or one filmed apart with its own log.
    """
    import numpy as np

    from vision.live.pipeline import LiveGame, LivePipeline

    game = LiveGame(players, edition, seat_anchors=seat_anchors, menu=menu)
    pipeline = LivePipeline(detect, game)
    stages: dict[str, list[float]] = {"decode": [], "detect": [], "track": []}
    count = 0
    started = time.perf_counter()
    for timestamp, data in frames:
        t0 = time.perf_counter()
        frame = decode(data) if decode is not None else data
        stages["decode"].append(time.perf_counter() - t0)
        state = pipeline.process(frame, timestamp)
        stages["detect"].append(state.seconds["detect"])
        stages["track"].append(state.seconds["track"])
        count += 1
    total = time.perf_counter() - started
    read = [r["turns"] for r in game.record()["rounds"]]
    want = [list(turns) for turns in rounds]
    exact = sum(a == b for got, scripted in zip(read, want, strict=False)
                for a, b in zip(got, scripted, strict=False))
    return {
        "frames": count,
        "fps": round(count / max(total, 1e-9), 2),
        "ms_per_frame": {k: {"mean": round(1000 * float(np.mean(v)), 2) if v else 0.0,
                             "p95": round(1000 * float(np.percentile(v, 95)), 2) if v else 0.0}
                         for k, v in stages.items()},
        "turns_read": sum(len(r) for r in read),
        "turns_exact": exact,
        "turns_in_script": sum(len(r) for r in want),
        "record": game.record(),
    }


def bench_film(args: argparse.Namespace):
    """``(script, [(timestamp, jpeg bytes)], (width, height))``: the film ``bench-live`` times,
    rendered and encoded before any timing."""
    import cv2
    from tqdm import tqdm

    from vision.synth.film import AS_PEOPLE_PLAY, columns_script, plan_film

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size: expected WIDTHxHEIGHT, got {args.size!r}") from None
    if width < 160 or height < 120:
        raise ValueError("--size: at least 160x120")
    if (args.frames is not None and args.frames < 1) or args.fps <= 0:
        raise ValueError("--frames and --fps must be positive")
    if getattr(args, "film", "scripted") == "field":
        return _field_film(args, width, height)
    script = columns_script()
    staging: dict[str, Any] = dict(AS_PEOPLE_PLAY) if args.staging == "people" else {}
    film = plan_film(script, fps=args.fps, seed=args.seed, size=(width, height), faces=args.faces, **staging)
    count = film.n_frames if args.frames is None else min(args.frames, film.n_frames)
    jpegs = []
    for index in tqdm(range(count), desc="filming", unit="frame", leave=False):
        ok, data = cv2.imencode(".jpg", film.render(index), [cv2.IMWRITE_JPEG_QUALITY, 85])
        jpegs.append((film.time(index), data))
    return script, jpegs, (width, height)


@dataclass(frozen=True)
class FilmedRound:
    """What the benchmark checks a film's reading against: the players in seat order, the
    edition and the true turn log of each round."""

    players: tuple[str, ...]
    edition: str
    rounds: list[list[dict]]
    menu: tuple[str, ...] | None = None


def _field_film(args: argparse.Namespace, width: int, height: int):
    """The independent renderer's film (``vision.fieldtest.film``): ``--players`` round a
    table, cards in columns, ``--turns`` turns drawn from ``--seed`` on a Party menu (the game
    is told its menu, as the app tells the live page)."""
    import cv2
    from tqdm import tqdm

    from vision.fieldtest.film import PARTY_MENU, render_film

    if not 2 <= args.players <= 5 or args.turns < 1:
        raise ValueError("--players: 2 to 5; --turns: at least 1")
    film = render_film(args.seed, players=args.players, turns=args.turns, size=(width, height), fps=args.fps,
                       menu=PARTY_MENU)
    count = film.n_frames if args.frames is None else min(args.frames, film.n_frames)
    jpegs = []
    for index in tqdm(range(count), desc="filming", unit="frame", leave=False):
        ok, data = cv2.imencode(".jpg", film.render(index), [cv2.IMWRITE_JPEG_QUALITY, 85])
        jpegs.append((index / film.fps, data))
    return FilmedRound(film.players, "party", [film.log], PARTY_MENU), jpegs, (width, height)
