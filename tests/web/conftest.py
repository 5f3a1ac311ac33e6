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


# --- what teaching decided, as the teach page finds it in a data folder --------------------


class TeachStates:
    """Writes into a data folder what a retraining or a round learning leaves there: the
    retraining status file, the last round learning, and model versions of every origin. The
    decisions are made by :func:`vision.teach.decision.decide` from hand-picked figures."""

    #: a retraining refused: card F1 on the held-out tables 0.912 -> 0.874, 0.01 allowed
    REFUSED_TABLES = (0.912, 0.874, 0.01)

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir

    def refused(self):
        from vision.teach.decision import Change, Limits, Measured, decide

        before, after, limit = self.REFUSED_TABLES
        return decide(Measured(True, Change(before, after), Change(0.95, 0.96), None, 0, None),
                      Limits(tables=limit, known=0.03, confirmed=0.01))

    def kept(self):
        from vision.teach.decision import (
            Change,
            CounterNote,
            DetectorNote,
            Limits,
            Measured,
            Notes,
            decide,
        )

        notes = Notes(weak=("gyoza",), counter=CounterNote(("maki-2",), with_counter=0.61, alone=0.72),
                      detector=DetectorNote(False, True, Change(0.9131, 0.9012), Change(0.8, 0.79)), doubts=2)
        return decide(Measured(True, Change(0.90, 0.91), Change(0.95, 0.94), Change(0.80, 0.85), 5, 0.66),
                      Limits(tables=0.01, known=0.03, confirmed=0.01), notes)

    def status(self, **fields) -> None:
        from vision.teach.models import StatusFile

        StatusFile(self.data_dir).write(**fields)

    def retrained(self, decision, version: str | None = "20260101-000000") -> None:
        self.status(state="done", accepted=decision.kept, version=version, message="English words",
                    result={"version": version, "accepted": decision.kept, "decision": decision.to_json(),
                            "metrics": {}})

    def learnt(self, kept: bool) -> None:
        import json

        from vision.teach.decision import Reading, decide_learning

        after = Reading(10, 10) if kept else Reading(7, 10)
        decision = decide_learning(Reading(9, 10), after, Reading(50, 60), Reading(50, 60))
        folder = self.data_dir / "exemplars"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "learn-status.json").write_text(json.dumps(
            {"kept": decision.kept, "decision": decision.to_json(), "photos": ["a", "b"],
             "cards": {"tofu": 2, "eel": 1}, "version": None, "parent": "bundled", "finished": ""}))

    def versions(self) -> None:
        """A version of each origin, and one written before versions said theirs (its English
        summary is shown as it is)."""
        import json

        infos = {
            "20260101-000001": {"kind": "retrained", "parent": "bundled", "accepted": True, "added": ["gyoza"],
                                "decision": self.kept().to_json()},
            "20260101-000002": {"kind": "retrained", "parent": "20260101-000001", "accepted": False, "added": [],
                                "decision": self.refused().to_json()},
            "20260101-000003": {"kind": "exemplars", "parent": "bundled", "photos": ["a", "b"],
                                "cards": {"tofu": 2, "eel": 1}},
            "20260101-000004": {"kind": "held-out", "parent": "bundled", "held_out": ["eel", "soy-sauce"]},
        }
        for name, info in infos.items():
            folder = self.data_dir / "models" / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "meta.json").write_text(json.dumps({"classes": ["tofu", "eel", "gyoza"]}))
            for file in ("detector.onnx", "classifier.onnx"):
                (folder / file).write_bytes(b"onnx")
            (folder / "version.json").write_text(json.dumps(info))


@pytest.fixture
def teach_states(data_dir: Path) -> TeachStates:
    return TeachStates(data_dir)
