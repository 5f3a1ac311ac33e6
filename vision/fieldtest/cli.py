"""``sushicam eval-live``: read the independent renderer's film sets with the live reader.

Heavy libraries (OpenCV, onnxruntime) are imported inside the handler only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.paths import MODELS_DIR


def register(subparsers) -> None:
    from vision.fieldtest.sets import FILM_SETS

    sets = "; ".join(f"{s.name}: {s.purpose}" for s in FILM_SETS.values())
    cmd = subparsers.add_parser(
        "eval-live", help="read film sets with the live reader: turns exact per film",
        description="Film each round of the named film sets with the independent renderer and "
                    "follow it with the live reader as a camera would be (seats learned from the "
                    f"cards, the Party menu told). Sets: {sets}. Prints each film's turns read "
                    "exactly, its frames per second and each turn read wrong (read vs truth), "
                    "then the totals.")
    cmd.add_argument("--sets", nargs="+", required=True, metavar="SET", help=f"film sets ({', '.join(FILM_SETS)})")
    cmd.add_argument("--model", type=Path, default=MODELS_DIR, metavar="DIR",
                     help="folder with the recogniser (default: models/)")
    cmd.add_argument("--anchors", action="store_true",
                     help="give the game each film's seat points instead of learning the seats")
    cmd.add_argument("--threads", type=int, default=2, help="inference threads (default 2)")
    cmd.add_argument("--json", action="store_true", help="one JSON object per film, then the totals")
    traces = cmd.add_mutually_exclusive_group()
    traces.add_argument("--record", type=Path, metavar="DIR",
                        help="also write each film's detections under DIR (one trace a film)")
    traces.add_argument("--replay", type=Path, metavar="DIR",
                        help="read the films recorded under DIR instead: no films drawn, no models")
    cmd.set_defaults(handler=_eval_live)


def _eval_live(args: argparse.Namespace) -> int:
    from vision.fieldtest.liveeval import FilmReading, read_sets
    from vision.fieldtest.sets import FILM_SETS, FilmSpec
    from vision.live.pipeline import live_detector
    from vision.recognizer import Recognizer

    unknown = [n for n in args.sets if n not in FILM_SETS]
    if unknown:
        raise ValueError(f"--sets: unknown film set {unknown[0]!r} (expected one of {', '.join(FILM_SETS)})")
    if args.replay is not None and not args.replay.is_dir():
        raise ValueError(f"--replay: no folder {args.replay}")
    recognizer = None
    if args.replay is None:
        if not (args.model / "detector.onnx").exists():
            raise ValueError(f"--model: no recogniser in {args.model}")
        recognizer = Recognizer.load(args.model, threads=args.threads)

    def said(reading: FilmReading) -> None:
        if args.json:
            print(json.dumps(reading.to_json()), flush=True)
            return
        print(f"{reading.set} {reading.film.describe()}: exact {reading.exact}/{reading.turns}, "
              f"{reading.fps:.1f} frames/s", flush=True)
        for w in reading.wrong:
            print(f"   turn {w.turn}: read  {w.read}\n{' ' * (9 + len(str(w.turn)))}truth {w.truth}", flush=True)

    def skipped(name: str, spec: FilmSpec, why: str) -> None:
        print(f"{name} {spec.describe()}: no film ({why})", file=sys.stderr, flush=True)

    readings = read_sets(args.sets, lambda: live_detector(recognizer), args.anchors, said, skipped,
                         record=args.record, replay=args.replay)
    totals = {}
    for name in args.sets:
        mine = [r for r in readings if r.set == name]
        totals[name] = {"films": len(mine), "exact": sum(r.exact for r in mine),
                        "turns": sum(r.turns for r in mine),
                        "films_exact": sum(r.exact == r.turns and r.turns_read == r.turns for r in mine),
                        "turns_read_too_many": sum(max(r.turns_read - r.turns, 0) for r in mine),
                        "fps": round(sum(r.frames for r in mine) / max(sum(r.seconds for r in mine), 1e-9), 2)}
    if args.json:
        print(json.dumps({"totals": totals}))
        return 0
    for name, t in totals.items():
        print(f"{name}: exact {t['exact']}/{t['turns']} turns, {t['films_exact']}/{t['films']} films every turn "
              f"exact, turns read too many {t['turns_read_too_many']}, {t['fps']} frames/s")
    return 0
