"""``sushicam live`` (follow a game from a camera or a video file) and ``sushicam bench-live``.

Heavy libraries (OpenCV, onnxruntime) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from vision.paths import INSTANCE_DIR
from vision.paths import MODELS_DIR as DEFAULT_MODELS


def register(subparsers) -> None:
    live = subparsers.add_parser(
        "live", help="follow a game from a camera or a video: one JSON line per turn",
        description="Follow a game as it is played: read every frame of a camera (--camera N) or "
                    "a recorded video (--video FILE), print one JSON line per turn read (and per "
                    "round end), then the game record and its scores.")
    source = live.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", type=int, metavar="N", help="camera number (0: the first camera)")
    source.add_argument("--video", type=Path, metavar="FILE", help="a recorded video of the table")
    live.add_argument("--players", required=True, metavar="NAMES",
                      help="names in seat order, comma-separated: the first sits at the bottom of the "
                           "picture, the others follow clockwise")
    live.add_argument("--edition", default="party", choices=("original", "anniversary", "party"))
    live.add_argument("--seat-points", metavar="X,Y;X,Y;...", default=None,
                      help="one point per player (pixels) in their card area; default: learned from "
                           "where each player's cards lie and which way they face")
    live.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR",
                      help="folder with the recogniser (default: models/)")
    live.add_argument("--out", type=Path, default=None, metavar="FILE",
                      help="write the game record (with its per-turn log) there")
    live.add_argument("--max-frames", type=int, default=None, metavar="N", help="stop after N frames")
    live.add_argument("--refresh", type=int, default=4, metavar="N",
                      help="re-read a card lying still every N frames (1: every frame; default 4)")
    live.add_argument("--fps", type=float, default=None,
                      help="a video's frame rate when its file does not say (default: the file's)")
    live.set_defaults(handler=_live)

    bench = subparsers.add_parser(
        "bench-live", help="frames per second of the whole live pipeline on this machine",
        description="Film a scripted 3-player round with cards laid in columns (rendered from the "
                    "card faces, before timing; --film field: a round drawn by the independent "
                    "renderer, 2-5 players), then time the whole live pipeline on its frames: "
                    "JPEG decode, recogniser, tracker, seats, turns and scores. Prints frames/s, the "
                    "time per stage and how many turns were read exactly as scripted.")
    bench.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR")
    bench.add_argument("--frames", type=int, default=None,
                       help="frames to time (default: the whole scripted round, every turn)")
    bench.add_argument("--fps", type=float, default=10.0, help="the film's frame rate (default 10)")
    bench.add_argument("--size", default="960x720", metavar="WxH", help="frame size (default 960x720)")
    bench.add_argument("--threads", type=int, default=2, help="inference threads (default 2)")
    bench.add_argument("--refresh", type=int, default=4, metavar="N",
                       help="re-read a card lying still every N frames (1: every frame; default 4)")
    bench.add_argument("--still", type=int, default=5, metavar="N",
                       help="while the picture does not change, read it again only every N frames "
                            "(1: every frame; default 5)")
    bench.add_argument("--still-full", action=argparse.BooleanOptionalAction, default=True,
                       help="read a still table again at the recogniser's full size, not the live "
                            "one (default: yes; small cards far across a table go unseen at the live size)")
    bench.add_argument("--staging", choices=("people", "steady"), default="people",
                       help="people: cards slid in by hand, turns of no fixed length, the camera at "
                            "one side (default); steady: cards appear under the hand at a steady pace")
    bench.add_argument("--film", choices=("scripted", "field"), default="scripted",
                       help="scripted: our own 3-player round in columns (default); field: a round "
                            "drawn and filmed by the independent renderer (vision.fieldtest), "
                            "--players round a table at uneven angles, prints the models never saw")
    bench.add_argument("--players", type=int, default=3, help="players in a field film (2-5, default 3)")
    bench.add_argument("--turns", type=int, default=5, help="turns in a field film (default 5)")
    bench.add_argument("--seed", type=int, default=1, help="the film's seed (default 1)")
    bench.add_argument("--faces", choices=("digital", "print"), default="digital",
                       help="card faces: the digital art the models learned from (default), or "
                            "photographed prints they never saw")
    bench.add_argument("--json", action="store_true", help="print the report as one JSON object")
    bench.set_defaults(handler=_bench)


def parse_points(text: str | None, players: int) -> list[tuple[float, float]] | None:
    """``"x,y;x,y"`` → points, one per player.

    >>> parse_points("10,20; 30.5,40", 2)
    [(10.0, 20.0), (30.5, 40.0)]
    """
    if not text:
        return None
    try:
        points = [tuple(float(v) for v in part.split(",")) for part in text.split(";") if part.strip()]
    except ValueError:
        points = []
    if len(points) != players or any(len(p) != 2 for p in points):
        raise ValueError(f"--seat-points: give {players} points as X,Y;X,Y;... (pixels), one per player")
    return [(p[0], p[1]) for p in points]


def _load_detector(model: Path, threads: int = 2, refresh: int = 4, still: int = 5, still_full: bool = True,
                   data_dir: Path | None = None):
    from vision.live.pipeline import live_detector
    from vision.recognizer import Recognizer

    # with ``data_dir``, frames are named with its players' taught cards too (its exemplars),
    # as photos and the app's live page are
    return live_detector(Recognizer.load(model, threads=threads, data_dir=data_dir), refresh, still, still_full)


#: ``watch(game) -> (on_state(state, frame), on_end())``: something else following the game
#: while this command reads it (the web app adds its live page this way: ``--serve``).
Watch = Callable[[object], tuple[Callable[[object, object], None], Callable[[], None]]]


def _live(args: argparse.Namespace, watch: Watch | None = None) -> int:
    from vision.live.pipeline import LiveGame, LivePipeline, follow, open_source

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    game = LiveGame(players, args.edition, seat_anchors=parse_points(args.seat_points, len(players)))
    frames = open_source(args.camera, args.video, fps=args.fps)
    pipeline = LivePipeline(_load_detector(args.model, refresh=args.refresh, data_dir=INSTANCE_DIR), game)
    watcher, done = watch(game) if watch is not None else (None, None)

    def report(state) -> None:
        for event in state.events:
            print(json.dumps({"event": event.kind, "round": event.round + 1, "turn": event.index + 1,
                              "time": round(state.timestamp, 2),
                              "log": event.turn.to_json() if event.turn else None}), flush=True)

    def on_state(state, frame) -> None:
        report(state)
        if watcher is not None:
            watcher(state, frame)

    try:
        state = follow(pipeline, frames, on_state=on_state, max_frames=args.max_frames,
                       progress=args.video is not None)
    except KeyboardInterrupt:  # the camera stopped by hand: the turn in play closes too
        state = pipeline.finish() if game.frames else None
        if state is not None:
            report(state)
    record = game.record()
    scores, error = game.scores()
    if args.out:
        args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({"record": record, "scores": scores, "score_error": error,
                      "frames": game.frames, "notes": [str(n) for n in state.notes] if state else [],
                      "reader_notes": [n.to_json() for n in state.notes] if state else []}))
    if done is not None:
        done()
    return 0


def _bench(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.live.bench import bench_film, time_pipeline
    from vision.photo import decode_photo

    detect = _load_detector(args.model, args.threads, args.refresh, args.still, args.still_full)
    script, jpegs, (width, height) = bench_film(args)
    count = len(jpegs)
    report = time_pipeline(detect, tqdm(jpegs, desc="following", unit="frame", leave=False),
                           script.players, script.edition, script.rounds,
                           # the frames decode as the live page decodes a posted frame
                           decode=lambda data: decode_photo(bytes(data), formats=("JPEG",)).pixels,
                           menu=list(menu) if (menu := getattr(script, "menu", None)) else None)
    report.pop("record")
    film = (f"field, {len(script.players)} players, {args.turns} turns, seed {args.seed}" if args.film == "field"
            else f"columns, 3 players, staged {args.staging}, seed {args.seed}, {args.faces} faces")
    report.update({"size": [width, height], "film": film,
                   "refresh": args.refresh,
                   "regions_named_per_frame": round(getattr(detect, "classified", float("nan")) / count, 2),
                   "frames_not_read_again": getattr(detect, "skipped", 0)})
    share = {k: v["mean"] for k, v in report["ms_per_frame"].items()}
    report["limited_by"] = max(share, key=lambda stage: share[stage])
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"live pipeline: {report['fps']} frames/s over {count} frames of {width}x{height} ({report['film']})")
    for name, values in report["ms_per_frame"].items():
        print(f"  {name:7s} {values['mean']:8.2f} ms/frame (p95 {values['p95']:.2f})")
    print(f"  limited by: {report['limited_by']}; cards re-read every {args.refresh} frames "
          f"({report['regions_named_per_frame']} regions named per frame)")
    print(f"turns exact: {report['turns_exact']} of the {report['turns_in_script']} scripted "
          f"({report['turns_read']} read)")
    return 0
