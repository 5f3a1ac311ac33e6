"""The adapter to onnxruntime: runs the exported detector and classifier on the CPU.

Pre- and post-processing match what ultralytics trains with: the detector sees the photo
letterboxed (grey 114 padding, RGB, 0-1; to a square, or to the next multiples of 32 when its
graph takes any size), its output rows are
``cx, cy, w, h, score``; the classifier sees a square RGB crop (0-1) and returns
softmax probabilities.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from vision.boxes import areas, intersection_matrix, nms


class ModelFileError(FileNotFoundError):
    """A model file is missing or is not a model this code can run."""


def _session(path: Path, threads: int) -> ort.InferenceSession:
    if not path.exists():
        raise ModelFileError(f"model file not found: {path} (run `sushicam train`)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # the detector and the classifier run in turn on the same two cores: a session's threads
    # that spin on after its run, waiting for more, take the cores the other session's run
    # needs (a 1280x960 photo read in about 154 ms spinning, 92-99 ms not)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for a corrupt file
        raise ModelFileError(f"cannot load model {path}: {exc}") from exc


def _imgsz(session: ort.InferenceSession, default: int) -> int:
    """The square input size: fixed in the graph, else ultralytics' ``imgsz`` metadata."""
    shape = session.get_inputs()[0].shape
    if isinstance(shape[2], int):
        return int(shape[2])
    meta = session.get_modelmeta().custom_metadata_map
    if "imgsz" in meta:
        return int(ast.literal_eval(meta["imgsz"])[0])
    return default


def _names(session: ort.InferenceSession) -> list[str] | None:
    meta = session.get_modelmeta().custom_metadata_map
    if "names" not in meta:
        return None
    names = ast.literal_eval(meta["names"])
    return [names[i] for i in sorted(names)]


