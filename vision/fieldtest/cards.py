"""Card faces read straight from the shared card folder, and print styles applied to them.

Faces are kept at their own resolution (the scan's crops are about three times the digital
faces' size). Print styles are ones the training renderer never applies: a colour profile,
halftone screening, a gloss highlight, worn edges and corners, a plastic sleeve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.faces import PRINT_CROPS, PRINT_SHEET, default_cards_dir

#: Card shape: height over width of a Sushi Go Party card (56 x 87 mm).
CARD_W_CM = 5.6
CARD_H_CM = 8.7


@dataclass(frozen=True)
class FaceBank:
    """Every face image by slug: ``digital`` (Party faces) and ``printed`` (the scan's crops)."""

    digital: dict[str, tuple[np.ndarray, ...]]
    printed: dict[str, np.ndarray]

    def slugs(self) -> tuple[str, ...]:
        return tuple(sorted(s for s in self.digital if s != "card-back"))

    def face(self, rng: np.random.Generator, slug: str, printed_share: float) -> np.ndarray:
        if slug in self.printed and rng.random() < printed_share:
            return self.printed[slug]
        variants = self.digital[slug]
        return variants[int(rng.integers(len(variants)))]


@lru_cache(maxsize=2)
def load_faces(cards_dir: str | None = None) -> FaceBank:
    folder = Path(cards_dir) if cards_dir else default_cards_dir()
    digital: dict[str, list[np.ndarray]] = {}
    for path in sorted((folder / "party-digital").glob("*__*.jpg")):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            digital.setdefault(path.stem.split("__")[0], []).append(image)
    if not digital:
        raise FileNotFoundError(f"no card faces in {folder / 'party-digital'} (set SUSHICAM_CARDS)")
    sheet = cv2.imread(str(folder / PRINT_SHEET), cv2.IMREAD_COLOR)
    printed = {}
    if sheet is not None:
        for slug, x1, y1, x2, y2, rotation in PRINT_CROPS:
            crop = cv2.rotate(sheet[y1:y2, x1:x2], rotation)
            # trim the scanner's white margin a little: the crops are measured loosely
            h, w = crop.shape[:2]
            printed[slug] = np.ascontiguousarray(crop[int(0.01 * h):h - int(0.01 * h), int(0.01 * w):w - int(0.01 * w)])
    return FaceBank({k: tuple(v) for k, v in digital.items()}, printed)


# --- print styles ------------------------------------------------------------------------

PRINT_STYLES = ("plain", "profile", "halftone", "gloss", "worn", "sleeve")


def rounded_alpha(w: int, h: int, radius: float) -> np.ndarray:
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, int(radius))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return alpha


