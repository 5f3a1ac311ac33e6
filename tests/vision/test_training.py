"""Training plumbing that runs in CI without training: exports, checkpoints' results, recipes."""

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.synth.dataset import RECIPES, ConditionShares, generate
from web.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_exporting_a_committed_model_elsewhere_leaves_its_own_onnx_alone(tmp_path):
    from vision.runtime import OnnxDetector
    from vision.training import yolo

    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copyfile(ROOT / "models/detector.pt", folder / "detector.pt")
    (folder / "detector.onnx").write_bytes(b"the committed export")
    target = yolo.export_onnx(folder / "detector.pt", 320, tmp_path / "out/detector.onnx", dynamic=True)
    assert (folder / "detector.onnx").read_bytes() == b"the committed export"
    detector = OnnxDetector(target, threads=1)
    assert detector.rectangular and detector.imgsz == 320
    boxes, scores = detector(np.full((240, 320, 3), 90, np.uint8))
    assert boxes.shape[1] == 4 and len(scores) == len(boxes)


def test_results_are_read_without_polars(tmp_path):
    from vision.training.yolo import _results_csv

    csv = tmp_path / "results.csv"
    csv.write_text("epoch, metrics/recall(B)\n1,0.5\n2,0.75\n")
    assert _results_csv(SimpleNamespace(csv=csv)) == {"epoch": [1.0, 2.0], "metrics/recall(B)": [0.5, 0.75]}
    assert _results_csv(SimpleNamespace(csv=tmp_path / "missing.csv")) == {}


@pytest.mark.parametrize("photos, crops", [("train-tables", "train-tables-crops"),
                                           ("train-tables-hires", "train-tables-hires-crops")])
def test_a_crops_recipe_crops_the_very_photos_of_its_photo_recipe(tmp_path, faces, photos, crops):
    # the classifier's last stage learns from the photos the detector's stages saw
    root = tmp_path / "train"
    generate(replace(RECIPES[photos], train=2), root, workers=1, progress=False)
    generate(replace(RECIPES[crops], train=2), root, workers=1, progress=False)
    prefix = RECIPES[photos].prefix
    photo_truths = sorted((root / "truth/train").glob(f"{prefix}*.json"))
    crop_truths = sorted((root / f"truth/train-{crops}").glob(f"{prefix}*.json"))
    assert [p.name for p in photo_truths] == [p.name for p in crop_truths] and len(photo_truths) == 2
    for a, b in zip(photo_truths, crop_truths, strict=True):
        photo_truth = json.loads(a.read_text())
        assert photo_truth.pop("image") == f"det/images/train/{a.stem}.jpg"
        assert photo_truth == json.loads(b.read_text())
    visible = sum(1 for p in (root / "cls/train").rglob(f"{prefix}*.jpg"))
    assert visible > 2 * 5  # whole tables: many regions per photo


