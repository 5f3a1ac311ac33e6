"""``sushicam teach / faces / models``: JSON out, and one line on stderr with status 2 for bad input."""

from __future__ import annotations

import json

import pytest

from web.cli import main

from .conftest import save


def run(capsys, *argv):
    try:
        status = main(list(argv))
    except SystemExit as exit_:  # argparse refuses an option before the handler runs
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def test_teach_prints_one_json_line_per_face_and_keeps_the_faces(capsys, tmp_path, tofu_photos):
    photos = [save(tmp_path / f"p{i}.jpg", image) for i, image in enumerate(tofu_photos)]
    status, out, err = run(capsys, "teach", *map(str, photos), "--card", "gyoza", "--data",
                           str(tmp_path / "data"), "--no-detector")
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(line["face"], line["card"]) for line in lines] == [("gyoza__1", "gyoza"), ("gyoza__2", "gyoza")]
    assert sorted(p.name for p in (tmp_path / "data" / "faces").glob("*.jpg")) == ["gyoza__1.jpg", "gyoza__2.jpg"]

    status, out, _ = run(capsys, "faces", "--data", str(tmp_path / "data"), "--edition", "anniversary")
    assert status == 0
    assert "gyoza__2" in out
    assert "still to teach" in out and "gyoza," not in out.split("still to teach")[1]
    # the bundled model reads taught cards by exemplars: from the next photo, not a retrain
    assert "taught, read from the next photo: gyoza" in out and "next retrain" not in out


