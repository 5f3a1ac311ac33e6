"""sushicam vision: reading Sushi Go cards from photos.

The public core, importable from here (loaded on first use, so that ``import vision.paths`` or
a command that never reads a photo does not load OpenCV or onnxruntime)::

    from vision import Detections, Recognizer, describe_image, read_tableau, split_seats

See docs/ARCHITECTURE.md for the layout (core, synth, training, live, teach) and import rules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.describe import describe_image
    from vision.detections import Detections
    from vision.recognizer import CardRecognizer, Recognizer
    from vision.seats import split_seats
    from vision.stacks import link_stacks, read_tableau

_EXPORTS = {
    "CardRecognizer": "vision.recognizer",
    "Detections": "vision.detections",
    "Recognizer": "vision.recognizer",
    "describe_image": "vision.describe",
    "link_stacks": "vision.stacks",
    "read_tableau": "vision.stacks",
    "split_seats": "vision.seats",
}
__all__ = ["CardRecognizer", "Detections", "Recognizer", "describe_image", "link_stacks",
           "read_tableau", "split_seats"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
