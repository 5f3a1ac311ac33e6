"""Per-seed reading of field films with the real models (not a test: a measuring script).

    PYTHONPATH=$PWD python tests/live/measure_films.py PLAYERS TURNS SEED,FIRST-LAST,... [--no-menu]

prints, per seed, the turns read exactly, frames/s, each wrong turn (read vs truth) and each
turn read that the film has not. Films
are drawn on ``PARTY_MENU`` and the game is told it (``--no-menu``: the film's whole card set,
no names restricted), seats learned from the cards (no seat points).
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


def main(argv: list[str]) -> None:
    from vision.live.pipeline import LiveGame, LivePipeline, live_detector
    from vision.paths import MODELS_DIR
    from vision.recognizer import Recognizer

    players = int(argv[0])
    recognizer = Recognizer.load(MODELS_DIR)
    total = [0, 0, 0]
    for seed, film in drawn_films(argv):
        frames = list(film.timed_frames())
        game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None)
        pipeline = LivePipeline(live_detector(recognizer), game)
        started = time.perf_counter()
        for timestamp, frame in frames:
            pipeline.process(frame, timestamp)
        fps = len(frames) / (time.perf_counter() - started)
        rounds = game.record()["rounds"]
        read = [t["reveals"] for t in rounds[0]["turns"]] if rounds else []
        truth = [t["reveals"] for t in film.log]
        exact = sum(a == b for a, b in zip(read, truth, strict=False))
        total[0] += exact
        total[1] += len(truth)
        total[2] += max(len(read) - len(truth), 0)
        print(f"seed {seed} players {players}: exact {exact}/{len(truth)}, {fps:.1f} frames/s", flush=True)
        for k, want in enumerate(truth):
            got = read[k] if k < len(read) else None
            if got != want:
                print(f"   turn {k + 1}: read {got}\n           truth {want}")
        for extra in read[len(truth):]:
            print(f"   extra turn: {extra}")
    # a turn read that the film has not (a card glimpsed in a hand read as a turn) is as wrong
    print(f"total exact {total[0]}/{total[1]}, turns read too many {total[2]}")


if __name__ == "__main__":
    main(sys.argv[1:])
