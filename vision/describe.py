"""``describe_image``: one photo in, the JSON object of one ``sushicam detect`` line out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import numpy as np

from vision.deck import Deck, flag_cards
from vision.detections import CARD_ID, FLAG, LABEL_MARGIN, ON, SEEN_AS, Detections
from vision.photo import MAX_PHOTO_PIXELS, PhotoError, decode_photo
from vision.recognizer import CardRecognizer
from vision.seats import split_seats
from vision.stacks import TableauEntry, link_stacks, read_tableau
from vision.unsure import is_unsure


class CardJSON(TypedDict):
    """One card of a detect line (docs/ARCHITECTURE.md, "One detect line")."""

    label: str
    #: ``x1, y1, x2, y2`` in the photo's pixels
    box: list[float]
    confidence: float
    #: whether the player should check it (:func:`vision.unsure.is_unsure`)
    unsure: bool
    #: its place in the photo's ``cards`` (a seat's cards keep it)
    id: NotRequired[int]
    #: the ``id`` of the card it lies on in a stack, or None
    on: NotRequired[int | None]
    #: only on a card a deck check flagged: why, and the face outside the deck it was seen as
    flag: NotRequired[str]
    seen_as: NotRequired[str]


class SeatJSON(TypedDict):
    seat: int
    cards: list[CardJSON]
    tableau: list[TableauEntry]


class DetectJSON(TypedDict):
    """One ``sushicam detect`` line: the photo's cards and tableau, and with seats, each seat's."""

    image: str | None
    cards: list[CardJSON]
    tableau: list[TableauEntry]
    seats: NotRequired[list[SeatJSON]]


class DetectErrorJSON(TypedDict):
    """The line ``sushicam detect`` writes for a photo it could not read."""

    image: str
    error: str


class ImageReadError(ValueError):
    """A file that is missing or is not a readable image."""


MAX_IMAGE_PIXELS = MAX_PHOTO_PIXELS


def read_image(path: str | Path, max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """The photo at ``path`` as upright BGR (``vision.photo.decode_photo``: the app's uploads
    are read the same way), or ``ImageReadError`` naming the problem."""
    path = Path(path)
    if not path.exists():
        raise ImageReadError(f"no such file: {path}")
    if path.is_dir():
        raise ImageReadError(f"{path} is a folder, not an image")
    try:
        return decode_photo(path.read_bytes(), max_pixels, str(path)).pixels
    except PhotoError as exc:
        raise ImageReadError(str(exc)) from exc


def cards_json(detections: Detections) -> list[CardJSON]:
    """The ``cards`` of a ``sushicam detect`` line: ``label``, ``box``, ``confidence`` and, where
    the reading set them, ``id`` (``data["card_id"]``) and ``on`` (the ``id`` of the card it lies
    on in a stack, or null), whether the player should check it (``unsure``:
    ``vision.unsure.is_unsure``) and, only on the cards a deck check flagged, ``flag`` (and
    ``seen_as``, the face outside the deck the classifier took it for)."""
    ids = detections.data.get(CARD_ID)
    on = detections.data.get(ON)
    margins = detections.data.get(LABEL_MARGIN)
    flags = detections.data.get(FLAG)
    seen_as = detections.data.get(SEEN_AS)
    cards = []
    for k, (label, box, conf) in enumerate(
            zip(detections.labels, detections.xyxy, detections.confidence, strict=True)):
        card: CardJSON = {"label": label, "box": [round(float(v), 1) for v in box],
                          "confidence": round(float(conf), 4),
                          "unsure": is_unsure(float(conf), None if margins is None else float(margins[k]))}
        if ids is not None:
            card["id"] = int(ids[k])
        if on is not None:
            card["on"] = int(on[k]) if on[k] >= 0 else None
        if flags is not None and flags[k]:
            card["flag"] = str(flags[k])
            if seen_as is not None and seen_as[k]:
                card["seen_as"] = str(seen_as[k])
        cards.append(card)
    return cards


def describe_image(recognizer: CardRecognizer, image_or_path: np.ndarray | str | Path,
                   seats: int | Sequence[Any] | None = None, deck: Deck | None = None) -> DetectJSON:
    """Name every card in one photo: ``{"image", "cards", "tableau"}`` and, when ``seats``
    is given (a number of seats, or a list of seat areas in normalised coordinates),
    ``"seats": [{"seat", "cards", "tableau"}, ...]`` with ``"tableau"`` then the seats'
    entries one after the other.

    Each card has an ``id`` (its place in ``cards``; a seat's cards keep it) and ``on``: the
    ``id`` of the card it lies on in a stack of the tableau read (null for none).

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
    detections = detections.with_data(**{CARD_ID: np.arange(len(detections))})
    if seats is None:
        detections = link_stacks(detections)
        return {"image": name, "cards": cards_json(detections), "tableau": read_tableau(detections)}
    if isinstance(seats, int):
        parts = split_seats(detections, n_seats=seats)
    else:
        parts = split_seats(detections, seat_areas=seats, image_shape=image.shape)
    parts = [link_stacks(part) for part in parts]
    # a card outside every seat area lies on nothing
    on = np.full(len(detections), -1, np.int64)
    for part in parts:
        on[part.data[CARD_ID]] = part.data[ON]
    seat_lines: list[SeatJSON] = [
        {"seat": i, "cards": cards_json(part), "tableau": read_tableau(part)}
        for i, part in enumerate(parts)
    ]
    return {"image": name, "cards": cards_json(detections.with_data(**{ON: on})),
            "tableau": [entry for seat in seat_lines for entry in seat["tableau"]], "seats": seat_lines}
