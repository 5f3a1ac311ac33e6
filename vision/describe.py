"""``describe_image``: one photo in, the JSON object of one ``sushicam detect`` line out."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detections
from vision.seats import split_seats
from vision.stacks import read_tableau
from vision.unsure import is_unsure


class ImageReadError(ValueError):
    """A file that is missing or is not a readable image."""


def read_image(path: str | Path) -> np.ndarray:
    """The photo at ``path`` as BGR, or ``ImageReadError`` naming the problem."""
    path = Path(path)
    if not path.exists():
        raise ImageReadError(f"no such file: {path}")
    if path.is_dir():
        raise ImageReadError(f"{path} is a folder, not an image")
    data = np.fromfile(str(path), np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageReadError(f"{path} is not a readable image (JPEG, PNG, WebP...)")
    return image


def cards_json(detections: Detections) -> list[dict]:
    """Each card's label, box and confidence, and whether the player should check it
    (``unsure``: ``vision.unsure.is_unsure``)."""
    margins = detections.data.get("label_margin")
    return [
        {"label": label, "box": [round(float(v), 1) for v in box], "confidence": round(float(conf), 4),
         "unsure": is_unsure(float(conf), None if margins is None else float(margins[k]))}
        for k, (label, box, conf) in enumerate(zip(detections.labels, detections.xyxy, detections.confidence,
                                                   strict=True))
    ]


def describe_image(recognizer, image_or_path, seats=None) -> dict:
    """Name every card in one photo: ``{"image", "cards", "tableau"}`` and, when ``seats``
    is given (a number of seats, or a list of seat areas in normalised coordinates),
    ``"seats": [{"seat", "cards", "tableau"}, ...]`` with ``"tableau"`` then the seats'
    entries one after the other.
    """
    if isinstance(image_or_path, np.ndarray):
        image, name = image_or_path, None
    else:
        image, name = read_image(image_or_path), str(image_or_path)
    detections = recognizer.detect(image)
    result: dict = {"image": name, "cards": cards_json(detections)}
    if seats is None:
        result["tableau"] = read_tableau(detections)
        return result
    if isinstance(seats, int):
        parts = split_seats(detections, n_seats=seats)
    else:
        parts = split_seats(detections, seat_areas=seats, image_shape=image.shape)
    result["seats"] = [
        {"seat": i, "cards": cards_json(part), "tableau": read_tableau(part)}
        for i, part in enumerate(parts)
    ]
    result["tableau"] = [entry for seat in result["seats"] for entry in seat["tableau"]]
    return result
