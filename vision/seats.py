"""Splitting a whole-table photo into the seats' tableaux.

Seat 0 sits at the bottom of the photo and seats follow clockwise. Each tableau faces its
player, so every seat also gets its *turn*: 0 for a player at the bottom, 90 at the left, 180
across the table, 270 at the right; ``read_tableau`` reads a seat's columns in that frame.
The turn comes from the seat's own cards (their boxes' axis and the way their columns run),
so seats need not be evenly spaced: two players on one side of a rectangular table both
face that side.

Seat areas (what the web remembers) are given in normalised image coordinates, as a
rectangle ``[x1, y1, x2, y2]``, a polygon ``[[x, y], ...]`` or a dict ``{"polygon": ...,
"angle": deg}``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.boxes import coverage_matrix, gap_matrix
from vision.detections import Detections
from vision.faces import FACE_SIZE

CARD_ASPECT = FACE_SIZE[1] / FACE_SIZE[0]


class SeatAreaError(ValueError):
    """A seat area that is not a rectangle or polygon in normalised coordinates."""


def _tag(detections: Detections, seat: int, angle: float) -> Detections:
    n = len(detections)
    return detections.with_data(seat=np.full(n, seat), seat_angle=np.full(n, angle, np.float32))


def table_centre(detections: Detections) -> np.ndarray:
    """The middle of the box around every card: the table's centre."""
    return (detections.xyxy[:, :2].min(0) + detections.xyxy[:, 2:].max(0)) / 2


def tableau_clusters(xyxy: np.ndarray, k: int, gaps: np.ndarray | None = None) -> list[np.ndarray]:
    """``k`` groups of nearby cards: single linkage on box gaps (the minimum spanning tree
    cut at its ``k - 1`` widest gaps). A tableau's cards lie close together; the space
    between two players' tableaux is wider than any gap inside one."""
    n = len(xyxy)
    gaps = gap_matrix(xyxy, xyxy) if gaps is None else gaps
    parent = list(range(n))

    def root(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    groups = n
    for flat in np.argsort(gaps, axis=None):
        if groups == k:
            break
        a, b = divmod(int(flat), n)
        ra, rb = root(a), root(b)
        if a < b and ra != rb:
            parent[ra] = rb
            groups -= 1
    roots = np.array([root(a) for a in range(n)])
    return [np.flatnonzero(roots == r) for r in dict.fromkeys(roots.tolist())]


#: Boxes smaller than this share of the largest box near them (a whole card) are covered
#: cards' strips: a strip is about a fifth of a card
STRIP_AREA = 0.5
#: A box whose sides differ by less than this ratio shows no axis (a card turned near 45
#: degrees); a whole card is 1.56 times as tall as wide, a strip 2-3 times as wide as tall
SQUARE = 1.15
#: A tableau whose cards show no axis and that lies within this many degrees of a side of the
#: table faces that side
SNAP = 20.0
#: A tableau whose columns run within this many degrees of a right angle is read at that
#: angle (its boxes are exact there)
COLUMN_SNAP = 8.0
#: A group of cards has an axis when this share of its cards that show one agree on it
AXIS_AGREEMENT = 0.7


def strips(xyxy: np.ndarray) -> np.ndarray:
    """Which boxes are covered cards' strips: those much smaller than the largest box near
    them (every column ends in a whole card). Near, not the whole photo: a tilted phone
    shows the far side's cards at half the size of the near side's."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    area = (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1])
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    near = distance <= 3 * np.sqrt(area)[:, None]
    largest = np.where(near, area[None, :], 0).max(1)
    return area < STRIP_AREA * largest


def card_axes(xyxy: np.ndarray) -> np.ndarray:
    """Each card's axis from its box: 0 where the card stands up or down in the photo (its
    player sits at the bottom or the top), 1 where it lies sideways (left or right), -1 where
    the box cannot say (near-square: turned near 45 degrees). A whole card is long along its
    axis; a strip (``strips``) is long across it.

    >>> card_axes(np.array([[0, 0, 100, 156], [0, 0, 156, 100], [0, 0, 100, 35], [0, 0, 35, 100],
    ...                     [0, 0, 140, 150]])).tolist()
    [0, 1, 0, 1, -1]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    ratio = (xyxy[:, 3] - xyxy[:, 1]) / np.maximum(xyxy[:, 2] - xyxy[:, 0], 1e-6)
    tall = np.where(strips(xyxy), ratio < 1 / SQUARE, ratio > SQUARE)
    wide = np.where(strips(xyxy), ratio > SQUARE, ratio < 1 / SQUARE)
    return np.where(tall, 0, np.where(wide, 1, -1))


