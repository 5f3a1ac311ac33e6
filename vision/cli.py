"""``sushicam detect``.

Heavy libraries (onnxruntime, torch, ultralytics) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.paths import INSTANCE_DIR, MODELS_DIR


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    detect = subparsers.add_parser(
        "detect", help="name every card in photos; one JSON line per image",
        description="Name every card in each photo and print one JSON object a line. A file that "
                    "is not a readable image (or has more pixels than any photo: 1000 megapixels, 40 for a "
                    "HEIC not in tiles, 50 for a progressive JPEG) gets an {\"image\", \"error\"} line, and its error on stderr; the others still run; the exit status "
                    "is then 2.")
    detect.add_argument("images", nargs="+", metavar="IMG", help="photo files")
    detect.add_argument("--seats", type=int, default=None, metavar="N",
                        help="split a whole-table photo into N tableaux (seat 0 at the bottom, clockwise)")
    detect.add_argument("--edition", default=None, metavar="E",
                        help="the game's edition (original, anniversary, party): name only its cards and "
                             "flag cards beyond its deck counts")
    detect.add_argument("--menu", default=None, metavar="M",
                        help="a Sushi Go Party! menu (e.g. sushi-go, master-menu) or a custom menu as "
                             "comma-separated kinds or slugs: name only its cards, flag any other "
                             "(implies --edition party)")
    detect.add_argument("--model", type=Path, default=MODELS_DIR, metavar="DIR",
                        help="folder with detector.onnx, classifier.onnx, meta.json (default: models/)")
    detect.add_argument("--data", type=Path, default=INSTANCE_DIR, metavar="DIR",
                        help="the app's data folder: cards taught there (`sushicam teach`) are named by "
                             "their taught faces (default: instance/, as `sushicam teach` and `serve`)")
    detect.set_defaults(handler=_detect)


def _detect(args: argparse.Namespace) -> int:
    from vision.describe import DetectErrorJSON, DetectJSON, describe_image
    from vision.recognizer import Recognizer

    if args.seats is not None and not 1 <= args.seats <= 8:
        raise ValueError(f"--seats must be between 1 and 8, not {args.seats}")
    deck = None
    if args.edition or args.menu:
        from vision.deck import Deck

        menu = args.menu
        if menu and "," in menu:
            menu = [part.strip() for part in menu.split(",") if part.strip()]
        deck = Deck.of(args.edition or "party", menu)  # DeckError (a ValueError): exit 2
    recognizer = Recognizer.load(args.model, data_dir=args.data)
    failed = 0
    for path in args.images:
        line: DetectJSON | DetectErrorJSON
        try:
            line = describe_image(recognizer, path, seats=args.seats, deck=deck)
        except (ValueError, OSError) as exc:
            failed += 1
            line = {"image": str(path), "error": str(exc)}
            # the contract: one line on stderr per failure; stdout still has a line per image
            message = " ".join(str(exc).split()) or type(exc).__name__
            print(f"sushicam detect: error: {message}", file=sys.stderr, flush=True)
        print(json.dumps(line), flush=True)
    return 2 if failed else 0
