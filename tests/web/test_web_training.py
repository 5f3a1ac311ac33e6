"""Confirmed photos as YOLO training data: stable class indices, exact boxes."""

from __future__ import annotations

from web.training import ensure_classes, load_classes, save_example, yolo_lines


def test_class_indices_never_move(tmp_path):
    first = ensure_classes(tmp_path, ["eel"], ["tempura", "sashimi"])
    assert first == ["tempura", "sashimi", "eel"]
    # a later, different catalogue order does not renumber what is written
    second = ensure_classes(tmp_path, ["tofu", "tempura"], ["sashimi", "tempura", "tofu"])
    assert second == ["tempura", "sashimi", "eel", "tofu"]
    assert load_classes(tmp_path) == second
    yaml = (tmp_path / "training" / "data.yaml").read_text()
    assert "  3: tofu\n" in yaml and "train: images" in yaml


def test_yolo_lines_are_centre_and_size_fractions():
    text = yolo_lines([("b", [0, 0, 50, 100]), ("a", [150, 50, 200, 100])], 200, 100, ["a", "b"])
    assert text.splitlines() == ["1 0.125000 0.500000 0.250000 1.000000", "0 0.875000 0.750000 0.250000 0.500000"]


def test_save_example_copies_the_photo_and_rewrites_its_labels(tmp_path):
    photo = tmp_path / "photos" / "abc.jpg"
    photo.parent.mkdir()
    photo.write_bytes(b"\xff\xd8\xff fake jpeg")
    save_example(tmp_path, photo, [("tofu", [0, 0, 10, 10])], 100, 100, ["tofu", "eel"])
    labels = save_example(tmp_path, photo, [("eel", [0, 0, 50, 50])], 100, 100, ["tofu", "eel"])
    assert labels.read_text() == "1 0.250000 0.250000 0.500000 0.500000\n"
    assert (tmp_path / "training" / "images" / "abc.jpg").read_bytes() == photo.read_bytes()
    assert not list((tmp_path / "training").rglob(".*.part"))