def column_turns(xyxy: np.ndarray, is_strip: np.ndarray) -> np.ndarray:
    """The turn each column of one tableau shows, in degrees: a column runs from its first
    card, away from its player, to its last, the whole card nearest its player, so the step
    from the strip a whole card covers to that card's centre points at the player. The
    centres of axis-aligned boxes turn exactly with the cards, so this holds at any turn.

    >>> column_turns(np.array([[0, 0, 100, 35], [0, 30, 100, 186]]), np.array([True, False])).round(1).tolist()
    [0.0]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    sides = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    strip_ids = np.flatnonzero(is_strip)
    turns = []
    for i in np.flatnonzero(~is_strip):
        if not len(strip_ids):
            break
        # the strip a card covers shares an edge with it: their boxes, widened a little, meet
        # along the strip's whole length; a neighbouring column's strip meets it at a corner
        pad = 0.1 * sides[i] * np.array([-1, -1, 1, 1])
        shared = coverage_matrix(xyxy[strip_ids] + pad, xyxy[i] + pad)[:, 0]
        best = int(shared.argmax())
        if shared[best] > 0.15:
            turns.append(_direction(centres[i] - centres[strip_ids[best]]))
    return np.array(turns)


def _mean_turn(turns: np.ndarray) -> float:
    radians = np.radians(turns)
    return math.degrees(math.atan2(np.sin(radians).mean(), np.cos(radians).mean())) % 360


def _direction(vector: np.ndarray) -> float:
    """The turn of a seat whose player sits in ``vector``'s direction from the table's centre
    (0: below it, 90: to its left, then on round)."""
    return (math.degrees(math.atan2(vector[1], vector[0])) - 90) % 360


def seat_turn(xyxy: np.ndarray, towards: np.ndarray | None, axes: np.ndarray | None = None,
              is_strip: np.ndarray | None = None) -> float:
    """The turn of one tableau (0: its player at the bottom of the photo, 90 at the left, 180
    at the top, 270 at the right) from its own cards: their boxes give the axis, the way
    their columns run gives the side; where no column says, the side of the table the
    tableau lies on (``towards``: from the table's centre to the tableau; None for a
    lone tableau, read upright). Cards turned near 45 degrees show no axis: then the
    direction from the centre is the turn (a round table's diagonal seats), or the side it
    lies within ``SNAP`` degrees of. ``axes`` and ``is_strip``: ``card_axes`` and ``strips``
    as measured on the whole photo (the tableau's own boxes when left out)."""
    axes = card_axes(xyxy) if axes is None else axes
    is_strip = strips(xyxy) if is_strip is None else is_strip
    columns = column_turns(xyxy, is_strip)
    if len(columns):
        # the turn most columns agree on (a stray pair with a neighbouring column's strip
        # points elsewhere)
        close = np.abs((columns[:, None] - columns[None, :] + 180) % 360 - 180) < 20
        agree = close[close.sum(1).argmax()]
        if agree.mean() > 0.5 or agree.sum() >= 3:
            return _square(_mean_turn(columns[agree]), COLUMN_SNAP)
    shown = axes[axes >= 0]
    if len(shown):
        axis = int(np.bincount(shown, minlength=2).argmax())
        if np.mean(shown == axis) >= AXIS_AGREEMENT:
            side = 1.0
            if towards is not None and towards[1 - axis] < 0:
                side = -1.0
            if axis == 0:
                return 0.0 if side > 0 else 180.0
            return 270.0 if side > 0 else 90.0
    if towards is None or not np.any(towards):
        return 0.0
    # a tableau is seldom centred on its player: near a side of the table, that side it is
    return _square(_direction(towards), SNAP)


def _square(turn: float, within: float) -> float:
    """``turn`` or the right angle it lies within ``within`` degrees of."""
    square = round(turn / 90) * 90 % 360
    return float(square) if abs((turn - square + 180) % 360 - 180) < within else float(turn)


def _facing_gaps(xyxy: np.ndarray) -> np.ndarray:
    """The gaps between boxes (``vision.boxes.gap_matrix``) widened between two cards that lie on different axes (the corner of a
    table, where two players' tableaux meet): by a card's width, so such neighbours part
    before two cards of one tableau do."""
    gaps = gap_matrix(xyxy, xyxy)
    axes = card_axes(xyxy)
    width = float(np.median(np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])))
    crossing = (axes[:, None] >= 0) & (axes[None, :] >= 0) & (axes[:, None] != axes[None, :])
    return gaps + crossing * width


