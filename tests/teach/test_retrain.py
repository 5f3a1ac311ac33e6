"""Retraining: versions, the active pointer, and a failed or worse run never replacing the model."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from vision.teach.library import FaceLibrary, teach
from vision.teach.models import (
    BUNDLED,
    ModelStore,
    ModelStoreError,
    RetrainBusyError,
    active_model_dir,
)
from vision.teach.retrain import NothingToLearnError, RetrainPlan, retrain
from vision.training.classifier import TrainingFailed

#: A retraining small enough for a test: a few small photos, one epoch.
TINY = RetrainPlan(photos=6, val_photos=4, epochs=1, size=(640, 480), workers=1)


def fake_model(folder: Path, classes=("tofu", "eel")) -> Path:
    folder.mkdir(parents=True)
    for name in ("detector.onnx", "classifier.onnx"):
        (folder / name).write_bytes(b"onnx")
    (folder / "meta.json").write_text(json.dumps({"classes": list(classes)}))
    return folder


def test_use_and_rollback_walk_the_history_and_never_lose_the_bundled_model(tmp_path):
    bundled = fake_model(tmp_path / "bundled")
    store = ModelStore(tmp_path / "data", bundled)
    assert store.active().name == BUNDLED
    assert active_model_dir(tmp_path / "data", bundled) == bundled
    fake_model(store.root / "20250101-000000", ("tofu", "eel", "gyoza"))
    fake_model(store.root / "20250102-000000", ("tofu", "eel", "gyoza", "mochi"))

    store.use("20250101-000000")
    store.use("20250102-000000")
    assert store.active().classes == ("tofu", "eel", "gyoza", "mochi")
    assert [v.name for v in store.versions()] == [BUNDLED, "20250101-000000", "20250102-000000"]
    assert store.rollback().name == "20250101-000000"
    assert store.rollback().name == BUNDLED
    with pytest.raises(ModelStoreError, match="nothing to roll back to"):
        store.rollback()
    with pytest.raises(ModelStoreError, match="no model version '2030'"):
        store.use("2030")


def test_a_damaged_active_version_falls_back_to_the_bundled_model(tmp_path):
    bundled = fake_model(tmp_path / "bundled")
    store = ModelStore(tmp_path / "data", bundled)
    version = fake_model(store.root / "20250101-000000")
    store.use("20250101-000000")
    (version / "classifier.onnx").unlink()  # a disk accident
    assert store.active().name == BUNDLED
    assert [v.name for v in store.versions()] == [BUNDLED]
    (store.root / "active").write_text("{not json")
    assert store.active().name == BUNDLED


def test_a_version_missing_the_count_classifier_its_meta_names_is_not_used(tmp_path):
    # Recognizer.load reads the file meta.json's "counter" names: without it the version
    # could not read a photo, so the bundled model stays in use
    bundled = fake_model(tmp_path / "bundled")
    store = ModelStore(tmp_path / "data", bundled)
    version = fake_model(store.root / "20250101-000000")
    meta = json.loads((version / "meta.json").read_text())
    (version / "meta.json").write_text(json.dumps({**meta, "counter": {"file": "counter.onnx"}}))
    with pytest.raises(ModelStoreError, match="incomplete .*counter.onnx"):
        store.use("20250101-000000")
    assert store.active().name == BUNDLED
    (version / "counter.onnx").write_bytes(b"onnx")
    store.use("20250101-000000")
    assert store.active().name == "20250101-000000"


def test_only_one_retraining_at_a_time(tmp_path):
    store = ModelStore(tmp_path / "data", fake_model(tmp_path / "bundled"))
    with store.lock():
        assert store.busy()
        with pytest.raises(RetrainBusyError, match="already running"), store.lock():
            pass
    assert not store.busy()


def test_nothing_to_learn_is_refused(tmp_path, bundled_copy):
    with pytest.raises(NothingToLearnError, match="nothing to learn"):
        retrain(tmp_path / "data", TINY, bundled=bundled_copy)


@pytest.fixture()
def taught_data(tmp_path, tofu_photos) -> Path:
    data = tmp_path / "data"
    teach(FaceLibrary(data), "gyoza", [("a.jpg", tofu_photos[0])])
    return data


def _in_use(data: Path, bundled: Path) -> tuple[str, list[str]]:
    store = ModelStore(data, bundled)
    return store.active().name, [v.name for v in store.versions()]


def test_a_training_run_that_crashes_leaves_the_model_in_use(taught_data, bundled_copy):
    store = ModelStore(taught_data, bundled_copy)
    shutil.copytree(bundled_copy, store.root / "20250101-000000")
    store.use("20250101-000000")
    before = _in_use(taught_data, bundled_copy)

    def crash(*_args):
        raise TrainingFailed("killed in the middle of epoch 3")

    with pytest.raises(TrainingFailed, match="epoch 3"):
        retrain(taught_data, TINY, bundled=bundled_copy, trainer=crash)
    assert _in_use(taught_data, bundled_copy) == before
    assert not list(store.root.glob(".staging-*"))  # nothing half-written stays behind
    assert not store.busy()  # and the next run may start


@pytest.mark.parametrize("side", [96, 128])
def test_a_retraining_learns_from_crops_cut_as_its_base_model_cuts_them(taught_data, bundled_copy, side):
    # the recogniser cuts each region at meta.json's classifier.crop; a version trained on
    # crops of another side would meet at reading crops it never learnt from
    meta = json.loads((bundled_copy / "meta.json").read_text())
    meta["classifier"]["crop"] = side
    (bundled_copy / "meta.json").write_text(json.dumps(meta))
    seen = {}

    def look(widened: Path, data: Path, run_dir: Path, plan, progress) -> Path:
        for split in ("train", "val"):
            seen[split] = {cv2.imread(str(p)).shape for p in (data / split).rglob("*.jpg")}
        raise TrainingFailed("looked only")

    with pytest.raises(TrainingFailed):
        retrain(taught_data, TINY, bundled=bundled_copy, trainer=look)
    assert seen == {"train": {(side, side, 3)}, "val": {(side, side, 3)}}


def test_a_worse_model_is_kept_out(taught_data, bundled_copy):
    """A run whose model reads the known cards worse is refused, and says why."""
    import torch

    def scrambled(widened: Path, data: Path, run_dir: Path, plan, progress) -> Path:
        checkpoint = torch.load(widened, map_location="cpu", weights_only=False)
        head = checkpoint["model"].model[-1].linear
        with torch.no_grad():  # every card now reads as the next one in the list
            head.weight.copy_(torch.roll(head.weight, 1, 0))
            head.bias.copy_(torch.roll(head.bias, 1, 0))
        run_dir.mkdir(parents=True)
        torch.save(checkpoint, run_dir / "best.pt")
        return run_dir / "best.pt"

    before = _in_use(taught_data, bundled_copy)
    result = retrain(taught_data, TINY, bundled=bundled_copy, trainer=scrambled)
    assert not result.accepted and result.version is None
    assert result.decision.cause == "worse-tables"
    assert result.added == ("gyoza",)
    assert _in_use(taught_data, bundled_copy) == before


def _unchanged(widened: Path, data: Path, run_dir: Path, plan, progress) -> Path:
    return widened  # a "training" that leaves the classifier as it was


def _count_misnamed(model: Path) -> None:
    """The model's count classifier, its outputs for maki-2 and maki-3 swapped: it reads every
    maki-2 as a maki-3 and back (as a counter would on a print it never learnt)."""
    import ast

    import onnx

    path = model / json.loads((model / "meta.json").read_text())["counter"]["file"]
    graph = onnx.load(str(path))
    entry = next(p for p in graph.metadata_props if p.key == "names")
    names = ast.literal_eval(entry.value)
    two, three = (i for i, n in names.items() if n in ("maki-2", "maki-3"))
    names[two], names[three] = names[three], names[two]
    entry.value = repr(names)
    onnx.save(graph, str(path))


@pytest.fixture()
def taught_maki(tmp_path, maki_photo) -> Path:
    data = tmp_path / "data"
    teach(FaceLibrary(data), "maki-2", [("a.jpg", maki_photo)])
    return data


def test_a_count_classifier_that_counts_the_taught_maki_worse_is_left_out(taught_maki, bundled_copy):
    # the player taught maki-2; the count classifier is not retrained, and this one reads every
    # maki-2 as a maki-3: the retrained classifier alone counts the held-out tables' maki better
    from vision.recognizer import Recognizer

    _count_misnamed(bundled_copy)
    result = retrain(taught_maki, TINY, bundled=bundled_copy, trainer=_unchanged)
    counting = result.metrics["counter"]
    assert counting["faces"] == ["maki-2"] and not counting["kept"]
    assert counting["f1_without"] > counting["f1_with"]
    assert result.decision.notes.counter is not None and result.decision.notes.counter.faces == ("maki-2",)
    assert result.accepted, result.decision
    version = ModelStore(taught_maki, bundled_copy).get(result.version)
    assert "counter" not in json.loads((version.path / "meta.json").read_text())
    assert not (version.path / "counter.onnx").exists()
    assert Recognizer.load(version.path).counter is None
    assert Recognizer.load(bundled_copy).counter is not None  # the base keeps its own


def test_a_count_classifier_that_counts_the_taught_maki_as_well_is_kept(taught_maki, bundled_copy):
    from vision.recognizer import Recognizer

    result = retrain(taught_maki, TINY, bundled=bundled_copy, trainer=_unchanged)
    counting = result.metrics["counter"]
    assert counting["kept"] and counting["f1_with"] >= counting["f1_without"] > 0
    version = ModelStore(taught_maki, bundled_copy).get(result.version)
    assert Recognizer.load(version.path).counter is not None


@pytest.mark.slow
def test_retraining_learns_a_taught_card_and_can_be_rolled_back(taught_data, bundled_copy, tofu_photos):
    """The real thing, tiny: fine-tune, export, evaluate, switch; then roll back."""
    from vision.recognizer import Recognizer

    # one epoch on 16 photos: the gates' verdict is not what this checks (the known cards'
    # naming dropped by 0.021 here, near the 0.03 gate, so thread timing decided it)
    result = retrain(taught_data, RetrainPlan(photos=16, val_photos=6, epochs=1, size=(640, 480), workers=1,
                                              tolerance=1.0, max_known_drop=1.0), bundled=bundled_copy)
    store = ModelStore(taught_data, bundled_copy)
    assert result.accepted, result.decision
    assert store.active().name == result.version
    assert "gyoza" in store.active().classes
    info = json.loads((store.active().path / "version.json").read_text())
    assert info["parent"] == BUNDLED and info["added"] == ["gyoza"]
    recognizer = Recognizer.load(store.active().path)
    assert "gyoza" in recognizer.classes
    # the base's count classifier comes along (the retraining does not train it)
    assert recognizer.counter is not None and recognizer.counter_classes == Recognizer.load(bundled_copy).counter_classes
    recognizer.detect(tofu_photos[0])
    assert store.rollback().name == BUNDLED


def test_rounds_confirmed_in_the_app_become_crops_of_their_cards(tmp_path):
    """The web app's training examples (YOLO labels) are read back, one crop folder per card."""
    from vision.synth import compose_table
    from vision.teach.corrections import read_confirmed
    from vision.teach.retrain import correction_crops
    from web.training import save_example

    image, truth = compose_table(3, [["tofu", "eel", "tofu"]], size=(640, 480),
                                 layout="loose", clutter=False)
    photos = []
    for i in range(6):  # enough photos that some are held out for evaluation
        photo = tmp_path / f"photo{i}.jpg"
        cv2.imwrite(str(photo), image)
        photos.append(photo)
        boxes = [("mochi" if c["label"] == "eel" else c["label"], c["box"]) for c in truth["cards"] if not c["hidden"]]
        save_example(tmp_path / "data", photo, boxes, 640, 480, ["wasabi", "tofu"])
    counts = correction_crops(read_confirmed(tmp_path / "data" / "training"), tmp_path / "crops")
    train = {p.name: len(list(p.glob("*.jpg"))) for p in (tmp_path / "crops" / "train").iterdir()}
    val = {p.name: len(list(p.glob("*.jpg"))) for p in (tmp_path / "crops" / "val").iterdir()} \
        if (tmp_path / "crops" / "val").exists() else {}
    assert set(train) | set(val) == {"tofu", "mochi"}  # a card named by hand (mochi) is a class too
    assert counts["train"] + counts["val"] == sum(train.values()) + sum(val.values()) > 0
    assert counts["val"] > 0 and counts["train"] > 0
    crop = cv2.imread(str(next((tmp_path / "crops" / "train" / "tofu").glob("*.jpg"))))
    assert crop.shape == (96, 96, 3)


