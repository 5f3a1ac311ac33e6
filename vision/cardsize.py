"""A card's width and tilt from its axis-aligned box, and the whole card behind a box cut short.

A whole card of width ``W`` (height ``CARD_ASPECT * W``) turned by ``t`` in [0, 45] degrees
has a box with short side ``W (cos t + A sin t)`` and long side ``W (sin t + A cos t)``
(``A = CARD_ASPECT``). Their sum and difference give ``t`` and ``W`` back from one box:
``(short + long) / (long - short) * (A - 1) / (A + 1) = tan(45 + t)``. A box longer than a
card (``long > A short``: a strip of a column) has no such card.

Cards of one photo have one width, give or take the perspective: a box whose card would be
much narrower than the cards lying near it is not a whole card but a part of one.
"""

from __future__ import annotations

import math

import numpy as np

from vision.boxes import Box, intersection_matrix
from vision.stacks import CARD_ASPECT

#: a box read as a whole card narrower than this share of its neighbours' cards is a part of one
CUT_SHORT = 0.85
#: the part beyond one end of a box cut short is the rest of its card when it lies this many
#: times farther from the table's colour than the part beyond the other end
SIDE_LEAD = 1.5
#: a box up to this share longer than a straight card (a loose box, a little perspective) is
#: read as a straight card
LOOSE = 1.05
#: how many of the nearest boxes give a box's neighbours' card width (at least 2 are needed)
NEIGHBOURS = 6
#: a box whose end meets another box over this share of its width lies under or over it there:
#: its box is what shows of it, not a cut
TOUCHING = 0.25


def card_width_and_tilt(box: Box) -> tuple[float, float]:
    """The width and tilt (degrees, 0 to 45) of the whole card whose box ``box`` would be;
    NaN, NaN for a box longer than a card (``LOOSE``).

    >>> [round(v, 1) for v in card_width_and_tilt((0, 0, 100, 155.65))]  # straight
    [100.0, 0.0]
    >>> card = np.radians(20.0)
    >>> short, long = 100 * (np.cos(card) + CARD_ASPECT * np.sin(card)), 100 * (np.sin(card) + CARD_ASPECT * np.cos(card))
    >>> [round(v, 1) for v in card_width_and_tilt((0, 0, long, short))]  # turned, lying sideways
    [100.0, 20.0]
    >>> card_width_and_tilt((0, 0, 100, 30))  # a strip
    (nan, nan)
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    short, long = sorted((x2 - x1, y2 - y1))
    if short <= 0 or long > CARD_ASPECT * short * LOOSE:
        return math.nan, math.nan
    ratio = (short + long) * (CARD_ASPECT - 1) / max(long - short, 1e-9) / (CARD_ASPECT + 1)
    tilt = min(max(math.degrees(math.atan(ratio)) - 45.0, 0.0), 45.0)
    t = math.radians(tilt)
    return (short + long) / ((1 + CARD_ASPECT) * (math.cos(t) + math.sin(t))), tilt


def whole_height(width: float, box_width: float) -> float:
    """The box height of a standing card ``width`` wide whose box is ``box_width`` wide: the
    card turned just so far that its box is that wide (straight when narrower).

    >>> round(whole_height(100.0, 100.0), 1)
    155.7
    >>> card = np.radians(10.0)
    >>> round(whole_height(100.0, 100 * (np.cos(card) + CARD_ASPECT * np.sin(card))), 1)
    170.7
    """
    reach = math.hypot(1.0, CARD_ASPECT)
    share = min(max(box_width / width, 1.0), (1 + CARD_ASPECT) / math.sqrt(2)) / reach
    t = max(math.atan(CARD_ASPECT) - math.acos(min(share, 1.0)), 0.0)
    return width * (math.sin(t) + CARD_ASPECT * math.cos(t))


def whole_card_boxes(boxes: np.ndarray, image_shape: tuple[int, ...]) -> list[list[tuple[float, ...]]]:
    """For each of a photo's card ``boxes``, the boxes that may hold its whole card: the box
    itself, unless it stands taller than wide but its card would be narrower than the cards
    near it (``CUT_SHORT``) while no other box meets its top or bottom (``TOUCHING``: a card
    lying under another shows only a part, and that part is what is read of it); then the
    card's whole height, reaching up from the box's bottom and down from its top, each where
    it lies within the image. A box as wide as tall or wider (a strip of a column, a card
    lying sideways) is left as it is, as is a box with fewer than two cards near it.

    >>> cards = np.array([[0, 0, 100, 156], [300, 0, 400, 156], [0, 300, 100, 456], [300, 330, 400, 456]], float)
    >>> [[tuple(round(v) for v in b) for b in held] for held in whole_card_boxes(cards, (960, 1280, 3))][2:]
    [[(0, 300, 100, 456)], [(300, 300, 400, 456), (300, 330, 400, 486)]]
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    own = [[tuple(float(v) for v in box)] for box in boxes]
    sizes = np.array([card_width_and_tilt(box)[0] for box in boxes])
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    meets = _ends_met(boxes)
    for i, box in enumerate(boxes):
        x1, y1, x2, y2 = box
        if y2 - y1 <= x2 - x1 or not np.isfinite(sizes[i]) or meets[i]:
            continue
        others = np.flatnonzero(np.isfinite(sizes) & (np.arange(len(boxes)) != i))
        if len(others) < 2:
            continue
        near = others[np.argsort(np.hypot(*(centres[others] - centres[i]).T))[:NEIGHBOURS]]
        width = float(np.median(sizes[near]))
        if sizes[i] >= CUT_SHORT * width:
            continue
        whole = whole_height(width, x2 - x1)
        held = [b for b in ((x1, y2 - whole, x2, y2), (x1, y1, x2, y1 + whole)) if b[1] >= 0 and b[3] <= image_shape[0]]
        own[i] = [tuple(float(v) for v in b) for b in held] or own[i]
    return own


