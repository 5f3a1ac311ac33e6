"""Procedural table surfaces, clutter and camera effects for synthetic photos.

Everything draws from a ``numpy.random.Generator`` so a photo is reproducible by seed.
Textures are built at low resolution and scaled up: they only need to look like a table.
"""

from __future__ import annotations

import cv2
import numpy as np


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Noise in [0, 1] varying over about ``cells`` blobs across the image."""
    h, w = shape
    small = rng.random((max(2, cells * h // max(h, w)), max(2, cells * w // max(h, w))))
    return cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _fractal(rng: np.random.Generator, shape: tuple[int, int], octaves=(3, 8, 24, 64)) -> np.ndarray:
    total = np.zeros(shape, np.float32)
    weight = 1.0
    for cells in octaves:
        total += weight * (_smooth_noise(rng, shape, cells) - 0.5)
        weight *= 0.55
    return total


def _colour(rng: np.random.Generator, base: tuple[int, int, int], spread: int) -> np.ndarray:
    return np.clip(np.array(base, np.float32) + rng.uniform(-spread, spread, 3), 0, 255)


def wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    along = xx * np.cos(angle) + yy * np.sin(angle)
    across = -xx * np.sin(angle) + yy * np.cos(angle)
    warp = _fractal(rng, shape, (2, 5, 12)) * rng.uniform(20, 80)
    grain = np.sin((across + warp) * rng.uniform(0.05, 0.25)) * 0.5 + 0.5
    planks = (np.floor((across + 1e-3) / rng.uniform(80, 260)) % 2) * rng.uniform(0, 0.15)
    fine = _fractal(rng, shape, (40, 120)) * 0.5
    light = _colour(rng, (60, 110, 160), 45)  # BGR: browns, from pale oak to walnut
    dark = light * rng.uniform(0.45, 0.75)
    t = np.clip(grain * 0.6 + planks + fine + 0.2 * (along * 0), 0, 1)[..., None]
    return dark + (light - dark) * t


def cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = rng.uniform(2.5, 7)
    weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)) * 0.08
    base = rng.uniform(30, 220, 3).astype(np.float32)
    shade = 1 + weave + _fractal(rng, shape, (3, 9, 30)) * 0.35
    image = base * shade[..., None]
    if rng.random() < 0.3:  # checked tablecloth
        size = rng.uniform(30, 90)
        checks = ((np.floor(xx / size) + np.floor(yy / size)) % 2)[..., None]
        image = image * (1 - 0.35 * checks) + 255 * 0.35 * checks
    return image


def playmat(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = rng.uniform(20, 200, 3).astype(np.float32)
    image = np.empty((h, w, 3), np.float32)
    image[:] = base
    image *= (1 + _fractal(rng, shape, (2, 4)) * 0.5)[..., None]
    canvas = image.copy()
    for _ in range(rng.integers(0, 12)):  # printed shapes on the mat
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        radius = int(rng.integers(10, max(12, w // 6)))
        if rng.random() < 0.5:
            cv2.circle(canvas, centre, radius, colour, int(rng.integers(-1, 8)) or -1)
        else:
            cv2.line(canvas, centre, (int(rng.integers(0, w)), int(rng.integers(0, h))), colour,
                     int(rng.integers(2, 14)))
    alpha = rng.uniform(0.15, 0.6)
    return image * (1 - alpha) + canvas * alpha


def stone(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = rng.uniform(60, 235, 3).astype(np.float32)
    veins = np.abs(_fractal(rng, shape, (4, 10, 30, 90)))
    return base * (1 - 0.8 * veins[..., None]) + rng.uniform(-10, 10)


SURFACES = (wood, cloth, playmat, stone)


def patterned_cloth(rng: np.random.Generator, size: tuple[int, int], to_table: np.ndarray) -> np.ndarray:
    """A boldly patterned tablecloth of ``size`` (width, height) as float32 BGR: checks,
    stripes or gingham, drawn on the table itself and seen through the camera (``to_table``:
    the homography from the photo to the table plane, whose unit is a card's width), so its
    squares shrink toward the far side as the cards do.

    A detector that learnt only plain surfaces misses cards lying on a checkerboard or
    stripes, whose edges look like a card's; the other surfaces here are mostly plain, and
    their checks are square to the photo.
    """
    w, h = size
    sw, sh = max(16, w // 2), max(16, h // 2)  # drawn at half size, scaled up: cheaper and softer
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    pixels = np.stack([xs.ravel() * (w / sw), ys.ravel() * (h / sh)], 1)[None]
    table = cv2.perspectiveTransform(pixels.astype(np.float64), to_table)[0].reshape(sh, sw, 2)
    angle = rng.uniform(0, np.pi)
    along = table[..., 0] * np.cos(angle) + table[..., 1] * np.sin(angle)
    across = -table[..., 0] * np.sin(angle) + table[..., 1] * np.cos(angle)
    period = rng.uniform(0.25, 1.3)  # one square or stripe pair: a quarter card to more than one
    kind = rng.choice(["checks", "stripes", "gingham"])
    a = (np.floor(along / period) % 2).astype(np.float32)
    b = (np.floor(across / period) % 2).astype(np.float32)
    if kind == "checks":
        pattern = (a + b) % 2
    elif kind == "stripes":
        pattern = a
    else:  # two crossing sets of see-through bands: three tones
        pattern = 0.5 * (a + b)
    light = rng.uniform(120, 250, 3).astype(np.float32)
    dark = light * rng.uniform(0.15, 0.7) if rng.random() < 0.6 else rng.uniform(20, 200, 3).astype(np.float32)
    image = light + (dark - light) * pattern[..., None]
    weave = np.sin(xs * 2 * np.pi / rng.uniform(2.5, 6)) * np.sin(ys * 2 * np.pi / rng.uniform(2.5, 6)) * 0.06
    image = image * (1 + weave + _fractal(rng, (sh, sw), (3, 9)) * 0.25)[..., None]
    return cv2.resize(np.clip(image, 0, 255).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def table_surface(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A table texture of ``size`` (width, height) as float32 BGR."""
    w, h = size
    scale = rng.uniform(0.35, 0.7)  # texture built small, scaled up: cheaper and softer
    small = (max(16, int(h * scale)), max(16, int(w * scale)))
    surface = SURFACES[rng.integers(len(SURFACES))](rng, small)
    return cv2.resize(np.clip(surface, 0, 255).astype(np.float32), (w, h))


# --- clutter: things on a games table -------------------------------------------------


def _random_colour(rng: np.random.Generator) -> tuple[float, float, float]:
    r, g, b = rng.uniform(0, 255, 3)
    return float(r), float(g), float(b)


def draw_clutter(rng: np.random.Generator, layer: np.ndarray, mask: np.ndarray, unit: float) -> None:
    """Draw one object (cup, die, pen, score pad or hand) into ``layer`` and ``mask``.

    ``unit`` is a card's width in pixels, so objects keep a plausible size.
    """
    h, w = mask.shape
    cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
    kind = rng.choice(["cup", "die", "pen", "pad", "hand"], p=[0.2, 0.25, 0.2, 0.15, 0.2])
    centre = (int(cx), int(cy))

    def fill_poly(points, colour):
        pts = np.round(points).astype(np.int32)
        cv2.fillPoly(layer, [pts], colour, lineType=cv2.LINE_AA)
        cv2.fillPoly(mask, [pts], 255)

    if kind == "cup":
        r = int(unit * rng.uniform(0.5, 0.9))
        colour = _random_colour(rng)
        cv2.circle(layer, centre, r, colour, -1, cv2.LINE_AA)
        cv2.circle(layer, centre, int(r * 0.82), tuple(c * 0.5 for c in colour), -1, cv2.LINE_AA)
        if rng.random() < 0.7:  # a drink inside
            cv2.circle(layer, centre, int(r * 0.75), _random_colour(rng), -1, cv2.LINE_AA)
        cv2.circle(mask, centre, r, 255, -1)
    elif kind == "die":
        side = unit * rng.uniform(0.18, 0.3)
        angle = rng.uniform(0, np.pi)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * side / 2
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        colour = _random_colour(rng)
        fill_poly(corners @ rot.T + [cx, cy], colour)
        pip = tuple(255 - c for c in colour)
        for _ in range(rng.integers(1, 7)):
            offset = rng.uniform(-side / 3, side / 3, 2)
            cv2.circle(layer, (int(cx + offset[0]), int(cy + offset[1])), max(1, int(side / 10)), pip, -1)
    elif kind == "pen":
        length = unit * rng.uniform(1.0, 1.8)
        angle = rng.uniform(0, np.pi)
        end = (int(cx + np.cos(angle) * length), int(cy + np.sin(angle) * length))
        thickness = max(2, int(unit * rng.uniform(0.06, 0.12)))
        cv2.line(layer, centre, end, _random_colour(rng), thickness, cv2.LINE_AA)
        cv2.line(mask, centre, end, 255, thickness)
    elif kind == "pad":
        pw, ph = unit * rng.uniform(0.9, 1.6), unit * rng.uniform(1.2, 2.2)
        angle = rng.uniform(-0.5, 0.5)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        corners = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32) @ rot.T + [cx, cy]
        paper = tuple(float(c) for c in rng.uniform(215, 255, 3))
        fill_poly(corners, paper)
        ink = (float(rng.uniform(0, 120)),) * 3
        for row in range(1, int(ph / (unit * 0.15))):  # ruled lines and scribbles
            a = np.array([0, row * unit * 0.15]) @ rot.T + [cx, cy]
            b = np.array([pw, row * unit * 0.15]) @ rot.T + [cx, cy]
            cv2.line(layer, tuple(int(v) for v in a), tuple(int(v) for v in b), ink, 1, cv2.LINE_AA)
    else:  # hand: a palm and four or five fingers, skin tones
        skin = tuple(float(c) for c in (np.array([90, 140, 200]) * rng.uniform(0.35, 1.1)).clip(0, 255))
        angle = rng.uniform(0, 2 * np.pi)
        palm = unit * rng.uniform(0.5, 0.8)
        cv2.ellipse(layer, centre, (int(palm), int(palm * 0.8)), np.degrees(angle), 0, 360, skin, -1,
                    cv2.LINE_AA)
        cv2.ellipse(mask, centre, (int(palm), int(palm * 0.8)), np.degrees(angle), 0, 360, 255, -1)
        for finger in range(int(rng.integers(4, 6))):
            a = angle + (finger - 2) * 0.3
            start = (int(cx + np.cos(a) * palm * 0.7), int(cy + np.sin(a) * palm * 0.7))
            end = (int(cx + np.cos(a) * palm * 1.7), int(cy + np.sin(a) * palm * 1.7))
            thick = max(2, int(palm * 0.32))
            cv2.line(layer, start, end, skin, thick, cv2.LINE_AA)
            cv2.line(mask, start, end, 255, thick)