@pytest.mark.parametrize("sizes", [{"photos": -5}, {"epochs": 0}, {"val_photos": 0}])
def test_a_plan_that_cannot_train_is_refused(sizes):
    with pytest.raises(ValueError, match="must be a whole number of 1 or more"):
        RetrainPlan(**sizes)


def test_retrain_without_the_training_extra_fails_at_once(tmp_path, monkeypatch, taught_data, bundled_copy):
    import sys

    from vision.training import TrainingExtraMissingError

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(TrainingExtraMissingError, match=r"pip install -e '\.\[train\]'"):
        retrain(taught_data, TINY, bundled=bundled_copy)
    assert not (taught_data / "models").exists()  # not even the lock was taken


# --- the detector, retrained too (``--detector``) -------------------------------------------


def test_the_detector_learns_every_box_the_player_confirmed(tmp_path):
    """A confirmed round teaches the detector each box in it, a card whose name the model
    doubts included (its box is no less a card); a training photo counts three times, a
    held-out one goes to the detector's validation once."""
    from vision.synth import compose_table
    from vision.teach.corrections import read_confirmed, without
    from vision.teach.retrain import confirmed_detector_photos
    from web.training import save_example

    image, truth = compose_table(7, [["tofu", "eel", "tofu", "wasabi"]], size=(640, 480), layout="loose",
                                 clutter=False)
    cards = [(c["label"], c["box"]) for c in truth["cards"] if not c["hidden"]]
    for i in range(6):  # enough that some photo is held out (one in five, by its name)
        photo = tmp_path / f"round{i}.jpg"
        cv2.imwrite(str(photo), image)
        save_example(tmp_path / "data", photo, cards, 640, 480, [])
    confirmed = read_confirmed(tmp_path / "data" / "training")
    doubted = {confirmed[0].cards[0].key}
    assert len(without(confirmed, doubted)[0].cards) == len(cards) - 1  # what the classifier learns
    counts = confirmed_detector_photos(confirmed, tmp_path / "det")
    held = [p for p in confirmed if p.held_out]
    assert counts == {"train": 6 - len(held), "val": len(held)} and 0 < len(held) < 6
    assert len(list((tmp_path / "det" / "images" / "train").glob("*.jpg"))) == 3 * counts["train"]
    expected = sorted((round((x1 + x2) / 2 / 640, 4), round((y1 + y2) / 2 / 480, 4),
                       round((x2 - x1) / 640, 4), round((y2 - y1) / 480, 4)) for _, (x1, y1, x2, y2) in cards)
    for split in ("train", "val"):
        for label_file in (tmp_path / "det" / "labels" / split).glob("*.txt"):
            rows = [line.split() for line in label_file.read_text().splitlines()]
            assert {r[0] for r in rows} == {"0"}  # one class: a card
            assert sorted(tuple(round(float(v), 4) for v in r[1:]) for r in rows) == expected


