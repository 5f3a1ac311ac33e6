"""Fixtures for the web app's tests: an app on a temporary data folder, clients, photos.

Route tests run with a *scripted* recogniser (it answers the boxes a test gives it) so they
check the web layer alone and run in milliseconds; tests marked ``real_model`` load the
committed model from ``models/`` and read a photo composed from ../shared/cards.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from web.app import create_app

REPO = Path(__file__).resolve().parents[2]
MODEL_DIR = REPO / "models"
CARDS_DIR = REPO.parent / "shared" / "cards"

# The tableaux of the composed test photo: one seat each, bottom seat first.
TABLE = [
    [["wasabi", "squid-nigiri"], "maki-3", "tempura", "tempura"],
    ["sashimi", "sashimi", "sashimi", "maki-1"],
    ["dumpling", "dumpling", "egg-nigiri", "pudding"],
]


class ScriptedRecognizer:
    """Stands in for the model: answers the cards it was given, whatever the photo."""

    def __init__(self, cards: list[tuple[str, list[float], float]] | None = None):
        self.cards = cards or []
        self.calls = 0
        self.allowed = None  # the faces the last call was limited to (a game's deck)

    def detect(self, image_bgr: np.ndarray, allowed=None) -> Detections:
        self.calls += 1
        self.allowed = allowed
        if not self.cards:
            return Detections.empty()
        return Detections(
            xyxy=np.array([box for _, box, _ in self.cards], np.float32),
            confidence=np.array([conf for _, _, conf in self.cards], np.float32),
            data={"label": np.array([label for label, _, _ in self.cards])},
        )


def jpeg_bytes(image: np.ndarray, quality: int = 90) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return data.tobytes()


def csrf_token(html: bytes | str) -> str:
    text = html.decode() if isinstance(html, bytes) else html
    match = re.search(r'name="csrf-token" content="([^"]+)"', text)
    assert match, "the page has no CSRF token"
    return match.group(1)


@pytest.fixture
def recognizer() -> ScriptedRecognizer:
    return ScriptedRecognizer()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def app(data_dir: Path, recognizer: ScriptedRecognizer):
    return create_app(
        {
            "TESTING": True,
            "DATA_DIR": str(data_dir),
            "SECRET_KEY": "test",
            "WTF_CSRF_ENABLED": False,
            "RECOGNIZER_FACTORY": lambda: recognizer,
            "MAX_CONTENT_LENGTH": 3_000_000,
            "MAX_IMAGE_PIXELS": 4_000_000,
        }
    )


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def csrf_app(data_dir: Path, recognizer: ScriptedRecognizer):
    """The app as it runs for users: CSRF protection on."""
    return create_app(
        {"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "test",
         "RECOGNIZER_FACTORY": lambda: recognizer}
    )


@pytest.fixture
def csrf_client(csrf_app):
    return csrf_app.test_client()


@pytest.fixture(scope="session")
def composed_table():
    """A photo of three seats composed from the card faces, and its ground truth."""
    if not (CARDS_DIR / "party-digital").is_dir():
        pytest.skip(f"card faces not found in {CARDS_DIR} (../shared/cards)")
    from vision.synth.compose import compose_table

    image, truth = compose_table(11, TABLE, size=(1600, 1200), layout="loose", clutter=False, fill=0.9)
    return image, truth


@pytest.fixture(scope="session")
def real_recognizer():
    """The committed model, loaded once for the session."""
    if not (MODEL_DIR / "meta.json").exists():
        pytest.skip("no trained model committed in models/ yet (models/meta.json missing)")
    from vision.recognizer import Recognizer

    return Recognizer.load(MODEL_DIR)


def png_bytes(width: int, height: int, colour=(200, 120, 80)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def make_game(client):
    """Create a game through the new-game form; returns its id."""

    def make(edition="original", players=("Ann", "Ben", "Cid"), **extra) -> int:
        response = client.post(
            "/games/new", data={"edition": edition, "player": list(players), **extra}
        )
        assert response.status_code == 302, response.data
        return int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1])

    return make


@pytest.fixture
def images():
    """Encoders for upload bodies: ``images.jpeg(array)``, ``images.png(w, h)``."""

    class Images:
        jpeg = staticmethod(jpeg_bytes)
        png = staticmethod(png_bytes)

    return Images


@pytest.fixture
def token_of():
    """Reads the CSRF token a page carries."""
    return csrf_token
