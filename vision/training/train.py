"""``sushicam train``: run a training plan (:data:`vision.training.plan.COMMITTED_PLAN` unless
told another) stage by stage, and write the models it ends with.

Each stage, in the plan's order:

1. is skipped when ``runs/<stage>/stage.json`` says it finished (the stage it records must be
   the plan's: a run made by other settings is refused, not taken for this one);
2. generates its recipes' photos or crops where they are missing (``datasets/build``: a
   recipe that joins another's folder, such as ``train-tables``, is written there, any other
   in a folder of its name without ``train-``);
3. trains from its start, resuming from ``runs/<stage>/weights/last.pt`` when a run was cut
   short;
4. keeps its best or last epoch, whole or averaged with the weights it started from, as
   ``runs/<stage>/kept.pt``, and then writes ``stage.json``.

At the end the last stage of each model the run took is exported into the models folder:
``<model>.pt``, ``<model>.onnx`` and its entry in ``meta.json``, whose ``plan`` lists the stages
behind every model there. A run may be stopped anywhere and started again: it goes on where it
stopped.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.faces import PRINTED_SLUGS
from vision.paths import DATASETS_BUILD_DIR, MODELS_DIR, RUNS_DIR
from vision.synth.dataset import RECIPES, Recipe, generate
from vision.training.embedding import EMBEDDING
from vision.training.plan import (
    COMMITTED_PLAN,
    Stage,
    chain,
    check_plan,
    plan_to_json,
    recorded_plan,
    select,
)

#: what every stage of a task trains with besides its own schedule: for the classifiers no
#: flips (a card's print is not symmetric), a light crop scale and colour jitter
TASK_SETTINGS: dict[str, dict[str, object]] = {
    "classify": {"fliplr": 0.0, "scale": 0.15, "erasing": 0.0, "auto_augment": None, "hsv_h": 0.01,
                 "hsv_s": 0.3, "hsv_v": 0.3, "patience": 100},
    "detect": {"patience": 100, "cache": "ram"},
}


def recipe_folder(recipe: Recipe, build: Path) -> Path:
    """Where ``recipe`` is generated: the folder of the recipe it joins, or its own.

    >>> recipe_folder(RECIPES["train-tables"], Path("b")).as_posix(), recipe_folder(RECIPES["train-wide-crops"], Path("b")).as_posix()
    ('b/train', 'b/wide-crops')
    """
    return build / (recipe.adds_to or recipe.name).removeprefix("train-")


def stage_recipes(stage: Stage) -> list[Recipe]:
    """The recipes ``stage`` trains on, each cut to its share of photos; ``ValueError`` for a
    recipe that is not one or gives the model nothing to learn (no photos for a detector, no
    crops for a classifier)."""
    recipes = []
    for item in stage.data:
        if item.recipe not in RECIPES:
            raise ValueError(f"stage {stage.name!r}: no recipe {item.recipe!r}")
        recipe = RECIPES[item.recipe]
        if not (recipe.det if stage.kind.task == "detect" else recipe.crops):
            raise ValueError(f"stage {stage.name!r}: recipe {recipe.name} writes no "
                             f"{'photos' if stage.kind.task == 'detect' else 'crops'} for a {stage.model}")
        if item.share < 1:
            recipe = replace(recipe, train=math.ceil(recipe.train * item.share),
                             val=math.ceil(recipe.val * item.share))
        recipes.append(recipe)
    return recipes


def detection_data(folders: Sequence[Path], target: Path) -> Path:
    """A YOLO data file at ``target`` that trains and validates on the photos of every folder
    (their ``det/images/train`` and ``val``; a folder without a validation split is validated
    on by the others, and where none has one, by the training photos)."""
    images = [folder / "det" / "images" for folder in folders]
    train = [str(f / "train") for f in images if (f / "train").is_dir()]
    val = [str(f / "val") for f in images if (f / "val").is_dir() and any((f / "val").iterdir())] or train
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"train: [{', '.join(train)}]\nval: [{', '.join(val)}]\nnames:\n  0: card\n")
    return target


def classify_data(folders: Sequence[Path], target: Path, classes: Sequence[str] = ()) -> Path:
    """The crop folder a classifier stage trains on: ``folders[0]/cls`` where it is the one
    folder and holds just ``classes`` (every class when none are given); otherwise ``target``,
    made of hard links to the crops of those classes in every folder (ultralytics does not
    follow a linked folder), as ultralytics numbers classes by their folders' sorted names."""
    found = sorted({p.name for folder in folders for p in (folder / "cls" / "train").iterdir() if p.is_dir()})
    if len(folders) == 1 and (not classes or list(classes) == found):
        return folders[0] / "cls"
    for split in ("train", "val"):
        for name in classes or found:
            into = target / split / name
            into.mkdir(parents=True, exist_ok=True)
            for folder in folders:
                for crop in (folder / "cls" / split / name).glob("*.jpg"):
                    link = into / f"{folder.name}-{crop.name}"
                    if not link.exists():
                        try:
                            os.link(crop, link)
                        except OSError:  # another file system
                            shutil.copyfile(crop, link)
    return target