def _blind(base_pt: Path, data_yaml: Path, run_dir: Path, plan, imgsz: int, progress) -> Path:
    """A "fine-tuning" that leaves a detector which finds no card: every score pushed to 0."""
    import torch

    checkpoint = torch.load(base_pt, map_location="cpu", weights_only=False)
    for key in ("model", "ema"):
        if checkpoint.get(key) is not None:
            with torch.no_grad():
                for branch in checkpoint[key].model[-1].cv3:  # the class scores of each scale
                    branch[-1].bias.fill_(-30.0)
    run_dir.mkdir(parents=True)
    torch.save(checkpoint, run_dir / "blind.pt")
    return run_dir / "blind.pt"


def test_a_retrained_detector_that_finds_fewer_cards_is_left_out(taught_data, bundled_copy):
    """The detector retrained too reads the held-out tables worse: the new version reads with
    the detector it had, and says so; the retrained classifier is still taken."""
    result = retrain(taught_data, replace(TINY, detector_epochs=1), bundled=bundled_copy, trainer=_unchanged,
                     detector_trainer=_blind)
    check = result.metrics["detector"]
    assert result.accepted, result.decision
    assert not check["kept"] and check["recall_with"] == 0 < check["recall_without"]
    assert result.decision.notes.detector is not None and not result.decision.notes.detector.kept
    version = ModelStore(taught_data, bundled_copy).get(result.version)
    assert (version.path / "detector.onnx").read_bytes() == (bundled_copy / "detector.onnx").read_bytes()
    info = json.loads((version.path / "version.json").read_text())
    assert info["plan"]["detector_epochs"] == 1 and info["metrics"]["detector"]["kept"] is False


