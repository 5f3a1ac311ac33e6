"""``sushicam eval``, ``bench-read``, ``train`` and ``generate``.

Heavy libraries (onnxruntime, torch, ultralytics) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.paths import DATASETS_BUILD_DIR, MODELS_DIR, RUNS_DIR
from vision.training import require_training_stack


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval", help="card F1, exact tableaux, stacks and ms/photo on generated test photos",
        description="Generate (once) the test sets, run the recogniser on them and report card F1 "
                    "(IoU >= 0.5 and right label), exact-tableau rate, stack accuracy and ms/photo.")
    evaluate.add_argument("--model", type=Path, default=MODELS_DIR, metavar="DIR")
    evaluate.add_argument("--sets", nargs="+", default=["test-print", "test-digital"],
                          help="sets to evaluate (default: test-print test-digital): our renderer's test recipes, "
                               "or the independent renderer's field-tableau, field-table, field-crowd, field-rect, "
                               "field-closeup, field-sizes, field-duel (all seven: field)")
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
        "train", help="reproduce models/ stage by stage (generates data if missing, resumes from checkpoints)",
        description="Run the training plan's stages in order (models/README.md lists them): each stage "
                    "generates its data where it is missing, resumes from runs/<stage>/weights/last.pt and "
                    "is skipped once finished; the last stage of each model is written to --models.")
    train.add_argument("--plan", type=Path, default=None, metavar="FILE",
                       help="a JSON list of stages, as meta.json's plan (default: the committed models' plan)")
    train.add_argument("--stage", default=None, metavar="NAME", help="run this stage alone")
    train.add_argument("--from", dest="first", default=None, metavar="NAME",
                       help="start at this stage (its start must have run)")
    train.add_argument("--until", dest="last", default=None, metavar="NAME", help="stop after this stage")
    train.add_argument("--device", default="cpu", help="cpu (default) or a CUDA device: 0")
    train.add_argument("--workers", type=int, default=2,
                       help="processes that generate and load the data (default 2)")
    train.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR")
    train.add_argument("--data", type=Path, default=DATASETS_BUILD_DIR, metavar="DIR",
                       help="where the recipes are generated (default datasets/build)")
    train.add_argument("--runs", type=Path, default=RUNS_DIR, metavar="DIR",
                       help="the stages' runs and checkpoints (default runs)")
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
    from vision.training.plan import COMMITTED_PLAN, plan_from_json, select

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    plan = COMMITTED_PLAN
    if args.plan is not None:
        try:
            plan = tuple(plan_from_json(json.loads(args.plan.read_text())))
        except json.JSONDecodeError as exc:
            raise ValueError(f"--plan {args.plan}: not JSON ({exc})") from None
    select(plan, args.stage, args.first, args.last)  # a wrong name is told before anything loads
    require_training_stack()
    if args.device != "cpu":
        import torch

        if not args.device.isdigit() or int(args.device) >= torch.cuda.device_count():
            raise ValueError(f"--device {args.device}: no such CUDA device here "
                             f"({torch.cuda.device_count()} found); use --device cpu")
    from vision.training.train import train_plan

    print(json.dumps(train_plan(plan, stage=args.stage, first=args.first, last=args.last, build=args.data,
                                runs=args.runs, models=args.models, device=args.device, workers=args.workers)))
    return 0


def _generate(args: argparse.Namespace) -> int:
    from vision.synth.dataset import RECIPES, generate

    if args.recipe not in RECIPES:
        raise ValueError(f"unknown recipe {args.recipe!r}: use one of {', '.join(RECIPES)}")
    recipe = RECIPES[args.recipe]
    out = args.out or DATASETS_BUILD_DIR / (recipe.adds_to or recipe.name)
    print(generate(recipe, out, workers=args.workers))
    return 0
