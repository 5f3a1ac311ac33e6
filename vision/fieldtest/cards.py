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
