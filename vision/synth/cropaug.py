"""What a phone does to one card's crop, applied where the classifier's crops are written.

The photo renderer already lights, blurs and compresses whole photos; a phone's crops are
harder than those: a card 30-60 px tall read from a handful of pixels, a warm or cold white
balance far off neutral, a glossy card or sleeve throwing a white glare across its icon,
defocus and motion of a hand-held phone, cheap JPEG, and cards of a loose pile lying at any
angle. Each effect here is drawn per crop, so one photo's crops differ from each other.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.textures import jpeg_pass


def seen_small(crop: np.ndarray, box_wh: tuple[float, float], long_side: float) -> np.ndarray:
    """``crop`` (the box stretched to a square) as if the box had been ``long_side`` px on its
    long side in the photo: shrunk to the box's own shape at that size, then stretched back
    the way the runtime stretches a small box (``cv2.INTER_AREA``). A box already that small
    or smaller is returned as it is."""
    bw, bh = (max(float(v), 1.0) for v in box_wh)
    scale = long_side / max(bw, bh)
    if scale >= 1:
        return crop
    w, h = max(2, int(round(bw * scale))), max(2, int(round(bh * scale)))
    small = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (crop.shape[1], crop.shape[0]), interpolation=cv2.INTER_AREA)


def white_balance(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A light far from neutral: warm (tungsten, candles) or cold (shade, a window), and an
    exposure off by up to about a stop. Float BGR in, float BGR out."""
    warmth = rng.uniform(-0.35, 0.45)  # > 0: red up and blue down
    gains = np.array([1 - warmth, 1 + rng.uniform(-0.08, 0.08), 1 + warmth], np.float32)
    gains *= rng.uniform(0.65, 1.45)
    return image * gains


def glare(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A lamp's reflection on a glossy card or sleeve: a bright soft patch or band that can
    wash the print out to white. Float BGR in, float BGR out."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if rng.random() < 0.5:  # a band (a long lamp, a window)
        angle = rng.uniform(0, math.pi)
        across = (xx - cx) * math.cos(angle) + (yy - cy) * math.sin(angle)
        light = np.exp(-(across / (rng.uniform(0.08, 0.4) * w)) ** 2)
    else:  # a spot
        radius = rng.uniform(0.15, 0.6) * w
        light = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / radius ** 2)
    return image + light[..., None] * rng.uniform(60, 260)


def shake(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Defocus or a hand's motion, stronger than the whole-photo blur. Float in and out."""
    if rng.random() < 0.6:
        return cv2.GaussianBlur(image, (0, 0), rng.uniform(0.8, 2.8))
    length = int(rng.integers(4, 12))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6))


