"""How each card lies turned in the photo, read from its pixels: the signed tilt its box
cannot give.

An axis-aligned box of a card turned by t measures the same as one turned by -t, so whose
card a box is, at the boundary between two tableaux turned opposite ways, is something the
boxes alone cannot tell (``vision.seats``). A card's edges can: the straight outline of a
card against the table is the strongest edge in its box, and it runs at t and t + 90 degrees.
Averaging the gradients' directions four times over (edges a right angle apart count alike)
gives t modulo 90, with its sign.
"""

from __future__ import annotations

import cv2
import numpy as np

#: the share of a box added round it, so that the card's outline lies inside what is read
MARGIN = 0.06
#: below this agreement of the gradients' directions (0: none, 1: every strong gradient one
#: way) a box's tilt is unknown
MIN_AGREEMENT = 0.1
#: boxes are read at most this many pixels on their long side (the outline stays straight)
READ_SIDE = 96


def card_tilts(image_bgr: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
    """Each box's card tilt in degrees, in [-45, 45): the angle of its outline's edges in the
    photo's own frame (x right, y down, angles as ``atan2(dy, dx)``), modulo 90; NaN where the
    box's edges agree on no direction (``MIN_AGREEMENT``).

    >>> photo = np.full((400, 400, 3), 40, np.uint8)
    >>> corners = cv2.boxPoints(((200.0, 200.0), (120.0, 190.0), 20.0)).astype(np.int32)
    >>> _ = cv2.fillPoly(photo, [corners], (230, 230, 230))
    >>> x, y, w, h = cv2.boundingRect(corners)
    >>> card_tilts(photo, np.array([[x, y, x + w, y + h], [0, 0, 60, 60]])).round().tolist()  # a card; bare table
    [19.0, nan]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    h, w = image_bgr.shape[:2]
    tilts = np.full(len(xyxy), np.nan)
    for i, (x1, y1, x2, y2) in enumerate(xyxy):
        pad = MARGIN * max(x2 - x1, y2 - y1)
        left, top = int(max(0, x1 - pad)), int(max(0, y1 - pad))
        right, bottom = int(min(w, x2 + pad)), int(min(h, y2 + pad))
        if right - left < 4 or bottom - top < 4:
            continue
        # each box shrunk and made grey alone: the whole photo's pixels are never all read
        crop = image_bgr[top:bottom, left:right]
        scale = READ_SIDE / max(crop.shape[:2])
        if scale < 1:
            crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        crop = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop).astype(np.float32)
        gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
        weight = gx * gx + gy * gy
        total = float(weight.sum())
        if total <= 0:
            continue
        angle = np.arctan2(gy, gx)
        c, s = float((weight * np.cos(4 * angle)).sum()), float((weight * np.sin(4 * angle)).sum())
        if np.hypot(c, s) / total < MIN_AGREEMENT:
            continue
        # a gradient runs across its edge: the same directions modulo 90
        tilts[i] = (np.degrees(np.arctan2(s, c) / 4) + 45) % 90 - 45
    return tilts