def _train_settings(stage: Stage) -> dict[str, object]:
    settings = dict(TASK_SETTINGS[stage.kind.task])
    if stage.optimizer != "auto":
        settings["optimizer"] = stage.optimizer
    for key in ("lr0", "warmup_epochs", "close_mosaic"):
        if getattr(stage, key) is not None:
            settings[key] = getattr(stage, key)
    if stage.hours:
        settings["time"] = stage.hours
    if stage.mirror:
        settings["fliplr"] = stage.mirror
    return settings


def finished_stage(stage: Stage, runs: Path) -> Path | None:
    """The weights ``stage`` kept, when ``runs/<stage>/stage.json`` says it finished; a record of
    another stage of that name is refused (``ValueError``)."""
    marker = runs / stage.name / "stage.json"
    if not marker.exists():
        return None
    record = json.loads(marker.read_text())
    if record.get("stage") != stage.to_json():
        raise ValueError(f"{marker.parent} was trained by other settings than the plan's stage {stage.name!r}: "
                         "move it away to train the stage again")
    return runs / stage.name / "kept.pt"


def run_stage(stage: Stage, plan: Sequence[Stage], build: Path, runs: Path, device: str, workers: int) -> Path:
    """Generate ``stage``'s data, train it (resuming) and keep its weights; returns them."""
    from vision.training import yolo  # heavy: torch + ultralytics
    from vision.training.classifier import widen_classifier

    run = runs / stage.name
    start: Path | None = None
    if stage.start.stage:
        source = next(s for s in plan if s.name == stage.start.stage)
        start = finished_stage(source, runs)
        if start is None:
            raise ValueError(f"stage {stage.name!r} starts from stage {source.name!r}, which has not run: "
                             f"run it first (sushicam train --from {source.name})")
        if stage.start.outputs:
            cut = run / "start.pt"
            if not cut.exists():
                run.mkdir(parents=True, exist_ok=True)
                widen_classifier(start, cut, stage.start.outputs)
            start = cut
    recipes = stage_recipes(stage)
    for recipe in recipes:
        generate(recipe, recipe_folder(recipe, build), workers=workers)
    folders = list(dict.fromkeys(recipe_folder(recipe, build) for recipe in recipes))
    if stage.kind.task == "detect":
        data = detection_data(folders, run / "data.yaml")
    else:
        data = classify_data(folders, run / "data", stage.start.outputs)
    if stage.device == "gpu" and device == "cpu":
        print(f"stage {stage.name} was trained on a GPU for the committed models: on the CPU it takes "
              "hours to a day (sushicam train --device 0 where one is lent)", file=sys.stderr)
    # on the CPU the loader would take cores from training; beside a GPU it is what limits it
    place = {"device": device, "workers": max(1, workers - 1) if device != "cpu" else 1}
    best = yolo.train(stage.kind.task, data, run, stage.epochs, stage.imgsz, stage.batch,
                      **({"start_from": start} if start else {}), **_train_settings(stage), **place)
    chosen = best if stage.epoch == "best" else run / "weights" / "last.pt"
    if stage.share < 1 and start is not None:
        chosen = yolo.average_weights(start, chosen, stage.share, run / "averaged.pt")
    kept = run / "kept.pt"
    shutil.copyfile(chosen, kept)
    return kept


def model_entry(stage: Stage, weights: Path) -> dict[str, Any]:
    """``meta.json``'s entry of the model ``stage`` kept as ``weights``: its file, the size it
    is fed at, and for a classifier the side its crops are cut at and its classes (the card
    classifier's classes are ``meta.json``'s own ``classes``)."""
    from vision.training import yolo

    entry: dict[str, Any] = {"file": f"{stage.model}.onnx", "imgsz": stage.feed_size}
    if stage.kind.task == "detect":
        return {**entry, "classes": ["card"], "live_imgsz": stage.feed_size}
    crops = {recipe.crop_size for recipe in stage_recipes(stage)}
    if len(crops) != 1:
        raise ValueError(f"stage {stage.name!r}: its recipes' crops are of several sides ({sorted(crops)})")
    entry["crop"] = crops.pop()
    if stage.model == "classifier":
        return {**entry, "embedding": EMBEDDING}  # export_classifier adds that output
    return {**entry, "classes": yolo.class_names(weights)}


