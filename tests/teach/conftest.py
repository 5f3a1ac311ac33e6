"""Shared fixtures of the teach tests: composed photos of cards on tables, and model folders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.faces import digital_faces
from vision.synth import compose_table, textures

#: The committed model; ``SUSHICAM_TEST_MODELS`` names another folder (a model being trained).
REPO_MODELS = Path(os.environ.get("SUSHICAM_TEST_MODELS") or Path(__file__).resolve().parents[2] / "models")
MODEL_FILES = ("meta.json", "detector.onnx", "classifier.onnx", "classifier.pt")


def one_card(seed: int, slug: str, size=(960, 720), **options) -> np.ndarray:
    """A photo of one card alone on a table, seen through a phone camera."""
    image, truth = compose_table(seed, [[slug]], size=size, clutter=False, fill=options.pop("fill", 0.6),
                                 **options)
    assert len([c for c in truth["cards"] if not c["hidden"]]) == 1
    return image


@pytest.fixture(scope="session")
def faces():
    return digital_faces()


@pytest.fixture(scope="session")
def tofu_photos() -> list[np.ndarray]:
    return [one_card(seed, "tofu") for seed in (11, 12)]


@pytest.fixture(scope="session")
def maki_photo() -> np.ndarray:
    return one_card(31, "maki-2")


@pytest.fixture(scope="session")
def two_cards_photo() -> np.ndarray:
    image, _ = compose_table(21, [["tofu", "eel"]], size=(960, 720), layout="loose", clutter=False, fill=0.7)
    return image


@pytest.fixture(scope="session")
def empty_table_photo() -> np.ndarray:
    rng = np.random.default_rng(5)
    surface = textures.table_surface(rng, (960, 720))
    return textures.degrade(rng, textures.shade(rng, surface))


@pytest.fixture(scope="session")
def blurry_photo(tofu_photos) -> np.ndarray:
    return cv2.GaussianBlur(tofu_photos[0], (0, 0), 8)


def save(path: Path, image: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), image)
    return path


@pytest.fixture(scope="session")
def bundled_model() -> Path:
    """The committed model (trained by `sushicam train`); the tests that fine-tune need it."""
    missing = [f for f in MODEL_FILES if not (REPO_MODELS / f).exists()]
    if missing:
        pytest.skip(f"models/ lacks {', '.join(missing)}: run `sushicam train` first")
    return REPO_MODELS


@pytest.fixture()
def bundled_copy(bundled_model, tmp_path) -> Path:
    """A copy of the committed model, so a test can never touch the real one."""
    target = tmp_path / "bundled"
    shutil.copytree(bundled_model, target, ignore=shutil.ignore_patterns("*.md"))
    return target


@pytest.fixture(autouse=True)
def _pil_open_as_it_was():
    """Importing ultralytics (retraining does) replaces PIL's ``Image.open`` for the whole
    process with one that tries to pip-install a HEIC plugin on any unreadable file; put the
    original back, so the upload tests that follow still see "not an image"."""
    from PIL import Image

    original = Image.open
    yield
    Image.open = original
