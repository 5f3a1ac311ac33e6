"""Issue 14 item 3, measured: four green tea ice creams forced to "pudding" in confirmed rounds.

Not a test (slow: three real fine-tunings). Run from the repository root::

    PYTHONPATH=. python tests/teach/measure_forced_corrections.py [--photos 40] [--epochs 3]

It keeps 12 confirmed original-edition photos (composed tables standing in for the player's
photos; two of them carry the four forced labels) and reads 30 other photos of the same kind
(true labels) with the bundled model and with the model each retraining made:

- ``as before``: the forced labels are learnt (vouched for, which is what the old code did
  with every correction) and only the composed-table gates judge;
- ``now``: the same data, the new code: the forced labels are doubted and left out, and the
  gate also compares on the held-out confirmed photos;
- ``vouched``: the player insists (vouches for all four): learnt, judged by every gate.

``--gate`` instead shows the gate itself: a "training" that swaps the green tea ice cream and
pudding outputs (what learning the forced labels does at its worst), judged with the test
suite's tiny plan, as retraining judges it now (the old gates are the composed-table lines)::

    PYTHONPATH=. python tests/teach/measure_forced_corrections.py --gate
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import cv2

from scorer.cards import CARDS
from vision.synth import compose_table
from vision.teach.corrections import find_doubts, read_confirmed, vouch
from vision.teach.models import REPO_MODELS, ModelStore
from vision.teach.retrain import RetrainPlan, read_tables, retrain, score_tables
from vision.teach.wording import retrain_words
from web.training import save_example

TABLE = ["green-tea-ice-cream", "pudding", "tempura", "green-tea-ice-cream", "maki-2", "salmon-nigiri"]


def table(seed: int):
    rng = __import__("numpy").random.default_rng(seed)
    cards = list(rng.permutation(TABLE))
    return compose_table(seed, [cards], size=(960, 720), layout="loose", clutter=False)


def confirmed(data: Path, tmp: Path, photos: int = 12, forced_in: int = 2) -> None:
    tmp.mkdir(parents=True, exist_ok=True)
    for i in range(photos):
        image, truth = table(100 + i)
        path = tmp / f"round{i}.jpg"
        cv2.imwrite(str(path), image)
        boxes = [("pudding" if c["label"] == "green-tea-ice-cream" and i < forced_in else c["label"], c["box"])
                 for c in truth["cards"] if not c["hidden"]]
        save_example(data, path, boxes, 960, 720, list(CARDS))


def test_set(folder: Path, count: int = 30) -> list[dict]:
    folder.mkdir(parents=True, exist_ok=True)
    truths = []
    for i in range(count):
        image, truth = table(5000 + i)
        truth["image"] = f"t{i}.jpg"
        cv2.imwrite(str(folder / truth["image"]), image)
        truths.append(truth)
    return truths


def measure(model_dir: Path, folder: Path, truths: list[dict]) -> dict:
    read = read_tables(model_dir, folder, truths)
    exact = sum(sorted(labels) == sorted(c["label"] for c in visible) for labels, visible, _ in read)
    green = sum(labels[i] == "green-tea-ice-cream" and visible[j]["label"] == "green-tea-ice-cream"
                for labels, visible, pairs in read for i, j in pairs)
    as_pudding = sum(labels[i] == "pudding" and visible[j]["label"] == "green-tea-ice-cream"
                     for labels, visible, pairs in read for i, j in pairs)
    return {"exact_tables": f"{exact}/{len(read)}", "card_f1": score_tables(read).f1,
            "green_tea_read_right": green, "green_tea_read_as_pudding": as_pudding}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--gate", action="store_true")
    args = parser.parse_args()
    if args.gate:
        gate()
        return
    plan = RetrainPlan(photos=args.photos, val_photos=16, epochs=args.epochs, size=(960, 720), workers=2)
    work = Path(tempfile.mkdtemp(prefix="forced-"))
    truths = test_set(work / "test")
    report = {"bundled": measure(REPO_MODELS, work / "test", truths)}
    for run in ("as before", "now", "vouched"):
        data = work / run.replace(" ", "-") / "data"
        confirmed(data, data.parent)
        if run != "now":
            for doubt in find_doubts(read_confirmed(data / "training"), REPO_MODELS):
                vouch(data, doubt.key, doubt.label)
        result = retrain(data, replace(plan, real_tolerance=1.0) if run == "as before" else plan,
                         keep_refused=True)
        model = ModelStore(data).get(result.version).path
        report[run] = {"accepted": result.accepted, "reason": retrain_words(result.decision),
                       "doubted": len(result.metrics["doubtful"]), **measure(model, work / "test", truths)}
        print(run, json.dumps(report[run]), flush=True)
    print(json.dumps(report, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def gate() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_corrections import TINY, confirm_rounds, green_tea_read_as_pudding

    work = Path(tempfile.mkdtemp(prefix="gate-"))
    bundled = work / "bundled"
    shutil.copytree(REPO_MODELS, bundled, ignore=shutil.ignore_patterns("*.md"))
    confirm_rounds(work / "data", work)
    result = retrain(work / "data", TINY, bundled=bundled, trainer=green_tea_read_as_pudding)
    m = result.metrics
    print(f"accepted: {result.accepted}; {retrain_words(result.decision)}")
    print(f"composed tables card F1 {m['all_before']['f1']} -> {m['all_after']['f1']}; known cards named right "
          f"{m['known_before']['named']} -> {m['known_after']['named']}; confirmed photos card F1 "
          f"{m['real_before']['f1']} -> {m['real_after']['f1']} ({m['real_photos']} photos)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