def export_model(stage: Stage, weights: Path, models: Path) -> dict[str, Any]:
    """``models/<model>.pt`` and ``.onnx`` from ``weights``; returns its ``meta.json`` entry."""
    from vision.training import yolo
    from vision.training.classifier import export_classifier

    models.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(weights, models / f"{stage.model}.pt")
    target = models / f"{stage.model}.onnx"
    if stage.model == "classifier":  # with its embedding output, which the exemplars read
        export_classifier(weights, stage.feed_size, target, dynamic=True)
    else:  # free height and width: a detector is fed 4:3 photos without padding them square
        yolo.export_onnx(weights, stage.feed_size, target, dynamic=True)
    return model_entry(stage, weights)


def models_plan(plan: Sequence[Stage], written: Mapping[str, Stage], before: Sequence[Stage]) -> list[Stage]:
    """The stages behind a models folder's models: the chains of the stages ``written`` now
    (by model), and for the models kept as they were, the chains ``before`` (the folder's
    earlier record) gives them; in the plan's order, earlier stages it does not know last."""
    behind: dict[str, Stage] = {}
    for model in {s.model for s in before} - set(written):
        last = [s for s in before if s.model == model][-1]
        behind.update({s.name: s for s in chain(before, last.name)})
    for stage in written.values():
        behind.update({s.name: s for s in chain(plan, stage.name)})
    order = {stage.name: index for index, stage in enumerate(plan)}
    return sorted(behind.values(), key=lambda s: order.get(s.name, len(order)))


def write_models(plan: Sequence[Stage], taken: Sequence[Stage], runs: Path, models: Path) -> None:
    """Export the last stage of each model in ``taken`` into ``models`` and write its
    ``meta.json``; the other models there and their entries are kept."""
    last = {stage.model: stage for stage in taken}
    meta_path = models / "meta.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    try:
        before = recorded_plan(meta)
    except ValueError:
        before = []
    from vision.training import yolo

    for model, stage in last.items():
        kept = finished_stage(stage, runs)
        if kept is None:
            raise ValueError(f"stage {stage.name!r} has not finished: its model cannot be written")
        meta[model] = export_model(stage, kept, models)
        if model == "classifier":
            meta["classes"] = yolo.class_names(kept)
    meta["held_out_prints"] = list(PRINTED_SLUGS)
    meta["plan"] = plan_to_json(models_plan(plan, last, before))
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def train_plan(plan: Sequence[Stage] = COMMITTED_PLAN, *, stage: str | None = None, first: str | None = None,
               last: str | None = None, build: Path = DATASETS_BUILD_DIR, runs: Path = RUNS_DIR,
               models: Path = MODELS_DIR, device: str = "cpu", workers: int = 2) -> dict[str, int]:
    """Run (or resume) the stages of ``plan`` that :func:`vision.training.plan.select` picks and
    write the models they end with; returns the wall seconds of each stage trained now."""
    check_plan(plan)
    taken = select(plan, stage, first, last)
    by_name = {each.name: each for each in plan}
    for index, each in enumerate(taken):  # every stage is checked before any work
        stage_recipes(each)
        finished_stage(each, runs)
        source = each.start.stage
        if source and source not in {s.name for s in taken[:index]} and finished_stage(by_name[source], runs) is None:
            raise ValueError(f"stage {each.name!r} starts from stage {source!r}, which has not run: "
                             f"run it first (sushicam train --from {source})")
    times: dict[str, int] = {}
    started = time.process_time()
    for each in taken:
        if finished_stage(each, runs) is not None:
            continue
        wall = time.time()
        run_stage(each, plan, build, runs, device, workers)
        times[each.name] = round(time.time() - wall)
        (runs / each.name / "stage.json").write_text(json.dumps(
            {"stage": each.to_json(), "wall_s": times[each.name], "device": device}, indent=1) + "\n")
    write_models(plan, taken, runs, models)
    times["process_cpu_s"] = round(time.process_time() - started)
    return times
