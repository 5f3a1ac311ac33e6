"""``sushicam train``: reproduce the committed models by one command.

Steps, each skipped when its output exists (so a run cut short resumes where it stopped):
generate the training photos (``datasets/build/train``); train the classifier on the
region crops (64 px); train the detector on the photos; generate more crops
(``train-crops``) and fine-tune the classifier on all of them at 96 px. Every training
resumes from its ``runs/<name>/weights/last.pt``; both models are exported to ONNX and
copied with a ``models/meta.json`` into ``models/``.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from vision.faces import PRINTED_SLUGS, SLUGS
from vision.synth.dataset import CROP_SIZE, RECIPES, generate

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class TrainPlan:
    """Sizes and lengths of one reproducible training."""

    photos: int = 1200
    det_epochs: int = 15
    det_imgsz: int = 416
    det_batch: int = 16
    cls_epochs: int = 12
    cls_imgsz: int = 64
    cls_batch: int = 64
    #: second classifier stage: fine-tuned from the first on twice the crops, at 96 px
    #: (the first one's worst confusions were icon counts: uramaki 3/4/5, maki 1/2/3)
    cls_ft_epochs: int = 4
    cls_ft_imgsz: int = 96


def train_models(plan: TrainPlan = TrainPlan(), data_root: Path = ROOT / "datasets/build/train",
                 runs: Path = ROOT / "runs", models: Path = ROOT / "models",
                 only: str | None = None) -> dict:
    from vision import yolo  # heavy: torch + ultralytics

    recipe = RECIPES["train"]
    if plan.photos != recipe.train:
        recipe = type(recipe)(**{**asdict(recipe), "train": plan.photos})
    started = time.process_time()
    generate(recipe, data_root)
    times = {}
    models.mkdir(parents=True, exist_ok=True)
    cls_args = dict(fliplr=0.0, scale=0.15, erasing=0.0, auto_augment=None, hsv_h=0.01, hsv_s=0.3,
                    hsv_v=0.3, patience=100)
    classifier_imgsz = plan.cls_imgsz
    if only in (None, "classifier"):
        t = time.time()
        best = yolo.train("classify", data_root / "cls", runs / "classifier", plan.cls_epochs,
                          plan.cls_imgsz, plan.cls_batch, **cls_args)
        shutil.copyfile(best, models / "classifier.pt")
        yolo.export_onnx(best, plan.cls_imgsz, models / "classifier.onnx", dynamic=True)
        times["classifier_wall_s"] = round(time.time() - t)
    if only in (None, "detector"):
        t = time.time()
        best = yolo.train("detect", data_root / "det" / "data.yaml", runs / "detector", plan.det_epochs,
                          plan.det_imgsz, plan.det_batch, close_mosaic=3, patience=100, cache="ram")
        shutil.copyfile(best, models / "detector.pt")
        yolo.export_onnx(best, plan.det_imgsz, models / "detector.onnx")
        times["detector_wall_s"] = round(time.time() - t)
    if only in (None, "classifier") and plan.cls_ft_epochs:
        generate(RECIPES["train-crops"], data_root)
        t = time.time()
        best = yolo.train("classify", data_root / "cls", runs / "classifier-ft", plan.cls_ft_epochs,
                          plan.cls_ft_imgsz, plan.cls_batch, start_from=runs / "classifier/weights/best.pt",
                          optimizer="AdamW", lr0=0.0005, warmup_epochs=0, **cls_args)
        shutil.copyfile(best, models / "classifier.pt")
        yolo.export_onnx(best, plan.cls_ft_imgsz, models / "classifier.onnx", dynamic=True)
        classifier_imgsz = plan.cls_ft_imgsz
        times["classifier_ft_wall_s"] = round(time.time() - t)
    meta = {
        "classes": list(SLUGS),
        "detector": {"file": "detector.onnx", "imgsz": plan.det_imgsz, "classes": ["card"]},
        "classifier": {"file": "classifier.onnx", "imgsz": classifier_imgsz, "crop": CROP_SIZE},
        "held_out_prints": list(PRINTED_SLUGS),
        "plan": asdict(plan),
    }
    (models / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    times["process_cpu_s"] = round(time.process_time() - started)
    return times
