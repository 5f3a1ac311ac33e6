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

import numpy as np

from vision.detections import Detections
from vision.faces import SLUGS
from vision.synth.dataset import CROP_SIZE, NOT_A_CARD, square_crop

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"


@dataclass(frozen=True)
class Recognizer:
    """The loaded models; ``detect(image_bgr)`` returns labelled ``Detections``.

    ``confidence`` of a detection is the detector's score times the classifier's. Regions
    the classifier names ``not-a-card`` (a cup, a hand, bare table) are dropped.
    """

    detector: object
    classifier: object
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
    def load(cls, model_dir: str | Path = DEFAULT_MODEL_DIR, threads: int = 2) -> Recognizer:
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
        if not self.live_imgsz or not hasattr(self.detector, "resized"):
            return self
        return dataclasses.replace(self, detector=self.detector.resized(self.live_imgsz))

    def detect(self, image_bgr: np.ndarray) -> Detections:
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected a colour image (H, W, 3) in BGR order")
        boxes, scores = self.detector(image_bgr, conf=self.region_threshold)
        labels, label_scores = self.name(image_bgr, boxes)
        return self.named_regions(boxes, scores, labels, label_scores)

    def name(self, image_bgr: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The classifier's name for each region of ``boxes`` and its probability."""
        if not len(boxes):
            return np.array([], dtype=object), np.zeros(0, np.float32)
        probabilities = self.classifier([square_crop(image_bgr, box, self.crop_size) for box in boxes])
        best = probabilities.argmax(1)
        return np.array([self.classes[i] for i in best]), probabilities[np.arange(len(best)), best]

    def named_regions(self, boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray,
                      label_scores: np.ndarray) -> Detections:
        """The cards among named regions: ``not-a-card`` dropped, and a detection kept when
        region score x name probability reaches ``min_confidence`` (a live reader that names
        only some regions itself goes through here too, so both keep the same cards)."""
        if not len(boxes):
            return Detections.empty()
        labels = np.asarray(labels)
        class_id = np.array([SLUGS.index(c) if c in SLUGS else -1 for c in labels])
        card = labels != NOT_A_CARD
        boxes, scores, labels, class_id, label_scores = (
            np.asarray(a)[card] for a in (boxes, scores, labels, class_id, label_scores))
        detections = Detections(
            xyxy=boxes,
            class_id=class_id,
            confidence=scores * label_scores,
            data={"label": labels, "region_score": scores, "label_score": label_scores},
        )
        return detections[detections.confidence >= self.min_confidence]