def _profile(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A printer's colour profile: a channel mix, a tone curve and a saturation change."""
    f = face.astype(np.float32) / 255
    mix = np.eye(3, dtype=np.float32) + rng.normal(0, 0.06, (3, 3)).astype(np.float32)
    mix /= mix.sum(1, keepdims=True)
    f = np.clip(f @ mix.T, 0, 1)
    f = f ** rng.uniform(0.75, 1.35)
    grey = f.mean(2, keepdims=True)
    f = grey + (f - grey) * rng.uniform(0.6, 1.4)
    f = f * rng.uniform(0.85, 1.0) + rng.uniform(0, 0.08)  # paper white and ink black
    return np.clip(f * 255, 0, 255).astype(np.uint8)


def _halftone(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """Screened printing: each ink laid as dots on its own rotated grid."""
    h, w = face.shape[:2]
    period = rng.uniform(2.6, 4.5) * max(w, h) / 523
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    out = np.empty_like(face, dtype=np.float32)
    for c, angle in enumerate((15, 75, 0)):
        a = math.radians(angle + rng.uniform(-3, 3))
        u = (xs * math.cos(a) + ys * math.sin(a)) * 2 * math.pi / period
        v = (-xs * math.sin(a) + ys * math.cos(a)) * 2 * math.pi / period
        screen = (np.cos(u) + np.cos(v)) / 4 + 0.5
        ink = 1 - face[:, :, c].astype(np.float32) / 255
        out[:, :, c] = np.where(ink > screen, 0.0, 1.0)
    out = cv2.GaussianBlur(out, (0, 0), 0.6 * period / 3)
    mixed = face.astype(np.float32) / 255 * 0.35 + out * 0.65
    return np.clip(mixed * 255, 0, 255).astype(np.uint8)


def _worn(rng: np.random.Generator, face: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Whitened edges and corners where the print has rubbed off, and a crease or two."""
    h, w = face.shape[:2]
    dist = cv2.distanceTransform((alpha > 0).astype(np.uint8), cv2.DIST_L2, 3)
    noise = cv2.resize(rng.random((8, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    width = (0.006 + 0.03 * noise ** 2) * w
    corners = np.zeros((h, w), np.float32)
    for cx, cy in ((0, 0), (w, 0), (0, h), (w, h)):
        yy, xx = np.ogrid[0:h, 0:w]
        corners = np.maximum(corners, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.06 * w) ** 2)))
    rub = np.clip((width - dist) / (width + 1e-3), 0, 1) + corners * rng.uniform(0.3, 0.8)
    rub = np.clip(rub * (0.5 + rng.random((h, w)).astype(np.float32)), 0, 1)[:, :, None]
    out = face.astype(np.float32) * (1 - rub) + np.array([215, 228, 235], np.float32) * rub
    for _ in range(int(rng.integers(0, 3))):
        p1 = (int(rng.integers(0, w)), 0)
        p2 = (int(rng.integers(0, w)), h)
        cv2.line(out, p1, p2, (235, 240, 240), max(1, w // 250), cv2.LINE_AA)
    return np.clip(out, 0, 255).astype(np.uint8)


def _gloss(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A glossy print's specular band: a soft bright streak across the card."""
    h, w = face.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, math.pi)
    d = (xs - w * rng.uniform(0.2, 0.8)) * math.cos(a) + (ys - h * rng.uniform(0.2, 0.8)) * math.sin(a)
    band = np.exp(-(d / (w * rng.uniform(0.05, 0.2))) ** 2) * rng.uniform(0.35, 0.8)
    out = face.astype(np.float32) + (255 - face.astype(np.float32)) * band[:, :, None]
    return out.clip(0, 255).astype(np.uint8)


def styled_face(rng: np.random.Generator, face: np.ndarray, style: str) -> tuple[np.ndarray, np.ndarray, float]:
    """``(image, alpha, grow)``: the face as printed in ``style``. ``grow`` is how much wider
    than the card the object is (a sleeve's clear rim), as a share of the card's width."""
    h, w = face.shape[:2]
    alpha = rounded_alpha(w, h, 0.045 * w)
    face = face.copy()
    # paper grain on every print
    grain = rng.normal(0, 3.0, face.shape[:2]).astype(np.float32)[:, :, None]
    face = np.clip(face.astype(np.float32) + grain, 0, 255).astype(np.uint8)
    if style == "profile":
        face = _profile(rng, face)
    elif style == "halftone":
        face = _halftone(rng, face)
    elif style == "gloss":
        face = _gloss(rng, face)
    elif style == "worn":
        face = _worn(rng, _profile(rng, face) if rng.random() < 0.5 else face, alpha)
    if style != "sleeve":
        return face, alpha, 0.0
    # a sleeve: a clear rim around the card, a faint sheen, a darker seam at the edge
    rim = int(round(0.035 * w))
    big = cv2.copyMakeBorder(face, rim, rim, rim, rim, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    big_alpha = rounded_alpha(w + 2 * rim, h + 2 * rim, 0.06 * w)
    inner = cv2.copyMakeBorder(alpha, rim, rim, rim, rim, cv2.BORDER_CONSTANT, value=0)
    tint = np.float32(rng.uniform(170, 230, 3))
    body = big.astype(np.float32)
    clear = (inner == 0)[:, :, None]
    body = np.where(clear, tint, body * 0.93 + 255 * 0.07)
    cv2.rectangle(body, (rim - 1, rim - 1), (w + rim, h + rim), (60, 60, 60), max(1, w // 300))
    body = _gloss(rng, body.clip(0, 255).astype(np.uint8))
    return body, big_alpha, 2 * rim / w


# --- fruit prints ------------------------------------------------------------------------
# Prints lay a fruit card's two icons out in their own ways: the Party faces stack a
# same-fruit pair and set a mixed pair side by side, another print sets every pair side by
# side. A fruit print here moves the faces' icons to another layout, so the field sets can
# show what a reader learnt of where the icons sit.

#: the two icon rectangles of each fruit face, ``(x1, y1, x2, y2)`` as shares of the face's
#: width and height, measured once on the 336x523 Party faces (first icon first: the top
#: one of a stacked pair, the left one of a pair side by side)
FRUIT_ICON_BOXES: dict[str, tuple[tuple[float, float, float, float], tuple[float, float, float, float]]] = {
    "fruit-orange-orange": ((208 / 336, 44 / 523, 309 / 336, 104 / 523), (208 / 336, 104 / 523, 309 / 336, 168 / 523)),
    "fruit-pineapple-pineapple": ((137 / 336, 21 / 523, 205 / 336, 116 / 523),
                                  (137 / 336, 116 / 523, 205 / 336, 214 / 523)),
    "fruit-watermelon-watermelon": ((31 / 336, 34 / 523, 141 / 336, 100 / 523),
                                    (31 / 336, 100 / 523, 141 / 336, 168 / 523)),
    "fruit-pineapple-orange": ((147 / 336, 22 / 523, 206 / 336, 106 / 523), (216 / 336, 43 / 523, 317 / 336, 102 / 523)),
    "fruit-watermelon-orange": ((20 / 336, 39 / 523, 129 / 336, 103 / 523), (215 / 336, 42 / 523, 316 / 336, 100 / 523)),
    "fruit-watermelon-pineapple": ((19 / 336, 39 / 523, 129 / 336, 102 / 523),
                                   (136 / 336, 19 / 523, 194 / 336, 103 / 523)),
}
#: a fruit print: ``faces`` (the faces' own layout), ``side-by-side`` (every pair side by
#: side, a mixed pair in the other order) or ``stacked`` (every pair stacked)
FRUIT_PRINTS = ("faces", "side-by-side", "stacked")


def fruit_layout(slug: str, fruit_print: str) -> str:
    """How a fruit card's two icons lie in ``fruit_print``: ``side`` or ``stacked``.

    >>> fruit_layout("fruit-orange-orange", "faces"), fruit_layout("fruit-orange-orange", "side-by-side")
    ('stacked', 'side')
    """
    if fruit_print == "faces":
        a, b = slug.split("-")[1:3]
        return "stacked" if a == b else "side"
    return "side" if fruit_print == "side-by-side" else "stacked"


def _icon_cut(face: np.ndarray, box: tuple[float, float, float, float], paper: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """The pixels, the alpha (0-1: how far each pixel's colour lies from the card's
    ``paper``) and the pixel rectangle of one icon of ``face``."""
    h, w = face.shape[:2]
    x1, y1, x2, y2 = int(box[0] * w), int(box[1] * h), int(math.ceil(box[2] * w)), int(math.ceil(box[3] * h))
    pixels = face[y1:y2, x1:x2].astype(np.float32)
    far = np.linalg.norm(pixels - paper, axis=2)
    alpha = np.clip((far - 18.0) / 22.0, 0, 1)
    alpha = cv2.dilate(cv2.erode(alpha, np.ones((3, 3), np.uint8)), np.ones((3, 3), np.uint8))
    return pixels, alpha, (x1, y1, x2, y2)


def fruit_print_face(rng: np.random.Generator, face: np.ndarray, slug: str, fruit_print: str) -> np.ndarray:
    """``face`` of fruit card ``slug`` with its icons laid out as ``fruit_print`` lays them:
    each icon cut from its rectangle, the rectangles filled with the card's paper colour (read
    in the face's top-left corner), and the two icons set down side by side or stacked
    round the middle of the two rectangles, with a small gap drawn from ``rng``. A face
    already laid out so (or of another size than the Party faces') is returned as it is."""
    if slug not in FRUIT_ICON_BOXES or fruit_print == "faces":
        return face
    want = fruit_layout(slug, fruit_print)
    if want == fruit_layout(slug, "faces") and want == "stacked":
        return face
    paper = np.median(face[4:16, 24:60].reshape(-1, 3).astype(np.float32), 0)
    icons = [_icon_cut(face, box, paper) for box in FRUIT_ICON_BOXES[slug]]
    out = face.astype(np.float32)
    for _, _, (x1, y1, x2, y2) in icons:
        out[y1:y2, x1:x2] = paper + rng.normal(0, 1.5, (y2 - y1, x2 - x1, 3))
    if want == "side":
        icons = icons[::-1] if fruit_layout(slug, "faces") == "side" else icons  # a mixed pair swapped
    lefts = [r[0] for _, _, r in icons]
    tops = [r[1] for _, _, r in icons]
    rights = [r[2] for _, _, r in icons]
    bottoms = [r[3] for _, _, r in icons]
    cx, cy = (min(lefts) + max(rights)) / 2, (min(tops) + max(bottoms)) / 2
    sizes = [(r[2] - r[0], r[3] - r[1]) for _, _, r in icons]
    gap = rng.uniform(0.01, 0.05) * face.shape[1]
    if want == "side":
        total = sizes[0][0] + sizes[1][0] + gap
        x0 = int(np.clip(cx - total / 2, 2, face.shape[1] - total - 2))
        spots = [(x0, int(cy - sizes[0][1] / 2)), (int(x0 + sizes[0][0] + gap), int(cy - sizes[1][1] / 2))]
    else:
        total = sizes[0][1] + sizes[1][1] + gap / 2
        y0 = int(max(cy - total / 2, 2))
        spots = [(int(cx - sizes[0][0] / 2), y0), (int(cx - sizes[1][0] / 2), int(y0 + sizes[0][1] + gap / 2))]
    for (pixels, alpha, _), (x, y) in zip(icons, spots, strict=True):
        h, w = alpha.shape
        x, y = int(np.clip(x, 0, face.shape[1] - w)), int(np.clip(y, 0, face.shape[0] - h))
        region = out[y:y + h, x:x + w]
        region[:] = region * (1 - alpha[..., None]) + pixels * alpha[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)
