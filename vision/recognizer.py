"""``Recognizer``: finds every card region in a photo and names it.

Two stages, loaded once: a one-class detector of *visible card regions* (a whole card, or
the top strip of a covered card) at low resolution, then a classifier that names each
region from its full-resolution crop. See ``models/README.md`` for why.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.detections import LABEL, LABEL_MARGIN, LABEL_SCORE, REGION_SCORE, Detections
from vision.paths import MODELS_DIR

#: Side of the square crops the classifier learns from (and is fed at run time).
CROP_SIZE = 96
#: The classifier's one class that is no card: cups, hands, pens and bare table the
#: detector took for a card. The recogniser drops regions it names so.
NOT_A_CARD = "not-a-card"


def square_crop(image: np.ndarray, box, size: int = CROP_SIZE) -> np.ndarray:
    """The box's pixels stretched to a square: what the classifier sees.

    Stretching (not centre-cropping) keeps a strip's corner icon in view.
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1 = max(0, min(x1, w - 1)), max(0, min(y1, h - 1))
    x2, y2 = max(x1 + 1, min(x2, w)), max(y1 + 1, min(y2, h))
    return cv2.resize(image[y1:y2, x1:x2], (size, size), interpolation=cv2.INTER_AREA)


class CardRecognizer(Protocol):
    """What reads a photo's cards, for every caller (``sushicam detect``, live play, teaching,
    the web app): :class:`Recognizer`, or a test double that scripts what it sees."""

    def detect(self, image_bgr: np.ndarray) -> Detections:
        """The card regions of a BGR photo, named (``data["label"]``), cards only."""
        ...


class RegionDetector(Protocol):
    """The first stage: every visible card region of a photo, ``(boxes xyxy (N, 4), scores (N,))``."""

    def __call__(self, image: np.ndarray, conf: float = ..., iou: float = ...
                 ) -> tuple[np.ndarray, np.ndarray]: ...


class RegionClassifier(Protocol):
    """The second stage: class probabilities (N, classes) for N square BGR crops."""

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray: ...


class TwoStageRecognizer(CardRecognizer, Protocol):
    """A :class:`CardRecognizer` whose two stages a caller may run itself (the live label cache
    re-reads only regions that changed): what :class:`Recognizer` offers."""

    @property
    def detector(self) -> RegionDetector: ...
    @property
    def classifier(self) -> RegionClassifier: ...
    @property
    def classes(self) -> tuple[str, ...]: ...
    @property
    def crop_size(self) -> int: ...
    @property
    def min_confidence(self) -> float: ...


@dataclass(frozen=True)
class Recognizer:
    """The loaded models; ``detect(image_bgr)`` returns labelled ``Detections``.

    ``confidence`` of a detection is the detector's score times the classifier's. Regions
    the classifier names ``not-a-card`` (a cup, a hand, bare table) are dropped.
    """

    detector: RegionDetector
    classifier: RegionClassifier
    classes: tuple[str, ...]
    crop_size: int = CROP_SIZE
    #: regions the detector scores below ``region_threshold`` are not classified; a
    #: detection is kept when detector score x classifier probability reaches
    #: ``min_confidence`` (0.3 gave the best card F1 on the training recipe's validation
    #: photos: 0.858 against 0.832 for the detector score alone at 0.25)
    region_threshold: float = 0.25
    min_confidence: float = 0.3
    #: the long side live frames are fed to the detector at (``meta.json``'s
    #: ``detector.live_imgsz``): a webcam's frames come 10 a second, a photo comes alone
    live_imgsz: int | None = None

    @classmethod
    def load(cls, model_dir: str | Path = MODELS_DIR, threads: int = 2) -> Recognizer:
        """The models of ``model_dir``; photos are fed to the detector at ``meta.json``'s
        ``detector.imgsz`` on their long side, live frames at ``detector.live_imgsz``."""
        from vision.runtime import ModelFileError, OnnxClassifier, OnnxDetector

        model_dir = Path(model_dir)
        meta_path = model_dir / "meta.json"
        if not meta_path.exists():
            raise ModelFileError(f"no meta.json in {model_dir}: not a sushicam model folder")
        meta = json.loads(meta_path.read_text())
        detector = OnnxDetector(model_dir / meta["detector"]["file"], threads, meta["detector"].get("imgsz"))
        classifier = OnnxClassifier(model_dir / meta["classifier"]["file"], threads)
        classes = tuple(classifier.names or meta["classes"])
        return cls(detector, classifier, classes, int(meta["classifier"].get("crop", CROP_SIZE)),
                   live_imgsz=meta["detector"].get("live_imgsz"))

    def for_live(self) -> Recognizer:
        """This recogniser with its detector fed at ``live_imgsz`` (itself when unset)."""
        resized = getattr(self.detector, "resized", None)  # an ONNX detector can be; a double not
        if not self.live_imgsz or resized is None:
            return self
        return dataclasses.replace(self, detector=resized(self.live_imgsz))

    def detect(self, image_bgr: np.ndarray) -> Detections:
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected a colour image (H, W, 3) in BGR order")
        boxes, scores = self.detector(image_bgr, conf=self.region_threshold)
        if not len(boxes):
            return Detections.empty()
        crops = [square_crop(image_bgr, box, self.crop_size) for box in boxes]
        probabilities = self.classifier(crops)
        best = probabilities.argmax(1)
        labels = np.array([self.classes[i] for i in best])
        label_scores = probabilities[np.arange(len(best)), best]
        # how far the best name leads the runner-up: a small lead is a guess between two
        margins = label_scores - np.sort(probabilities, 1)[:, -2] if probabilities.shape[1] > 1 else label_scores
        card = labels != NOT_A_CARD
        boxes, scores, labels, class_id, label_scores, margins = (
            a[card] for a in (boxes, scores, labels, best, label_scores, margins))
        detections = Detections(
            xyxy=boxes,
            class_id=class_id,  # the classifier's own output index: self.classes[class_id]
            confidence=scores * label_scores,
            data={LABEL: labels, REGION_SCORE: scores, LABEL_SCORE: label_scores,
                  LABEL_MARGIN: margins},
        )
        return detections[detections.confidence >= self.min_confidence]
