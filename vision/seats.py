"""Splitting a whole-table photo into the seats' tableaux.

Seat 0 sits at the bottom of the photo and seats follow clockwise. Each tableau faces its
player, so every seat also gets its *turn*: 0 for the bottom seat, 180 for the seat across
the table; ``read_tableau`` reads a seat's columns in that frame.

Seat areas (what the web remembers) are given in normalised image coordinates, as a
rectangle ``[x1, y1, x2, y2]``, a polygon ``[[x, y], ...]`` or a dict ``{"polygon": ...,
"angle": deg}``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.boxes import gap_matrix
from vision.detections import Detections


class SeatAreaError(ValueError):
    """A seat area that is not a rectangle or polygon in normalised coordinates."""


def _tag(detections: Detections, seat: int, angle: float) -> Detections:
    n = len(detections)
    return detections.with_data(seat=np.full(n, seat), seat_angle=np.full(n, angle, np.float32))


def table_centre(detections: Detections) -> np.ndarray:
    """The middle of the box around every card: the table's centre."""
    return (detections.xyxy[:, :2].min(0) + detections.xyxy[:, 2:].max(0)) / 2


def tableau_clusters(xyxy: np.ndarray, k: int) -> list[np.ndarray]:
    """``k`` groups of nearby cards: single linkage on box gaps (the minimum spanning tree
    cut at its ``k - 1`` widest gaps). A tableau's cards lie close together; the space
    between two players' tableaux is wider than any gap inside one."""
    n = len(xyxy)
    gaps = gap_matrix(xyxy, xyxy)
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


def split_by_position(detections: Detections, n_seats: int) -> list[Detections]:
    """``n_seats`` groups of nearby cards, numbered by their direction from the table's
    centre: seat 0 nearest the bottom, then clockwise."""
    if n_seats < 1:
        raise ValueError(f"the number of seats must be at least 1, not {n_seats}")
    if n_seats == 1 or not len(detections):
        return [_tag(detections, 0, 0.0)] + [_tag(Detections.empty(), s, 0.0) for s in range(1, n_seats)]
    k = min(n_seats, len(detections))
    groups = tableau_clusters(detections.xyxy, k)
    centre = table_centre(detections)
    directions = []
    for group in groups:
        mean = detections.centres[group].mean(0) - centre
        directions.append((math.degrees(math.atan2(mean[1], mean[0])) - 90) % 360)
    ordered = sorted(range(k), key=lambda g: directions[g])
    start = int(np.argmin([min(directions[g], 360 - directions[g]) for g in ordered]))
    ordered = ordered[start:] + ordered[:start]
    turns = [directions[g] for g in ordered]
    if k == n_seats:
        # players sit evenly around the table: fit one offset to all seats, which is far
        # steadier than each group's own direction (a seat's cards are seldom centred)
        residues = np.radians([turns[s] - s * 360 / k for s in range(k)])
        offset = math.degrees(math.atan2(np.sin(residues).mean(), np.cos(residues).mean()))
        if abs(offset) < 30:  # the photo is taken from seat 0: its tableau stands upright
            offset = 0.0
        turns = [(offset + s * 360 / k) % 360 for s in range(k)]
    seats = [_tag(detections[groups[g]], s, float(turns[s])) for s, g in enumerate(ordered)]
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
