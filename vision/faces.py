"""Card faces: the 38 slugs the recogniser knows and the images it learns them from.

Faces are read from the shared card folder (``../shared/cards`` beside the project root,
or a folder the user names); they are never copied into the repository.

- ``party-digital/<slug>__<n>.jpg``: clean digital faces of Sushi Go Party! (training).
- ``classic-scan/sheet-001.jpg``: ten printed original cards on one flatbed scan. They are
  the *unseen prints*: never used for training, only to measure generalisation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.paths import SHARED_CARDS_DIR

#: The recogniser's classes, in model order: the 37 Party faces and the card back.
#: (Derived from the file names in ``cards/party-digital``; ``tests/vision`` checks it.)
SLUGS: tuple[str, ...] = (
    "card-back", "chopsticks", "dumpling", "edamame", "eel", "egg-nigiri",
    "fruit-orange-orange", "fruit-pineapple-orange", "fruit-pineapple-pineapple",
    "fruit-watermelon-orange", "fruit-watermelon-pineapple", "fruit-watermelon-watermelon",
    "green-tea-ice-cream", "maki-1", "maki-2", "maki-3", "menu", "miso-soup",
    "onigiri-circle", "onigiri-rectangle", "onigiri-square", "onigiri-triangle", "pudding",
    "salmon-nigiri", "sashimi", "soy-sauce", "special-order", "spoon", "squid-nigiri",
    "takeout-box", "tea", "temaki", "tempura", "tofu", "uramaki-3", "uramaki-4", "uramaki-5",
    "wasabi",
)
SLUG_INDEX = {slug: i for i, slug in enumerate(SLUGS)}
NIGIRI = ("egg-nigiri", "salmon-nigiri", "squid-nigiri")

#: Card size in pixels of the digital faces; every face is brought to it (aspect 1.556).
FACE_SIZE = (336, 523)  # (width, height)

#: The printed scan: (slug, x1, y1, x2, y2, rotation) of each card, measured on the sheet
#: (two columns of five cards on their side; see the README beside it). The README turns
#: the left column clockwise and the right one counter-clockwise, but on the scan tempura
#: and salmon-nigiri lie the other way round (a counter-clockwise turn leaves their text
#: band on top), so they turn clockwise too; ``tests/vision`` checks every card stands up.
PRINT_SHEET = "classic-scan/sheet-001.jpg"
PRINT_CROPS: tuple[tuple[str, int, int, int, int, int], ...] = (
    ("dumpling", 0, 0, 1020, 666, cv2.ROTATE_90_CLOCKWISE),
    ("sashimi", 0, 747, 1020, 1425, cv2.ROTATE_90_CLOCKWISE),
    ("squid-nigiri", 0, 1432, 1020, 2108, cv2.ROTATE_90_CLOCKWISE),
    ("egg-nigiri", 0, 2143, 1020, 2816, cv2.ROTATE_90_CLOCKWISE),
    ("pudding", 0, 2882, 1020, 3504, cv2.ROTATE_90_CLOCKWISE),
    ("maki-2", 1534, 0, 2550, 668, cv2.ROTATE_90_COUNTERCLOCKWISE),
    ("maki-3", 1534, 718, 2550, 1391, cv2.ROTATE_90_COUNTERCLOCKWISE),
    ("tempura", 1534, 1414, 2550, 2096, cv2.ROTATE_90_CLOCKWISE),
    ("wasabi", 1534, 2150, 2550, 2828, cv2.ROTATE_90_COUNTERCLOCKWISE),
    ("salmon-nigiri", 1534, 2884, 2550, 3504, cv2.ROTATE_90_CLOCKWISE),
)
PRINTED_SLUGS = tuple(c[0] for c in PRINT_CROPS)


class CardsNotFoundError(FileNotFoundError):
    """The shared card folder (``party-digital/`` and ``classic-scan/``) is not where looked."""


def default_cards_dir() -> Path:
    """``$SUSHICAM_CARDS`` or ``../shared/cards`` beside the project root."""
    env = os.environ.get("SUSHICAM_CARDS")
    if env:
        return Path(env)
    return SHARED_CARDS_DIR


@dataclass(frozen=True)
class FaceSet:
    """Face images by slug (BGR, ``FACE_SIZE``); several variants per slug where they exist."""

    name: str
    faces: dict[str, tuple[np.ndarray, ...]]

    def slugs(self) -> tuple[str, ...]:
        return tuple(sorted(self.faces))

    def __contains__(self, slug: str) -> bool:
        return slug in self.faces

    def merged_over(self, base: FaceSet) -> FaceSet:
        """This set's faces where it has them, ``base``'s elsewhere."""
        return FaceSet(f"{self.name}+{base.name}", {**base.faces, **self.faces})


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CardsNotFoundError(f"cannot read card image {path}")
    return np.asarray(image)


@lru_cache(maxsize=4)
def digital_faces(cards_dir: str | Path | None = None) -> FaceSet:
    """The Party digital faces, by slug (every numbered variant)."""
    folder = Path(cards_dir or default_cards_dir()) / "party-digital"
    paths = sorted(folder.glob("*__*.jpg"))
    if not paths:
        raise CardsNotFoundError(f"no card faces in {folder} (set SUSHICAM_CARDS)")
    faces: dict[str, list[np.ndarray]] = {}
    for path in paths:
        slug = path.stem.split("__")[0]
        faces.setdefault(slug, []).append(cv2.resize(_read(path), FACE_SIZE, interpolation=cv2.INTER_AREA))
    return FaceSet("digital", {slug: tuple(images) for slug, images in faces.items()})


@lru_cache(maxsize=4)
def printed_faces(cards_dir: str | Path | None = None) -> FaceSet:
    """The ten printed original cards cropped from the flatbed scan, stood upright."""
    sheet_path = Path(cards_dir or default_cards_dir()) / PRINT_SHEET
    sheet = _read(sheet_path)
    faces: dict[str, tuple[np.ndarray, ...]] = {}
    for slug, x1, y1, x2, y2, rotation in PRINT_CROPS:
        upright = cv2.rotate(sheet[y1:y2, x1:x2], rotation)
        faces[slug] = (cv2.resize(upright, FACE_SIZE, interpolation=cv2.INTER_AREA),)
    return FaceSet("print", faces)


def training_faces(cards_dir: str | Path | None = None) -> FaceSet:
    """Faces the models may learn from: the digital faces only (the prints stay unseen)."""
    return digital_faces(cards_dir)


def unseen_print_faces(cards_dir: str | Path | None = None) -> FaceSet:
    """The evaluation faces: the printed scan for its ten slugs, digital faces elsewhere."""
    return printed_faces(cards_dir).merged_over(digital_faces(cards_dir))
