"""Teach sushicam a card face from a photo: find the card, flatten it, keep it in the library.

A player photographs one card lying on a table. :func:`read_face` separates it from the table
with OpenCV's GrabCut (started from the whole photo, or from the trained detector's boxes when
that finds nothing), fits its four edges, and warps it flat and upright to the bundled faces' size
(``FACE_SIZE``, portrait). A photo with no card, with two cards, or too blurry to learn from is
refused with an error that says which and what to do.

The faces a player taught live in the data folder, one JPEG and one JSON sidecar each::

    <data>/faces/<slug>__<n>.jpg     the flat face, FACE_SIZE
    <data>/faces/<slug>__<n>.json    TaughtFace: where it came from, how sharp, its corners

:class:`FaceLibrary` lists them, adds and removes them, and hands them to the synthetic photo
generator as a :class:`~vision.faces.FaceSet` (see ``vision.teach.library`` and ``vision.teach.retrain``).

>>> Quad.parse("10,20 110,22 108,180 8,178")
Quad.parse('10,20 110,22 108,180 8,178')
>>> check_slug("gyoza")
'gyoza'
>>> check_slug("gyozza")
Traceback (most recent call last):
...
vision.teach.find.UnknownCardError: unknown card 'gyozza' (did you mean gyoza?); the card names are listed in spec/cards.md
"""

from __future__ import annotations

import difflib
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from scorer.cards import CARDS
from vision.faces import FACE_SIZE

#: Height / width of a card (the bundled faces are 336 x 523).
CARD_ASPECT = FACE_SIZE[1] / FACE_SIZE[0]
#: Side ratios a card seen through a phone camera still has (tilt stretches one side).
ASPECT_RANGE = (1.3, 1.85)
#: Side (pixels) of the working copy the card is searched in; corners are then exact to a
#: fraction of a percent of the photo, finer than the flat face needs.
WORK_SIDE = 480
#: Gradient (L*a*b* units per Sobel step) above which a point of a card's side is on an edge,
#: and the share of each side that must be: a quad crossing the table is no card.
EDGE_STRENGTH = 40.0
MIN_EDGE_SUPPORT = 0.3
#: The edge a card's outline still makes where its border has the colour of a plain table
#: (a cast of light on a grey table and the grey bottom band of a card): half of the above.
WEAK_EDGE_STRENGTH = EDGE_STRENGTH / 2
#: The shortest side (working pixels) of the rectangle GrabCut is started from, as for a
#: detector's box (:func:`_box_rect`).
MIN_GRABCUT_SIDE = 8
#: A card smaller than this share of the photo is not the card being taught (a coin, a die).
MIN_CARD_SHARE = 0.02
#: Below this :func:`sharpness`, the face is too blurry to teach (faces from composed photos
#: measure 40 and more, the same photos blurred by 3 pixels mostly under 25).
MIN_SHARPNESS = 30.0
#: Below this :func:`photo_sharpness`, a photo where no card was found is called blurry
#: instead (sharp photos of a card measure 20+, a 4-pixel blur 5 at most).
MIN_PHOTO_SHARPNESS = 4.5
#: The mean bottom band of the bundled faces (the conveyor belt and the text line every card
#: has), L*a*b* of six rows from 80 % of the height down. Which way up a flat face lies is the
#: way its bottom band looks more like this (right on all 37 Party faces, all 10 printed
#: originals and 64 of 65 faces cut from composed photos; the page's Turn button fixes the rest).
BOTTOM_BAND_LAB = np.array([
    [52.7, 13.7, 17.8], [48.3, 4.1, 6.1], [55.8, 2.4, 6.2],
    [63.7, 3.2, 10.2], [64.5, 3.7, 9.5], [64.4, 2.8, 7.3],
], np.float32)


#: ``boxes(image) -> (N, 4) xyxy`` of the card regions a trained detector sees.
CardBoxes = Callable[[np.ndarray], np.ndarray]


# --- errors -------------------------------------------------------------------------------


#: why a photo or a card name cannot be taught, for the app to word (the message is the command
#: line's English): a card name not in the catalogue, no photo, no card found, several cards,
#: a photo or a card too blurry, a good photo left out because enough sharper ones were given,
#: a face that could not be saved
TeachFault = Literal["unknown-card", "no-photo", "no-card", "several-cards", "blurry-photo", "blurry-card",
                     "not-kept", "not-saved", "no-face"]