def test_a_detector_to_retrain_must_be_there(taught_data, bundled_copy):
    (bundled_copy / "detector.pt").unlink()
    with pytest.raises(ModelStoreError, match="no detector.pt to fine-tune"):
        retrain(taught_data, replace(TINY, detector_epochs=1), bundled=bundled_copy, trainer=_unchanged)
    assert retrain(taught_data, TINY, bundled=bundled_copy, trainer=_unchanged).accepted  # without, as before


@pytest.mark.parametrize("settings", [{"detector_epochs": -1}, {"detector_share": 0.0}, {"detector_batch": 0},
                                      {"detector_photos": 0}])
def test_a_plan_that_cannot_train_the_detector_is_refused(settings):
    with pytest.raises(ValueError, match="detector_"):
        RetrainPlan(**settings)


@pytest.mark.slow
def test_a_retraining_fine_tunes_the_detector_on_the_confirmed_rounds(tmp_path, bundled_copy):
    """The real thing, tiny: the detector fine-tuned on composed photos and a player's
    confirmed rounds, exported, weighed and kept; the version reads with it."""
    import torch

    from vision.recognizer import Recognizer
    from vision.synth import compose_table
    from web.training import save_example

    for i in range(3):
        image, truth = compose_table(40 + i, n_seats=2, size=(960, 720))
        photo = tmp_path / f"round{i}.jpg"
        cv2.imwrite(str(photo), image)
        save_example(tmp_path / "data", photo, [(c["label"], c["box"]) for c in truth["cards"] if not c["hidden"]],
                     960, 720, [])
    plan = replace(TINY, detector_epochs=1, detector_imgsz=320, tolerance=1.0, max_known_drop=1.0,
                   real_tolerance=1.0)
    result = retrain(tmp_path / "data", plan, bundled=bundled_copy, trainer=_unchanged, keep_data=True)
    check = result.metrics["detector"]
    assert result.accepted, result.decision
    assert check["confirmed_photos"] + check["confirmed_held_out"] == 3 and check["epochs"] == 1
    version = ModelStore(tmp_path / "data", bundled_copy).get(result.version)
    tuned = version.path / "work" / "detector-run" / "averaged.pt"
    first = lambda path: next(iter(torch.load(path, map_location="cpu", weights_only=False)["model"]  # noqa: E731
                                   .float().parameters()))
    assert not torch.equal(first(tuned), first(bundled_copy / "detector.pt"))  # it learnt, half of it kept
    # the version reads with the retrained detector where it read as well, else with the base's
    kept_file = tuned if check["kept"] else bundled_copy / "detector.pt"
    assert (version.path / "detector.pt").read_bytes() == kept_file.read_bytes()
    assert result.decision.notes.detector is not None and result.decision.notes.detector.kept == check["kept"]
    assert len(Recognizer.load(version.path).detect(image)) > 0