def card_side(image_bgr: np.ndarray, boxes: np.ndarray, box: Box, held: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """Of the two whole-card boxes of a box cut short (``held``, reaching up and reaching
    down), the one whose added part is not bare table: the table's colour is the median of
    the photo's pixels outside every box, and the card goes on where the pixels beyond the
    cut differ from it more (by ``SIDE_LEAD``); both where neither does."""
    if len(held) != 2:
        return held
    outside = np.ones(image_bgr.shape[:2], bool)
    for x1, y1, x2, y2 in np.asarray(boxes, np.int64).reshape(-1, 4):
        outside[max(y1, 0):max(y2, 0), max(x1, 0):max(x2, 0)] = False
    if not outside.any():
        return held
    table = np.median(image_bgr[outside].reshape(-1, 3), 0)
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    up, down = held
    bands = (image_bgr[int(up[1]):y1, x1:x2], image_bgr[y2:int(round(down[3])), x1:x2])
    away = [float(np.abs(band.reshape(-1, 3).astype(np.float32) - table).sum(1).mean()) if band.size else 0.0
            for band in bands]
    if max(away) < SIDE_LEAD * max(min(away), 1.0):
        return held
    return [held[int(np.argmax(away))]]


def _ends_met(boxes: np.ndarray) -> np.ndarray:
    """Whether another box overlaps each box's top or bottom end over ``TOUCHING`` of its width."""
    width = boxes[:, 2] - boxes[:, 0]
    band = 0.1 * (boxes[:, 3] - boxes[:, 1])
    ends = [np.stack([boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 1] + band], 1),
            np.stack([boxes[:, 0], boxes[:, 3] - band, boxes[:, 2], boxes[:, 3]], 1)]
    met = np.zeros(len(boxes), bool)
    for end in ends:
        inter = intersection_matrix(end, boxes)
        np.fill_diagonal(inter, 0.0)
        met |= (inter / np.maximum(band, 1e-9)[:, None] > TOUCHING * width[:, None]).any(1)
    return met