@pytest.mark.parametrize("argv, needle", [
    (["--workers", "0"], "--workers"),
    (["--device", "7"], "no such CUDA device"),
    (["--device", "gpu"], "no such CUDA device"),
])
def test_train_refuses_bad_places_with_one_error_line_before_any_work(argv, needle, capsys, tmp_path):
    assert main(["train", "--models", str(tmp_path / "models"), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not (tmp_path / "models").exists()


@pytest.mark.parametrize("mid_run, share, moved", [
    (False, 0.25, 1.0),  # a finished stage: a quarter of the way
    # ultralytics saves a run's last.pt between epochs with "model" None and the weights in
    # "ema": a stage can be averaged from such a checkpoint too (picked by epoch)
    (True, 0.5, 2.0),
])
def test_averaged_weights_lie_between_the_two_stages(tmp_path, mid_run, share, moved):
    import torch

    from vision.paths import MODELS_DIR
    from vision.training import yolo

    base = MODELS_DIR / "classifier.pt"
    tuned = torch.load(base, map_location="cpu", weights_only=False)
    name, first = next(iter(tuned["model"].float().state_dict().items()))
    first = first.clone()
    model = tuned["model"].float()
    with torch.no_grad():
        model.state_dict()[name].add_(4.0)  # a "fine-tuned" copy: one tensor moved by 4
    if mid_run:
        tuned["model"], tuned["ema"] = None, model
    else:
        tuned["model"] = model
    torch.save(tuned, tmp_path / "tuned.pt")
    averaged = yolo.average_weights(base, tmp_path / "tuned.pt", share, tmp_path / "avg.pt")
    got = torch.load(averaged, map_location="cpu", weights_only=False)["model"].float().state_dict()[name]
    assert torch.allclose(got, first + moved, atol=1e-2)


def test_the_detector_stage_trains_on_every_recipe_it_names_together(tmp_path, faces):
    # two recipes, each generated in its own folder; ultralytics' own dataset check reads
    # the one data file and finds the photos of both
    from ultralytics.data.utils import check_det_dataset

    from vision.training.train import detection_data, recipe_folder

    camera, pile = RECIPES["train-camera-tables"], RECIPES["train-pile-tables"]
    recipes = [replace(camera, train=2, val=1, size=(320, 240), scene=replace(camera.scene, small_frames=0.0)),
               replace(pile, train=3, val=1, size=(320, 240), scene=replace(pile.scene, small_frames=0.0))]
    folders = [recipe_folder(recipe, tmp_path) for recipe in recipes]
    for recipe, folder in zip(recipes, folders, strict=True):
        generate(recipe, folder, workers=1, progress=False)
    data = detection_data(folders, tmp_path / "run" / "data.yaml")
    checked = check_det_dataset(str(data))
    images = [str(tmp_path / "camera-tables" / "det" / "images"), str(tmp_path / "pile-tables" / "det" / "images")]
    assert checked["train"] == [f + "/train" for f in images] and checked["val"] == [f + "/val" for f in images]
    assert len(list((tmp_path / "camera-tables" / "det" / "images" / "train").glob("k*.jpg"))) == 2
    assert len(list((tmp_path / "pile-tables" / "det" / "images" / "train").glob("q*.jpg"))) == 3


def test_the_wide_stage_cuts_its_crops_from_loose_turned_and_far_tables(tmp_path, faces):
    # the tables the detector's recipes lay, cut into crops: what the classifier meets there
    recipe = replace(RECIPES["train-wide-crops"], train=6, val=0, size=(480, 360), closeups=0.0,
                     scene=ConditionShares(print_styles=0.9, piles=1.0, turned=1.0, far_cameras=1.0))
    generate(recipe, tmp_path, workers=1, progress=False)
    truths = [json.loads(p.read_text()) for p in sorted((tmp_path / "truth/train-train-wide-crops").glob("*.json"))]
    assert len(truths) == 6 and not (tmp_path / "det").exists()
    crops = list((tmp_path / "cls/train").rglob("w*.jpg"))
    visible = sum(1 for t in truths for c in t["cards"] if not c["hidden"])
    negatives = list((tmp_path / "cls/train/not-a-card").glob("*.jpg"))
    assert len(crops) == visible + len(negatives) and visible > 6
    # the same photos laid as our renderer's neat rows are other tables: the options reach the
    # renderer in a crops-only recipe too
    neat = replace(recipe, scene=ConditionShares(print_styles=0.9))
    generate(neat, tmp_path / "neat", workers=1, progress=False)
    neat_truths = [json.loads(p.read_text())
                   for p in sorted((tmp_path / "neat/truth/train-train-wide-crops").glob("*.json"))]
    assert all(a["seed"] == b["seed"] for a, b in zip(truths, neat_truths, strict=True))
    assert all(a["cards"] != b["cards"] for a, b in zip(truths, neat_truths, strict=True))


def test_a_recipe_of_larger_crops_writes_card_and_table_crops_at_its_side(tmp_path, faces):
    # the count classifier's crops: a classifier trained on them is fed and cut at 128 px
    counts = RECIPES["train-count-crops"]
    recipe = replace(counts, train=2, val=0, size=(480, 360), scene=replace(counts.scene, small_frames=0.0),
                     closeups=0.0, negatives=2)
    generate(recipe, tmp_path, workers=1, progress=False)
    crops = list((tmp_path / "cls/train").rglob("c*.jpg"))
    negatives = list((tmp_path / "cls/train/not-a-card").glob("*.jpg"))
    assert negatives and len(crops) > len(negatives)
    assert {cv2.imread(str(p)).shape for p in crops} == {(128, 128, 3)}
    assert RECIPES["train-wide-crops"].crop_size == 96  # the recipes before it, as they were


def test_the_counter_trains_on_crops_of_the_count_faces_alone(tmp_path, faces):
    from ultralytics.data.utils import check_cls_dataset

    from vision.synth.dataset import COUNT_FACES
    from vision.training.train import classify_data

    counts = RECIPES["train-count-crops"]
    recipe = replace(counts, train=4, val=1, size=(480, 360), scene=replace(counts.scene, small_frames=0.0),
                     closeups=0.0)
    generate(recipe, tmp_path / "count-crops", workers=1, progress=False)
    every = list((tmp_path / "count-crops/cls/train").rglob("c*.jpg"))
    counted = [p for p in every if p.parent.name in COUNT_FACES]
    # tables laid mostly of maki and uramaki: each count ten times as likely as another face
    assert len(counted) > len(every) / 2
    assert {cv2.imread(str(p)).shape for p in counted} == {(128, 128, 3)}
    # the counter's stage starts from the classifier cut to the count faces: its data is theirs
    data = classify_data([tmp_path / "count-crops"], tmp_path / "run" / "data", COUNT_FACES)
    assert sorted(p.name for p in (data / "train").rglob("*.jpg")) == sorted(f"count-crops-{p.name}" for p in counted)
    # ultralytics numbers the classes by their folders' names: in COUNT_FACES' order, which
    # the counter's entry in meta.json records
    assert check_cls_dataset(str(data))["names"] == dict(enumerate(COUNT_FACES))
    assert classify_data([tmp_path / "count-crops"], tmp_path / "run" / "data", COUNT_FACES) == data
    assert len(list((data / "train").rglob("*.jpg"))) == len(counted)  # made again, nothing doubled
    # one folder of every class is trained on as it is
    assert classify_data([tmp_path / "count-crops"], tmp_path / "other") == tmp_path / "count-crops" / "cls"
