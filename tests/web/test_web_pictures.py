"""Each card's picture for the picker comes from the players' own material (taught faces,
confirmed photos), never from card art; a card with none answers 404 in the player's words."""

from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image

from vision.teach.library import FACES_DIR, TaughtFace


def teach_face(data_dir, slug: str, bgr) -> None:
    faces = data_dir / FACES_DIR
    faces.mkdir(parents=True, exist_ok=True)
    face = TaughtFace(slug=slug, number=1)
    cv2.imwrite(str(faces / face.filename), np.full((280, 200, 3), bgr, np.uint8))
    (faces / f"{face.name}.json").write_text(face.to_json(), encoding="utf-8")


def test_a_taught_face_is_the_cards_picture(client, data_dir):
    teach_face(data_dir, "tempura", (40, 200, 40))  # green
    response = client.get("/cards/tempura/picture.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    picture = Image.open(io.BytesIO(response.data)).convert("RGB")
    assert picture.height <= 160
    r, g, b = picture.getpixel((picture.width // 2, picture.height // 2))
    assert g > 150 and r < 100 and b < 100


def test_a_card_without_a_picture_says_so(client):
    response = client.get("/cards/sashimi/picture.jpg", headers={"Accept": "application/json"})
    assert response.status_code == 404
    assert "Sashimi" in response.get_data(as_text=True)
    assert client.get("/cards/not-a-card/picture.jpg").status_code == 404
