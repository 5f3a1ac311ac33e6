"""One photo of a table and its truth: ``render_photo(seed, kind, size)``.

The table plane is seen through a pinhole camera (focal length from a phone's or webcam's
field of view, tilted 15-45 degrees from looking straight down, any azimuth, a little roll):
every card, cup, phone, pad and hand is projected with it, so far cards are smaller and
foreshortened. Cards are drawn back to front into an id buffer, so a card's truth box is
exactly the box of its visible pixels. Then light and camera: white balance, light falloff,
glare, hard and soft shadows, defocus of the far side, motion blur, sensor noise, JPEG.

The truth is in ``sushicam eval``'s terms: ``cards`` (label, visible box, hidden, seat) and
``seats`` (``{"seat", "tableau"}``), seats numbered like ``vision.seats``: seat 0 is the
tableau nearest the bottom of the photo, then clockwise round the table as the photo shows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.fieldtest import surfaces
from vision.fieldtest.cards import (
    FRUIT_PRINTS,
    PRINT_STYLES,
    fruit_layout,
    fruit_print_face,
    load_faces,
    styled_face,
)
from vision.fieldtest.table import (
    LAYOUTS,
    Table,
    lay_tableau,
    place_tableaux,
    random_menu,
    random_tableau,
)

KINDS = ("tableau", "table", "crowd", "rect", "closeup", "duel", "fruit")
#: a card showing less than this share of itself is not findable: it is marked hidden
MIN_VISIBLE = 0.06
HAND_BGR = (110, 150, 205)


# --- camera ------------------------------------------------------------------------------


@dataclass
class Camera:
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]

    def project(self, xyz) -> np.ndarray:
        xyz = np.asarray(xyz, np.float64).reshape(-1, 3)
        p = (self.K @ (self.R @ xyz.T + self.t[:, None])).T
        return p[:, :2] / p[:, 2:3]

    def plane(self) -> np.ndarray:
        """Homography from the table plane (x, y in cm) to image pixels."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])

    def flat(self, xy, z: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        return self.project(np.column_stack([xy, np.full(len(xy), z)]))


def look_at(target, azimuth: float, tilt: float, dist: float, f: float, size, roll: float) -> Camera:
    w, h = size
    fwd = np.array([math.sin(tilt) * math.sin(azimuth), math.sin(tilt) * math.cos(azimuth), -math.cos(tilt)])
    right = np.array([math.cos(azimuth), -math.sin(azimuth), 0.0])  # level, across the view
    down = np.cross(fwd, right)
    c, s = math.cos(roll), math.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    R = np.stack([right, down, fwd])
    centre = np.array([target[0], target[1], 0.0]) - dist * fwd
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    return Camera(K, R, -R @ centre, (w, h))


def fit_camera(rng, points_xy, size, azimuth, tilt, fill, hfov) -> Camera:
    """A camera at ``azimuth``/``tilt`` whose view of ``points_xy`` fills ``fill`` of the frame."""
    w, h = size
    f = (w / 2) / math.tan(hfov / 2)
    pts = np.asarray(points_xy, float)
    target = (pts.min(0) + pts.max(0)) / 2
    dist = 150.0
    roll = rng.normal(0, math.radians(3))
    for _ in range(8):
        cam = look_at(target, azimuth, tilt, dist, f, size, roll)
        img = cam.flat(pts)
        lo, hi = img.min(0), img.max(0)
        scale = max((hi[0] - lo[0]) / (fill * w), (hi[1] - lo[1]) / (fill * h))
        centre_img = (lo + hi) / 2
        Hinv = np.linalg.inv(cam.plane())
        p = Hinv @ [centre_img[0], centre_img[1], 1.0]
        target = target + (p[:2] / p[2] - target) * 0.9
        dist *= scale
    return look_at(target, azimuth, tilt, dist, f, size, roll)


# --- drawing helpers -----------------------------------------------------------------------


def _roi(quad: np.ndarray, size) -> tuple[int, int, int, int] | None:
    w, h = size
    x1, y1 = np.floor(quad.min(0)).astype(int) - 2
    x2, y2 = np.ceil(quad.max(0)).astype(int) + 2
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    return int(x1), int(y1), int(x2), int(y2)


def _warp_into(src: np.ndarray, quad: np.ndarray, roi) -> np.ndarray:
    """``src`` warped so its corners land on ``quad`` (image pixels), cut to ``roi``."""
    x1, y1, x2, y2 = roi
    sh, sw = src.shape[:2]
    side = float(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[0] - quad[1])))
    shrink = min(1.0, 1.5 * side / max(sh, sw))
    if shrink < 0.95:  # resample first so a big face does not alias on a small card
        src = cv2.resize(src, (max(2, int(sw * shrink)), max(2, int(sh * shrink))), interpolation=cv2.INTER_AREA)
        sh, sw = src.shape[:2]
    corners = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
    M = cv2.getPerspectiveTransform(corners, np.float32(quad - [x1, y1]))
    return cv2.warpPerspective(src, M, (x2 - x1, y2 - y1), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def _poly_mask(polys: list[np.ndarray], size) -> np.ndarray:
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(mask, [np.round(p * 4).astype(np.int32) for p in polys], 255, cv2.LINE_AA, shift=2)
    return mask


# --- clutter --------------------------------------------------------------------------------


def _circle(cx, cy, r, n=40):
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def cup(rng, cam: Camera, xy, light) -> tuple[list, list, list]:
    """(polygons with colours, shadow polygons, soft shadow polygons) of a mug seen by ``cam``."""
    r, hgt = rng.uniform(3.5, 4.8), rng.uniform(7, 11)
    bottom, top = _circle(xy[0], xy[1], r), _circle(xy[0], xy[1], r * 1.08)
    pb = cam.flat(bottom)
    pt = cam.flat(top, hgt)
    body = cv2.convexHull(np.float32(np.vstack([pb, pt]))).reshape(-1, 2)
    colour = tuple(float(v) for v in rng.choice([[230, 230, 230], [40, 40, 160], [150, 90, 40], [30, 30, 30], [60, 160, 200]]))
    inner = cam.flat(_circle(xy[0], xy[1], r * 0.95), hgt - 1.0)
    drink = tuple(float(v) for v in rng.choice([[20, 40, 70], [60, 120, 160], [30, 50, 60]]))
    handle = cam.flat(np.array([[xy[0] + r * 1.05, xy[1] - 1], [xy[0] + r * 2.2, xy[1] - 1.2],
                                [xy[0] + r * 2.2, xy[1] + 1.2], [xy[0] + r * 1.05, xy[1] + 1]]), hgt * 0.55)
    shade = tuple(v * 0.75 for v in colour)
    shadow = cam.flat(_circle(xy[0] + light[0] * hgt, xy[1] + light[1] * hgt, r))
    shadow = cv2.convexHull(np.float32(np.vstack([pb, shadow]))).reshape(-1, 2)
    return [(handle, shade), (body, shade), (pt, colour), (inner, drink)], [shadow], []


def phone(rng, cam: Camera, xy, light) -> tuple[list, list, list]:
    a = rng.uniform(0, math.pi)
    c, s = math.cos(a), math.sin(a)
    def rect(w, h):
        pts = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        return pts @ np.array([[c, s], [-s, c]]).T + xy
    body = cam.flat(rect(7.4, 15.5), 0.8)
    screen = cam.flat(rect(6.8, 14.2), 0.82)
    glow = tuple(float(v) for v in rng.choice([[15, 15, 15], [60, 40, 30], [200, 170, 140]]))
    shadow = cam.flat(rect(7.4, 15.5) + np.array(light) * 0.8)
    return [(body, (25, 25, 25)), (screen, glow)], [shadow], []


def score_pad(rng, cam: Camera, xy, light) -> tuple[list, list, list]:
    a = rng.uniform(-0.5, 0.5) + rng.choice([0, math.pi / 2])
    c, s = math.cos(a), math.sin(a)
    pts = np.array([[-5, -7.5], [5, -7.5], [5, 7.5], [-5, 7.5]]) @ np.array([[c, s], [-s, c]]).T + xy
    paper = cam.flat(pts, 0.2)
    items = [(paper, (235, 240, 245))]
    for k in range(1, 12):  # ruled lines
        y = -7.5 + k * 1.25
        line = np.array([[-4.6, y], [4.6, y], [4.6, y + 0.08], [-4.6, y + 0.08]]) @ np.array([[c, s], [-s, c]]).T + xy
        items.append((cam.flat(line, 0.21), (200, 160, 140)))
    for k in range(int(rng.integers(3, 9))):  # pencilled scores: short dark strokes
        y = -6 + k * 1.25
        x = rng.uniform(-4, 1)
        stroke = np.array([[x, y], [x + rng.uniform(1, 3), y], [x + 1, y + 0.15], [x, y + 0.15]]) @ np.array([[c, s], [-s, c]]).T + xy
        items.append((cam.flat(stroke, 0.22), (70, 60, 60)))
    return items, [], []


def hand(rng, cam: Camera, wrist_xy, direction: float, light) -> tuple[list, list, list]:
    """A hand reaching along ``direction`` (radians from +y, clockwise), held a little above
    the table: palm, four fingers, a thumb, an arm leaving towards its player."""
    z = rng.uniform(2.0, 5.0)
    c, s = math.cos(direction), math.sin(direction)
    fwd, right = np.array([s, c]), np.array([c, -s])
    scale = rng.uniform(0.9, 1.1)
    palm_c = np.array(wrist_xy) + fwd * 5 * scale
    palm = np.array([palm_c + right * 4.3 * scale * math.cos(t) + fwd * 5 * scale * math.sin(t)
                     for t in np.linspace(0, 2 * math.pi, 30)])
    shapes = [palm]
    spread = rng.uniform(-0.15, 0.15)
    for k, (offset, length) in enumerate(((-3.0, 6.5), (-1.0, 7.5), (1.0, 7.2), (3.0, 6.0))):
        base = palm_c + fwd * 4 * scale + right * offset * scale
        d = fwd * math.cos(spread * (k - 1.5)) + right * math.sin(spread * (k - 1.5))
        n = np.array([d[1], -d[0]])
        tip = base + d * length * scale
        shapes.append(np.array([base - n * 0.9, tip - n * 0.8, tip + d * 0.6, tip + n * 0.8, base + n * 0.9]))
    tb = palm_c - right * 3.8 * scale
    shapes.append(np.array([tb + fwd * 1.5, tb - right * 4.5 + fwd * 4, tb - right * 5 + fwd * 2.5, tb - fwd * 1.5]))
    arm = np.array([wrist_xy - right * 3.5, wrist_xy + right * 3.5, wrist_xy + right * 4.5 - fwd * 40,
                    wrist_xy - right * 4.5 - fwd * 40])
    shapes.append(arm)
    skin = tuple(float(v) * rng.uniform(0.6, 1.15) for v in HAND_BGR)
    polys = [(cam.flat(p, z), skin) for p in shapes]
    soft = [cam.flat(p + np.array(light) * z * 1.5) for p in shapes]
    return polys, [], soft


# --- the photo ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    seats: tuple[int, int]
    cards: tuple[int, int]
    shape: str
    fill: tuple[float, float]


KIND_SPECS = {
    "tableau": Kind((1, 1), (4, 14), "round", (0.6, 0.9)),
    "table": Kind((2, 5), (4, 11), "round", (0.82, 0.95)),
    "crowd": Kind((6, 8), (3, 8), "round", (0.85, 0.96)),
    "rect": Kind((4, 6), (4, 9), "rect", (0.85, 0.96)),
    "closeup": Kind((1, 1), (1, 3), "round", (0.8, 0.97)),
    # two players across a long table, each tableau at its own edge facing its player, the
    # table between them bare: a 2-player game's tableaux of 8 to 14 cards
    "duel": Kind((2, 2), (8, 14), "rect", (0.85, 0.96)),
    # one to three tableaux rich in fruit cards (``plan_table``: fruit is near half the menu)
    "fruit": Kind((1, 3), (6, 12), "round", (0.65, 0.92)),
}
#: How much wider than its tableaux need (cm) a duel's table is between its two players
DUEL_APART = (20.0, 80.0)


def plan_table(rng: np.random.Generator, kind: str, n_seats: int | None = None) -> tuple[Table, str]:
    spec = KIND_SPECS[kind]
    n = n_seats or int(rng.integers(spec.seats[0], spec.seats[1] + 1))
    menu = random_menu(rng)
    if kind == "fruit":  # a menu whose dessert is fruit, drawn as often as eight other kinds
        menu = [m for m in menu if m not in ("pudding", "green-tea-ice-cream", "fruit")] + ["fruit"] * 8
    deck_style = str(rng.choice(PRINT_STYLES))
    laid = []
    for s in range(n):
        count = int(rng.integers(spec.cards[0], spec.cards[1] + 1))
        tableau = random_tableau(rng, menu, count)
        layout = "columns" if kind == "closeup" and rng.random() < 0.5 else str(rng.choice(LAYOUTS))
        cards = lay_tableau(rng, tableau, layout, s)
        for card in cards:
            card.style = "sleeve" if deck_style == "sleeve" or rng.random() < 0.05 else deck_style
        laid.append((tableau, cards))
    apart = float(rng.uniform(*DUEL_APART)) if kind == "duel" else 0.0
    table = place_tableaux(rng, [c for _, c in laid], "rect" if spec.shape == "rect" else "round", apart)
    for seat, (tableau, _) in zip(table.seats, laid, strict=True):
        seat.tableau = tableau
    return table, menu[0] if menu[0] != "egg-nigiri" else "party"


def table_background(rng, table: Table, camera: Camera, size, corners_all, background=None) -> np.ndarray:
    """The table top and the floor around it, drawn on the plane and seen through ``camera``."""
    w, h = size
    H = camera.plane()
    Hinv = np.linalg.inv(H)
    img_corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float)
    plane_pts = (Hinv @ img_corners.T).T
    plane_pts = plane_pts[:, :2] / plane_pts[:, 2:3]
    lo = np.maximum(plane_pts.min(0), corners_all.min(0) - 250)
    hi = np.minimum(plane_pts.max(0), corners_all.max(0) + 250)
    extent = hi - lo
    ppc = min(1.3 * max(w, h) / max(extent.max(), 1), 3000 / max(extent.max(), 1), 40.0)
    tw, th = max(8, int(extent[0] * ppc)), max(8, int(extent[1] * ppc))
    kind_surface = background[0] if background else str(rng.choice(surfaces.SURFACES))
    srng = np.random.default_rng(int(rng.integers(2**31))) if not background else np.random.default_rng(background[1])
    top = surfaces.surface(srng, kind_surface, (th, tw), ppc)
    ys, xs = np.mgrid[0:th, 0:tw].astype(np.float32)
    px, py = lo[0] + xs / ppc, hi[1] - ys / ppc  # texture rows run down the plane's y
    on_table = table.contains(np.column_stack([px.ravel(), py.ravel()])).reshape(th, tw)
    if not on_table.all():
        room = surfaces.floor(srng, (th, tw), ppc)
        edge = cv2.GaussianBlur(on_table.astype(np.float32), (0, 0), max(1.0, 0.8 * ppc))[:, :, None]
        top = top * edge + room * (1 - edge) * 0.7
    tex_to_plane = np.array([[1 / ppc, 0, lo[0]], [0, -1 / ppc, hi[1]], [0, 0, 1]])
    image = cv2.warpPerspective(top, H @ tex_to_plane, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return image


def render_photo(seed: int, kind: str = "table", size: tuple[int, int] = (2016, 1512),
                 n_seats: int | None = None, cards_dir: str | None = None,
                 fruit_print: str = "faces") -> tuple[np.ndarray, dict]:
    """``(BGR photo, truth)`` for one seed; the same seed always gives the same photo.

    ``fruit_print`` lays out every fruit card's icons as one print does
    (``cards.FRUIT_PRINTS``); each fruit card's truth then says how its icons lie
    (``layout``: ``side`` or ``stacked``)."""
    if kind not in KIND_SPECS:
        raise ValueError(f"unknown photo kind {kind!r}: use one of {', '.join(KIND_SPECS)}")
    if fruit_print not in FRUIT_PRINTS:
        raise ValueError(f"unknown fruit print {fruit_print!r}: use one of {', '.join(FRUIT_PRINTS)}")
    rng = np.random.default_rng([seed, 0xF1E1D])
    table, _ = plan_table(rng, kind, n_seats)
    return render_table(rng, table, kind, size, cards_dir, fruit_print=fruit_print,
                        fruit_rng=np.random.default_rng([seed, 0xF2]))


def render_table(rng, table: Table, kind: str, size, cards_dir=None, *, camera: Camera | None = None,
                 conditions: bool = True, background: tuple | None = None,
                 fruit_print: str = "faces", fruit_rng: np.random.Generator | None = None) -> tuple[np.ndarray, dict]:
    """``(BGR photo, truth)`` of ``table`` seen by ``camera`` (drawn from ``rng`` when not
    given): the table top, the cards back to front, the clutter, then (``conditions``) light,
    camera and JPEG. ``background``: ``(surface, seed)`` of the table top, else drawn."""
    w, h = size
    faces = load_faces(cards_dir)
    corners_all = np.vstack([c.corners() for c in table.cards]) if table.cards else np.zeros((4, 2))
    if camera is None:
        camera = _photo_camera(rng, table, kind, size, corners_all)
    light = np.array([rng.normal(0, 0.35), rng.normal(0, 0.35)])

    image = table_background(rng, table, camera, size, corners_all, background)
    image = image.astype(np.float32)
    ids = np.full((h, w), -1, np.int32)
    areas, boxes_roi = _draw_cards(rng, image, ids, table, faces, camera, size, light, fruit_print, fruit_rng)
    items = _clutter(rng, table, kind, camera, corners_all, light)
    clutter_boxes = _draw_clutter(rng, image, ids, items, len(table.cards))

    if conditions:
        image = apply_conditions(rng, image, camera, table, kind)
    photo = np.clip(image, 0, 255).astype(np.uint8)
    if conditions:
        quality = int(rng.integers(55, 93)) if max(w, h) > 700 else int(rng.integers(40, 75))
        ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
        photo = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth = _truth(table, ids, areas, boxes_roi, size, kind, camera)
    truth["clutter"] = clutter_boxes
    truth["fruit_print"] = fruit_print
    for card in truth["cards"]:
        if card["label"].startswith("fruit-"):
            card["layout"] = fruit_layout(card["label"], fruit_print)
    return photo, truth


def _photo_camera(rng, table: Table, kind: str, size, corners_all: np.ndarray) -> Camera:
    """A photographer's camera: most often from a player's chair (that seat nearest the
    camera; a single player photographs their own tableau), else from anywhere round the table."""
    spec = KIND_SPECS.get(kind, KIND_SPECS["table"])
    if len(table.seats) == 1 or rng.random() < 0.6:
        seat = table.seats[int(rng.integers(len(table.seats)))]
        azimuth = seat.facing + rng.normal(0, math.radians(12 if len(table.seats) == 1 else 20))
    else:
        azimuth = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(rng.uniform(15, 45))
    hfov = math.radians(rng.uniform(55, 72))
    return fit_camera(rng, corners_all, size, azimuth, tilt, rng.uniform(*spec.fill), hfov)


def _draw_cards(rng, image: np.ndarray, ids: np.ndarray, table: Table, faces, camera: Camera, size,
                light: np.ndarray, fruit_print: str,
                fruit_rng: np.random.Generator | None) -> tuple[list[float], list]:
    """Draw the cards back to front into ``image`` and their indices into the id buffer
    ``ids`` (both in place): each card's projected area and the region of the photo it may
    cover (None where it is out of the photo)."""
    areas: list[float] = []
    boxes_roi: list = []
    for index, card in enumerate(table.cards):
        face = faces.face(rng, card.slug, printed_share=0.5)
        if fruit_print != "faces" and card.slug.startswith("fruit-"):  # its own stream: other draws stay
            face = fruit_print_face(fruit_rng or np.random.default_rng(index), face, card.slug, fruit_print)
        styled, alpha, grow = styled_face(rng, face, card.style)
        quad = camera.flat(card.corners(grow), 0.03 * (index % 7))
        roi = _roi(quad, size)
        areas.append(abs(cv2.contourArea(np.float32(quad))))
        boxes_roi.append(roi)
        if roi is None:
            continue
        x1, y1, x2, y2 = roi
        warped = _warp_into(styled, quad, roi).astype(np.float32)
        a = _warp_into(alpha, quad, roi).astype(np.float32) / 255
        # a thin contact shadow just beside the card, away from the light
        side = max(1.0, math.sqrt(areas[-1]) * 0.015)
        shadow = cv2.GaussianBlur(a, (0, 0), side)
        shadow = np.roll(shadow, (int(round(-light[1] * side * 2)), int(round(light[0] * side * 2))), (0, 1))
        region = image[y1:y2, x1:x2]
        region *= (1 - 0.35 * shadow)[:, :, None]
        region[:] = region * (1 - a[:, :, None]) + warped * rng.uniform(0.92, 1.05) * a[:, :, None]
        ids[y1:y2, x1:x2][a > 0.5] = index
    return areas, boxes_roi


def _clutter(rng, table: Table, kind: str, camera: Camera, corners_all: np.ndarray,
             light: np.ndarray) -> list[tuple[list, list, list]]:
    """Up to three things on the table (two in a close-up): cups, phones and score pads set
    down off the cards, and hands reaching in from a player's seat; each as
    ``(polygons with colours, shadow polygons, soft shadow polygons)``."""
    items = []
    kinds = ["cup", "phone", "pad", "hand"]
    for _ in range(int(rng.integers(0, 4 if kind != "closeup" else 2))):
        what = str(rng.choice(kinds))
        if what == "hand":
            seat = table.seats[int(rng.integers(len(table.seats)))]
            c, s = math.cos(seat.facing), math.sin(seat.facing)
            xy = np.array([seat.x, seat.y]) + np.array([s, c]) * rng.uniform(-2, 10) + np.array([c, -s]) * rng.uniform(-25, 25)
            items.append(hand(rng, camera, xy, seat.facing + rng.normal(0, 0.4), light))
            continue
        for _try in range(20):
            xy = corners_all.mean(0) + rng.normal(0, 1, 2) * (np.ptp(corners_all, 0) / 2 + 10)
            if np.min(np.hypot(*(corners_all - xy).T)) > 9 and table.contains(xy)[0]:
                break
        maker = {"cup": cup, "phone": phone, "pad": score_pad}[what]
        items.append(maker(rng, camera, xy, light))
    return items


def _draw_clutter(rng, image: np.ndarray, ids: np.ndarray, items: list[tuple[list, list, list]],
                  n_cards: int) -> list[list[int]]:
    """Draw each item of clutter, with its shadows, into ``image`` and mark it in ``ids`` (both
    in place), keeping only those that hide no more than a part of any card: the boxes of
    those drawn."""
    h, w = ids.shape
    size = (w, h)
    clutter_boxes = []
    for polys, hard, soft in items:
        mask = _poly_mask([p for p, _ in polys], size)
        over = ids[mask > 127]
        covered = np.bincount(over[over >= 0], minlength=n_cards)
        before = np.bincount(ids[ids >= 0], minlength=n_cards)
        if (covered > 0.3 * np.maximum(before, 1)).any():
            continue
        if hard:
            m = cv2.GaussianBlur(_poly_mask(hard, size).astype(np.float32) / 255, (0, 0), 1.5)
            image *= (1 - rng.uniform(0.3, 0.5) * m)[:, :, None]
        if soft:
            sm = _poly_mask(soft, size).astype(np.float32) / 255
            sm = cv2.GaussianBlur(sm, (0, 0), max(w, h) * 0.012)
            image *= (1 - rng.uniform(0.3, 0.55) * sm)[:, :, None]
        for poly, colour in polys:
            m = _poly_mask([poly], size).astype(np.float32)[:, :, None] / 255
            shade = np.float32(colour) * rng.uniform(0.9, 1.05)
            image[:] = image * (1 - m) + shade * m
        ids[mask > 127] = -2
        ys_, xs_ = np.nonzero(mask > 127)
        if len(xs_):
            clutter_boxes.append([int(xs_.min()), int(ys_.min()), int(xs_.max()) + 1, int(ys_.max()) + 1])
    return clutter_boxes


def apply_conditions(rng, image: np.ndarray, camera: Camera, table: Table, kind: str) -> np.ndarray:
    """Light and camera: white balance, light falloff, glare, a shadow, defocus, motion blur, noise."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    # white balance / warm or cool light
    gains = rng.choice([[0.75, 0.95, 1.15], [0.85, 1.0, 1.1], [1.0, 1.0, 1.0], [1.12, 1.02, 0.9], [0.95, 1.05, 0.95]])
    image = image * np.float32(gains) * rng.uniform(0.7, 1.2)
    # light falling off across the table and towards the corners
    a = rng.uniform(0, 2 * math.pi)
    ramp = ((xs / w - 0.5) * math.cos(a) + (ys / h - 0.5) * math.sin(a)) * rng.uniform(0, 0.5)
    vignette = ((xs / w - 0.5) ** 2 + (ys / h - 0.5) ** 2) * rng.uniform(0, 0.45)
    image *= (1 + ramp - vignette)[:, :, None]
    # glare: a lamp's reflection, often right on the cards
    for _ in range(int(rng.integers(0, 3))):
        if table.cards and rng.random() < 0.7:
            c = table.cards[int(rng.integers(len(table.cards)))]
            gx, gy = camera.flat([[c.x, c.y]])[0]
        else:
            gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        r1, r2 = rng.uniform(0.02, 0.1) * w, rng.uniform(0.02, 0.07) * w
        ang = rng.uniform(0, math.pi)
        dx, dy = xs - gx, ys - gy
        u = (dx * math.cos(ang) + dy * math.sin(ang)) / r1
        v = (-dx * math.sin(ang) + dy * math.cos(ang)) / r2
        glare = np.exp(-(u * u + v * v)) * rng.uniform(0.5, 1.0)
        image = image * (1 - 0.3 * glare[:, :, None]) + 255 * glare[:, :, None]
    # a hard shadow from the edge (a lamp arm, the photographer) or a soft one
    if rng.random() < 0.4:
        pts = rng.uniform([0, 0], [w, h], (4, 2)).astype(np.float32)
        pts[0] = [rng.choice([0, w]), rng.uniform(0, h)]
        mask = np.zeros((h, w), np.float32)
        cv2.fillPoly(mask, [cv2.convexHull(pts).astype(np.int32)], 1.0)
        blur = 1.5 if rng.random() < 0.5 else w * 0.03
        mask = cv2.GaussianBlur(mask, (0, 0), blur)
        image *= (1 - rng.uniform(0.25, 0.5) * mask)[:, :, None]
    # defocus: the far side (top of the photo) out of focus
    if rng.random() < 0.5 and kind != "closeup" or rng.random() < 0.2:
        sigma = rng.uniform(0.6, 2.2) * max(w, h) / 1000
        blurred = cv2.GaussianBlur(image, (0, 0), sigma)
        edge = rng.uniform(0.25, 0.6) * h
        m = np.clip((edge - ys) / edge, 0, 1)[:, :, None]
        image = image * (1 - m) + blurred * m
    # motion blur: the phone moved
    if rng.random() < 0.25:
        length = int(rng.integers(3, max(4, int(0.008 * max(w, h)))))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel /= max(kernel.sum(), 1e-6)
        image = cv2.filter2D(image, -1, kernel)
    # sensor noise: shot noise over read noise, stronger on small sensors
    small = max(w, h) <= 700
    read = rng.uniform(1, 4) * (2 if small else 1)
    image = np.clip(image, 0, 255)
    noise = rng.normal(0, 1, image.shape).astype(np.float32)
    image = image + noise * np.sqrt(read ** 2 + image * rng.uniform(0.02, 0.12))
    if small:
        image = cv2.GaussianBlur(image, (0, 0), 0.7)
    return image


def _truth(table: Table, ids, areas, rois, size, kind, camera: Camera) -> dict:
    w, h = size
    cards: list[dict[str, Any]] = []
    for index, card in enumerate(table.cards):
        roi = rois[index]
        box, share = None, 0.0
        if roi is not None:
            x1, y1, x2, y2 = roi
            mine = (ids[y1:y2, x1:x2] == index).astype(np.uint8)
            # slivers (a loose card peeking out beside the one on it, under a fifth of a card
            # wide) are no region anyone would box: open them away; a strip is wider
            k = max(3, int(0.18 * math.sqrt(areas[index] / 1.55)) | 1)
            mine = cv2.morphologyEx(mine, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
            ys, xs = np.nonzero(mine)
            if len(xs):
                box = [int(xs.min() + x1), int(ys.min() + y1), int(xs.max() + x1) + 1, int(ys.max() + y1) + 1]
                share = len(xs) / max(areas[index], 1)
        cards.append({"label": card.slug, "box": box, "seat": card.seat, "visible": round(float(min(share, 1)), 3),
                      "hidden": box is None or share < MIN_VISIBLE})
    # seats numbered as the photo shows them: 0 nearest the bottom, then clockwise
    visible = [c for c in cards if not c["hidden"]]
    order = list(range(len(table.seats)))
    if len(table.seats) > 1 and visible:
        boxes = np.array([c["box"] for c in visible], float)
        centre = (boxes[:, :2].min(0) + boxes[:, 2:].max(0)) / 2
        directions = []
        for s in range(len(table.seats)):
            mine = np.array([c["box"] for c in visible if c["seat"] == s], float)
            mean = ((mine[:, :2] + mine[:, 2:]) / 2).mean(0) - centre if len(mine) else np.zeros(2)
            directions.append((math.degrees(math.atan2(mean[1], mean[0])) - 90) % 360)
        order = sorted(order, key=lambda s: directions[s])
        start = int(np.argmin([min(directions[s], 360 - directions[s]) for s in order]))
        order = order[start:] + order[:start]
    renumber = {old: new for new, old in enumerate(order)}
    for c in cards:
        c["seat"] = renumber[c["seat"]]
    seats: list[dict[str, Any]] = [{"seat": renumber[s], "tableau": seat.tableau,
              "player_xy": [round(v, 1) for v in camera.flat([[seat.x, seat.y]])[0].tolist()]}
             for s, seat in enumerate(table.seats)]
    seats.sort(key=lambda s: s["seat"])
    n = len(seats)
    group = {"tableau": "one tableau", "closeup": "close-up", "rect": "rectangular", "duel": "two players",
             "fruit": "fruit"}.get(
        kind, "2-5 seats" if n <= 5 else "6-8 seats")
    truth = {"size": [w, h], "kind": kind, "group": group, "cards": cards, "seats": seats, "shape": table.shape}
    if n == 1:
        truth["tableau"] = seats[0]["tableau"]
    return truth
