"""Fruit cards re-laid: the two fruit icons of a face cut out and set down again elsewhere.

A fruit card is told from the other five by its two icons alone (watermelon, pineapple,
orange), printed on a plain background above the card's art. Prints lay the icons out in
their own ways: a same-fruit pair side by side in one print and stacked in another. A
reader trained on one layout learns where the icons sit rather than which fruit they are,
so the fruit reader's training faces (``train-fruit-crops``) re-lay each pair: side by
side, stacked or diagonal, moved and resized, the background's hue turned and each icon
recoloured a little (:func:`relaid_face`).

The icons are found by segmentation of the face: in the top band of the card (above the
art, ``ICON_BAND`` of its height) every pixel far from the background's colour (the band's
median) belongs to an icon; the two largest connected parts are the icons, and a pair
printed touching (two stacked pineapples) is split at the narrowest point of its outline
along its long side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.faces import FaceSet, training_faces
from vision.recognizer import FRUIT_FAMILY

#: the six fruit faces, in ultralytics' class order (sorted folder names): the fruit
#: reader's outputs
FRUIT_FACES = tuple(sorted(FRUIT_FAMILY))
#: the share of a fruit face's height, from its top, that holds the two icons (the card's
#: art, a plate of fruit, starts below it)
ICON_BAND = 0.41
#: a pixel this far from the background's colour (sum of the three channels' differences)
#: is part of an icon
ICON_DISTANCE = 45
#: the layouts a re-laid pair is drawn in
LAYOUTS = ("side", "stacked", "diagonal", "original")


@dataclass(frozen=True)
class Icon:
    """One fruit icon cut out of a face: which fruit it is, its pixels, its mask (0-1) and
    where it lay on the face (``x1, y1, x2, y2`` pixels)."""

    fruit: str
    pixels: np.ndarray
    mask: np.ndarray
    box: tuple[int, int, int, int]


def fruits_of(slug: str) -> tuple[str, str]:
    """The two fruit of a fruit face, as its slug names them.

    >>> fruits_of("fruit-watermelon-orange")
    ('watermelon', 'orange')
    """
    parts = slug.split("-")
    if len(parts) != 3 or parts[0] != "fruit":
        raise ValueError(f"{slug!r} is not a fruit face")
    return parts[1], parts[2]


def slug_of(first: str, second: str) -> str:
    """The fruit face showing ``first`` and ``second``, in either order.

    >>> slug_of("orange", "pineapple")
    'fruit-pineapple-orange'
    """
    for slug in FRUIT_FACES:
        if sorted(fruits_of(slug)) == sorted((first, second)):
            return slug
    raise ValueError(f"no fruit face shows {first} and {second}")


def background_colour(face: np.ndarray) -> np.ndarray:
    """The plain background's colour behind a fruit face's icons (BGR, float): the median of
    the icon band, most of which is background."""
    band = face[:int(ICON_BAND * face.shape[0])]
    return np.median(band.reshape(-1, 3), 0).astype(np.float32)


def icon_mask(face: np.ndarray) -> np.ndarray:
    """Where the icons lie in a fruit face's icon band (uint8 0/1, the band's shape)."""
    band = face[:int(ICON_BAND * face.shape[0])].astype(np.float32)
    distance = np.abs(band - background_colour(face)).sum(2)
    mask = (distance > ICON_DISTANCE).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    # holes inside an icon (its highlights, close to the background's colour) are the icon's
    filled = mask.copy()
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 1, -1)
    return filled


def _split(part: np.ndarray) -> list[np.ndarray]:
    """One mask of two icons printed touching, split in two at its narrowest point along its
    long side (between 30 and 70 % of it)."""
    ys, xs = np.nonzero(part)
    x1, x2, y1, y2 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    axis = 0 if (y2 - y1) >= (x2 - x1) else 1  # 0: stacked, cut across rows
    profile = part.sum(1 - axis)[(y1, x1)[axis]:(y2, x2)[axis]]
    low, high = int(0.3 * len(profile)), int(0.7 * len(profile))
    cut = (y1, x1)[axis] + low + int(np.argmin(profile[low:high]))
    first, second = part.copy(), part.copy()
    if axis == 0:
        first[cut:], second[:cut] = 0, 0
    else:
        first[:, cut:], second[:, :cut] = 0, 0
    return [first, second]


def cut_icons(face: np.ndarray, slug: str) -> tuple[Icon, Icon]:
    """The two icons of fruit face ``slug``, first the one first in reading order (left, or
    top), each named by the slug's fruit in that order."""
    mask = icon_mask(face)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1
    parts = [(labels == i).astype(np.uint8) for i in order[:2]
             if stats[i, cv2.CC_STAT_AREA] >= 0.01 * mask.size]
    if len(parts) == 1:
        parts = _split(parts[0])
    if len(parts) != 2:
        raise ValueError(f"found {len(parts)} icons on the {slug} face, not two")
    centres = [np.argwhere(p).mean(0) for p in parts]  # (y, x)
    stacked = abs(centres[0][0] - centres[1][0]) > abs(centres[0][1] - centres[1][1])
    parts.sort(key=lambda p: np.argwhere(p).mean(0)[0 if stacked else 1])
    icons = []
    for fruit, part in zip(fruits_of(slug), parts, strict=True):
        ys, xs = np.nonzero(part)
        box = slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1)
        soft = cv2.GaussianBlur(part.astype(np.float32), (0, 0), 0.8)[box]
        icons.append(Icon(fruit, face[box].copy(), np.clip(soft * part[box].max(), 0, 1),
                          (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)))
    return icons[0], icons[1]


