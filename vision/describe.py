"""``describe_image``: one photo in, the JSON object of one ``sushicam detect`` line out."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.deck import Deck, flag_cards
from vision.detections import Detections
from vision.seats import split_seats
from vision.stacks import read_tableau


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
    """One object per card; ``"flag"`` (and ``"seen_as"``, the face outside the deck the
    classifier took it for) only on the cards a deck check flagged."""
    cards = []
    n = len(detections)
    flags = detections.data.get("flag", [""] * n)
    seen_as = detections.data.get("seen_as", [""] * n)
    for i, (label, box, conf) in enumerate(zip(detections.labels, detections.xyxy, detections.confidence,
                                              strict=True)):
        card = {"label": label, "box": [round(float(v), 1) for v in box], "confidence": round(float(conf), 4)}
        if flags[i]:
            card["flag"] = str(flags[i])
            if seen_as[i]:
                card["seen_as"] = str(seen_as[i])
        cards.append(card)
    return cards


def describe_image(recognizer, image_or_path, seats=None, deck: Deck | None = None) -> dict:
    """Name every card in one photo: ``{"image", "cards", "tableau"}`` and, when ``seats``
    is given (a number of seats, or a list of seat areas in normalised coordinates),
    ``"seats": [{"seat", "cards", "tableau"}, ...]`` with ``"tableau"`` then the seats'
    entries one after the other.

    ``deck`` (the game's edition and menu, ``vision.deck.Deck``) names cards only as faces of
    that deck and flags those seen outside it or beyond its counts (``"flag"`` on the card).
    """
    if isinstance(image_or_path, np.ndarray):
        image, name = image_or_path, None
    else:
        image, name = read_image(image_or_path), str(image_or_path)
    if deck is None:
        detections = recognizer.detect(image)
    else:
        detections = flag_cards(recognizer.detect(image, allowed=deck.allowed), deck)
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
