"""``sushicam train``: reproduce the committed models by one command.

Steps, each skipped when its output exists (so a run cut short resumes where it stopped):
generate the training photos (``datasets/build/train``); train the classifier on the
region crops (64 px); train the detector on the photos, fine-tune it at 640 px, then once
more with whole-table photos added (``train-tables``), and at 960 px with more of them
(``train-tables-hires``); generate more crops (``train-crops``) and fine-tune the classifier
on all of them at 96 px; generate crops of clutter and bare table (``train-negatives``) and
fine-tune it once more with a ``not-a-card`` class, then with the crops of the whole-table
photos (``train-tables-crops``, ``train-tables-hires-crops``). Every training resumes from its
``runs/<name>/weights/last.pt``; both models are exported to ONNX and copied with a
``models/meta.json`` into ``models/``.

Two stages, the detector's at 960 px and the classifier's on whole-table crops, are a GPU's
work (``--device 0 --workers 16``: about 11 minutes on one H200, generating their data there
included); on this project's 2 CPU cores they would take about a day.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from vision.faces import PRINTED_SLUGS, SLUGS
from vision.paths import DATASETS_BUILD_DIR, MODELS_DIR, RUNS_DIR
from vision.recognizer import CROP_SIZE, NOT_A_CARD
from vision.synth.dataset import COUNT_FACES, RECIPES, Recipe, generate
from vision.training.classifier import export_classifier
from vision.training.embedding import EMBEDDING


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
    #: second detector stage: fine-tuned from the first at a higher resolution (at 416 px
    #: the covered cards' strips in whole-table photos are 5-15 px tall and half of them
    #: were missed; the 416-px model run at 640 already found 4 % more of them untrained)
    det_ft_epochs: int = 10
    det_ft_imgsz: int = 640
    #: third detector stage, at the same size, with 600 whole-table photos (2-5 seats) added:
    #: after the second, the strips of covered cards on whole tables were still the most missed
    det_tables_epochs: int = 5
    #: third classifier stage: one more output, ``not-a-card``, learnt from crops of clutter
    #: and bare table (the one-seat photos' false cards were cups and hands named "menu")
    cls_neg_epochs: int = 2
    #: fourth detector stage, at 960 px with 1800 more whole-table photos (``train-tables-hires``):
    #: at 640 about one covered strip in ten on whole-table photos was still missed. A GPU's
    #: work (``--device 0``: 5 min on one H200; about 20 CPU hours here); 0 skips it
    det_hires_epochs: int = 29
    det_hires_imgsz: int = 960
    det_hires_batch: int = 32
    #: the long side photos are fed to the detector at (its graph takes any size): trained at
    #: 960, it read the unseen-print photos as well at 832 and 20 % faster
    det_feed_imgsz: int = 832
    #: and live frames at (a webcam's 10 frames a second): the size the detector's later
    #: stages train at. A detector trained at 832 boxes a card lying still several pixels
    #: apart at 640 and at 832 (where a still table is read again), and the tracker would take
    #: such a card, seen whole again after a hand passed, for a new one
    det_live_imgsz: int = 832
    #: fourth classifier stage: fine-tuned on crops of the 2400 whole-table photos too (their
    #: small strips were where it still named cards wrong); 0 skips it
    cls_tables_epochs: int = 14
    cls_tables_batch: int = 256
    #: bounds on those two stages' training time in hours (0: none): ultralytics then fits as
    #: many epochs as the time allows in place of the epochs above (how the GPU run was bounded)
    det_hires_hours: float = 0.0
    cls_tables_hours: float = 0.0
    #: fifth classifier stage: fine-tuned on crops where every card is printed its own way
    #: (colour profile, halftone, gloss, wear, sleeve), close-ups and 6-8 seats among them,
    #: and (``train-camera-crops``) half the crops seen by a phone as well (small, off white
    #: balance, glare, shake, turned: ``vision.synth.cropaug``). The committed run was bounded
    #: to one hour (``--print-cls-hours 1``) on 2 CPU cores, where ultralytics fitted 39
    #: epochs, which the plan names
    cls_print_epochs: int = 39
    cls_print_batch: int = 64
    #: that stage's weights are averaged with those it started from, this share its own (1:
    #: its own alone): fine-tuned alone, a stage reads its own kind of crops better and the
    #: printed test sets worse; the average keeps those and most of the gain
    cls_print_share: float = 0.5
    #: that stage's crops: ``train-camera-crops`` or, run once more from the weights before
    #: (the committed classifier's later stages, models/README.md), ``train-light-crops``,
    #: ``train-sheen-crops`` and ``train-wide-crops`` (on a GPU, with ``cls_print_batch``
    #: 256), each in its own folder beside ``train`` (the recipe's name without ``train-``)
    #: and its own run
    cls_print_recipe: str = "train-camera-crops"
    #: a bound on that stage's training time in hours (0: none), as ``cls_tables_hours``
    cls_print_hours: float = 0.0
    #: the detector's camera stage: fine-tuned from the 960-px stage on ``train-camera-tables`` (whole photos as phones and
    #: webcams take them across real tables, 1-8 seats, printed cards) and ``train-pile-tables``
    #: (columns laid loosely: thin, uneven strips, cards turned), fed at ``det_feed_imgsz``; its
    #: last weights averaged with those it started from, ``det_camera_share`` its own. The
    #: committed detector's run was bounded to one hour on 2 CPU cores (``--camera-det-hours
    #: 1``), where ultralytics fitted 4 epochs, which the plan names
    det_camera_epochs: int = 4
    #: that stage's photos, each recipe in its own folder beside ``train`` (the recipe's name
    #: without ``train-``), trained on together
    det_camera_recipes: tuple[str, ...] = ("train-camera-tables", "train-pile-tables")
    det_camera_batch: int = 8
    det_camera_hours: float = 0.0
    det_camera_share: float = 0.5
    #: the count classifier (``Recognizer.counter``: maki and uramaki counts alone, at 128 px):
    #: the classifier's weights (this run's last stage, or the committed classifier alone) cut
    #: to the count faces and fine-tuned on ``train-count-crops``' crops of them; 0: off. The
    #: committed counter: 8 epochs on 2 CPU cores (742 s)
    counter_epochs: int = 8
    counter_batch: int = 64
    counter_hours: float = 0.0
    #: the fruit reader (``Recognizer.fruit``: the six fruit faces alone, at 128 px): the
    #: classifier's weights cut to the fruit faces and fine-tuned on ``train-fruit-crops``
    #: (``vision.training.marks``); 0: off. The committed reader's run was bounded to 0.6 h
    #: on 2 CPU cores shared with other work (``--fruit-hours 0.6``), where ultralytics
    #: fitted 9 epochs, which the plan names
    fruit_epochs: int = 9
    fruit_batch: int = 64
    fruit_hours: float = 0.0


def stage_name(recipes: list[str] | tuple[str, ...]) -> str:
    """The name of a stage trained on ``recipes`` together, for its run and its data file:
    their folders' names (the recipe's name without ``train-``) joined by ``+``.

    >>> stage_name(("train-camera-tables", "train-pile-tables"))
    'camera-tables+pile-tables'
    """
    return "+".join(name.removeprefix("train-") for name in recipes)


def camera_stage_data(recipes: list[Recipe], build: Path, workers: int = 2) -> Path:
    """Generate the detector camera stage's recipes, each in its own folder under ``build``
    (the recipe's name without ``train-``), and return a YOLO data file that trains and
    validates on all of them."""
    folders = []
    for recipe in recipes:
        folder = build / stage_name([recipe.name])
        generate(recipe, folder, workers=workers)
        folders.append(folder / "det" / "images")
    if len(folders) == 1:
        return folders[0].parent / "data.yaml"
    data = build / f"detector-stage-{stage_name([r.name for r in recipes])}.yaml"
    lines = [f"{split}: [{', '.join(str(f / split) for f in folders)}]" for split in ("train", "val")]
    data.write_text("\n".join(lines) + "\nnames:\n  0: card\n")
    return data


def recorded_classifier(only: str | None, imgsz: int, crop: int, before: dict) -> dict:
    """The classifier's entry of ``meta.json``: how it is fed (``imgsz``) and the side its
    crops are cut at (``crop``); a run that trained only the detector (or only the count
    classifier) keeps ``before``'s, as the classifier is the one it started with (the
    defaults are the first stages' sizes, not necessarily that classifier's).

    >>> recorded_classifier("classifier-print", 128, 128, {})
    {'file': 'classifier.onnx', 'imgsz': 128, 'crop': 128, 'embedding': 'embedding'}
    >>> old = {"classifier": {"file": "classifier.onnx", "imgsz": 128, "crop": 128}}
    >>> recorded_classifier("detector-camera", 96, 96, old)["crop"]
    128
    """
    if only in ("detector-camera", "counter", "fruit") and "classifier" in before:
        return dict(before["classifier"])
    # export_classifier gives every classifier exported here its embedding output
    return {"file": "classifier.onnx", "imgsz": imgsz, "crop": crop, "embedding": EMBEDDING}


#: the prefix of the plan settings each ``only`` trains (``sushicam train --only``)
_STAGE_PREFIXES = {"detector": "det_", "detector-camera": "det_camera_", "classifier": "cls_",
                   "classifier-print": "cls_print_", "counter": "counter_", "fruit": "fruit_"}


def recorded_plan(plan: TrainPlan, only: str | None, before: dict | None) -> dict:
    """The plan ``meta.json`` records: ``plan``'s settings for the stages that ran (every one
    when ``only`` is None) and, for the rest, ``before``'s, the record of the models trained
    on: a detector stage run alone must not rewrite how the classifier was made.

    >>> from dataclasses import replace
    >>> before = asdict(replace(TrainPlan(), cls_print_recipe="train-light-crops"))
    >>> record = recorded_plan(replace(TrainPlan(), det_camera_hours=0.9), "detector-camera", before)
    >>> record["det_camera_hours"], record["cls_print_recipe"]
    (0.9, 'train-light-crops')
    >>> recorded_plan(TrainPlan(), None, before)["cls_print_recipe"]
    'train-camera-crops'
    """
    now = asdict(plan)
    if only is None or not before:
        return now
    ran = _STAGE_PREFIXES[only]
    return {key: value if key.startswith(ran) or key not in before else before[key] for key, value in now.items()}


def train_models(plan: TrainPlan = TrainPlan(), data_root: Path = DATASETS_BUILD_DIR / "train",
                 runs: Path = RUNS_DIR, models: Path = MODELS_DIR,
                 only: str | None = None, device: str = "cpu", workers: int = 2) -> dict:
    """Run (or resume) every stage of ``plan``; ``device`` and ``workers`` (data generation
    and loading processes) are where it runs, not what it learns."""
    from vision.training import yolo  # heavy: torch + ultralytics

    recipe = RECIPES["train"]
    if plan.photos != recipe.train:
        recipe = type(recipe)(**{**asdict(recipe), "train": plan.photos})
    started = time.process_time()
    if only not in ("classifier-print", "detector-camera", "counter", "fruit"):  # those stages have their own data
        generate(recipe, data_root, workers=workers)
    # on the CPU the loader would take cores from training; beside a GPU it is what limits it
    place = dict(device=device, workers=max(1, workers - 1) if device != "cpu" else 1)
    times = {}
    models.mkdir(parents=True, exist_ok=True)
    cls_args = dict(fliplr=0.0, scale=0.15, erasing=0.0, auto_augment=None, hsv_h=0.01, hsv_s=0.3,
                    hsv_v=0.3, patience=100)
    classifier_imgsz = plan.cls_ft_imgsz if plan.cls_ft_epochs else plan.cls_imgsz
    crop_size = CROP_SIZE  # the side the recogniser cuts crops at: the last classifier stage's
    # the size the detector is fed once its last stage has run (the meta written when only the
    # classifier trains must still feed the committed detector at its own size)
    detector_imgsz = plan.det_ft_imgsz if plan.det_ft_epochs else plan.det_imgsz
    if plan.det_ft_epochs and plan.det_tables_epochs and plan.det_hires_epochs:
        detector_imgsz = plan.det_feed_imgsz
    # ultralytics numbers a classifier's classes by their sorted folder names
    classes = sorted(SLUGS + ((NOT_A_CARD,) if plan.cls_neg_epochs else ()))
    if only in (None, "classifier"):
        t = time.time()
        best = yolo.train("classify", data_root / "cls", runs / "classifier", plan.cls_epochs,
                          plan.cls_imgsz, plan.cls_batch, **cls_args, **place)
        shutil.copyfile(best, models / "classifier.pt")
        export_classifier(best, plan.cls_imgsz, models / "classifier.onnx", dynamic=True)
        times["classifier_wall_s"] = round(time.time() - t)
    if only in (None, "detector"):
        t = time.time()
        best = yolo.train("detect", data_root / "det" / "data.yaml", runs / "detector", plan.det_epochs,
                          plan.det_imgsz, plan.det_batch, close_mosaic=3, patience=100, cache="ram", **place)
        detector_imgsz = plan.det_imgsz
        if plan.det_ft_epochs:
            best = yolo.train("detect", data_root / "det" / "data.yaml", runs / "detector-ft", plan.det_ft_epochs,
                              plan.det_ft_imgsz, plan.det_batch, start_from=best, optimizer="AdamW", lr0=0.001,
                              warmup_epochs=0.5, close_mosaic=4, patience=100, cache="ram", **place)
            detector_imgsz = plan.det_ft_imgsz
            if plan.det_tables_epochs:
                generate(RECIPES["train-tables"], data_root, workers=workers)
                best = yolo.train("detect", data_root / "det" / "data.yaml", runs / "detector-tables",
                                  plan.det_tables_epochs, plan.det_ft_imgsz, plan.det_batch, start_from=best,
                                  optimizer="AdamW", lr0=0.0005, warmup_epochs=0.3, close_mosaic=2, patience=100,
                                  cache="ram", **place)
                if plan.det_hires_epochs:
                    if not yolo.finished(runs / "detector-hires"):
                        generate(RECIPES["train-tables-hires"], data_root, workers=workers)
                    best = yolo.train("detect", data_root / "det" / "data.yaml", runs / "detector-hires",
                                      plan.det_hires_epochs, plan.det_hires_imgsz, plan.det_hires_batch,
                                      start_from=best, optimizer="AdamW", lr0=0.0005, warmup_epochs=0.5,
                                      close_mosaic=3, patience=100, cache="ram", time=plan.det_hires_hours or None,
                                      **place)
                    detector_imgsz = plan.det_feed_imgsz
        shutil.copyfile(best, models / "detector.pt")
        # free height and width: fed 4:3 photos without padding them square
        yolo.export_onnx(best, detector_imgsz, models / "detector.onnx", dynamic=True)
        times["detector_wall_s"] = round(time.time() - t)
    if only in (None, "detector", "detector-camera") and plan.det_camera_epochs:
        data = camera_stage_data([RECIPES[name] for name in plan.det_camera_recipes], data_root.parent, workers)
        t = time.time()
        # a run of other recipes is another run (a resumed run must not change its data)
        run = runs / f"detector-{stage_name(plan.det_camera_recipes)}"
        # from the 960-px stage; alone, from the committed detector when that run is not here
        start = runs / "detector-hires/weights/best.pt"
        if not start.exists() and only == "detector-camera":
            start = MODELS_DIR / "detector.pt"
        yolo.train("detect", data, run, plan.det_camera_epochs, plan.det_feed_imgsz,
                   plan.det_camera_batch, start_from=start, optimizer="AdamW", lr0=0.0002, warmup_epochs=0,
                   close_mosaic=2, patience=100, cache="ram", time=plan.det_camera_hours or None, **place)
        # the schedule's last weights, averaged with those it started from (as the classifier's
        # print stage: the photos it learnt from are still our renderer's)
        best = run / "weights" / "last.pt"
        if plan.det_camera_share < 1:
            best = yolo.average_weights(start, best, plan.det_camera_share, run.with_name(f"{run.name}-averaged.pt"))
        shutil.copyfile(best, models / "detector.pt")
        yolo.export_onnx(best, plan.det_feed_imgsz, models / "detector.onnx", dynamic=True)
        times["detector_camera_wall_s"] = round(time.time() - t)
    if only in (None, "classifier") and plan.cls_ft_epochs:
        generate(RECIPES["train-crops"], data_root, workers=workers)
        t = time.time()
        best = yolo.train("classify", data_root / "cls", runs / "classifier-ft", plan.cls_ft_epochs,
                          plan.cls_ft_imgsz, plan.cls_batch, start_from=runs / "classifier/weights/best.pt",
                          optimizer="AdamW", lr0=0.0005, warmup_epochs=0, **cls_args, **place)
        shutil.copyfile(best, models / "classifier.pt")
        export_classifier(best, plan.cls_ft_imgsz, models / "classifier.onnx", dynamic=True)
        classifier_imgsz = plan.cls_ft_imgsz
        times["classifier_ft_wall_s"] = round(time.time() - t)
    if only in (None, "classifier") and plan.cls_neg_epochs:
        from vision.training.classifier import widen_classifier

        generate(RECIPES["train-negatives"], data_root, workers=workers)
        t = time.time()
        start = runs / "classifier-ft/weights/best.pt" if plan.cls_ft_epochs else runs / "classifier/weights/best.pt"
        widened = runs / "classifier-widened.pt"
        if not widened.exists():
            widen_classifier(start, widened, classes)
        best = yolo.train("classify", data_root / "cls", runs / "classifier-neg", plan.cls_neg_epochs,
                          classifier_imgsz, plan.cls_batch, start_from=widened, optimizer="AdamW", lr0=0.0003,
                          warmup_epochs=0, **cls_args, **place)
        shutil.copyfile(best, models / "classifier.pt")
        export_classifier(best, classifier_imgsz, models / "classifier.onnx", dynamic=True)
        times["classifier_neg_wall_s"] = round(time.time() - t)
    if only in (None, "classifier") and plan.cls_tables_epochs:
        if not yolo.finished(runs / "classifier-tables"):
            for name in ("train-tables-crops", "train-tables-hires-crops"):
                generate(RECIPES[name], data_root, workers=workers)
        t = time.time()
        start = runs / ("classifier-neg" if plan.cls_neg_epochs else
                        "classifier-ft" if plan.cls_ft_epochs else "classifier") / "weights/best.pt"
        best = yolo.train("classify", data_root / "cls", runs / "classifier-tables", plan.cls_tables_epochs,
                          classifier_imgsz, plan.cls_tables_batch, start_from=start, optimizer="AdamW",
                          lr0=0.0003, warmup_epochs=0, time=plan.cls_tables_hours or None, **cls_args, **place)
        shutil.copyfile(best, models / "classifier.pt")
        export_classifier(best, classifier_imgsz, models / "classifier.onnx", dynamic=True)
        times["classifier_tables_wall_s"] = round(time.time() - t)
    if only in (None, "classifier", "classifier-print") and plan.cls_print_epochs:
        print_recipe = RECIPES[plan.cls_print_recipe]
        stage = print_recipe.name.removeprefix("train-").removesuffix("-crops")
        run = runs / f"classifier-{stage}"
        data = data_root.parent / print_recipe.name.removeprefix("train-")
        generate(print_recipe, data, workers=workers)
        t = time.time()
        # from the last stage's best weights; alone (``only="classifier-print"``) from the
        # committed classifier when that run is not here (it is that stage's best.pt)
        start = runs / "classifier-tables/weights/best.pt"
        if not start.exists() and only == "classifier-print":
            start = MODELS_DIR / "classifier.pt"
        # at the side its crops are written at (a recipe of larger crops trains a classifier
        # that reads them larger)
        classifier_imgsz = crop_size = print_recipe.crop_size
        yolo.train("classify", data / "cls", run, plan.cls_print_epochs,
                   classifier_imgsz, plan.cls_print_batch, start_from=start, optimizer="AdamW",
                   lr0=0.0002, warmup_epochs=0, time=plan.cls_print_hours or None, **cls_args, **place)
        # the schedule's last weights, not the "best" epoch: this stage's validation crops are
        # our renderer's, not the photos it is for, so the epoch best on them is not the best
        best = run / "weights" / "last.pt"
        if plan.cls_print_share < 1:
            best = yolo.average_weights(start, best, plan.cls_print_share, run.with_name(f"{run.name}-averaged.pt"))
        shutil.copyfile(best, models / "classifier.pt")
        export_classifier(best, classifier_imgsz, models / "classifier.onnx", dynamic=True)
        times["classifier_print_wall_s"] = round(time.time() - t)
    counter_meta = None
    if only in (None, "counter") and plan.counter_epochs:
        t = time.time()
        # from the classifier this run ended with (or the committed one, run alone)
        counter_meta = train_counter(plan, models / "classifier.pt", data_root.parent / "count-crops",
                                     runs / "counter", models, place, cls_args, workers)
        times["counter_wall_s"] = round(time.time() - t)
    fruit_meta = None
    if only in (None, "fruit") and plan.fruit_epochs:
        from vision.training.marks import train_fruit

        t = time.time()
        fruit_meta = train_fruit(plan, models / "classifier.pt", data_root.parent / "fruit-crops",
                                 runs / "fruit", models, place, cls_args, workers)
        times["fruit_wall_s"] = round(time.time() - t)
    # the record of the models this run started from, for the stages it did not run
    before_meta = json.loads((models / "meta.json").read_text()) if (models / "meta.json").exists() else {}
    if counter_meta is None and before_meta.get("counter"):
        counter_meta = before_meta["counter"]  # the counter reads crops of its own: it stays
    if fruit_meta is None and before_meta.get("fruit"):
        fruit_meta = before_meta["fruit"]  # and so does the fruit reader
    before = before_meta.get("plan")
    classifier_meta = recorded_classifier(only, classifier_imgsz, crop_size, before_meta)
    meta = {
        "classes": classes,
        "detector": {"file": "detector.onnx", "imgsz": detector_imgsz, "classes": ["card"],
                     "live_imgsz": min(plan.det_live_imgsz, detector_imgsz)},
        "classifier": classifier_meta,
        "held_out_prints": list(PRINTED_SLUGS),
        "plan": recorded_plan(plan, only, before),
    }
    if only in ("counter", "fruit") and "detector" in before_meta:
        meta["detector"] = before_meta["detector"]  # the detector it started with
    if counter_meta:
        meta["counter"] = counter_meta
    if fruit_meta:
        meta["fruit"] = fruit_meta
    (models / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    times["process_cpu_s"] = round(time.process_time() - started)
    return times


def count_stage_data(crops: Path) -> Path:
    """The count classifier's data under ``crops`` (a ``train-count-crops`` folder): the count
    faces' crops alone (hard links to ``cls/<split>/<face>/*``, as ultralytics does not follow
    a linked folder), the other faces the recipe's tables hold left out; returns it.
    """
    data = crops / "counts"
    for split in ("train", "val"):
        for face in COUNT_FACES:
            folder = data / split / face
            folder.mkdir(parents=True, exist_ok=True)
            for crop in (crops / "cls" / split / face).glob("*.jpg"):
                if not (folder / crop.name).exists():
                    try:
                        os.link(crop, folder / crop.name)
                    except OSError:  # another file system
                        shutil.copyfile(crop, folder / crop.name)
    return data


def train_counter(plan: TrainPlan, start: Path, crops: Path, run: Path, models: Path, place: dict,
                  cls_args: dict, workers: int = 2) -> dict:
    """Train the count classifier from the classifier ``start`` (its outputs cut to the count
    faces, each keeping what it knew of them) on ``train-count-crops``; writes
    ``models/counter.pt`` and ``counter.onnx`` and returns ``meta.json``'s ``counter`` entry."""
    from vision.training import yolo
    from vision.training.classifier import widen_classifier

    recipe = RECIPES["train-count-crops"]
    generate(recipe, crops, workers=workers)
    data = count_stage_data(crops)
    cut = run.with_name(f"{run.name}-start.pt")
    if not cut.exists():
        cut.parent.mkdir(parents=True, exist_ok=True)
        widen_classifier(start, cut, COUNT_FACES)
    yolo.train("classify", data, run, plan.counter_epochs, recipe.crop_size, plan.counter_batch, start_from=cut,
               optimizer="AdamW", lr0=0.0003, warmup_epochs=0, time=plan.counter_hours or None,
               **cls_args, **place)
    # the schedule's last weights: its validation crops are our renderer's
    last = run / "weights" / "last.pt"
    shutil.copyfile(last, models / "counter.pt")
    yolo.export_onnx(last, recipe.crop_size, models / "counter.onnx", dynamic=True)
    return {"file": "counter.onnx", "imgsz": recipe.crop_size, "crop": recipe.crop_size,
            "classes": list(COUNT_FACES)}