@pytest.mark.parametrize(
    ("photo", "card", "message"),
    [
        ("empty", "gyoza", "empty.jpg: no card found in the photo"),
        ("two", "gyoza", "two.jpg: this photo shows 2 cards; photograph one card"),
        ("blurry", "gyoza", "blurry.jpg: the (photo|card) is too blurry"),
        ("empty", "gyozza", "unknown card 'gyozza' \\(did you mean gyoza\\?\\)"),
        ("missing", "gyoza", "missing.jpg: no such file"),
        ("text", "gyoza", "text.jpg: not an image"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(capsys, tmp_path, empty_table_photo, two_cards_photo,
                                                       blurry_photo, photo, card, message):
    images = {"empty": empty_table_photo, "two": two_cards_photo, "blurry": blurry_photo}
    path = tmp_path / f"{photo}.jpg"
    if photo in images:
        save(path, images[photo])
    elif photo == "text":
        path.write_text("not a photo")
    status, out, err = run(capsys, "teach", str(path), "--card", card, "--data", str(tmp_path / "data"),
                           "--no-detector")
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("sushicam teach: error: ")
    assert __import__("re").search(message, err), err
    assert not list((tmp_path / "data").glob("faces/*.jpg"))


def test_models_commands_refuse_what_cannot_be_done(capsys, tmp_path):
    status, _, err = run(capsys, "models", "use", "20990101-000000", "--data", str(tmp_path))
    assert status == 2 and len(err.splitlines()) == 1 and "no model version '20990101-000000'" in err
    status, _, err = run(capsys, "models", "rollback", "--data", str(tmp_path))
    assert status == 2 and len(err.splitlines()) == 1 and "nothing to roll back to" in err
    status, _, err = run(capsys, "faces", "--remove", "tofu__9", "--data", str(tmp_path))
    assert status == 2 and len(err.splitlines()) == 1 and "no taught face 'tofu__9'" in err


def test_retrain_with_nothing_to_learn_says_so(capsys, tmp_path, bundled_copy):
    status, _, err = run(capsys, "retrain", "--data", str(tmp_path / "data"), "--models", str(bundled_copy))
    assert status == 2
    assert len(err.splitlines()) == 1 and "nothing to learn" in err


@pytest.mark.parametrize("option", [("--photos", "-5"), ("--epochs", "0"), ("--photos", "ten"),
                                    ("--detector-epochs", "0")])
def test_retrain_refuses_sizes_that_cannot_train_before_starting(capsys, tmp_path, option):
    status, out, err = run(capsys, "retrain", *option, "--data", str(tmp_path / "data"))
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and f"argument {option[0]}" in err
    assert not (tmp_path / "data").exists()  # nothing was started


def test_retrain_of_the_detector_without_its_weights_says_so(capsys, tmp_path, bundled_copy):
    """A model folder shipped without detector.pt (ONNX alone) can still retrain its classifier,
    not its detector: one line, exit 2, before any work."""
    (bundled_copy / "detector.pt").unlink()
    status, out, err = run(capsys, "retrain", "--detector", "--data", str(tmp_path / "data"),
                           "--models", str(bundled_copy))
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and "no detector.pt to fine-tune" in err


@pytest.mark.parametrize("argv", [("faces",), ("models", "list"), ("retrain",), ("teach", "x.jpg", "--card", "tofu")])
def test_a_data_folder_that_is_a_file_is_refused(capsys, tmp_path, argv):
    data = tmp_path / "sushicam.sqlite"
    data.write_text("not a folder")
    status, out, err = run(capsys, *argv, "--data", str(data))
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and "is a file, not a data folder" in err


def test_retrain_without_the_training_extra_learns_by_exemplars(capsys, tmp_path, monkeypatch):
    """A player's install has no torch/ultralytics: retrain learns the confirmed rounds by
    exemplars; with none to learn, one line, exit 2, and the status says so."""
    import sys

    monkeypatch.setitem(sys.modules, "ultralytics", None)  # what find_spec reports for a missing package
    status, out, err = run(capsys, "retrain", "--data", str(tmp_path / "data"), "--status")
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "nothing new to learn" in err and "install the training extra" not in err
    assert json.loads((tmp_path / "data" / "models" / "retrain-status.json").read_text())["state"] == "failed"


def test_a_bad_photo_is_left_out_with_its_reason_and_the_good_ones_kept(capsys, tmp_path, tofu_photos,
                                                                        empty_table_photo):
    photos = [save(tmp_path / "good.jpg", tofu_photos[0]), save(tmp_path / "bare.jpg", empty_table_photo),
              tmp_path / "missing.jpg"]
    status, out, err = run(capsys, "teach", *map(str, photos), "--card", "gyoza", "--data",
                           str(tmp_path / "data"), "--no-detector")
    assert status == 0
    assert [json.loads(line)["photo"] for line in out.splitlines()] == ["good.jpg"]
    lines = err.splitlines()
    assert len(lines) == 2
    assert "missing.jpg: no such file" in lines[0] and "bare.jpg: no card found in the photo" in lines[1]


def test_more_than_ten_photos_are_taught_not_refused(capsys, tmp_path, tofu_photos):
    photos = [save(tmp_path / f"p{i}.jpg", tofu_photos[i % 2]) for i in range(11)]
    status, out, err = run(capsys, "teach", *map(str, photos), "--card", "gyoza", "--data",
                           str(tmp_path / "data"), "--no-detector")
    assert status == 0
    assert len(out.splitlines()) == 10 and "sharpest" in err


def test_when_no_photo_can_be_taught_one_line_names_each_and_why(capsys, tmp_path, empty_table_photo):
    bare = save(tmp_path / "bare.jpg", empty_table_photo)
    status, out, err = run(capsys, "teach", str(tmp_path / "gone.jpg"), str(bare), "--card", "gyoza",
                           "--data", str(tmp_path / "data"), "--no-detector")
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "gone.jpg: no such file" in err and "bare.jpg: no card found in the photo" in err


def test_models_list_says_each_versions_origin_in_english(capsys, tmp_path):
    """What each version was made from, from its version.json (a version written before
    versions said so keeps the English line it holds)."""
    infos = {
        "20260101-000001": {"kind": "retrained", "parent": "bundled", "accepted": True, "added": ["gyoza"]},
        "20260101-000002": {"kind": "retrained", "parent": "bundled", "accepted": False, "added": []},
        "20260101-000003": {"kind": "exemplars", "parent": "bundled", "photos": ["a", "b"], "cards": {"tofu": 2}},
        "20260101-000004": {"parent": "bundled", "summary": "+2 new, from bundled"},
    }
    for name, info in infos.items():
        folder = tmp_path / "data" / "models" / name
        folder.mkdir(parents=True)
        (folder / "meta.json").write_text(json.dumps({"classes": ["tofu", "gyoza", "not-a-card"]}))
        for file in ("detector.onnx", "classifier.onnx"):
            (folder / file).write_bytes(b"onnx")
        (folder / "version.json").write_text(json.dumps(info))
    status, out, _ = run(capsys, "models", "list", "--data", str(tmp_path / "data"))
    assert status == 0
    lines = {line.split()[1] if line.startswith("*") else line.split()[0]: line for line in out.splitlines()}
    assert lines["20260101-000001"].endswith("  2 cards  -                     +1 new, from bundled")
    assert lines["20260101-000002"].endswith("refused: from bundled")
    assert lines["20260101-000003"].endswith("learnt from 2 confirmed photo(s): 2 tofu")
    assert lines["20260101-000004"].endswith("+2 new, from bundled")
