"""Table tops and the room around them, drawn on the table plane with numpy and OpenCV.

Every texture is made for a given scale (``ppc``: pixels per centimetre) so wood grain, a
cloth's weave and felt fibres keep their real size whatever the camera.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SURFACES = ("wood", "cloth", "felt", "plain")


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Noise in 0-1 varying over about ``cells`` (rows, columns) blobs."""
    small = rng.random((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _cells(shape, ppc, size_cm) -> tuple[int, int]:
    return max(2, int(shape[0] / ppc / size_cm)), max(2, int(shape[1] / ppc / size_cm))


def wood(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    h, w = shape
    base = np.float32(rng.choice([[40, 75, 120], [30, 55, 95], [70, 110, 160], [25, 40, 60], [90, 140, 190]]))
    base = base * rng.uniform(0.85, 1.15)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    along = (xs * math.cos(angle) + ys * math.sin(angle)) / ppc
    across = (-xs * math.sin(angle) + ys * math.cos(angle)) / ppc
    warp = smooth_noise(rng, shape, _cells(shape, ppc, 20)) * rng.uniform(3, 8)
    grain = np.sin((across + warp) * 2 * math.pi / rng.uniform(0.4, 1.2)) * 0.5 + 0.5
    grain = 0.6 * grain + 0.4 * (np.sin((across + 1.7 * warp) * 2 * math.pi / rng.uniform(0.12, 0.3)) * 0.5 + 0.5)
    plank_w = rng.uniform(9, 22)
    plank = np.floor(across / plank_w)
    plank_tone = (np.sin(plank * 12.9898) * 43758.5453) % 1
    seam = (np.abs(across / plank_w - np.round(across / plank_w)) * plank_w < 0.08).astype(np.float32)
    fine = rng.normal(0, 1, shape).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), max(0.5, 0.05 * ppc))
    tone = 0.85 + 0.14 * grain ** 2 + 0.12 * plank_tone - 0.35 * seam + 0.05 * fine
    _ = along
    return base * tone[:, :, None]


def cloth(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    base = np.float32(rng.choice([[180, 180, 185], [60, 60, 150], [140, 90, 60], [200, 215, 225], [70, 120, 80]]))
    ys, xs = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    period = max(0.25 * ppc, 2.2)
    weave = (np.sin(xs * 2 * math.pi / period) * np.sin(ys * 2 * math.pi / period)) * 0.06
    folds = smooth_noise(rng, shape, _cells(shape, ppc, 25))
    folds = 0.85 + 0.25 * folds
    tone = folds + weave
    out = base * tone[:, :, None]
    if rng.random() < 0.4:  # a checked or striped tablecloth
        stripe = max(2.0, rng.uniform(2, 6) * ppc)
        pattern = ((xs // stripe + ys // stripe) % 2 if rng.random() < 0.5 else (xs // stripe) % 2).astype(np.float32)
        out = out * (1 - 0.25 * pattern[:, :, None])
    return out


def felt(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    base = np.float32(rng.choice([[50, 110, 30], [110, 60, 20], [30, 30, 120], [40, 40, 40]]))
    fibres = rng.normal(0, 1, shape).astype(np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), max(0.6, 0.03 * ppc)) * 0.08
    blotch = smooth_noise(rng, shape, _cells(shape, ppc, 12)) * 0.12
    return base * (0.92 + fibres + blotch)[:, :, None]


def plain(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    grey = rng.uniform(15, 150)
    base = np.float32(rng.choice([[grey, grey, grey], [grey * 0.6, grey * 0.8, grey], [grey * 0.9, grey, grey]]))
    smudge = smooth_noise(rng, shape, _cells(shape, ppc, 30)) * 0.12
    speck = rng.normal(0, 0.02, shape).astype(np.float32)
    return base * (0.94 + smudge + speck)[:, :, None] + 4


def surface(rng: np.random.Generator, kind: str, shape: tuple[int, int], ppc: float) -> np.ndarray:
    return {"wood": wood, "cloth": cloth, "felt": felt, "plain": plain}[kind](rng, shape, ppc).astype(np.float32)


def floor(rng: np.random.Generator, shape: tuple[int, int], ppc: float) -> np.ndarray:
    """What lies beyond the table's edge: a dark floor, far below and out of focus."""
    base = np.float32(rng.choice([[30, 35, 40], [60, 70, 80], [20, 25, 30], [50, 60, 90]]))
    return base * (0.8 + 0.3 * smooth_noise(rng, shape, _cells(shape, ppc, 60)))[:, :, None]