# --- camera effects --------------------------------------------------------------------


def shade(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Uneven light, colour cast and glare on a float32 BGR image."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    direction = rng.uniform(0, 2 * np.pi)
    ramp = (xx / w - 0.5) * np.cos(direction) + (yy / h - 0.5) * np.sin(direction)
    light = rng.uniform(0.65, 1.2) * (1 + ramp * rng.uniform(0, 0.6))
    light = light * (1 + (_smooth_noise(rng, (h, w), 3) - 0.5) * rng.uniform(0, 0.5))
    cast = rng.uniform(0.82, 1.18, 3).astype(np.float32)
    image = image * light[..., None] * cast
    if rng.random() < 0.35:  # glare: a soft bright spot from a lamp or window
        image = _glare_spot(rng, image, xx, yy, (0.05, 0.3), (40, 160))
    return image


def _glare_spot(rng: np.random.Generator, image: np.ndarray, xx: np.ndarray, yy: np.ndarray,
                radius: tuple[float, float], strength: tuple[float, float]) -> np.ndarray:
    """``image`` (float32) with a round bright spot of light added somewhere: its radius a
    share of the photo's long side drawn from ``radius``, its brightness at the centre drawn
    from ``strength``; ``xx``, ``yy`` are the photo's pixel coordinates."""
    h, w = image.shape[:2]
    gx, gy = rng.uniform(0, w), rng.uniform(0, h)
    size = rng.uniform(*radius) * max(w, h)
    spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * size**2))
    return image + spot[..., None] * rng.uniform(*strength)


