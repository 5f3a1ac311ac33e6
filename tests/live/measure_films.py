"""Per-seed reading of field films with the real models (not a test: a measuring script).

    PYTHONPATH=$PWD python tests/live/measure_films.py PLAYERS TURNS SEED,FIRST-LAST,... [--no-menu]
        [--record DIR | --replay DIR]

prints, per seed, the turns read exactly, frames/s, each wrong turn (read vs truth) and each
turn read that the film has not. Films are drawn on ``PARTY_MENU`` and the game is told it
(``--no-menu``: the film's whole card set, no names restricted), seats learned from the cards
(no seat points), and the turn in play closed when the film ends, as the live app and
``sushicam eval-live`` read a film. ``--record DIR``: also write each film's detections to
``DIR/PLAYERSp-SEED.json`` (:class:`vision.live.trace.Trace`); ``--replay DIR``: read those
instead of the films and the models (the live reader alone, :func:`vision.live.trace.replay`).
"""

from __future__ import annotations

import sys
import time


def seeds_of(text: str) -> list[int]:
    """``SEED,SEED,...``, each a seed or ``FIRST-LAST``: ``4,6-8`` is 4, 6, 7, 8."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def drawn_films(argv: list[str]):
    """``(seed, film)`` for each film ``PLAYERS TURNS SEEDS [--no-menu]`` asks for, drawn on
    ``PARTY_MENU`` (``--no-menu``: the film's whole card set); a seed that gives no film is
    said and skipped."""
    from vision.fieldtest.film import PARTY_MENU, render_film

    players, turns, seeds = int(argv[0]), int(argv[1]), seeds_of(argv[2])
    menu = None if "--no-menu" in argv else PARTY_MENU
    for seed in seeds:
        try:
            yield seed, render_film(seed, players=players, turns=turns, menu=menu)
        except ValueError as exc:
            print(f"seed {seed}: no film ({exc})")


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def _read(argv: list[str]):
    """``(seed, game, truth, frames/s)`` per film: read with the models, or replayed."""
    from pathlib import Path

    from vision.live.pipeline import LiveGame, LivePipeline, live_detector
    from vision.live.trace import Trace, replay

    players, record, recorded = int(argv[0]), _option(argv, "--record"), _option(argv, "--replay")
    if recorded:
        for seed in seeds_of(argv[2]):
            path = Path(recorded) / f"{players}p-{seed}.json"
            if not path.exists():
                print(f"seed {seed}: no trace {path}")
                continue
            trace = Trace.from_json_text(path.read_text())
            started = time.perf_counter()
            game = replay(trace)
            yield seed, game, trace.log, len(trace.frames) / (time.perf_counter() - started)
        return
    from vision.paths import MODELS_DIR
    from vision.recognizer import Recognizer

    recognizer = Recognizer.load(MODELS_DIR)
    for seed, film in drawn_films(argv):
        frames = list(film.timed_frames())
        game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None)
        pipeline = LivePipeline(live_detector(recognizer), game)
        seen = []
        started = time.perf_counter()
        for timestamp, frame in frames:
            detections = pipeline.detect(frame)
            seen.append((timestamp, detections))
            game.update(detections, timestamp)
        game.finish()
        fps = len(frames) / (time.perf_counter() - started)
        if record:
            source = {"seed": seed, "players": players, "turns": int(argv[1]), "menu": "--no-menu" not in argv}
            trace = Trace(tuple(film.players), "party", game.setup.get("menu"), list(film.log), seen, source)
            Path(record).mkdir(parents=True, exist_ok=True)
            (Path(record) / f"{players}p-{seed}.json").write_text(trace.to_json_text())
        yield seed, game, list(film.log), fps


def main(argv: list[str]) -> None:
    from vision.fieldtest.liveeval import compare
    from vision.live.trace import reveals_read

    players = int(argv[0])
    total = [0, 0, 0]
    for seed, game, log, fps in _read(argv):
        read, truth = reveals_read(game), [t["reveals"] for t in log]
        exact, wrong = compare(read, truth)
        total[0] += exact
        total[1] += len(truth)
        total[2] += max(len(read) - len(truth), 0)
        print(f"seed {seed} players {players}: exact {exact}/{len(truth)}, {fps:.1f} frames/s", flush=True)
        for w in wrong:
            if w.truth is None:
                print(f"   extra turn: {w.read}")
            else:
                print(f"   turn {w.turn}: read {w.read}\n           truth {w.truth}")
    # a turn read that the film has not (a card glimpsed in a hand read as a turn) is as wrong
    print(f"total exact {total[0]}/{total[1]}, turns read too many {total[2]}")


if __name__ == "__main__":
    main(sys.argv[1:])