def icon_bank(faces: FaceSet) -> dict[str, tuple[Icon, ...]]:
    """Every fruit icon cut out of the fruit faces of ``faces``, by fruit (an orange from
    each face that shows one: four of each fruit)."""
    bank: dict[str, list[Icon]] = {}
    for slug in FRUIT_FACES:
        for face in faces.faces[slug]:
            for icon in cut_icons(face, slug):
                bank.setdefault(icon.fruit, []).append(icon)
    return {fruit: tuple(icons) for fruit, icons in bank.items()}


@lru_cache(maxsize=1)
def training_icons() -> dict[str, tuple[Icon, ...]]:
    """:func:`icon_bank` of the training faces, cut once."""
    return icon_bank(training_faces())


def blank_face(face: np.ndarray) -> np.ndarray:
    """A fruit face with its icons painted over by its background (float BGR)."""
    out = face.astype(np.float32)
    band = out[:int(ICON_BAND * face.shape[0])]
    under = cv2.dilate(icon_mask(face), np.ones((7, 7), np.uint8)) > 0
    band[under] = background_colour(face)
    return out


def _turn_hue(image: np.ndarray, degrees: float, saturation: float, value: float,
              where: np.ndarray | None = None) -> np.ndarray:
    """``image`` (uint8 BGR) with its hue turned, saturation and value scaled, at ``where``
    (a 0-1 float mask) or everywhere; uint8 BGR out."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 0] = (hsv[..., 0] + degrees / 2) % 180  # OpenCV's 8-bit hue runs 0-180
    hsv[..., 1] *= saturation
    hsv[..., 2] *= value
    turned = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    if where is None:
        return turned
    mixed = image * (1 - where[..., None]) + turned * where[..., None]
    return np.clip(mixed, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class _Blank:
    """A fruit face made ready for re-laying: the face, the face with its icons painted over
    (uint8) and where each shows the background's colour (0-1 masks)."""

    face: np.ndarray
    blank: np.ndarray
    face_paper: np.ndarray
    blank_paper: np.ndarray


