"""Box geometry, defined once: areas, intersections, IoU, containment, gaps, greedy matching.

Boxes are ``[x1, y1, x2, y2]`` in pixels. The ``*_matrix`` functions compare every box of
``a`` (N, 4) with every box of ``b`` (M, 4) and return (N, M) arrays; :func:`area`,
:func:`intersection` and :func:`iou` take two single boxes and return a float (plain
Python: the live turn reader calls them per card and frame, where numpy's per-call cost
would dominate). A box with ``x2 < x1`` or ``y2 < y1`` has no area.

Two 2x2 boxes side by side, sharing a 1x2 strip:

>>> a, b = [0, 0, 2, 2], [1, 0, 3, 2]
>>> area(a), intersection(a, b), round(iou(a, b), 3)
(4.0, 2.0, 0.333)
>>> iou_matrix([a], [b, [5, 5, 6, 6]]).round(3).tolist()
[[0.333, 0.0]]

A strip lying inside a whole card: IoU 0.5, but all of the strip is inside the card.

>>> card, strip = [0, 0, 10, 10], [0, 0, 10, 5]
>>> iou_matrix([card], [strip]).tolist(), containment_matrix([card], [strip]).tolist()
([[0.5]], [[1.0]])
>>> coverage_matrix([card, strip], [strip]).tolist()
[[0.5], [1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import ArrayLike

Box = Sequence[float] | np.ndarray


def _as_boxes(boxes: Box | Sequence[Box]) -> np.ndarray:
    return np.asarray(boxes, np.float64).reshape(-1, 4)


def area(box: Box) -> float:
    """The area of one box (0 for an empty or inverted one)."""
    return float(max(box[2] - box[0], 0) * max(box[3] - box[1], 0))


def intersection(a: Box, b: Box) -> float:
    """The area two boxes share."""
    return float(max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
                 * max(0.0, min(a[3], b[3]) - max(a[1], b[1])))


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (0 when both are empty)."""
    inter = intersection(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def areas(boxes: Box | Sequence[Box]) -> np.ndarray:
    """The area of each box, (N,).

    >>> areas([[0, 0, 2, 3], [5, 5, 4, 4]]).tolist()
    [6.0, 0.0]
    """
    xyxy = _as_boxes(boxes)
    return np.asarray(np.clip(xyxy[:, 2] - xyxy[:, 0], 0, None) * np.clip(xyxy[:, 3] - xyxy[:, 1], 0, None))


def intersection_matrix(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> np.ndarray:
    """The area every box of ``a`` shares with every box of ``b``, (N, M)."""
    a, b = _as_boxes(a), _as_boxes(b)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.asarray(np.clip(rb - lt, 0, None).prod(-1))


def _share(inter: np.ndarray, whole: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(inter > 0, inter / np.where(whole > 0, whole, 1.0), 0.0)


def iou_matrix(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> np.ndarray:
    """Pairwise intersection over union, (N, M)."""
    inter = intersection_matrix(a, b)
    return _share(inter, areas(a)[:, None] + areas(b)[None, :] - inter)


def containment_matrix(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> np.ndarray:
    """Pairwise intersection over the *smaller* box, (N, M): a card whose visible part
    shrank to a strip (another card now covers it) still contains all of that strip."""
    inter = intersection_matrix(a, b)
    return _share(inter, np.minimum(areas(a)[:, None], areas(b)[None, :]))


def coverage_matrix(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> np.ndarray:
    """The share of each box of ``a`` that each box of ``b`` covers, (N, M)."""
    inter = intersection_matrix(a, b)
    return _share(inter, np.broadcast_to(areas(a)[:, None], inter.shape))


def piece_mask(boxes: Box | Sequence[Box], labels: Sequence[str], inside: float, larger: float) -> np.ndarray:
    """Which of ``boxes`` are a piece of another box named the same: lying at least ``inside``
    of their area within it, that box at least ``larger`` times their area.

    >>> piece_mask([[0, 0, 60, 90], [5, 60, 55, 88], [0, 90, 60, 110]], ["eel", "eel", "eel"], 0.6, 1.5).tolist()
    [False, True, False]
    >>> piece_mask([[0, 0, 60, 90], [5, 60, 55, 88]], ["eel", "tofu"], 0.6, 1.5).tolist()
    [False, False]
    """
    boxes = _as_boxes(boxes)
    within = coverage_matrix(boxes, boxes)  # (piece, whole)
    np.fill_diagonal(within, 0.0)
    size = areas(boxes)
    names = np.asarray(labels, dtype=object)
    covered = (within >= inside) & (names[:, None] == names[None, :]) & (size[None, :] >= larger * size[:, None])
    return np.asarray(covered.any(1))


def speck_mask(boxes: Box | Sequence[Box], inside: float = 0.9, larger: float = 16.0) -> np.ndarray:
    """Which of ``boxes`` are specks on another box, whatever their names: lying at least
    ``inside`` of their area within a box ``larger`` times their area. Cards lie at most a
    few times smaller than their neighbours, however far; a box within a card a quarter its
    width and height is a mark on that card's art, no card.

    >>> card, strip, mark = [0, 0, 400, 600], [0, 600, 400, 700], [100, 50, 120, 70]
    >>> speck_mask([card, strip, mark]).tolist()
    [False, False, True]
    >>> speck_mask([card, [0, 0, 200, 300]]).tolist()  # a quarter of its area: kept
    [False, False]
    """
    boxes = _as_boxes(boxes)
    return piece_mask(boxes, [""] * len(boxes), inside, larger)  # a piece of any name


def overlaps(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> tuple[np.ndarray, np.ndarray]:
    """``(iou_matrix, containment_matrix)`` of ``a`` against ``b``, from one intersection.

    >>> iou_, inside = overlaps([[0, 0, 10, 10]], [[0, 0, 10, 5]])
    >>> float(iou_[0, 0]), float(inside[0, 0])
    (0.5, 1.0)
    """
    inter = intersection_matrix(a, b)
    area_a, area_b = areas(a)[:, None], areas(b)[None, :]
    return _share(inter, area_a + area_b - inter), _share(inter, np.minimum(area_a, area_b))


def gap_matrix(a: Box | Sequence[Box], b: Box | Sequence[Box]) -> np.ndarray:
    """Pairwise gap between boxes in pixels (0 where they touch or overlap), (N, M).

    >>> gap_matrix([[0, 0, 1, 1]], [[4, 5, 6, 6], [1, 0, 2, 1]]).tolist()
    [[5.0, 0.0]]
    """
    a, b = _as_boxes(a), _as_boxes(b)
    dx = np.maximum(0, np.maximum(b[None, :, 0] - a[:, None, 2], a[:, None, 0] - b[None, :, 2]))
    dy = np.maximum(0, np.maximum(b[None, :, 1] - a[:, None, 3], a[:, None, 1] - b[None, :, 3]))
    return np.asarray(np.hypot(dx, dy))


def column_neighbours(a: Box | Sequence[Box], b: Box | Sequence[Box], gap: float = 0.3,
                      align: float = 0.35) -> np.ndarray:
    """Whether each box of ``a``, a strip, lies as the next card of a column beside each box of
    ``b``, (N, M): within ``gap`` of ``b``'s short side of it, and in line with it across the
    strip's length (the centres within ``align`` of ``b``'s side along the strip). A column runs
    across its strips, whichever way its seat faces.

    >>> card, strip, beside = [0, 40, 100, 196], [2, 0, 98, 38], [110, 150, 206, 188]
    >>> column_neighbours([strip, beside], [card]).tolist()
    [[True], [False]]
    """
    a, b = _as_boxes(a), _as_boxes(b)
    gaps = gap_matrix(a, b)
    a_wh, b_wh = a[:, 2:] - a[:, :2], b[:, 2:] - b[:, :2]
    a_centre, b_centre = (a[:, :2] + a[:, 2:]) / 2, (b[:, :2] + b[:, 2:]) / 2
    along = (a_wh[:, 0] < a_wh[:, 1]).astype(int)  # the strip's long side: 0 = x, 1 = y
    rows = np.arange(len(a))
    offset = np.abs(a_centre[rows, along][:, None] - b_centre[:, along].T)  # (N, M)
    side = b_wh[:, along].T
    return np.asarray((gaps <= gap * b_wh.min(1)[None, :]) & (offset < align * side))


def greedy_matching(score: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Pairs ``(row, col)`` with ``score >= threshold``, taken best score first, each row
    and column at most once.

    Cards barely move between frames or readings, so the best-overlap-first choice is what an
    optimal (Hungarian) assignment would pick in practice, without needing scipy.

    >>> greedy_matching(np.array([[0.9, 0.5], [0.8, 0.1]]), 0.3)
    [(0, 0)]
    >>> greedy_matching(np.array([[0.9, 0.5], [0.8, 0.1]]), 0.5)
    [(0, 0)]
    >>> greedy_matching(np.array([[0.6, 0.5], [0.8, 0.1]]), 0.3)
    [(1, 0), (0, 1)]
    """
    pairs: list[tuple[int, int]] = []
    score = np.asarray(score)
    if score.size == 0:
        return pairs
    rows, cols = np.nonzero(score >= threshold)
    order = np.argsort(-score[rows, cols], kind="stable")
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    for k in order:
        r, c = int(rows[k]), int(cols[k])
        if r in used_rows or c in used_cols:
            continue
        used_rows.add(r)
        used_cols.add(c)
        pairs.append((r, c))
    return pairs


def nms(boxes: Box | Sequence[Box], scores: ArrayLike, conf: float, iou: float) -> np.ndarray:
    """The indices of ``boxes`` (xyxy) that OpenCV's non-maximum suppression keeps: scored at
    least ``conf``, none overlapping a better one by IoU above ``iou``; best first.

    >>> nms([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], [0.9, 0.8, 0.7], 0.25, 0.5).tolist()
    [0, 2]
    """
    xyxy = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(xyxy):
        return np.zeros(0, int)
    wh = xyxy[:, 2:] - xyxy[:, :2]
    return np.array(cv2.dnn.NMSBoxes(np.concatenate([xyxy[:, :2], wh], 1).tolist(),
                                     np.asarray(scores, np.float64).tolist(), conf, iou), int).reshape(-1)
