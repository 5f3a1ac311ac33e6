"""The readers of a family's small mark: the fruit reader's stage.

A family's kinds differ by a small printed mark (the two fruit of a fruit card), which the
classifier of every face at 96 px reads by where it sits on the faces it learnt. A mark
reader is a small classifier of that family's faces alone at 128 px, trained on crops whose
marks are laid out many ways (``train-fruit-crops``: ``vision.synth.fruit``), started from
the classifier's weights cut to the family's outputs, each keeping what it knew of its
face. :class:`vision.recognizer.Recognizer` gives it the say on the kind within the family.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Protocol

from vision.synth.dataset import RECIPES, generate
from vision.synth.fruit import FRUIT_FACES

#: the fruit reader's recipe, written at 128 px
FRUIT_RECIPE = "train-fruit-crops"
#: ultralytics' settings of the fruit reader's training that differ from the classifier's: a
#: card mirrored shows the same two fruit (a mixed pair in the other order), so crops are
#: mirrored half the time
FRUIT_AUGMENT = {"fliplr": 0.5}


class FruitPlan(Protocol):
    """The settings of the fruit reader's stage (``vision.training.train.TrainPlan``)."""

    @property
    def fruit_epochs(self) -> int: ...
    @property
    def fruit_batch(self) -> int: ...
    @property
    def fruit_hours(self) -> float: ...


def family_stage_data(crops: Path, faces: tuple[str, ...], folder: str) -> Path:
    """The crops of ``faces`` alone under ``crops/folder/{train,val}/<face>`` (hard links to
    the recipe's ``cls/<split>/<face>/*``, as ultralytics does not follow a linked folder),
    the other faces its tables hold left out; returns that folder."""
    data = crops / folder
    for split in ("train", "val"):
        for face in faces:
            target = data / split / face
            target.mkdir(parents=True, exist_ok=True)
            for crop in (crops / "cls" / split / face).glob("*.jpg"):
                if not (target / crop.name).exists():
                    try:
                        os.link(crop, target / crop.name)
                    except OSError:  # another file system
                        shutil.copyfile(crop, target / crop.name)
    return data


def train_fruit(plan: FruitPlan, start: Path, crops: Path, run: Path, models: Path, place: dict[str, Any],
                cls_args: dict[str, Any], workers: int = 2) -> dict[str, Any]:
    """Train the fruit reader from the classifier ``start`` (its outputs cut to the six fruit
    faces) on ``train-fruit-crops`` (generated under ``crops`` when missing), resuming from
    ``run``'s last checkpoint; writes ``models/fruit.pt`` and ``fruit.onnx`` and returns
    ``meta.json``'s ``fruit`` entry."""
    from vision.training import yolo
    from vision.training.classifier import widen_classifier

    recipe = RECIPES[FRUIT_RECIPE]
    generate(recipe, crops, workers=workers)
    data = family_stage_data(crops, FRUIT_FACES, "fruit")
    cut = run.with_name(f"{run.name}-start.pt")
    if not cut.exists():
        cut.parent.mkdir(parents=True, exist_ok=True)
        widen_classifier(start, cut, FRUIT_FACES)
    yolo.train("classify", data, run, plan.fruit_epochs, recipe.crop_size, plan.fruit_batch, start_from=cut,
               optimizer="AdamW", lr0=0.0003, warmup_epochs=0, time=plan.fruit_hours or None,
               **{**cls_args, **FRUIT_AUGMENT}, **place)
    # the schedule's last weights: its validation crops are our renderer's
    last = run / "weights" / "last.pt"
    shutil.copyfile(last, models / "fruit.pt")
    yolo.export_onnx(last, recipe.crop_size, models / "fruit.onnx", dynamic=True)
    return {"file": "fruit.onnx", "imgsz": recipe.crop_size, "crop": recipe.crop_size, "classes": list(FRUIT_FACES)}
