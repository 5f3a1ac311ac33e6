"""The card recogniser, loaded once per process and shared by every request.

The app config's ``RECOGNIZER_FACTORY`` (a callable with no arguments) builds it; by default it is
``vision.recognizer.Recognizer.load(MODEL_DIR)``. Inference runs under a lock: the models are not
safe to call from two waitress threads at once, and on a small CPU running two at a time would
only make both slower.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from flask import Flask, current_app

if TYPE_CHECKING:
    from vision.describe import DetectJSON

_EXTENSION = "sushicam.recognizer"


class RecognizerUnavailable(RuntimeError):
    """No trained model could be loaded (HTTP 503: the request was fine, the server lacks it)."""


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recognizer: Any = None
        self.error: str | None = None


def default_factory(app: Flask):
    def load() -> Any:
        from vision.recognizer import Recognizer  # heavy (torch): only when first needed
        from vision.teach.models import active_model_dir  # a retrained version, once one is in use

        # the data folder's taught cards too (vision.exemplars): read from the next photo on
        return Recognizer.load(active_model_dir(app.config["DATA_DIR"], app.config["MODEL_DIR"]),
                               data_dir=app.config["DATA_DIR"])

    return load


def init_app(app: Flask) -> None:
    app.extensions[_EXTENSION] = _Slot()


def _slot() -> _Slot:
    return current_app.extensions[_EXTENSION]


def get_recognizer() -> Any:
    """The app's recogniser, loaded on first use; RecognizerUnavailable when there is none."""
    slot = _slot()
    with slot.lock:
        if slot.recognizer is None:
            factory = current_app.config.get("RECOGNIZER_FACTORY") or default_factory(current_app)
            try:
                slot.recognizer = factory()
            except (OSError, ValueError, ImportError, RuntimeError) as exc:
                current_app.logger.warning("card recogniser unavailable: %s", exc)
                raise RecognizerUnavailable(
                    f"the card recogniser could not be loaded from {current_app.config['MODEL_DIR']}: {exc}"
                ) from exc
        return slot.recognizer


@contextlib.contextmanager
def recognizer_in_use() -> Iterator[Any]:
    """The app's recogniser, held under its lock for the block: every inference (a photo read,
    a card found for teaching) goes through here, one at a time."""
    recognizer = get_recognizer()
    with _slot().lock:
        yield recognizer


def forget_recognizer() -> None:
    """Drop the loaded recogniser: the next photo loads the model now in use (after a retrain)."""
    slot = _slot()
    with slot.lock:
        slot.recognizer = None


def warm_up(app: Flask) -> threading.Thread:
    """Load the recogniser in the background, so the first photo of the evening is not slow."""

    def load() -> None:
        # a missing model is logged; capture says so and lets players mark cards by hand
        with app.app_context(), contextlib.suppress(RecognizerUnavailable):
            get_recognizer()

    thread = threading.Thread(target=load, name="load-recogniser", daemon=True)
    thread.start()
    return thread


def describe(
    pixels: np.ndarray, name: str, seats: int | Sequence[Sequence[float]] | None = None,
    edition: str | None = None, menu: Any = None,
) -> DetectJSON:
    """One ``sushicam detect`` line for a decoded photo.

    ``seats``: None (all cards together), a number of players to split the table between, or
    seat areas ``[x1, y1, x2, y2]`` as fractions of the photo (what vision.seats expects).
    ``edition`` and ``menu`` (the game's): cards are named only as faces of that deck, and
    a card seen outside it or beyond its counts carries a ``"flag"``.
    """
    from vision.deck import Deck, DeckError
    from vision.describe import describe_image

    recognizer = get_recognizer()
    if seats is not None and not isinstance(seats, int):
        seats = [list(area) for area in seats]
    deck = None
    if edition:
        try:
            deck = Deck.of(edition, menu if edition == "party" else None)
        except DeckError as exc:  # a stored game the deck cannot read: recognise unrestricted
            current_app.logger.warning("no deck check for this game: %s", exc)
    with _slot().lock:
        line = describe_image(recognizer, pixels, seats=seats, deck=deck)
    line["image"] = name
    return line
