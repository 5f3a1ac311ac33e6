"""Issue 14 item 4: a card on a plain grey, brown or black table is found, even where its
border is the table's colour. The photos are built here from the card art in ../shared/cards
(never committed), with the synthetic camera's light and noise."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth import textures
from vision.teach.find import TeachError, read_face

CARDS = Path(__file__).resolve().parents[2].parent / "shared" / "cards"
TABLES = {"grey": (128, 128, 128), "brown": (45, 75, 115), "black": (28, 28, 28)}


def face(name: str) -> np.ndarray:
    if not CARDS.is_dir():
        pytest.skip(f"no card art in {CARDS}")
    if name == "wasabi":  # only the printed scan has it: right column, fourth card, on its side
        sheet = cv2.imread(str(CARDS / "classic-scan" / "sheet-001.jpg"), cv2.IMREAD_COLOR)
        h, w = sheet.shape[:2]
        return cv2.rotate(sheet[3 * h // 5: 4 * h // 5, w // 2:], cv2.ROTATE_90_COUNTERCLOCKWISE)
    return cv2.imread(str(CARDS / "party-digital" / f"{name}.jpg"), cv2.IMREAD_COLOR)


def on_plain_table(card: np.ndarray | None, colour, seed: int, size=(1280, 960)) -> np.ndarray:
    """One card (or none) lying on a plain table, with a soft shadow, seen through a phone."""
    rng = np.random.default_rng(seed)
    w, h = size
    table = np.full((h, w, 3), colour, np.float32)
    if card is not None:
        fh, fw = card.shape[:2]
        scale = rng.uniform(0.35, 0.75) * h / fh
        cw, ch = fw * scale, fh * scale
        centre = np.array([w / 2 + rng.uniform(-0.1, 0.1) * w, h / 2 + rng.uniform(-0.05, 0.05) * h])
        angle = np.deg2rad(rng.uniform(-25, 25))
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        corners = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
        corners = corners @ turn.T + centre + rng.uniform(-0.04, 0.04, (4, 2)) * [cw, ch]
        matrix = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]),
                                             corners.astype(np.float32))
        warped = cv2.warpPerspective(card, matrix, size, flags=cv2.INTER_AREA).astype(np.float32)
        mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), matrix, size)
        shadow = cv2.GaussianBlur(np.roll(mask, (6, 6), (0, 1)), (0, 0), 6).astype(np.float32)[..., None] / 255
        table = table * (1 - 0.35 * shadow)
        alpha = cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32)[..., None] / 255
        table = table * (1 - alpha) + warped * alpha
    return textures.degrade(rng, textures.shade(rng, table))


# the three that failed of 65 such photos of eel, edamame, tempura, take-out box and wasabi (a
# cast of light made the card's bottom band the table's colour), and one of each table for the rest
@pytest.mark.parametrize(("card", "table", "seed"), [
    ("eel__1", "grey", 8041), ("takeout-box__1", "brown", 46051),
    ("edamame__1", "black", 7), ("tempura__1", "grey", 8), ("wasabi", "brown", 9),
    # a lamp's glare on a brown table joins the card's outline: found once the two are cut apart
    ("spoon__2", "brown", 42050),
])
def test_a_card_on_a_plain_table_is_found(card, table, seed):
    image = on_plain_table(face(card), TABLES[table], seed)
    found = read_face(image)
    assert found.face.shape[:2] == (523, 336)
    h, w = image.shape[:2]
    x1, y1, x2, y2 = found.quad.box()
    assert 0.05 * w * h < (x2 - x1) * (y2 - y1) < 0.6 * w * h  # the card, not the whole table


@pytest.mark.parametrize("table", list(TABLES))
def test_a_bare_plain_table_still_shows_no_card(table):
    """The finder for weak outlines sees no card in a bare table (refused: no card, or blurry)."""
    with pytest.raises(TeachError):
        read_face(on_plain_table(None, TABLES[table], 3))
