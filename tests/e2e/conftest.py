"""End-to-end fixtures: the real app served by waitress in a thread, a real headless Chromium.

The browser is Debian's ``chromium`` (Playwright cannot download its own here). The app loads
the committed model from ``models/``, exactly as ``sushicam serve`` does. Screenshots of every
page land in ``tests/e2e/artifacts/`` (git-ignored) for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CARDS_DIR = REPO.parent / "shared" / "cards"

# The table of the composed photo: one seat per player, the first player at the bottom.
TABLE = [
    [["wasabi", "squid-nigiri"], "maki-3", "tempura", "tempura", "pudding"],
    ["sashimi", "sashimi", "sashimi", "maki-1"],
    ["dumpling", "dumpling", "egg-nigiri", "maki-2", "pudding"],
]
PLAYERS = ["Ann", "Ben", "Cid"]


@pytest.fixture(scope="session")
def model_dir() -> Path:
    if not (REPO / "models" / "meta.json").exists():
        pytest.skip("no trained model committed in models/ yet (models/meta.json missing)")
    return REPO / "models"


@pytest.fixture
def live_server(tmp_path, model_dir, serve_app):
    """The app with a fresh data folder, served by waitress on a free port; yields its URL."""
    with serve_app({"DATA_DIR": str(tmp_path / "data"), "MODEL_DIR": str(model_dir)}) as url:
        yield url


@pytest.fixture(scope="session")
def table_photo(tmp_path_factory):
    """A JPEG of the table composed from the card faces in ../shared/cards (never committed)."""
    if not (CARDS_DIR / "party-digital").is_dir():
        pytest.skip(f"card faces not found in {CARDS_DIR}")
    import cv2

    from vision.synth.compose import compose_table

    image, truth = compose_table(5, TABLE, size=(1600, 1200), layout="loose", clutter=False, fill=0.85)
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, truth


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