def degrade(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Focus blur, motion blur, sensor noise and JPEG compression; returns uint8 BGR."""
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.6))
    if rng.random() < 0.15:
        length = int(rng.integers(3, 9))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    image = image + rng.normal(0, rng.uniform(0, 7), image.shape).astype(np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    return jpeg_pass(image, int(rng.integers(35, 96)))


def jpeg_pass(image: np.ndarray, quality: int) -> np.ndarray:
    """``image`` (uint8 BGR) saved as a JPEG of ``quality`` and read back, as a camera's
    compression leaves it (the image itself where encoding fails).

    >>> flat = np.full((16, 16, 3), 128, np.uint8)
    >>> out = jpeg_pass(flat, 50)
    >>> out.shape, out.dtype, int(np.abs(out.astype(int) - 128).max()) <= 2
    ((16, 16, 3), dtype('uint8'), True)
    """
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else image


def far_side(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A phone held at the table's near edge, on a float32 BGR image whose top is the table's
    far side: the far side out of focus (the blur grows toward the top), and each with its own
    chance a hard glare burnt out to white, a warm or cool lamp, the soft shadow of a hand.

    Photos taken from above are sharp and evenly lit; photos taken across a table lose their
    far cards to defocus and glare, and a detector that never saw such photos misses them."""
    h, w = image.shape[:2]
    # defocus: blend a sharp and two blurred copies by height, blurrier toward the far side
    far_sigma = rng.uniform(0.6, 3.0) * max(w, h) / 1280
    levels = [image, cv2.GaussianBlur(image, (0, 0), far_sigma / 2), cv2.GaussianBlur(image, (0, 0), far_sigma)]
    focus = rng.uniform(0.5, 0.9)  # the height (share of the frame from the top) in focus: sharp below
    depth = np.clip((focus - np.arange(h, dtype=np.float32) / h) / focus, 0, 1) * 2  # 0 in focus .. 2 far edge
    low = np.minimum(depth.astype(int), 1)
    mix = (depth - low)[:, None, None]
    stacked = np.stack(levels)
    rows = np.arange(h)
    image = stacked[low, rows] * (1 - mix) + stacked[low + 1, rows] * mix
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.4:  # a hard glare: a lamp's reflection burnt out on the cards' gloss
        image = _glare_spot(rng, image, xx, yy, (0.02, 0.1), (150, 280))
    if rng.random() < 0.4:  # a warm (or cool) lamp: blue and red pulled apart
        warm = rng.uniform(0.7, 0.88)
        cast = np.array([warm, 1.0, 2 - warm] if rng.random() < 0.75 else [2 - warm, 1.0, warm], np.float32)
        image = image * cast
    if rng.random() < 0.3:  # the soft shadow of a hand or an arm reaching over the table
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ax, ay = rng.uniform(0.08, 0.25) * w, rng.uniform(0.08, 0.25) * h
        blob = np.exp(-(((xx - cx) / ax) ** 2 + ((yy - cy) / ay) ** 2))
        image = image * (1 - rng.uniform(0.3, 0.6) * blob)[..., None]
    return image


# --- print styles: how one physical copy of a card differs from the digital face ----------
#
# A real deck is printed on some press, under some ink profile, maybe sleeved, maybe worn.
# Each card of a training photo gets its own draw, so the classifier cannot lean on the
# exact colours or the crispness of the digital faces.


def _colour_profile(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """Another press or ink profile: per-channel gamma and gain, saturation, black and
    white points (a matte print's blacks are grey, a cheap print's whites are cream)."""
    image = face / 255.0
    gamma = rng.uniform(0.75, 1.35, 3).astype(np.float32)
    image = image ** gamma * rng.uniform(0.85, 1.1, 3).astype(np.float32)
    grey = image.mean(2, keepdims=True)
    image = grey + (image - grey) * rng.uniform(0.6, 1.35)
    black, white = rng.uniform(0.0, 0.14), rng.uniform(0.85, 1.0)
    paper = rng.uniform(0.92, 1.0, 3).astype(np.float32)
    image = black + image * (white - black) * paper
    return np.clip(image, 0, 1) * 255


def _halftone(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """Offset printing's screen: each channel as dots on its own angled grid, blended in."""
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = rng.uniform(2.5, 5.0)
    out = np.empty_like(face)
    for channel in range(3):
        angle = np.radians(rng.uniform(0, 90))
        u = xx * np.cos(angle) + yy * np.sin(angle)
        v = -xx * np.sin(angle) + yy * np.cos(angle)
        screen = (np.cos(2 * np.pi * u / period) * np.cos(2 * np.pi * v / period) + 1) / 2
        ink = 1 - face[..., channel] / 255
        dots = (ink > screen * 0.98).astype(np.float32)  # dot grows with the ink to lay down
        out[..., channel] = (1 - dots) * 255
    out = cv2.GaussianBlur(out, (0, 0), period * 0.3)
    strength = rng.uniform(0.2, 0.6)
    return face * (1 - strength) + out * strength


def _gloss(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A glossy finish catching a light: a bright soft band across the card."""
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    across = (xx - rng.uniform(0, w)) * np.cos(angle) + (yy - rng.uniform(0, h)) * np.sin(angle)
    band = np.exp(-(across / (rng.uniform(0.05, 0.35) * w)) ** 2)
    return face + band[..., None] * rng.uniform(30, 140)


def _wear(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A played card: whitened edges and corners, a few scratches, a little grime."""
    h, w = face.shape[:2]
    edge = np.minimum.reduce([np.arange(w)[None, :].repeat(h, 0), (w - 1 - np.arange(w))[None, :].repeat(h, 0),
                              np.arange(h)[:, None].repeat(w, 1), (h - 1 - np.arange(h))[:, None].repeat(w, 1)])
    rough = _smooth_noise(rng, (h, w), 40)
    frayed = (edge < rng.uniform(2, 8) * (0.5 + rough)).astype(np.float32)
    face = face * (1 - frayed[..., None]) + 235 * frayed[..., None]
    for _ in range(int(rng.integers(0, 6))):
        p = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        q = (int(p[0] + rng.normal(0, w / 4)), int(p[1] + rng.normal(0, h / 4)))
        cv2.line(face, p, q, (float(rng.uniform(180, 250)),) * 3, 1, cv2.LINE_AA)
    grime = 1 - (_smooth_noise(rng, (h, w), 6) * rng.uniform(0, 0.2))
    return face * grime[..., None]


def _sleeve(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A card sleeve: its plastic softens and lightens the print, maybe a tinted border."""
    face = cv2.GaussianBlur(face, (0, 0), rng.uniform(0.6, 1.6))
    haze = rng.uniform(0.03, 0.15)
    face = face * (1 - haze) + 255 * haze
    if rng.random() < 0.5:  # a coloured backed sleeve shows round the card
        h, w = face.shape[:2]
        border = max(2, int(w * rng.uniform(0.015, 0.04)))
        colour = rng.uniform(0, 255, 3).astype(np.float32)
        face[:border], face[-border:], face[:, :border], face[:, -border:] = colour, colour, colour, colour
    return _gloss(rng, face) if rng.random() < 0.6 else face


#: each style's chance of being applied to one card
PRINT_STYLES = ((_colour_profile, 0.8), (_halftone, 0.35), (_gloss, 0.3), (_wear, 0.35), (_sleeve, 0.25))


def print_style(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """``face`` (uint8 BGR) as one physical copy might look: a random mix of colour profile,
    halftone screen, gloss, wear and sleeve. Returns uint8 BGR of the same size."""
    image = face.astype(np.float32)
    for style, chance in PRINT_STYLES:
        if rng.random() < chance:
            image = style(rng, image)
    return np.clip(image, 0, 255).astype(np.uint8)