class TeachError(ValueError):
    """A photo or a card name that cannot be taught: the message (English, what to do), the
    fault, and its facts (``cards`` seen, ``sharpness`` and the ``needed`` one, the card names
    ``near`` an unknown one, the photos ``kept``); ``photos``: when no photo of a batch could be
    taught, each photo's name and its own error."""

    fault: TeachFault = "no-card"

    def __init__(self, message: str, *, fault: TeachFault | None = None, cards: int = 0, sharpness: float = 0.0,
                 needed: float = 0.0, near: tuple[str, ...] = (), kept: int = 0, slug: str = "",
                 photos: tuple[tuple[str, TeachError], ...] = ()) -> None:
        super().__init__(message)
        if fault is not None:
            self.fault = fault
        self.cards, self.sharpness, self.needed, self.near, self.kept = cards, sharpness, needed, near, kept
        self.slug, self.photos = slug, photos


class UnknownCardError(TeachError):
    """The card name is not one of the catalogue's slugs."""

    fault: TeachFault = "unknown-card"


class NoCardFoundError(TeachError):
    """No card-shaped thing in the photo."""

    fault: TeachFault = "no-card"


class SeveralCardsError(TeachError):
    """More than one card in the photo: which one is being taught?"""

    fault: TeachFault = "several-cards"


class BlurryPhotoError(TeachError):
    """The card was found but its face is too blurry (or too small) to learn from."""

    fault: TeachFault = "blurry-card"


def check_slug(slug: str) -> str:
    """``slug`` if the catalogue has it, else :class:`UnknownCardError` with the nearest names."""
    if slug in CARDS:
        return slug
    near = difflib.get_close_matches(str(slug), list(CARDS), n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(near)}?)" if near else ""
    raise UnknownCardError(f"unknown card {slug!r}{hint}; the card names are listed in spec/cards.md",
                           slug=str(slug), near=tuple(near))


# --- geometry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Quad:
    """A card's four corners in photo pixels: top-left, top-right, bottom-right, bottom-left
    of the face as it stands upright. Text form ``"x,y x,y x,y x,y"``."""

    corners: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        if len(self.corners) != 4 or any(len(c) != 2 for c in self.corners):
            raise ValueError(f"a quad has four (x, y) corners, not {self.corners!r}")

    @classmethod
    def from_array(cls, points: np.ndarray) -> Quad:
        return cls(tuple((round(float(x), 1), round(float(y), 1)) for x, y in np.asarray(points).reshape(4, 2)))

    @classmethod
    def parse(cls, text: str) -> Quad:
        """The quad written by ``str(quad)``.

        >>> Quad.parse("0,0 1,0 1,2 0,2").corners[2]
        (1.0, 2.0)
        >>> Quad.parse("0,0 1,0")
        Traceback (most recent call last):
        ...
        ValueError: a quad is four 'x,y' corners separated by spaces, not '0,0 1,0'
        """
        try:
            corners = [tuple(float(v) for v in part.split(",")) for part in text.split()]
            if any(len(c) != 2 for c in corners):
                raise ValueError(text)
            return cls(tuple((c[0], c[1]) for c in corners))
        except ValueError:
            raise ValueError(f"a quad is four 'x,y' corners separated by spaces, not {text!r}") from None

    def array(self) -> np.ndarray:
        return np.array(self.corners, np.float32)

    def area(self) -> float:
        return float(cv2.contourArea(self.array()))

    def box(self) -> tuple[float, float, float, float]:
        """The axis-aligned box around the card (xyxy)."""
        points = self.array()
        x1, y1 = points.min(0)
        x2, y2 = points.max(0)
        return float(x1), float(y1), float(x2), float(y2)

    def __str__(self) -> str:
        return " ".join(f"{x:g},{y:g}" for x, y in self.corners)

    def __repr__(self) -> str:
        return f"Quad.parse({str(self)!r})"


def _side_ratio(points: np.ndarray) -> float:
    sides = [float(np.linalg.norm(points[i] - points[(i + 1) % 4])) for i in range(4)]
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return max(a, b) / max(min(a, b), 1e-6)