def halved(image: np.ndarray, scale: float) -> np.ndarray:
    """``image`` halved (pixel areas averaged) as often as it can be on its way to ``scale``
    of its size: the resize left to do then shrinks it by less than half.

    A 4032x3024 photo shrunk to the detector's input in one area-averaging resize takes
    about 19 ms on 2 cores; halved first (an exact factor of 2, OpenCV's fast path) 1.7 +
    7.6 ms, and the pixels differ by under 1 of 255 on average (0.2-0.6 on our renders). An
    odd last row or column is left out of a halving (less than a pixel of the photo).

    >>> halved(np.zeros((3024, 4032, 3), np.uint8), 0.3).shape
    (1512, 2016, 3)
    >>> halved(np.zeros((3024, 4032, 3), np.uint8), 0.2).shape
    (756, 1008, 3)
    >>> halved(np.zeros((101, 100, 3), np.uint8), 0.5).shape
    (50, 50, 3)
    >>> halved(np.zeros((100, 100, 3), np.uint8), 0.6).shape
    (100, 100, 3)
    """
    while scale <= 0.5 and min(image.shape[:2]) >= 2:
        h, w = image.shape[0] // 2, image.shape[1] // 2
        image = cv2.resize(image[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
        scale *= 2
    return image


def _overlap_suppression(xyxy: np.ndarray, scores: np.ndarray, share: float = 0.7,
                         size_ratio: float = 2.5) -> np.ndarray:
    """Indices kept after dropping a box that covers ``share`` of a similar-sized, better
    scored box. Two strips of one column only touch; the detector's duplicates of one strip
    overlap by half a strip, which IoU-based NMS (IoU about 1/3) lets through."""
    order = np.argsort(-scores)
    area = areas(xyxy)
    inter = intersection_matrix(xyxy, xyxy)
    kept: list[int] = []
    for i in order:
        duplicate = False
        for j in kept:
            smaller, larger = sorted((area[i], area[j]))
            if inter[i, j] > 0 and larger <= size_ratio * smaller and inter[i, j] >= share * smaller:
                duplicate = True
                break
        if not duplicate:
            kept.append(int(i))
    return np.sort(np.array(kept, int))


#: A detector's input sides are multiples of its largest stride.
STRIDE = 32


class OnnxDetector:
    """Finds card regions: ``(boxes xyxy float32 (N, 4), scores (N,))`` in photo pixels.

    A graph exported with free height and width (``dynamic``) is fed the photo scaled to
    ``imgsz`` on its long side and padded only to the next multiple of 32 (a 4:3 photo at
    832 is fed at 832x640, 23 % fewer pixels than the square); a fixed graph gets its square.
    ``imgsz`` overrides the size a dynamic graph is fed (live frames use a smaller one).
    """

    def __init__(self, path: Path, threads: int = 2, imgsz: int | None = None):
        self.session = _session(Path(path), threads)
        shape = self.session.get_inputs()[0].shape
        self.rectangular = not isinstance(shape[2], int)
        self.imgsz = imgsz if imgsz and self.rectangular else _imgsz(self.session, 416)
        self.input = self.session.get_inputs()[0].name

    def resized(self, imgsz: int) -> OnnxDetector:
        """This detector (the same loaded graph) fed at ``imgsz`` where its graph allows it."""
        other = copy.copy(self)
        if self.rectangular:
            other.imgsz = imgsz
        return other

    def letterbox(self, image: np.ndarray) -> tuple[np.ndarray, float, tuple[int, int]]:
        h, w = image.shape[:2]
        scale = self.imgsz / max(h, w)
        # at least a pixel each way: a 32x65000 strip is 0.4 pixels wide at 832 on its long side
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        resized = cv2.resize(halved(image, scale), (nw, nh), interpolation=cv2.INTER_AREA)
        if self.rectangular:
            cw, ch = -(-nw // STRIDE) * STRIDE, -(-nh // STRIDE) * STRIDE
        else:
            cw = ch = self.imgsz
        top, left = (ch - nh) // 2, (cw - nw) // 2
        canvas = np.full((ch, cw, 3), 114, np.uint8)
        canvas[top:top + nh, left:left + nw] = resized
        return canvas, scale, (left, top)

    def __call__(self, image: np.ndarray, conf: float = 0.25, iou: float = 0.5
                 ) -> tuple[np.ndarray, np.ndarray]:
        canvas, scale, (left, top) = self.letterbox(image)
        blob = cv2.dnn.blobFromImage(canvas, 1 / 255, swapRB=True)  # RGB, 0-1, (1, 3, h, w)
        out = self.session.run(None, {self.input: blob})[0][0]  # (4 + classes, anchors)
        scores = out[4:].max(0)
        keep = scores >= conf
        cxcywh, scores = out[:4, keep].T, scores[keep]
        xyxy = np.concatenate([cxcywh[:, :2] - cxcywh[:, 2:] / 2, cxcywh[:, :2] + cxcywh[:, 2:] / 2], 1)
        xyxy = (xyxy - [left, top, left, top]) / scale
        h, w = image.shape[:2]
        xyxy = np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32)
        if not len(xyxy):
            return xyxy.reshape(0, 4), scores.astype(np.float32)
        kept = nms(xyxy, scores, conf, iou)
        kept = kept[_overlap_suppression(xyxy[kept], scores[kept])]
        return xyxy[kept], scores[kept].astype(np.float32)


class OnnxClassifier:
    """Names square crops: ``probabilities (N, classes)`` for a batch of BGR crops.

    A graph with an ``embedding`` output (``vision.training.embedding``: the pooled features
    its last linear layer reads) also gives each crop's embedding (:meth:`embed`), from the
    same run; a graph without one reads as before and :attr:`embeds` is False.
    """

    def __init__(self, path: Path, threads: int = 2, embedding: str | None = "embedding"):
        self.session = _session(Path(path), threads)
        self.imgsz = _imgsz(self.session, 64)
        self.batched = not isinstance(self.session.get_inputs()[0].shape[0], int)
        self.input = self.session.get_inputs()[0].name
        self.names = _names(self.session)
        outputs = [o.name for o in self.session.get_outputs()]
        self.output = outputs[0]
        self.embedding = embedding if embedding in outputs[1:] else None

    @property
    def embeds(self) -> bool:
        return self.embedding is not None

    def _blob(self, crops: list[np.ndarray]) -> np.ndarray:
        return np.asarray(cv2.dnn.blobFromImages(  # RGB, 0-1, (N, 3, imgsz, imgsz), as the detector's
            [cv2.resize(c, (self.imgsz, self.imgsz), interpolation=cv2.INTER_AREA) for c in crops], 1 / 255,
            swapRB=True))

    def _run(self, names: list[str], blob: np.ndarray) -> list[np.ndarray]:
        if self.batched:
            return [np.asarray(output) for output in self.session.run(names, {self.input: blob})]
        runs = [self.session.run(names, {self.input: b[None]}) for b in blob]
        return [np.concatenate([r[i] for r in runs]) for i in range(len(names))]

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.names or [])), np.float32)
        return self._run([self.output], self._blob(crops))[0]

    def embed(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``(probabilities (N, classes), embeddings (N, D))`` of the crops, in one run."""
        if self.embedding is None:
            raise ValueError("this classifier has no embedding output (vision.training.embedding adds one)")
        if not crops:
            width = self.session.get_outputs()[1].shape[1]
            return (np.zeros((0, len(self.names or [])), np.float32),
                    np.zeros((0, width if isinstance(width, int) else 0), np.float32))
        probabilities, embeddings = self._run([self.output, self.embedding], self._blob(crops))
        return probabilities, embeddings