def split_by_position(detections: Detections, n_seats: int) -> list[Detections]:
    """``n_seats`` groups of nearby cards (a corner between two tableaux facing different
    ways counts as a wide gap), each turned by its own cards (``seat_turn``), not by an
    assumed even spacing round the table: two players on one side of a rectangular table
    face the same way. Seats are numbered by their direction from the table's centre:
    seat 0 nearest the bottom, then clockwise."""
    if n_seats < 1:
        raise ValueError(f"the number of seats must be at least 1, not {n_seats}")
    if not len(detections):
        return [_tag(Detections.empty(), s, 0.0) for s in range(n_seats)]
    if n_seats == 1:
        return [_tag(detections, 0, seat_turn(detections.xyxy, None))]
    k = min(n_seats, len(detections))
    groups = tableau_clusters(detections.xyxy, k, _facing_gaps(detections.xyxy))
    centre = table_centre(detections)
    towards = [detections.centres[g].mean(0) - centre for g in groups]
    directions = [_direction(t) for t in towards]
    ordered = sorted(range(k), key=lambda g: directions[g])
    start = int(np.argmin([min(directions[g], 360 - directions[g]) for g in ordered]))
    ordered = ordered[start:] + ordered[:start]
    axes, is_strip = card_axes(detections.xyxy), strips(detections.xyxy)
    seats = [_tag(detections[groups[g]], s, seat_turn(detections.xyxy[groups[g]], towards[g], axes[groups[g]],
                                                      is_strip[groups[g]]))
             for s, g in enumerate(ordered)]
    seats += [_tag(Detections.empty(), s, 0.0) for s in range(k, n_seats)]
    return seats


def _polygon(area) -> tuple[np.ndarray, float | None]:
    angle = None
    if isinstance(area, dict):
        angle = area.get("angle")
        area = area.get("polygon", area.get("rect"))
    try:
        points = np.asarray(area, np.float32)
    except (TypeError, ValueError) as exc:
        raise SeatAreaError(f"seat area {area!r} is not a list of numbers") from exc
    if points.shape == (4,):
        x1, y1, x2, y2 = points
        points = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
        raise SeatAreaError(f"seat area {area!r} needs [x1, y1, x2, y2] or 3+ [x, y] points")
    if points.min() < -0.01 or points.max() > 1.01:
        raise SeatAreaError("seat areas are in normalised image coordinates (0 to 1)")
    return points, angle


def split_by_areas(detections: Detections, seat_areas, image_shape) -> list[Detections]:
    """Cards whose centre lies in each area; cards outside every area are left out."""
    h, w = image_shape[:2]
    polygons = [_polygon(a) for a in seat_areas]
    centres_all = np.array([p.mean(0) for p, _ in polygons])
    middle = centres_all.mean(0) if len(polygons) > 1 else np.array([0.5, 0.0])
    taken = np.zeros(len(detections), bool)
    seats = []
    for s, (points, angle) in enumerate(polygons):
        contour = (points * [w, h]).astype(np.float32).reshape(-1, 1, 2)
        inside = np.array([cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0
                           for x, y in detections.centres], bool).reshape(-1) & ~taken
        taken |= inside
        if angle is None:
            if len(polygons) == 1:
                angle = 0.0
            else:
                d = (points.mean(0) - middle) * [w, h]
                angle = round(((math.degrees(math.atan2(d[1], d[0])) - 90) % 360) / 90) * 90 % 360
        seats.append(_tag(detections[inside], s, float(angle)))
    return seats


def split_seats(detections: Detections, n_seats: int | None = None, seat_areas=None,
                image_shape=None) -> list[Detections]:
    """One ``Detections`` per seat (``data["seat"]``, ``data["seat_angle"]`` set).

    With ``seat_areas`` cards are assigned by area (``image_shape`` needed); otherwise by
    position around the table into ``n_seats`` (1 when left out).
    """
    if seat_areas is not None:
        if image_shape is None:
            raise ValueError("seat areas need the image shape")
        return split_by_areas(detections, seat_areas, image_shape)
    return split_by_position(detections, 1 if n_seats is None else int(n_seats))