def card_shaped(quad: np.ndarray) -> bool:
    """Whether four corners can be a card seen through a phone: its sides' ratio, opposite
    sides of like length and corners near square (perspective bends them, not this much).

    >>> card_shaped(np.array([[0, 0], [100, 0], [100, 156], [0, 156]], np.float32))
    True
    >>> card_shaped(np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float32))
    False
    """
    sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
    if min(sides) < 1.0 or not ASPECT_RANGE[0] < _side_ratio(quad) < ASPECT_RANGE[1]:
        return False
    if max(sides[0], sides[2]) / min(sides[0], sides[2]) > 1.4 or max(sides[1], sides[3]) / min(sides[1], sides[3]) > 1.4:
        return False
    for i in range(4):
        a, b = quad[i - 1] - quad[i], quad[(i + 1) % 4] - quad[i]
        cosine = float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))
        if abs(cosine) > 0.5:  # a corner sharper than 60 or blunter than 120 degrees
            return False
    return True


def _rough_quad(hull: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex hull by polygon simplification (rounded corners are cut)."""
    perimeter = cv2.arcLength(hull, True)
    for eps in np.linspace(0.005, 0.08, 16):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            return poly.reshape(4, 2).astype(np.float32)
        if len(poly) < 4:
            return None
    return None


def _fit_edges(contour: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """Exact corners: a line through the outline's points along each side, crossed.

    The middle 76 % of each side only: a card's corners are rounded, so the outline near
    them is not on either edge line.
    """
    points = contour.reshape(-1, 2).astype(np.float32)
    lines = []
    for i in range(4):
        a, b = rough[i], rough[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / max(length, 1e-6)
        normal = np.array([-along[1], along[0]], np.float32)
        rel = points - a
        t, off = rel @ along, rel @ normal
        near = (t > 0.12 * length) & (t < 0.88 * length) & (np.abs(off) < 0.04 * length + 2)
        if near.sum() < 5:
            return rough
        vx, vy, x0, y0 = cv2.fitLine(points[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    corners = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        system = np.array([d1, -d2]).T
        if abs(np.linalg.det(system)) < 1e-6:
            return rough
        s = np.linalg.solve(system, p2 - p1)
        corners.append(p1 + s[0] * d1)
    fitted = np.array(corners, np.float32)
    # a wild intersection (nearly parallel neighbours) means the fit failed: keep the rough one
    if np.abs(fitted - rough).max() > 0.15 * math.sqrt(max(cv2.contourArea(rough), 1.0)):
        return rough
    return fitted


def _gradient(work: np.ndarray) -> np.ndarray:
    """Edge strength: the strongest of the L*, a*, b* gradients (a card may differ from the
    table in colour only)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(work, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    return np.max([cv2.magnitude(cv2.Sobel(lab[..., i], cv2.CV_32F, 1, 0),
                                 cv2.Sobel(lab[..., i], cv2.CV_32F, 0, 1)) for i in range(3)], axis=0)


def _edge_support(gradient: np.ndarray, quad: np.ndarray, strength: float = EDGE_STRENGTH) -> float:
    """The share of the weakest side that runs along an edge of the photo.

    A quad pulled off the card by something lying against it has a side crossing the table,
    where the photo has no edge: such a quad is dropped rather than taught.
    """
    weakest = 1.0
    along = np.linspace(0.1, 0.9, 40)[:, None]
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        direction = b - a
        normal = np.array([-direction[1], direction[0]]) / max(float(np.linalg.norm(direction)), 1e-6)
        strongest = np.zeros(len(along), np.float32)
        for offset in (-2, -1, 0, 1, 2):
            points = (a + along * direction + offset * normal).astype(np.float32)
            values = cv2.remap(gradient, points[None, :, 0], points[None, :, 1], cv2.INTER_LINEAR)[0]
            strongest = np.maximum(strongest, values)
        weakest = min(weakest, float((strongest > strength).mean()))
    return weakest


def _straight_runs(points: np.ndarray, rng: np.random.Generator, most: int = 8) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The longest straight runs of an outline, as lines ``(point, direction, support)``.

    Sequential RANSAC: the line through most outline points, those points taken out, again.
    """
    lines = []
    remaining = points.astype(np.float32)
    for _ in range(most):
        if len(remaining) < 24:
            break
        pairs = rng.integers(0, len(remaining), (160, 2))
        best_count, best = 0, None
        for i, j in pairs:
            d = remaining[j] - remaining[i]
            length = float(np.hypot(*d))
            if length < 8:
                continue
            normal = np.array([-d[1], d[0]], np.float32) / length
            inliers = np.abs((remaining - remaining[i]) @ normal) < 1.5
            count = int(inliers.sum())
            if count > best_count:
                best_count, best = count, inliers
        if best is None or best_count < 24:
            break
        vx, vy, x0, y0 = cv2.fitLine(remaining[best], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy]), best_count))
        remaining = remaining[~best]
    return lines


def _crossing(a: tuple[np.ndarray, np.ndarray, int], b: tuple[np.ndarray, np.ndarray, int]) -> np.ndarray | None:
    (p1, d1, _), (p2, d2, _) = a, b
    system = np.array([d1, -d2]).T
    if abs(np.linalg.det(system)) < 0.2:  # nearly parallel: they do not make a corner
        return None
    s = np.linalg.solve(system, p2 - p1)
    return p1 + s[0] * d1


def _on_outline(contour: np.ndarray, quad: np.ndarray) -> float:
    """The share of the quad's least-followed side that runs along the blob's outline."""
    share = 1.0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        near = [abs(cv2.pointPolygonTest(contour, (float(x), float(y)), True)) <= 3.0
                for x, y in a + np.linspace(0.1, 0.9, 20)[:, None] * (b - a)]
        share = min(share, float(np.mean(near)))
    return share


def _quad_from_sides(contour: np.ndarray, points: np.ndarray, mask: np.ndarray,
                     gradient: np.ndarray, min_area: float) -> np.ndarray | None:
    """A card whose outline is partly hidden by something lying against it.

    Its four sides are still the longest straight runs of the blob's outline: two pairs of
    near-parallel lines, the largest such quad the mask fills, whose every side the outline
    and the photo's edges follow for a good part (not lines crossing the card).
    """
    lines = _straight_runs(points, np.random.default_rng(0))
    best, best_area = None, 0.0
    for a, b, c, d in itertools.combinations(range(len(lines)), 4):
        for first, second in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            l1, l2 = lines[first[0]], lines[first[1]]
            l3, l4 = lines[second[0]], lines[second[1]]
            if abs(float(l1[1] @ l2[1])) < 0.94 or abs(float(l3[1] @ l4[1])) < 0.94:
                continue  # each pair must be near-parallel (within 20 degrees)
            corners = [_crossing(l1, l3), _crossing(l3, l2), _crossing(l2, l4), _crossing(l4, l1)]
            if any(c is None for c in corners):
                continue
            quad = np.array(corners, np.float32)
            area = abs(float(cv2.contourArea(quad)))
            if area < max(min_area, best_area) or not cv2.isContourConvex(quad.astype(np.int32)):
                continue
            if not card_shaped(quad):
                continue
            inside = np.zeros_like(mask)
            cv2.fillConvexPoly(inside, quad.astype(np.int32), 255)
            if np.count_nonzero(mask[inside > 0]) < 0.9 * max(int(np.count_nonzero(inside)), 1):
                continue
            if _edge_support(gradient, quad) < MIN_EDGE_SUPPORT or _on_outline(contour, quad) < 0.4:
                continue
            best, best_area = quad, area
    return best


def _card_quads(mask: np.ndarray, min_area: float, rect: tuple[int, int, int, int],
                gradient: np.ndarray, by_sides: int = 0,
                edge_strength: float = EDGE_STRENGTH) -> list[tuple[np.ndarray, float]]:
    """Card-shaped blobs of a foreground mask: (corners, area) each, largest first.

    The blob's hull gives the corners when the blob is the card alone; when something lies
    against the card, its longest straight sides do (tried on the ``by_sides`` largest blobs:
    it is the slow part). Outline along the edge of ``rect`` (where GrabCut looked) is not the
    card's: a card cut off there is not whole.
    """
    found = []
    rx, ry, rw, rh = rect
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contours = sorted(contours, key=cv2.contourArea, reverse=True)
    for rank, contour in enumerate(contours):
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        xy = contour.reshape(-1, 2)
        on_edge = ((xy[:, 0] <= rx + 1) | (xy[:, 1] <= ry + 1)
                   | (xy[:, 0] >= rx + rw - 2) | (xy[:, 1] >= ry + rh - 2))
        quad = None
        if on_edge.mean() <= 0.2 and (rough := _rough_quad(cv2.convexHull(contour))) is not None:
            fitted = _fit_edges(contour, rough)
            fill = area / max(cv2.contourArea(fitted), 1.0)
            if (card_shaped(fitted) and 0.88 < fill < 1.08
                    and _edge_support(gradient, fitted, edge_strength) >= MIN_EDGE_SUPPORT):
                quad = fitted
        if quad is None and rank < by_sides:
            quad = _quad_from_sides(contour, xy[~on_edge], mask, gradient, min_area)
        if quad is not None:
            found.append((quad, float(cv2.contourArea(quad))))
    found.sort(key=lambda q: -q[1])
    return found


def _grabcut_mask(image: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    """Foreground (255) of ``image`` for GrabCut started from ``rect``: outside is table."""
    cv2.setRNGSeed(0)  # GrabCut starts its colour models from a random k-means: same photo, same card
    mask = np.zeros(image.shape[:2], np.uint8)
    background = np.zeros((1, 65), np.float64)
    foreground = np.zeros((1, 65), np.float64)
    cv2.grabCut(image, mask, rect, background, foreground, 4, cv2.GC_INIT_WITH_RECT)
    fg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    return cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _quads_in(work: np.ndarray, rect: tuple[int, int, int, int], min_area: float,
              gradient: np.ndarray) -> list[np.ndarray]:
    """Cards inside ``rect`` of the working image, freed from what touches them.

    Something lying against the card (a hand, a die, a checked cloth of the same colour)
    joins its blob; opening the mask with growing kernels cuts such necks.
    """
    return _freed_quads(_grabcut_mask(work, rect), rect, min_area, gradient)


def _freed_quads(mask: np.ndarray, rect: tuple[int, int, int, int], min_area: float, gradient: np.ndarray,
                 edge_strength: float = EDGE_STRENGTH) -> list[np.ndarray]:
    """The card quads of a foreground mask, opened with growing kernels until some are found."""
    kept: list[tuple[np.ndarray, float]] = []
    for k in (1, 9, 19, 31, 45):
        opened = mask if k == 1 else cv2.morphologyEx(
            mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        for quad, area in _card_quads(opened, min_area, rect, gradient, by_sides=3 if k == 1 else 0,
                                      edge_strength=edge_strength):
            if not any(_overlap(quad, other) > 0.3 for other, _ in kept):
                kept.append((quad, area))
        if kept:
            break
    return [quad for quad, _ in sorted(kept, key=lambda q: -q[1])]


def _edge_mask(gradient: np.ndarray) -> np.ndarray:
    """Regions the photo's edges enclose (255): where a card's border matches a plain table in
    colour, GrabCut joins the two, but the card's outline is still an edge (weaker than
    :data:`EDGE_STRENGTH` there: :data:`WEAK_EDGE_STRENGTH`)."""
    edges = (gradient > WEAK_EDGE_STRENGTH).astype(np.uint8) * 255
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    outside = edges.copy()
    cv2.floodFill(outside, np.zeros((edges.shape[0] + 2, edges.shape[1] + 2), np.uint8), (0, 0), 255)
    return cv2.morphologyEx(cv2.bitwise_not(outside) | edges, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Area shared by two convex quads, as a share of the smaller."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(min(cv2.contourArea(a), cv2.contourArea(b)), 1.0)


def _box_rect(box: np.ndarray, width: int, height: int) -> tuple[int, int, int, int] | None:
    """GrabCut's starting rectangle around a detector box (a little larger), inside the image."""
    x1, y1, x2, y2 = box
    pad_x, pad_y = 0.08 * (x2 - x1) + 4, 0.08 * (y2 - y1) + 4
    rx1, ry1 = max(1, int(x1 - pad_x)), max(1, int(y1 - pad_y))
    rx2, ry2 = min(width - 1, int(x2 + pad_x)), min(height - 1, int(y2 + pad_y))
    if rx2 - rx1 < MIN_GRABCUT_SIDE or ry2 - ry1 < MIN_GRABCUT_SIDE:
        return None
    return rx1, ry1, rx2 - rx1, ry2 - ry1


def find_cards(image: np.ndarray, boxes: CardBoxes | None = None) -> tuple[list[Quad], str]:
    """Every card lying whole in the photo, largest first, as corner quads; and how found.

    GrabCut first separates the photo's middle from its border (the table), so the card must
    not touch the photo's edge. Where that finds no card, the regions the photo's edges
    enclose are tried (a card whose border is the table's colour); then, where a trained
    detector (``boxes``) is given, GrabCut starts again from each detected region. The corners are not yet in
    reading order (see :func:`rectify`).
    """
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("expected a colour photo (H, W, 3) in BGR order")
    h, w = image.shape[:2]
    scale = WORK_SIDE / max(h, w)
    work = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                      interpolation=cv2.INTER_AREA)
    wh, ww = work.shape[:2]
    min_area = MIN_CARD_SHARE * wh * ww
    gradient = _gradient(work)
    margin = max(2, int(0.01 * min(wh, ww)))
    if min(wh, ww) - 2 * margin < MIN_GRABCUT_SIDE:
        # a strip (a 32x65000 photo is 1x480 here) leaves GrabCut no rectangle, and no card
        # of MIN_CARD_SHARE of the photo fits in it
        return [], "grabcut"
    quads = _quads_in(work, (margin, margin, ww - 2 * margin, wh - 2 * margin), min_area, gradient)
    finder = "grabcut"
    if not quads:
        quads = _freed_quads(_edge_mask(gradient), (0, 0, ww, wh), min_area, gradient, WEAK_EDGE_STRENGTH)
        finder = "edges"
    if not quads and boxes is not None:
        finder = "detector"
        for box in np.asarray(boxes(image), np.float32).reshape(-1, 4) * scale:
            rect = _box_rect(box, ww, wh)
            if rect is None or rect[2] * rect[3] < min_area:
                continue
            found = _quads_in(work, rect, min_area, gradient)
            if found and not any(_overlap(found[0], q) > 0.3 for q in quads):
                quads.append(found[0])
    return [Quad.from_array(q / scale) for q in quads], finder