def _paper(image: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Where ``image`` shows the background's ``colour`` (a softened 0-1 mask)."""
    near = np.abs(image.astype(np.float32) - colour).sum(2) < 40
    return cv2.GaussianBlur(near.astype(np.float32), (0, 0), 1.0)


@lru_cache(maxsize=64)
def _blank(slug: str, variant: int) -> _Blank:
    """:class:`_Blank` of the training faces' ``slug``, variant ``variant`` (made once)."""
    face = training_faces().faces[slug][variant]
    return _prepared(face)


def _prepared(face: np.ndarray) -> _Blank:
    colour = background_colour(face)
    blank = np.clip(blank_face(face), 0, 255).astype(np.uint8)
    return _Blank(face, blank, _paper(face, colour), _paper(blank, colour))


def _placements(rng: np.random.Generator, sizes: list[tuple[int, int]], layout: str,
                band: tuple[int, int]) -> list[tuple[int, int]]:
    """Top-left corners of two icons of ``sizes`` ((w, h) each) laid out as ``layout`` in a
    band ``(width, height)``: side by side, stacked, or diagonal, with a gap, moved as a whole
    within the band."""
    (w1, h1), (w2, h2) = sizes
    gap = rng.uniform(0.02, 0.12) * band[0]
    if layout == "side":
        offsets = [(0.0, rng.uniform(-0.15, 0.15) * h1), (w1 + gap, rng.uniform(-0.15, 0.15) * h1)]
    elif layout == "stacked":
        offsets = [(rng.uniform(-0.15, 0.15) * w1, 0.0), (rng.uniform(-0.15, 0.15) * w1, h1 + gap / 2)]
    else:  # diagonal, down to the right or to the left
        step = (w1 + gap) * rng.uniform(0.55, 0.9)
        offsets = [(0.0, 0.0), (step, h1 * rng.uniform(0.55, 0.9))]
        if rng.random() < 0.5:
            offsets = [(step, 0.0), (0.0, h1 * rng.uniform(0.55, 0.9))]
    left = min(o[0] for o in offsets)
    top = min(o[1] for o in offsets)
    right = max(o[0] + s[0] for o, s in zip(offsets, sizes, strict=True))
    bottom = max(o[1] + s[1] for o, s in zip(offsets, sizes, strict=True))
    room_x, room_y = band[0] - (right - left), band[1] - (bottom - top)
    # centred, give or take what room there is
    x0 = room_x / 2 + rng.uniform(-0.5, 0.5) * max(room_x, 0) - left
    y0 = room_y / 2 + rng.uniform(-0.5, 0.5) * max(room_y, 0) - top
    return [(int(round(x0 + ox)), int(round(y0 + oy))) for ox, oy in offsets]


def _paste(canvas: np.ndarray, icon: np.ndarray, mask: np.ndarray, at: tuple[int, int]) -> None:
    """``icon`` over ``canvas`` (float, in place) through ``mask``, its top-left at ``at``,
    clipped to the canvas."""
    x, y = at
    h, w = mask.shape
    x1, y1 = max(x, 0), max(y, 0)
    x2, y2 = min(x + w, canvas.shape[1]), min(y + h, canvas.shape[0])
    if x2 <= x1 or y2 <= y1:
        return
    a = mask[y1 - y:y2 - y, x1 - x:x2 - x, None]
    canvas[y1:y2, x1:x2] = canvas[y1:y2, x1:x2] * (1 - a) + icon[y1 - y:y2 - y, x1 - x:x2 - x] * a


def relaid_face(rng: np.random.Generator, slug: str, faces: FaceSet | None = None,
                layout: str | None = None, bank: dict[str, tuple[Icon, ...]] | None = None) -> np.ndarray:
    """Fruit face ``slug`` with its two icons re-laid (uint8 BGR, the face's size).

    The icons are drawn from the bank of every face's icons of those fruit; ``layout``
    (drawn when None) is ``side``, ``stacked``, ``diagonal`` or ``original`` (the face's own
    icons where they were); the pair's order is drawn too. Each icon is resized by 0.7-1.25
    (the pair alike, give or take 10 %) and recoloured a little; the background's hue is
    turned by -22 to 16 degrees (toward magenta or orange), over the whole card's background
    colour. ``bank``: the icons to draw from (default: those of ``faces``, or the training
    faces').
    """
    variant = int(rng.integers(len((faces or training_faces()).faces[slug])))
    prepared = _blank(slug, variant) if faces is None else _prepared(faces.faces[slug][variant])
    if faces is None:
        bank = bank or training_icons()
    layout = layout or str(rng.choice(LAYOUTS, p=[0.35, 0.3, 0.2, 0.15]))
    hue = (rng.uniform(-22, 16), rng.uniform(0.75, 1.2), rng.uniform(0.88, 1.05))
    if layout == "original":
        return _turn_hue(prepared.face, *hue, prepared.face_paper)
    # the background's hue turned first, then the icons laid on it
    card = _turn_hue(prepared.blank, *hue, prepared.blank_paper).astype(np.float32)
    bank = bank or icon_bank(faces or training_faces())
    first, second = fruits_of(slug)
    if rng.random() < 0.5:
        first, second = second, first
    icons = [bank[f][int(rng.integers(len(bank[f])))] for f in (first, second)]
    scale = rng.uniform(0.7, 1.25)
    sized = []
    for icon in icons:
        s = scale * rng.uniform(0.9, 1.1)
        size = (max(4, int(round(icon.mask.shape[1] * s))), max(4, int(round(icon.mask.shape[0] * s))))
        pixels = cv2.resize(icon.pixels, size, interpolation=cv2.INTER_AREA)
        mask = cv2.resize(icon.mask, size, interpolation=cv2.INTER_AREA)
        pixels = _turn_hue(pixels, rng.uniform(-8, 8), rng.uniform(0.85, 1.15), rng.uniform(0.9, 1.08))
        sized.append((pixels.astype(np.float32), mask))
    band = (card.shape[1], int(ICON_BAND * card.shape[0]) - 4)
    corners = _placements(rng, [(m.shape[1], m.shape[0]) for _, m in sized], layout, band)
    for (pixels, mask), at in zip(sized, corners, strict=True):
        _paste(card, pixels, mask, at)
    return np.clip(card, 0, 255).astype(np.uint8)


def relaid_faces(rng: np.random.Generator, variants: int, base: FaceSet | None = None) -> FaceSet:
    """``base`` (the training faces) with each fruit face replaced by ``variants`` re-laid
    versions of it (:func:`relaid_face`)."""
    bank = training_icons() if base is None else icon_bank(base)
    fruit = {slug: tuple(relaid_face(rng, slug, base, bank=bank) for _ in range(variants)) for slug in FRUIT_FACES}
    return FaceSet("relaid-fruit", fruit).merged_over(base or training_faces())


def card_view(rng: np.random.Generator, slug: str, size: int = 128, turns: float = 0.0) -> np.ndarray:
    """One re-laid fruit card of ``slug`` seen alone, as the reader is fed a region: printed
    its own way (``textures.print_style``), upright or upside down and turned up to 8
    degrees (or, for a share ``turns`` of views, turned to any angle, as the cards of a seat
    at the table's side or corner lie: the region's upright box then holds the card turned,
    and is stretched square), its box cut 8 % loose or tight on a table of any colour,
    40-220 px long in the photo, then half the time seen by a phone
    (``cropaug.camera_crop``). Square uint8 BGR, ``size`` on a side. The table crops of a
    recipe read fruit cards among others, many of them small, far or glared past reading;
    these views show the icons legibly in every layout."""
    from vision.synth import cropaug, textures

    face = textures.print_style(rng, relaid_face(rng, slug))
    h, w = face.shape[:2]
    turned = turns > 0 and rng.random() < turns
    pad = int((0.45 if turned else 0.25) * h)  # room for a card turned across its canvas
    table = rng.uniform(20, 235, 3)
    canvas = np.empty((h + 2 * pad, w + 2 * pad, 3), np.uint8)
    canvas[:] = table.astype(np.uint8)
    canvas[pad:pad + h, pad:pad + w] = face
    turn = rng.uniform(0, 360) if turned else rng.uniform(-8, 8) + (180 if rng.random() < 0.4 else 0)
    centre = (pad + w / 2, pad + h / 2)
    matrix = cv2.getRotationMatrix2D(centre, turn, 1.0)
    canvas = cv2.warpAffine(canvas, matrix, (canvas.shape[1], canvas.shape[0]), flags=cv2.INTER_LINEAR,
                            borderValue=tuple(float(v) for v in table))
    corners = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float64)
    moved = corners @ matrix[:, :2].T + matrix[:, 2]
    (x1, y1), (x2, y2) = moved.min(0), moved.max(0)
    jitter = rng.uniform(-0.08, 0.08, 4) * [x2 - x1, y2 - y1, x2 - x1, y2 - y1]
    box = (x1 + jitter[0], y1 + jitter[1], x2 + jitter[2], y2 + jitter[3])
    bx1, by1 = max(0, int(round(box[0]))), max(0, int(round(box[1])))
    bx2, by2 = min(canvas.shape[1], int(round(box[2]))), min(canvas.shape[0], int(round(box[3])))
    crop = cv2.resize(canvas[by1:by2, bx1:bx2], (size, size), interpolation=cv2.INTER_AREA)
    crop = cropaug.seen_small(crop, (bx2 - bx1, by2 - by1), rng.uniform(40, 220))
    if rng.random() < 0.5:
        return cropaug.camera_crop(rng, crop, (bx2 - bx1, by2 - by1))
    return textures.jpeg_pass(crop, int(rng.integers(50, 95)))
