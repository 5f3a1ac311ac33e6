"""The rounds players confirmed in the app, as retraining reads them; and which to trust.

The web app keeps each confirmed photo with its cards' boxes and labels (``web.training``)::

    <data>/training/images/<photo>.jpg
    <data>/training/labels/<photo>.txt     one "class cx cy w h" line per card (fractions)
    <data>/training/classes.txt            the class of each line number
    <data>/training/vouched.json           {"<photo>:<line>": "label"}: corrections the player
                                           confirmed explicitly (see :func:`vouch`)

A player can force a label the model is sure is wrong (four green tea ice creams marked as
pudding in an original-edition game made a retrained model read worse). So a confirmed card
whose label contradicts a *confident* reading of the model being fine-tuned (classifier
probability >= :data:`CONFIDENT` for another card) is a :class:`Doubt`: retraining leaves it out
of what it learns from and of the photos it judges the new model on, until the player vouches
for it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

#: A reading the classifier gives at least this probability is "confident": a correction that
#: contradicts it waits for the player to vouch for it. The bundled model's wrong readings of
#: composed tables mostly score under 0.9; its readings of the forced green tea ice creams 0.99.
CONFIDENT = 0.9
VOUCHED_FILE = "vouched.json"


@dataclass(frozen=True)
class ConfirmedCard:
    """One card of a confirmed photo: its label and box (pixels, xyxy)."""

    photo: str  # the photo's file stem
    line: int  # its line in the label file
    label: str
    box: tuple[float, float, float, float]

    @property
    def key(self) -> str:
        return f"{self.photo}:{self.line}"


@dataclass(frozen=True)
class ConfirmedPhoto:
    image: Path
    cards: tuple[ConfirmedCard, ...]
    #: the photo's width and height in pixels, as read
    size: tuple[int, int] = (0, 0)

    @property
    def name(self) -> str:
        return self.image.stem

    @property
    def held_out(self) -> bool:
        """One confirmed photo in five is kept for evaluation (stable: by its name's hash)."""
        return hashlib.sha1(self.name.encode()).digest()[0] % 5 == 0


@dataclass(frozen=True)
class Doubt:
    """A confirmed card the model confidently reads as another card."""

    photo: str
    line: int
    label: str  # what the player confirmed
    read_as: str  # what the model reads
    confidence: float

    @property
    def key(self) -> str:
        return f"{self.photo}:{self.line}"

    def to_dict(self) -> dict:
        return {"key": self.key, **asdict(self)}


def read_confirmed(training: Path) -> list[ConfirmedPhoto]:
    """Every confirmed photo that can be read, with its cards' boxes in pixels."""
    classes_file = training / "classes.txt"
    if not classes_file.exists():
        return []
    classes = [c.strip() for c in classes_file.read_text().splitlines() if c.strip()]
    photos = []
    for label_file in sorted((training / "labels").glob("*.txt")):
        image_path = next(iter(sorted((training / "images").glob(f"{label_file.stem}.*"))), None)
        size = _image_size(image_path) if image_path else None
        if image_path is None or size is None:
            continue
        w, h = size
        cards = []
        for line, text in enumerate(label_file.read_text().splitlines()):
            parts = text.split()
            if len(parts) != 5 or not parts[0].isdigit() or int(parts[0]) >= len(classes):
                continue
            cx, cy, bw, bh = (float(v) for v in parts[1:])
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            cards.append(ConfirmedCard(label_file.stem, line, classes[int(parts[0])], box))
        photos.append(ConfirmedPhoto(image_path, tuple(cards), size))
    return photos


def _image_size(path: Path) -> tuple[int, int] | None:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return None if image is None else (image.shape[1], image.shape[0])


def vouched(data_dir: str | Path) -> dict[str, str]:
    """The corrections the player vouched for: ``{"<photo>:<line>": label}``."""
    try:
        found = json.loads((Path(data_dir) / "training" / VOUCHED_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(found, dict) else {}


def vouch(data_dir: str | Path, key: str, label: str) -> None:
    """Record that the player confirmed ``key`` shows ``label``, whatever the model reads.

    Keyed by label too: if the round is corrected again to another label, the vouch no longer
    applies.
    """
    folder = Path(data_dir) / "training"
    folder.mkdir(parents=True, exist_ok=True)
    found = vouched(data_dir)
    found[key] = label
    partial = folder / f".{VOUCHED_FILE}.part"
    partial.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    os.replace(partial, folder / VOUCHED_FILE)


def find_doubts(photos: Sequence[ConfirmedPhoto], model_dir: Path, trusted: dict[str, str] | None = None,
                confident: float = CONFIDENT) -> list[Doubt]:
    """The confirmed cards that ``model_dir``'s classifier confidently reads as another card
    (not "not a card": a box the player drew round a half-hidden card is no contradiction),
    leaving out those vouched for in ``trusted``."""
    from vision.recognizer import NOT_A_CARD, Recognizer

    trusted = trusted or {}
    recognizer = Recognizer.load(model_dir)
    doubts = []
    for photo in photos:
        cards = [c for c in photo.cards if trusted.get(c.key) != c.label]
        image = cv2.imread(str(photo.image), cv2.IMREAD_COLOR) if cards else None
        if image is None:
            continue
        boxes = np.array([list(c.box) for c in cards], np.float32)
        # named as a photo's cards are (the same views, a maki's count by the count classifier)
        probabilities = recognizer.probabilities(image, boxes)
        for card, row in zip(cards, np.asarray(probabilities), strict=True):
            best = int(row.argmax())
            read_as = recognizer.classes[best]
            if read_as not in (card.label, NOT_A_CARD) and float(row[best]) >= confident:
                doubts.append(Doubt(card.photo, card.line, card.label, read_as, round(float(row[best]), 3)))
    return doubts


def without(photos: Iterable[ConfirmedPhoto], keys: set[str]) -> list[ConfirmedPhoto]:
    """The photos with the cards of ``keys`` taken out."""
    return [ConfirmedPhoto(p.image, tuple(c for c in p.cards if c.key not in keys), p.size) for p in photos]
