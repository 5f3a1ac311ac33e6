"""Reading a tableau: which card lies on which, and the game-record entries they make.

Players lay like cards in columns: each new card covers the one before it except its top
strip. In the player's orientation a *covered* card shows as a short strip (its box is
wide and flat) and the card covering it starts right below that strip. From the boxes
alone this module finds the columns, then reads stacks the way the rules mean them:

- a nigiri directly covering a wasabi is on it: ``["wasabi", "<nigiri>"]``;
- a special order directly covering a card copies it: ``["<card>", "special-order"]``;
- every other card is an entry of its own.

>>> from vision.detections import Detections
>>> strip, whole = [0, 0, 100, 40], [0, 38, 100, 190]
>>> d = Detections(np.array([strip, whole]), data={"label": np.array(["wasabi", "squid-nigiri"])})
>>> read_tableau(d)
[['wasabi', 'squid-nigiri']]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vision.detections import CARD_ID, ON, SEAT_ANGLE, Detections
from vision.faces import FACE_SIZE, NIGIRI

#: A region whose height is below this share of its width is a covered card's strip
#: (a whole card is about 1.56 times as tall as wide, 1.2 when foreshortened; a strip about 0.3-0.45).
STRIP_ASPECT = 1.0
CARD_ASPECT = FACE_SIZE[1] / FACE_SIZE[0]


def rotate_boxes(xyxy: np.ndarray, angle_deg: float) -> np.ndarray:
    """Boxes as seen in a seat's own frame (the photo turned back by the seat's turn).

    The boxes are axis-aligned boxes of turned cards: their centres turn exactly, and the
    card's own width and height are recovered from ``w = a|cos| + b|sin|``,
    ``h = a|sin| + b|cos|`` (near 45 degrees, where that has no stable answer, the turned
    box's bounding box is used). ``angle_deg`` is the seat's turn: 0 = bottom seat.

    >>> rotate_boxes(np.array([[0, 0, 4, 2]]), 180).tolist()
    [[-4.0, -2.0, 0.0, 0.0]]
    >>> rotate_boxes(np.array([[0, 0, 2, 4]]), 90).round(3).tolist()
    [[0.0, -2.0, 4.0, 0.0]]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    if angle_deg % 360 == 0:
        return xyxy.astype(np.float32)
    a = math.radians(-angle_deg)
    c, s = math.cos(a), math.sin(a)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    turned = centres @ np.array([[c, s], [-s, c]])
    w, h = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
    ac, as_ = abs(c), abs(s)
    det = ac * ac - as_ * as_
    if abs(det) > 0.3:
        width = np.maximum((ac * w - as_ * h) / det, 1.0)
        height = np.maximum((ac * h - as_ * w) / det, 1.0)
    else:
        width = ac * w + as_ * h
        height = as_ * w + ac * h
    half = np.stack([width, height], 1) / 2
    return (np.round(np.concatenate([turned - half, turned + half], 1), 6) + 0.0).astype(np.float32)


def card_width(xyxy: np.ndarray, angle_deg: float) -> float:
    """A card's width in pixels, from image boxes of cards turned by ``angle_deg``.

    A whole card's box measures ``w + h = (|cos| + |sin|) (W + H)`` at any turn, a
    well-conditioned sum; whole cards are the largest boxes (every column ends in one).

    >>> round(card_width(np.array([[0, 0, 100, 156], [0, 0, 100, 156], [0, 0, 100, 36]]), 0))
    100
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    a = math.radians(angle_deg)
    sums = (xyxy[:, 2] - xyxy[:, 0]) + (xyxy[:, 3] - xyxy[:, 1])
    return float(np.percentile(sums, 80) / ((abs(math.cos(a)) + abs(math.sin(a))) * (1 + CARD_ASPECT)))


def covering(xyxy: np.ndarray, exact: bool = True, card_w: float | None = None) -> np.ndarray:
    """For each box (in the seat's frame) the index of the box lying directly on it, or -1.

    The covering card lies just below in the same column: its centre is within 0.4 card
    widths sideways and 0.2 to 1.2 card widths further down (a whole card below a strip sits
    about 0.95 widths lower, a strip below a strip about 0.35; a card of the next row is at
    least 1.6 widths lower), or further down still with its top from 0.3 card widths above
    the strip's bottom to 0.35 below it (in a seat turned off a right angle a card's box,
    turned back into the seat's frame, is taller than the card, as a nigiri's on its
    wasabi can be). The closest such pairs are taken first, each card covers at
    most one other. With ``exact`` boxes (the seat is upright or at a right angle) a covered
    card must also look like a strip.
    """
    n = len(xyxy)
    result = np.full(n, -1, int)
    if n < 2:
        return result
    x1, y1, x2, y2 = np.asarray(xyxy, np.float64).T
    w, h = x2 - x1, y2 - y1
    card_w = card_w or float(np.median(w))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    candidates = []
    for i in range(n):
        if exact and h[i] >= STRIP_ASPECT * w[i]:
            continue
        for j in range(n):
            dx, dy = abs(cx[j] - cx[i]) / card_w, (cy[j] - cy[i]) / card_w
            # or the covering card starts where the strip ends (a tall box, in a seat turned
            # off a right angle, puts its centre further down than a card's length)
            edge = (y1[j] - y2[i]) / card_w
            if j != i and dx < 0.4 and (0.2 < dy < 1.2 or (dy > 0.2 and -0.3 < edge < 0.35)):
                candidates.append((min(dy, 1.0) + dx, i, j))
    used_i, used_j = set(), set()
    for _, i, j in sorted(candidates):
        if i not in used_i and j not in used_j:
            result[i] = j
            used_i.add(i)
            used_j.add(j)
    return result


def columns(xyxy: np.ndarray, exact: bool = True, card_w: float | None = None) -> list[list[int]]:
    """Indices grouped into columns (covered card first), columns ordered left to right,
    then top to bottom."""
    cover = covering(xyxy, exact, card_w)
    covered_by_someone = set(int(j) for j in cover if j >= 0)
    result = []
    for start in range(len(xyxy)):
        if start in covered_by_someone:
            continue
        chain, k = [start], start
        while cover[k] >= 0 and cover[k] not in chain:
            k = int(cover[k])
            chain.append(k)
        result.append(chain)
    result.sort(key=lambda chain: (round(float(xyxy[chain[0], 1]) / max(
        float(np.median(xyxy[:, 2] - xyxy[:, 0])), 1e-6) / 2), float(xyxy[chain[0], 0])))
    return result


def stack_groups(labels: list[str]) -> list[list[int]]:
    """The positions of one column's labels (covered cards first) grouped into game-record
    entries: a pair where a card lies on another in a stack, alone otherwise.

    >>> stack_groups(["tempura", "tempura", "special-order"])
    [[0], [1, 2]]
    >>> stack_groups(["wasabi", "egg-nigiri", "wasabi"])
    [[0, 1], [2]]
    """
    groups, k = [], 0
    while k < len(labels):
        here = labels[k]
        above = labels[k + 1] if k + 1 < len(labels) else None
        if above == "special-order" and here != "special-order" or here == "wasabi" and above in NIGIRI:
            groups.append([k, k + 1])
            k += 2
        else:
            groups.append([k])
            k += 1
    return groups


#: a tableau's entry, as game-record.md writes it: a card's slug, or a stack's slugs bottom first
TableauEntry = str | list[str]


def _entry(labels: list[str]) -> TableauEntry:
    return labels[0] if len(labels) == 1 else list(labels)


def entries_of_column(labels: list[str]) -> list[TableauEntry]:
    """Game-record entries of one column, its covered cards first.

    >>> entries_of_column(["tempura", "tempura", "special-order"])
    ['tempura', ['tempura', 'special-order']]
    >>> entries_of_column(["wasabi", "egg-nigiri", "wasabi"])
    [['wasabi', 'egg-nigiri'], 'wasabi']
    """
    return [_entry([labels[i] for i in group]) for group in stack_groups(labels)]


def _entry_groups(detections: Detections, angle: float | None) -> list[list[int]]:
    """Indices into ``detections`` grouped into the tableau's entries, in reading order."""
    if not len(detections):
        return []
    if angle is None:
        seat_angle = detections.data.get(SEAT_ANGLE)
        angle = float(seat_angle[0]) if seat_angle is not None else 0.0
    xyxy = rotate_boxes(detections.xyxy, angle)
    labels = detections.labels
    groups: list[list[int]] = []
    exact = abs(angle) % 90 < 3 or abs(angle) % 90 > 87
    # the card's width from the sum of whole cards' sides at any turn, not the boxes' widths
    # in the seat's frame: a tilted phone squashes a side seat's widths (the table's depth)
    # but not the steps along its columns
    width = card_width(detections.xyxy, angle)
    for chain in columns(xyxy, exact, width):
        groups.extend([chain[k] for k in group] for group in stack_groups([labels[i] for i in chain]))
    return groups


def read_tableau(detections: Detections, angle: float | None = None) -> list[TableauEntry]:
    """The tableau (game-record entries) that labelled ``detections`` of one seat show.

    ``angle`` is the seat's turn in degrees (0: the player sits at the bottom of the
    photo); left out, ``data["seat_angle"]`` is used when present, else 0.
    """
    labels = detections.labels
    return [_entry([labels[i] for i in group]) for group in _entry_groups(detections, angle)]


def link_stacks(detections: Detections, angle: float | None = None) -> Detections:
    """``detections`` of one seat with each card's ``data["card_id"]`` (kept when set, else
    its index) and ``data["on"]``: the ``card_id`` of the card it lies on in a stack of
    :func:`read_tableau`'s reading, -1 for none. The links are what the reading found, so a
    consumer need not match stacks back to cards by label and box.

    >>> strip, whole, other = [0, 0, 100, 40], [0, 38, 100, 190], [200, 0, 300, 156]
    >>> d = Detections(np.array([other, whole, strip]),
    ...                data={"label": np.array(["eel", "squid-nigiri", "wasabi"])})
    >>> linked = link_stacks(d.with_data(card_id=np.array([7, 8, 9])))
    >>> linked.data["card_id"].tolist(), linked.data["on"].tolist()
    ([7, 8, 9], [-1, 9, -1])
    """
    n = len(detections)
    ids = detections.data.get(CARD_ID)
    card_ids = np.arange(n) if ids is None else np.asarray(ids, np.int64)
    on = np.full(n, -1, np.int64)
    for group in _entry_groups(detections, angle):
        for below, above in zip(group, group[1:], strict=False):
            on[above] = card_ids[below]
    return detections.with_data(**{CARD_ID: card_ids, ON: on})


def canonical(tableau: Sequence[TableauEntry]) -> list[list[str]]:
    """A tableau in a fixed order, to compare two readings regardless of layout order.

    >>> canonical(["eel", ["wasabi", "egg-nigiri"], "eel"]) == canonical([["wasabi", "egg-nigiri"], "eel", "eel"])
    True
    """
    return sorted((list(e) if isinstance(e, list) else [e] for e in tableau), key=lambda e: (len(e), e))


def stacks_of(tableau: Sequence[TableauEntry]) -> list[list[str]]:
    """The stacks (list entries) of a tableau, sorted."""
    return sorted(list(e) for e in tableau if isinstance(e, list))