def camera_crop(rng: np.random.Generator, crop: np.ndarray, box_wh: tuple[float, float]) -> np.ndarray:
    """One crop (uint8 BGR, the box stretched to a square) as a phone might have caught it:
    each effect drawn with its own chance; always some sensor noise and a JPEG pass."""
    if rng.random() < 0.4:
        crop = seen_small(crop, box_wh, rng.uniform(22, 64))
    image = crop.astype(np.float32)
    if rng.random() < 0.6:
        image = white_balance(rng, image)
    if rng.random() < 0.35:
        image = glare(rng, image)
    if rng.random() < 0.35:
        image = shake(rng, image)
    image = image + rng.normal(0, rng.uniform(0, 8), image.shape).astype(np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    return jpeg_pass(image, int(rng.integers(20, 90)))


def turned_box(image: np.ndarray, box, degrees: float) -> tuple[np.ndarray, list[float]]:
    """The photo turned by ``degrees`` about the box's centre (a card of a loose pile lying at
    that angle), and the box turned with it: the upright bounds of its four turned corners.
    Only the neighbourhood of the box is turned and returned (with the box in its frame);
    beyond the photo's edge it is mirrored."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    reach = int(math.ceil(math.hypot(x2 - x1, y2 - y1))) + 2
    left, top = int(math.floor(cx)) - reach, int(math.floor(cy)) - reach
    h, w = image.shape[:2]
    pad = max(0, -left, -top, left + 2 * reach - w, top + 2 * reach - h)
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REFLECT) if pad else image
    window = padded[top + pad:top + pad + 2 * reach, left + pad:left + pad + 2 * reach]
    centre = (cx - left, cy - top)
    turn = cv2.getRotationMatrix2D(centre, degrees, 1.0)
    turned = cv2.warpAffine(window, turn, (window.shape[1], window.shape[0]), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REFLECT)
    corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64) - [left, top]
    moved = corners @ turn[:, :2].T + turn[:, 2]
    return turned, [*moved.min(0), *moved.max(0)]


# --- harder crops (``Recipe.crop_hard``) ------------------------------------------------
# A print whose inks drifted (a reddish or faded maki looks like its neighbour count, salmon
# like squid), a small hard glare sitting on the icon itself, and far cards defocused more
# than ``shake`` blurs them.


def print_cast(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """One copy's inks off: hue turned up to 25 degrees, saturation 0.35-1.5 times, and in
    two crops of five a faded print (washed toward its paper, contrast lost). Float BGR in
    (0-255), float BGR out."""
    hsv = cv2.cvtColor(np.clip(image, 0, 255).astype(np.float32) / 255, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = (hsv[..., 0] + rng.uniform(-25, 25)) % 360
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.35, 1.5), 0, 1)
    image = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR) * 255
    if rng.random() < 0.4:
        keep = rng.uniform(0.45, 0.8)
        paper = rng.uniform(215, 255, 3).astype(np.float32)
        image = image * keep + paper * (1 - keep)
    return image


def icon_glare(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A small hard reflection on the middle of the crop, where a card's icon is: a patch
    burnt out to white in its core with a soft rim (``glare`` is broad and soft). Float in
    and out."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    rx, ry = rng.uniform(0.06, 0.22, 2) * [w, h]
    angle = rng.uniform(0, math.pi)
    u = ((xx - cx) * math.cos(angle) + (yy - cy) * math.sin(angle)) / rx
    v = (-(xx - cx) * math.sin(angle) + (yy - cy) * math.cos(angle)) / ry
    light = np.clip(rng.uniform(1.3, 3.0) * np.exp(-(u ** 2 + v ** 2)), 0, 1)  # a flat, burnt core
    tint = rng.uniform(0.9, 1.0, 3).astype(np.float32)
    return image + light[..., None] * rng.uniform(150, 300) * tint


def defocus(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A far card out of the focal plane: a disc blur 2-5 px in radius (a lens's blur is a
    disc, not a Gaussian). Float in and out."""
    radius = rng.uniform(2.0, 5.0)
    size = 2 * int(math.ceil(radius)) + 1
    kernel = np.zeros((size, size), np.float32)
    cv2.circle(kernel, (size // 2, size // 2), int(round(radius)), 1.0, -1, cv2.LINE_AA)
    return cv2.filter2D(image, -1, kernel / float(kernel.sum()), borderType=cv2.BORDER_REFLECT)


def hard_crop(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """One crop (uint8 BGR) with a print off its colours, a glare on its icon or a strong
    defocus, at least one of them, then a JPEG pass."""
    image = crop.astype(np.float32)
    effects = [(print_cast, 0.6), (icon_glare, 0.45), (defocus, 0.35)]
    chosen = [effect for effect, chance in effects if rng.random() < chance]
    for effect in chosen or [effects[int(rng.integers(len(effects)))][0]]:
        image = effect(rng, image)
    image = np.clip(image, 0, 255).astype(np.uint8)
    return jpeg_pass(image, int(rng.integers(35, 90)))


# --- a glossy card's sheen (``Recipe.crop_sheen``) --------------------------------------
# A broad band of light across a glossy card, under which look-alikes (maki-2 and maki-3,
# squid nigiri and tempura, wasabi and sashimi) come close. ``glare`` adds light to the
# ink; a card's gloss reflects the lamp instead of the ink beneath, so within the band the
# print fades toward the lamp's colour and its contrast goes, darks as much as lights.


def sheen(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A glossy card tilted toward a lamp: a band across the card (a long lamp, a window)
    where the lamp's reflection replaces up to 0.3-0.9 of the print, fading it toward the
    lamp's near-white colour. Float BGR in (0-255), float BGR out, never darker than the
    print where the print is darker than the lamp.

    >>> grey = np.full((8, 8, 3), 60, np.float32)
    >>> lit = sheen(np.random.default_rng(0), grey)
    >>> bool((lit >= grey).all()), bool(lit.max() > 60)
    (True, True)
    """
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    across = (xx - rng.uniform(0.15, 0.85) * w) * math.cos(angle) + (yy - rng.uniform(0.15, 0.85) * h) * math.sin(angle)
    share = np.exp(-(across / (rng.uniform(0.06, 0.3) * max(w, h))) ** 2) * rng.uniform(0.3, 0.9)
    lamp = rng.uniform(225, 255, 3).astype(np.float32)
    return image * (1 - share[..., None]) + lamp * share[..., None]


def sheen_crop(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """One crop (uint8 BGR) under a glossy card's sheen, then a JPEG pass."""
    return _lit_crop(rng, sheen(rng, crop.astype(np.float32)))


def _lit_crop(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A float crop under a lamp's reflection (``sheen``) back to uint8, then a JPEG pass."""
    return jpeg_pass(np.clip(image, 0, 255).astype(np.uint8), int(rng.integers(40, 92)))
