"""``sushicam eval``, ``bench-read``, ``train`` and ``generate``.

Heavy libraries (onnxruntime, torch, ultralytics) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.paths import DATASETS_BUILD_DIR, MODELS_DIR
from vision.training import require_training_stack

#: the recipes of the classifier's print-style stage, each in its own folder (named here, not
#: read from ``vision.synth.dataset.RECIPES``, so that every command starts without OpenCV;
#: tests/vision/test_training.py keeps the two the same)
PRINT_STAGE_RECIPES = ("train-camera-crops", "train-light-crops", "train-sheen-crops", "train-wide-crops")
#: the recipes of the detector's camera stage, named here for the same reason
CAMERA_STAGE_RECIPES = ("train-camera-tables", "train-pile-tables", "train-turned-piles", "train-mixed-tables",
                        "train-tilted-tables", "train-patterned-tables")


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval", help="card F1, exact tableaux, stacks and ms/photo on generated test photos",
        description="Generate (once) the test sets, run the recogniser on them and report card F1 "
                    "(IoU >= 0.5 and right label), exact-tableau rate, stack accuracy and ms/photo.")
    evaluate.add_argument("--model", type=Path, default=MODELS_DIR, metavar="DIR")
    evaluate.add_argument("--sets", nargs="+", default=["test-print", "test-digital"],
                          help="sets to evaluate (default: test-print test-digital): our renderer's test recipes, "
                               "or the independent renderer's field-tableau, field-table, field-crowd, field-rect, "
                               "field-closeup, field-sizes (all six: field)")
    evaluate.add_argument("--unsure-report", action="store_true",
                          help="also say how many wrong and right cards the \"unsure\" mark flags, with the rule "
                               "of vision.unsure and with the old one (confidence below 0.5)")
    evaluate.add_argument("--limit", type=int, default=None, help="photos per set (default: all)")
    evaluate.add_argument("--data", type=Path, default=DATASETS_BUILD_DIR, metavar="DIR")
    evaluate.add_argument("--json", type=Path, default=None, metavar="FILE",
                          help="write the report there (default: <data>/eval-report.json)")
    evaluate.set_defaults(handler=_eval)

    bench = subparsers.add_parser(
        "bench-read", help="milliseconds to read one photo at 1280x960 and 4032x3024",
        description="Time the recogniser and the tableau reading (decoding excluded) on photos of the "
                    "independent renderer: one tableau at 1280x960 and a 2-5-seat table at 4032x3024 "
                    "(the two budgets), and a 6-8-seat table at 2016x1512, with --threads onnxruntime "
                    "threads.")
    bench.add_argument("--model", type=Path, default=MODELS_DIR, metavar="DIR")
    bench.add_argument("--photos", type=int, default=6, help="photos per size (default 6)")
    bench.add_argument("--threads", type=int, default=2, help="onnxruntime threads (default 2, the target)")
    bench.set_defaults(handler=_bench)

    train = subparsers.add_parser(
        "train", help="reproduce models/ (generates data if missing, resumes from checkpoints)")
    train.add_argument("--photos", type=int, default=1200, help="training photos (default 1200)")
    train.add_argument("--det-epochs", type=int, default=15)
    train.add_argument("--cls-epochs", type=int, default=12)
    train.add_argument("--only", choices=["detector", "classifier", "classifier-print", "detector-camera", "counter",
                                          "fruit"],
                       default=None,
                       help="one model, or only the classifier's print-style stage, the detector's camera "
                            "stage (from the committed model when its earlier runs are not here) or the count "
                            "classifier or the fruit reader (from the committed classifier)")
    train.add_argument("--counter-epochs", type=int, default=None,
                       help="epochs of the count classifier, maki and uramaki counts at 128 px (default 8; 0: off)")
    train.add_argument("--counter-hours", type=float, default=None,
                       help="bound the count classifier's training time in hours (default: none)")
    train.add_argument("--fruit-epochs", type=int, default=None,
                       help="epochs of the fruit reader, the six fruit faces at 128 px (default 9; 0: off)")
    train.add_argument("--fruit-hours", type=float, default=None,
                       help="bound the fruit reader's training time in hours (default: none; ultralytics then "
                            "fits the epochs to it)")
    train.add_argument("--hires-epochs", type=int, default=None,
                       help="epochs of the detector's 960-px stage (default 29; 0 skips it: a GPU's work)")
    train.add_argument("--tables-cls-epochs", type=int, default=None,
                       help="epochs of the classifier's whole-table crops stage (default 14; 0 skips it)")
    train.add_argument("--print-cls-epochs", type=int, default=None,
                       help="epochs of the classifier's print-style stage (default 39; 0 skips it)")
    train.add_argument("--print-cls-recipe", choices=PRINT_STAGE_RECIPES, default=None,
                       help="that stage's crops (default train-camera-crops: half of them seen by a phone: "
                            "small, off white balance, glare, shake, turned; train-light-crops: besides, prints off their "
                            "colours, hard glare on the icon, strong defocus; train-sheen-crops: besides, half under a glossy "
                            "card's sheen; train-wide-crops: all of those, cut from loose columns, turned cameras and "
                            "far seats too, 3000 photos, for a GPU)")
    train.add_argument("--print-cls-batch", type=int, default=None,
                       help="that stage's batch (default 64, as on 2 CPU cores; 256 on a GPU)")
    train.add_argument("--print-cls-hours", type=float, default=None,
                       help="bound that stage's training time in hours (default: none; ultralytics then fits "
                            "the epochs to it: the committed run was bounded to 1)")
    train.add_argument("--print-cls-share", type=float, default=None,
                       help="share of that stage's own weights in the average with those it started "
                            "from (default 0.5; 1: its own alone)")
    train.add_argument("--camera-det-epochs", type=int, default=None,
                       help="epochs of the detector's camera stage (default 4, as the committed detector; 0: off)")
    train.add_argument("--camera-det-recipes", nargs="+", default=None,
                       choices=CAMERA_STAGE_RECIPES,
                       help="that stage's photos, trained on together (default both: train-camera-tables, "
                            "photos across real tables; train-pile-tables, columns laid loosely; "
                            "train-turned-piles: loose columns, the camera held at any angle; train-mixed-tables: "
                            "all of those drawn together, 2000 photos, for a GPU; train-tilted-tables: as mixed, most "
                            "photos through a camera tilted 15-45 degrees, 2400 photos, for a GPU; "
                            "train-patterned-tables: tilted tables, two in three on a checked, striped or gingham "
                            "cloth, 1200 photos)")
    train.add_argument("--camera-det-batch", type=int, default=None,
                       help="that stage's batch (default 8, as on 2 CPU cores; 32 on a GPU)")
    train.add_argument("--camera-det-hours", type=float, default=None,
                       help="bound that stage's training time in hours (default: none)")
    train.add_argument("--camera-det-share", type=float, default=None,
                       help="share of that stage's own weights in the average with those it started "
                            "from (default 0.5; 1: its own alone)")
    train.add_argument("--device", default="cpu", help="cpu (default) or a CUDA device: 0")
    train.add_argument("--workers", type=int, default=2,
                       help="processes that generate and load the data (default 2)")
    train.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR")
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


def _eval(args: argparse.Namespace) -> int:
    from vision.training.evaluate import evaluate_sets, format_table, format_unsure

    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be at least 1, not {args.limit}")
    report = evaluate_sets(args.model, args.sets, data_root=args.data, limit=args.limit,
                           unsure=args.unsure_report)
    print(format_table(report))
    if args.unsure_report:
        print(format_unsure(report["unsure"]))
        best = report["unsure_calibrated"]
        if best:
            print(f"  best thresholds on these photos (at most 10 % of right cards marked): confidence < "
                  f"{best['min_confidence']} or margin < {best['min_margin']}: {best['wrong_marked']}/{best['wrong']} "
                  f"wrong, {best['right_marked']}/{best['right']} right")
    target = args.json or args.data / "eval-report.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report, indent=1) + "\n")
    print(f"report written to {target}", file=sys.stderr)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from vision.training.evaluate import bench_read

    if args.photos < 1 or args.threads < 1:
        raise ValueError("--photos and --threads must be at least 1")
    for row in bench_read(args.model, photos=args.photos, threads=args.threads):
        print(f"{row['size']:>10} {row['kind']:>8}  {row['ms_mean']:7.1f} ms/photo mean  {row['ms_p95']:7.1f} p95  "
              f"({row['photos']} photos, {row['threads']} threads)")
    return 0


def _train(args: argparse.Namespace) -> int:
    require_training_stack()
    from vision.training.train import TrainPlan, train_models

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    for flag, value in (("--print-cls-batch", args.print_cls_batch), ("--camera-det-batch", args.camera_det_batch)):
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be at least 1, not {value}")
    for flag, amount in (("--counter-epochs", args.counter_epochs), ("--counter-hours", args.counter_hours),
                         ("--fruit-epochs", args.fruit_epochs), ("--fruit-hours", args.fruit_hours)):
        if amount is not None and amount < 0:
            raise ValueError(f"{flag} must be 0 or more, not {amount}")
    if args.device != "cpu":
        import torch

        if not args.device.isdigit() or int(args.device) >= torch.cuda.device_count():
            raise ValueError(f"--device {args.device}: no such CUDA device here "
                             f"({torch.cuda.device_count()} found); use --device cpu")
    stages = {"det_hires_epochs": args.hires_epochs, "cls_tables_epochs": args.tables_cls_epochs,
              "cls_print_epochs": args.print_cls_epochs, "cls_print_recipe": args.print_cls_recipe,
              "cls_print_hours": args.print_cls_hours, "cls_print_share": args.print_cls_share,
              "cls_print_batch": args.print_cls_batch,
              "det_camera_epochs": args.camera_det_epochs, "det_camera_hours": args.camera_det_hours,
              "det_camera_share": args.camera_det_share, "det_camera_batch": args.camera_det_batch,
              "det_camera_recipes": tuple(args.camera_det_recipes) if args.camera_det_recipes else None,
              "counter_epochs": args.counter_epochs, "counter_hours": args.counter_hours,
              "fruit_epochs": args.fruit_epochs, "fruit_hours": args.fruit_hours}
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
    out = args.out or DATASETS_BUILD_DIR / (recipe.adds_to or recipe.name)
    print(generate(recipe, out, workers=args.workers))
    return 0