# --- the flat face ------------------------------------------------------------------------


def _clockwise_from_top_left(points: np.ndarray) -> np.ndarray:
    """Corners ordered clockwise (on screen) starting with the top-left one."""
    centre = points.mean(0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise on screen (y grows down)
    start = int(np.argmin(ordered.sum(1)))
    return np.roll(ordered, -start, axis=0)


def _bottom_band_distance(face: np.ndarray) -> float:
    h = face.shape[0]
    band = face[h - int(h * 0.2):]
    rows = cv2.resize(band, (1, len(BOTTOM_BAND_LAB)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(rows.astype(np.float32) / 255, cv2.COLOR_BGR2LAB)[:, 0]
    return float(np.abs(lab - BOTTOM_BAND_LAB).mean())


def upright(face: np.ndarray) -> np.ndarray:
    """The face turned the right way up: its bottom band (conveyor belt, text) at the bottom."""
    turned = cv2.rotate(face, cv2.ROTATE_180)
    return turned if _bottom_band_distance(turned) < _bottom_band_distance(face) else face


def rectify(image: np.ndarray, quad: Quad) -> tuple[np.ndarray, Quad]:
    """The card flat at ``FACE_SIZE``, portrait and upright; and its quad in reading order."""
    points = _clockwise_from_top_left(quad.array())
    if np.linalg.norm(points[1] - points[0]) > np.linalg.norm(points[3] - points[0]):
        points = np.roll(points, -1, axis=0)  # the card lies on its side: stand it up
    fw, fh = FACE_SIZE
    target = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    matrix = cv2.getPerspectiveTransform(points.astype(np.float32), target)
    face = cv2.warpPerspective(image, matrix, FACE_SIZE, flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)
    turned = upright(face)
    if turned is not face:
        points = np.roll(points, 2, axis=0)
    return turned, Quad.from_array(points)


def sharpness(face: np.ndarray) -> float:
    """Variance of the Laplacian of the grey face at half ``FACE_SIZE``: low means blurry.

    At half size the slight softness of any phone photo is gone, while a blur the eye calls
    blurry stays.
    """
    half = (FACE_SIZE[0] // 2, FACE_SIZE[1] // 2)
    grey = cv2.cvtColor(cv2.resize(face, half, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey.astype(np.float64), cv2.CV_64F).var())


def photo_sharpness(image: np.ndarray) -> float:
    """Variance of the Laplacian of the whole photo, shrunk to ``WORK_SIDE``."""
    h, w = image.shape[:2]
    scale = WORK_SIDE / max(h, w)
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float64)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def _cards_seen(image: np.ndarray, quads: Sequence[Quad], boxes: CardBoxes | None) -> int:
    """How many cards the photo shows: the quads found, and each card the detector sees whose
    centre lies in none of them (a whole table, where GrabCut found one card whole and the
    rest overlap: that photo is no photo of one card)."""
    if boxes is None:
        return len(quads)
    others = 0
    for x1, y1, x2, y2 in np.asarray(boxes(image), np.float32).reshape(-1, 4):
        centre = (float(x1 + x2) / 2, float(y1 + y2) / 2)
        if not any(cv2.pointPolygonTest(q.array().reshape(-1, 1, 2), centre, False) >= 0 for q in quads):
            others += 1
    return len(quads) + others


@dataclass(frozen=True)
class FoundFace:
    """The flat face read from a photo, where it was, and how sharp it is."""

    face: np.ndarray
    quad: Quad
    sharpness: float
    finder: str  # "grabcut", "edges" or "detector"


def _once(boxes: CardBoxes) -> CardBoxes:
    """``boxes`` run on the first photo asked, its answer given again after (the same photo)."""
    seen: list[np.ndarray] = []

    def first(photo: np.ndarray) -> np.ndarray:
        if not seen:
            seen.append(boxes(photo))
        return seen[0]

    return first


def read_face(image: np.ndarray, boxes: CardBoxes | None = None,
              min_sharpness: float = MIN_SHARPNESS) -> FoundFace:
    """The one card in ``image``, flat and upright; a :class:`TeachError` says why not."""
    if boxes is not None:  # asked twice (to find the card, to count the cards): run it once
        boxes = _once(boxes)
    quads, finder = find_cards(image, boxes)
    cards = _cards_seen(image, quads, boxes)
    if cards > 1:
        raise SeveralCardsError(f"this photo shows {cards} cards; photograph one card at a time", cards=cards)
    if not quads and photo_sharpness(image) < MIN_PHOTO_SHARPNESS:
        raise BlurryPhotoError(
            f"the photo is too blurry to find the card in it (sharpness {photo_sharpness(image):.1f}, "
            f"needs {MIN_PHOTO_SHARPNESS:g}): hold the phone still, in good light", fault="blurry-photo",
            sharpness=photo_sharpness(image), needed=MIN_PHOTO_SHARPNESS)
    if not quads:
        raise NoCardFoundError(
            "no card found in the photo: lay one card on a plain table that differs from its "
            "colour, with the whole card in the picture")
    face, quad = rectify(image, quads[0])
    score = sharpness(face)
    if score < min_sharpness:
        raise BlurryPhotoError(
            f"the card is too blurry to learn from (sharpness {score:.0f}, needs {min_sharpness:.0f}): "
            "hold the phone still, closer to the card, in good light", sharpness=score, needed=min_sharpness)
    return FoundFace(face, quad, score, finder)


def card_boxes(model_dir: Path):
    """The detector of the model in ``model_dir`` as a ``boxes(image)`` function, or None."""
    from vision.recognizer import Recognizer
    from vision.runtime import ModelFileError

    try:
        recognizer = Recognizer.load(model_dir)
    except (ModelFileError, OSError, ValueError, KeyError):
        return None
    return detector_boxes(recognizer)


def detector_boxes(recognizer) -> CardBoxes:
    """A recogniser's card detector as a ``boxes(image)`` function (regions it is fairly sure of)."""
    return lambda image: recognizer.detector(image, conf=0.4)[0]
