"""Confirmed rounds kept as YOLO training data in the data folder, ready for retraining.

Layout (what ultralytics reads)::

    <data>/training/images/<photo>.jpg
    <data>/training/labels/<photo>.txt     one "class cx cy w h" line per card, fractions of the photo
    <data>/training/classes.txt            one slug per line; the line number is the class index
    <data>/training/data.yaml              the dataset file for ``yolo train data=...``

Class indices never change once written: a card first seen later is appended, so labels written
earlier stay right. Correcting a round rewrites its photos' labels.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from flask import Flask, current_app

from web.files import copy_atomically, write_text_atomically


def training_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "training"


_write_text = write_text_atomically


def load_classes(data_dir: str | Path) -> list[str]:
    path = training_dir(data_dir) / "classes.txt"
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ensure_classes(data_dir: str | Path, labels: Iterable[str], initial: Sequence[str]) -> list[str]:
    """The class list, started from ``initial`` and extended with any new ``labels``."""
    classes = load_classes(data_dir) or list(initial)
    new = [label for label in dict.fromkeys(labels) if label not in classes]
    folder = training_dir(data_dir)
    if new or not (folder / "classes.txt").exists():
        classes += new
        folder.mkdir(parents=True, exist_ok=True)
        _write_text(folder / "classes.txt", "".join(f"{c}\n" for c in classes))
        names = "".join(f"  {i}: {c}\n" for i, c in enumerate(classes))
        _write_text(
            folder / "data.yaml",
            f"# Confirmed sushicam rounds (written by the web app).\npath: {folder.resolve()}\n"
            f"train: images\nval: images\nnames:\n{names}",
        )
    return classes


def yolo_lines(
    boxes: Iterable[tuple[str, Sequence[float]]], width: int, height: int, classes: Sequence[str]
) -> str:
    """YOLO label lines for pixel boxes.

    >>> print(yolo_lines([("tofu", [10, 20, 30, 60])], 100, 200, ["wasabi", "tofu"]), end="")
    1 0.200000 0.200000 0.200000 0.200000
    """
    index = {c: i for i, c in enumerate(classes)}
    lines = []
    for label, (x1, y1, x2, y2) in boxes:
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        w, h = (x2 - x1) / width, (y2 - y1) / height
        lines.append(f"{index[label]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n")
    return "".join(lines)


def save_example(
    data_dir: str | Path,
    photo_path: Path,
    boxes: Sequence[tuple[str, Sequence[float]]],
    width: int,
    height: int,
    initial_classes: Sequence[str],
) -> Path:
    """Write one photo and its confirmed boxes as a training example; returns the label file."""
    classes = ensure_classes(data_dir, (label for label, _ in boxes), initial_classes)
    folder = training_dir(data_dir)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    image = folder / "images" / photo_path.name
    # a copy a full disk cut short is never trusted for its name: copied again unless the same
    copy_atomically(photo_path, image)
    label_file = folder / "labels" / f"{photo_path.stem}.txt"
    _write_text(label_file, yolo_lines(boxes, width, height, classes))
    return label_file


def remove_examples(data_dir: str | Path, photo_filenames: Iterable[str]) -> None:
    """Remove the training examples made from these photos (their image copy and labels)."""
    folder = training_dir(data_dir)
    for name in photo_filenames:
        name = Path(name).name  # names come from the database; never a path outside the folder
        (folder / "images" / name).unlink(missing_ok=True)
        (folder / "labels" / f"{Path(name).stem}.txt").unlink(missing_ok=True)


def learn_in_background(app: Flask | None = None) -> threading.Thread | None:
    """After a round is confirmed: learn its cards as exemplars in a background thread
    (``vision.teach.learn.learn_rounds``: kept only if the players' other rounds and the
    bundled check sample read at least as well), with the app's recogniser under its lock;
    the next photo is then read with the version learnt. Nothing is started where the app's
    recogniser cannot embed crops (a test double) or ``LEARN_FROM_ROUNDS`` is False."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    if app.config.get("LEARN_FROM_ROUNDS") is False:
        return None
    from web import recognition

    def learn() -> None:
        from vision.teach.learn import learn_rounds
        from vision.teach.models import RetrainBusyError

        with app.app_context():
            try:
                recognizer = recognition.get_recognizer()
            except recognition.RecognizerUnavailable:
                return
            if not hasattr(recognizer, "embed_crops") or not getattr(recognizer.classifier, "embeds", False):
                return
            try:
                learnt = learn_rounds(app.config["DATA_DIR"], recognizer, app.config["MODEL_DIR"],
                                      lock=recognition.recognizer_in_use)
            except RetrainBusyError:  # a retraining holds the data folder: it learns these rounds
                return
            except Exception:  # the round is confirmed and safe; only the learning failed
                app.logger.exception("learning from the confirmed round failed")
                return
            if learnt is not None and learnt.version:
                recognition.forget_recognizer()

    thread = threading.Thread(target=learn, name="learn-round", daemon=True)
    thread.start()
    return thread
