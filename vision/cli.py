"""``sushicam detect``, ``eval``, ``train`` and ``generate``.

Heavy libraries (onnxruntime, torch, ultralytics) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODELS = ROOT / "models"


def register(subparsers) -> None:
    detect = subparsers.add_parser(
        "detect", help="name every card in photos; one JSON line per image",
        description="Name every card in each photo and print one JSON object a line. A file that "
                    "is not a readable image gets an {\"image\", \"error\"} line and the others "
                    "still run; the exit status is then 2.")
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
    detect.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR",
                        help="folder with detector.onnx, classifier.onnx, meta.json (default: models/)")
    detect.set_defaults(handler=_detect)

    evaluate = subparsers.add_parser(
        "eval", help="card F1, exact tableaux, stacks and ms/photo on generated test photos",
        description="Generate (once) the test sets, run the recogniser on them and report card F1 "
                    "(IoU >= 0.5 and right label), exact-tableau rate, stack accuracy and ms/photo.")
    evaluate.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR")
    evaluate.add_argument("--sets", nargs="+", default=["test-print", "test-digital"],
                          help="recipes to evaluate (default: test-print test-digital)")
    evaluate.add_argument("--limit", type=int, default=None, help="photos per set (default: all)")
    evaluate.add_argument("--data", type=Path, default=ROOT / "datasets" / "build", metavar="DIR")
    evaluate.add_argument("--json", type=Path, default=None, metavar="FILE",
                          help="write the report there (default: <data>/eval-report.json)")
    evaluate.set_defaults(handler=_eval)

    bench = subparsers.add_parser(
        "bench", help="milliseconds to read one photo, by photo size, on this machine",
        description="Render photos of tables at each size and time reading them as 'sushicam detect "
                    "--seats N' does (decoding excluded); prints the load average beside the times.")
    bench.add_argument("--sizes", nargs="+", default=["1280x960", "4032x3024"], metavar="WxH")
    bench.add_argument("--photos", type=int, default=5, help="photos per size (default 5)")
    bench.add_argument("--threads", type=int, default=2, help="inference threads (default 2)")
    bench.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR")
    bench.add_argument("--json", action="store_true", help="print the report as one JSON object")
    bench.set_defaults(handler=_bench)

    train = subparsers.add_parser(
        "train", help="reproduce models/ (generates data if missing, resumes from checkpoints)")
    train.add_argument("--photos", type=int, default=1200, help="training photos (default 1200)")
    train.add_argument("--det-epochs", type=int, default=15)
    train.add_argument("--cls-epochs", type=int, default=12)
    train.add_argument("--only", choices=["detector", "classifier", "classifier-print"], default=None,
                       help="one model, or only the classifier's print-style stage (from the committed "
                            "classifier when its earlier runs are not here)")
    train.add_argument("--hires-epochs", type=int, default=None,
                       help="epochs of the detector's 960-px stage (default 29; 0 skips it: a GPU's work)")
    train.add_argument("--tables-cls-epochs", type=int, default=None,
                       help="epochs of the classifier's whole-table crops stage (default 14; 0 skips it)")
    train.add_argument("--print-cls-epochs", type=int, default=None,
                       help="epochs of the classifier's print-style stage (default 0: not part of the "
                            "committed models; 3 ran the experiment of models/README.md)")
    train.add_argument("--device", default="cpu", help="cpu (default) or a CUDA device: 0")
    train.add_argument("--workers", type=int, default=2,
                       help="processes that generate and load the data (default 2)")
    train.add_argument("--models", type=Path, default=DEFAULT_MODELS, metavar="DIR")
    train.set_defaults(handler=_train)

    gen = subparsers.add_parser("generate", help="generate a synthetic dataset from the card faces")
    gen.add_argument("recipe", help="train, test-print, test-digital, tiny, or what joins train's folder: "
                                    "train-tables, train-tables-hires (photos), train-crops, "
                                    "train-negatives, train-tables-crops, train-tables-hires-crops (crops)")
    gen.add_argument("--out", type=Path, default=None, metavar="DIR",
                     help="output folder (default: datasets/build/<recipe>, or the folder of the recipe it "
                          "joins)")
    gen.add_argument("--workers", type=int, default=2)
    gen.set_defaults(handler=_generate)


def _detect(args: argparse.Namespace) -> int:
    from vision.describe import describe_image
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
    recognizer = Recognizer.load(args.model)
    failed = 0
    for path in args.images:
        try:
            line = describe_image(recognizer, path, seats=args.seats, deck=deck)
        except (ValueError, OSError) as exc:
            failed += 1
            line = {"image": path, "error": str(exc)}
        print(json.dumps(line), flush=True)
    return 2 if failed else 0


def _eval(args: argparse.Namespace) -> int:
    from vision.training.evaluate import evaluate_sets, format_table

    report = evaluate_sets(args.model, args.sets, data_root=args.data, limit=args.limit)
    print(format_table(report))
    target = args.json or args.data / "eval-report.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report, indent=1) + "\n")
    print(f"report written to {target}", file=sys.stderr)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from vision.training.bench import bench_photos, format_bench

    sizes = []
    for size in args.sizes:
        parts = size.lower().split("x")
        if len(parts) != 2 or not all(p.isdigit() and int(p) >= 64 for p in parts):
            raise ValueError(f"--sizes: {size!r} is not a size like 1280x960")
        sizes.append((int(parts[0]), int(parts[1])))
    if args.photos < 1:
        raise ValueError(f"--photos must be at least 1, not {args.photos}")
    report = bench_photos(args.model, sizes, photos=args.photos, threads=args.threads)
    print(json.dumps(report) if args.json else format_bench(report))
    return 0


def _train(args: argparse.Namespace) -> int:
    from vision.training.train import TrainPlan, train_models

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    if args.device != "cpu":
        import torch

        if not args.device.isdigit() or int(args.device) >= torch.cuda.device_count():
            raise ValueError(f"--device {args.device}: no such CUDA device here "
                             f"({torch.cuda.device_count()} found); use --device cpu")
    stages = {"det_hires_epochs": args.hires_epochs, "cls_tables_epochs": args.tables_cls_epochs,
              "cls_print_epochs": args.print_cls_epochs}
    plan = TrainPlan(photos=args.photos, det_epochs=args.det_epochs, cls_epochs=args.cls_epochs,
                     **{k: v for k, v in stages.items() if v is not None})
    print(json.dumps(train_models(plan, models=args.models, only=args.only, device=args.device,
                                  workers=args.workers)))
    return 0


def _generate(args: argparse.Namespace) -> int:
    from vision.synth.dataset import RECIPES, generate

    if args.recipe not in RECIPES:
        raise ValueError(f"unknown recipe {args.recipe!r}: use one of {', '.join(RECIPES)}")
    recipe = RECIPES[args.recipe]
    out = args.out or ROOT / "datasets" / "build" / (recipe.adds_to or recipe.name)
    print(generate(recipe, out, workers=args.workers))
    return 0
