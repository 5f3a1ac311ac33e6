"""Compose a synthetic photo of a Sushi Go! table with its exact ground truth.

Geometry lives on the table plane in *card units* (a card is 1 wide and ``CARD_ASPECT``
tall). Each seat's tableau is laid out in the player's own frame (x right, y towards the
player: a covering card lies *below* the card it covers, leaving that card's top strip
visible), turned to face its player around the table, then the whole table is seen through
a phone camera (rotation, scale, keystone perspective). Cards are drawn back to front into a
z-buffer, so the truth box of each card is exactly its visible region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.faces import (
    FACE_SIZE,
    NIGIRI,
    PRINTED_SLUGS,
    SLUGS,
    FaceSet,
    training_faces,
    unseen_print_faces,
)
from vision.synth import textures

CARD_ASPECT = FACE_SIZE[1] / FACE_SIZE[0]
LAYOUTS = ("columns", "loose")
#: A card whose visible area is below this share of the card is not labelled (not findable).
MIN_VISIBLE = 0.05

Entry = str | list[str]


@dataclass
class PlacedCard:
    """A card on the table plane: centre, turn (radians), and what covers it."""

    slug: str
    seat: int
    cx: float
    cy: float
    angle: float
    covered_by: int | None = None  # index of the card lying directly on this one
    covers: int | None = None
    variant: int = 0


@dataclass
class Scene:
    cards: list[PlacedCard] = field(default_factory=list)
    seats: list[dict] = field(default_factory=list)


# --- tableaux -------------------------------------------------------------------------


def random_tableau(rng: np.random.Generator, n_cards: int | None = None,
                   weights: dict[str, float] | None = None) -> list[Entry]:
    """A plausible end-of-round tableau: repeated cards, nigiri on wasabi, special orders.

    >>> t = random_tableau(np.random.default_rng(1), 9)
    >>> sum(len(e) if isinstance(e, list) else 1 for e in t)
    9
    """
    n_cards = int(n_cards if n_cards is not None else rng.integers(3, 13))
    faces = [s for s in SLUGS if s != "card-back"]
    p = np.array([(weights or {}).get(s, 1.0) for s in faces], np.float64)
    p /= p.sum()
    entries: list[Entry] = []
    remaining = n_cards
    while remaining > 0:
        roll = rng.random()
        if roll < 0.12 and remaining >= 2:
            entries.append(["wasabi", str(rng.choice(NIGIRI))])
            remaining -= 2
        elif roll < 0.18 and remaining >= 2:
            copied = str(rng.choice(faces, p=p))
            if copied in ("special-order", "wasabi"):
                continue
            entries.append([copied, "special-order"])
            remaining -= 2
        elif roll < 0.24:
            for _ in range(min(remaining, int(rng.integers(1, 4)))):
                entries.append("card-back")
                remaining -= 1
        else:
            slug = str(rng.choice(faces, p=p))
            repeat = min(remaining, int(rng.geometric(0.5)))
            for _ in range(repeat):
                entries.append(slug)
                remaining -= 1
    order = rng.permutation(len(entries))
    return [entries[i] for i in order]


def _columns(rng: np.random.Generator, tableau: list[Entry], layout: str) -> list[list[str]]:
    """Group a tableau into columns of cards, each card covering the one before it."""
    columns: list[list[str]] = []
    by_slug: dict[str, list[str]] = {}
    max_len = int(rng.integers(3, 7))
    for entry in tableau:
        cards = list(entry) if isinstance(entry, list) else [entry]
        if layout == "loose":
            columns.append(cards)
            continue
        bottom = cards[0]
        # a lone special order is its own column: under another card it would read as a copy
        groupable = bottom != "special-order" or len(cards) > 1
        column = by_slug.get(bottom)
        if groupable and column is not None and len(column) + len(cards) <= max_len and (
            len(cards) == 1 or rng.random() < 0.5
        ) and column[-1] == bottom:
            column.extend(cards)
        else:
            column = list(cards)
            columns.append(column)
            if groupable and len(cards) == 1:
                by_slug[bottom] = column
    order = rng.permutation(len(columns))
    return [columns[i] for i in order]


def layout_tableau(rng: np.random.Generator, tableau: list[Entry], seat: int,
                   layout: str, piles: bool = False) -> tuple[list[PlacedCard], float, float]:
    """Place one tableau in its player's frame, centred on the origin; returns (cards, w, h).

    ``piles`` lays each column loosely, as hands do at a real table: thinner and uneven
    strips (an eighth to a third of a card), each card a little turned and shifted.
    """
    columns = _columns(rng, tableau, layout)
    strip = rng.uniform(0.2, 0.27) * CARD_ASPECT
    if piles:  # drawn after the usual draws, so photos without piles stay as they were
        strip = rng.uniform(0.12, 0.3) * CARD_ASPECT
    per_row = int(rng.integers(3, 9)) if layout == "columns" else int(rng.integers(3, 7))
    gap = rng.uniform(0.05, 0.4)
    placed: list[PlacedCard] = []
    row_top = 0.0
    width = 0.0
    for start in range(0, len(columns), per_row):
        row = columns[start:start + per_row]
        row_height = 0.0
        for i, column in enumerate(row):
            x = i * (1 + gap) + 0.5 + rng.uniform(-0.05, 0.05)
            column_angle = rng.normal(0, 0.035)
            y = row_top + CARD_ASPECT / 2 + rng.uniform(-0.05, 0.05)
            for j, slug in enumerate(column):
                sideways, turn = rng.normal(0, 0.015), rng.normal(0, 0.012)
                card = PlacedCard(slug, seat, x + sideways, y, column_angle + turn)
                card.variant = int(rng.integers(0, 1 << 16))
                if piles:
                    card.cx += rng.normal(0, 0.05)
                    card.angle += rng.normal(0, 0.07)
                if j > 0:
                    placed[-1].covered_by = len(placed)
                    card.covers = len(placed) - 1
                placed.append(card)
                y += strip * (rng.uniform(0.75, 1.3) if piles else rng.uniform(0.9, 1.1))
                x += rng.normal(0, 0.02)
            row_height = max(row_height, y - strip - row_top + CARD_ASPECT / 2)
            width = max(width, x + 0.5)
        row_top += row_height + rng.uniform(0.1, 0.5)
    height = row_top
    for card in placed:
        card.cx -= width / 2
        card.cy -= height / 2
    return placed, width, height


def build_scene(rng: np.random.Generator, tableaux: list[list[Entry]], layout: str | None,
                piles: bool = False) -> Scene:
    """Lay out every seat and turn each tableau to face its player around the table.

    Seat 0 sits at the bottom of the photo and seats follow clockwise. ``piles``: the
    columns laid loosely (``layout_tableau``).
    """
    scene = Scene()
    laid = []
    for seat, tableau in enumerate(tableaux):
        seat_layout = layout or str(rng.choice(LAYOUTS, p=[0.8, 0.2]))
        cards, w, h = layout_tableau(rng, tableau, seat, seat_layout, piles)
        laid.append((cards, w, h, seat_layout))
    n = len(tableaux)
    w_max = max(w for _, w, _, _ in laid)
    h_max = max(h for _, _, h, _ in laid)
    if n == 1:
        radius = 0.0
    elif n == 2:
        radius = h_max / 2 + rng.uniform(0.5, 1.5)
    else:
        radius = (w_max / 2 + 0.2) / math.tan(math.pi / n) * 0.8 + h_max / 2 + rng.uniform(0.1, 0.5)
    for seat, (cards, _, _, seat_layout) in enumerate(laid):
        phi = math.pi / 2 + 2 * math.pi * seat / n + (rng.normal(0, 0.05) if n > 1 else 0.0)
        turn = phi - math.pi / 2  # the tableau's "towards the player" axis points outwards
        ox, oy = radius * math.cos(phi), radius * math.sin(phi)
        c, s = math.cos(turn), math.sin(turn)
        offset = len(scene.cards)
        for card in cards:
            x, y = card.cx, card.cy
            card.cx, card.cy = ox + c * x - s * y, oy + s * x + c * y
            card.angle += turn
            if card.covered_by is not None:
                card.covered_by += offset
            if card.covers is not None:
                card.covers += offset
            scene.cards.append(card)
        scene.seats.append({"seat": seat, "tableau": tableaux[seat], "layout": seat_layout,
                            "angle": math.degrees(turn) % 360})
    return scene


# --- rendering ------------------------------------------------------------------------


def _card_corners(card: PlacedCard) -> np.ndarray:
    hw, hh = 0.5, CARD_ASPECT / 2
    local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    c, s = math.cos(card.angle), math.sin(card.angle)
    return local @ np.array([[c, s], [-s, c]]) + [card.cx, card.cy]


def _camera(rng: np.random.Generator, corners: np.ndarray, size: tuple[int, int], fill: float,
            tilt: float, spin: float, allow_cutoff: bool) -> np.ndarray:
    """Homography from the table plane to the photo that frames every card."""
    w, h = size
    centre = (corners.min(0) + corners.max(0)) / 2
    for _ in range(12):
        c, s = math.cos(spin), math.sin(spin)
        rot = np.array([[c, -s], [s, c]])
        turned = (corners - centre) @ rot.T
        extent = turned.max(0) - turned.min(0)
        scale = fill * min(w / extent[0], h / extent[1])
        shift = rng.uniform(-1, 1, 2) * (1 - fill) * np.array([w, h]) * 0.3 if fill < 1 else 0
        similarity = np.array([[scale * c, -scale * s, 0], [scale * s, scale * c, 0], [0, 0, 1]])
        similarity[:2, 2] = np.array([w / 2, h / 2]) + shift - similarity[:2, :2] @ centre
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        dst = (src + rng.uniform(-tilt, tilt, (4, 2)) * [w, h]).astype(np.float32)
        keystone = cv2.getPerspectiveTransform(src, dst)
        homography = keystone @ similarity
        projected = cv2.perspectiveTransform(corners[None].astype(np.float64), homography)[0]
        inside = (projected.min(0) >= 2).all() and (projected.max(0) <= [w - 3, h - 3]).all()
        if inside or allow_cutoff:
            return homography
        fill *= 0.92
        tilt *= 0.8
    return homography


def _tilted(rng: np.random.Generator, homography: np.ndarray, corners: np.ndarray, size: tuple[int, int],
            allow_cutoff: bool) -> np.ndarray:
    """The same framing seen by a pinhole camera tilted 15-45 degrees from looking straight
    down, as a phone held over a table is: the far (top) side recedes and everything is
    foreshortened along the view, so cards look squat and a column's strips thinner
    (``_camera``'s keystone keeps a card's proportions). Scaled back to frame every card.

    >>> h = np.eye(3); corners = np.array([[100.0, 100.0], [540, 100], [540, 380], [100, 380]])
    >>> seen = cv2.perspectiveTransform(corners[None], _tilted(np.random.default_rng(0), h, corners,
    ...                                 (640, 480), False))[0]
    >>> top, bottom = seen[1, 0] - seen[0, 0], seen[2, 0] - seen[3, 0]
    >>> bool(top < bottom) and bool((seen.min(0) >= 2).all() and (seen.max(0) <= [637, 477]).all())
    True
    """
    w, h = size
    theta = math.radians(rng.uniform(15, 45))
    roll = float(rng.normal(0, 0.05))
    d = (h / 2) / math.tan(math.radians(rng.uniform(40, 60)) / 2)  # from the vertical field of view
    c, s = math.cos(roll), math.sin(roll)
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    rolled = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    pinhole = np.array([[d, 0, 0], [0, d * math.cos(theta), 0], [0, -math.sin(theta), d]])
    before = cv2.perspectiveTransform(corners[None].astype(np.float64), homography)[0]
    depth = d - (before[:, 1] - h / 2) * math.sin(theta)
    if depth.min() < 0.3 * d:  # a close-up cut off far below the frame: too near to tilt
        return homography
    warped = np.linalg.inv(centre) @ pinhole @ rolled @ centre @ homography
    seen = cv2.perspectiveTransform(corners[None].astype(np.float64), warped)[0]
    extent, old = seen.max(0) - seen.min(0), before.max(0) - before.min(0)
    scale = float(max(old / extent))
    middle = (before.min(0) + before.max(0)) / 2
    if not allow_cutoff:  # every card in the frame, as _camera framed them
        scale = min(scale, (w - 6) / extent[0], (h - 6) / extent[1])
        half = extent * scale / 2
        middle = np.clip(middle, half + 3, np.array([w, h]) - half - 3)
    fit = np.array([[scale, 0, 0], [0, scale, 0], [0, 0, 1]])
    fit[:2, 2] = middle - scale * (seen.min(0) + seen.max(0)) / 2
    return fit @ warped


def _visible_box(zbuffer: np.ndarray, index: int, roi, area: float, opening: float = 0.15):
    """Box of the visible part of card ``index``, ignoring slivers along covering edges.

    A covering card that sits a little askew leaves thin slivers of the card below it
    visible down its sides; nobody sees those as "the visible card", so an opening
    (``opening`` of a card's width, about half a strip's height) removes them before the box
    is taken.
    """
    x1, y1, x2, y2 = roi
    if x2 <= x1 or y2 <= y1:
        return None, 0.0
    mask = (zbuffer[y1:y2, x1:x2] == index).astype(np.uint8)
    width = math.sqrt(area / CARD_ASPECT)
    k = max(3, int(round(width * opening)) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ys, xs = np.nonzero(mask)
    if not len(xs):
        return None, 0.0
    box = [int(xs.min() + x1), int(ys.min() + y1), int(xs.max() + 1 + x1), int(ys.max() + 1 + y1)]
    return box, len(xs) / area


def _rounded_mask(size: tuple[int, int]) -> np.ndarray:
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    r = int(round(w * 0.05))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


_CARD_MASK = _rounded_mask(FACE_SIZE)


def _face_to_plane(card: PlacedCard) -> np.ndarray:
    fw, fh = FACE_SIZE
    c, s = math.cos(card.angle), math.sin(card.angle)
    centre = np.array([[1, 0, -fw / 2], [0, 1, -fh / 2], [0, 0, 1]])
    scale = np.diag([1 / fw, 1 / fw, 1])
    rot = np.array([[c, -s, card.cx], [s, c, card.cy], [0, 0, 1]])
    return rot @ scale @ centre


def _resolve_faces(faces: FaceSet | str | None) -> FaceSet:
    if isinstance(faces, FaceSet):
        return faces
    if faces in (None, "digital", "train"):
        return training_faces()
    if faces in ("print", "unseen-print"):
        return unseen_print_faces()
    raise ValueError(f"unknown face set {faces!r}: use 'digital' or 'print'")


def _entry_list(tableau) -> list[Entry]:
    entries: list[Entry] = []
    for entry in tableau:
        cards = [entry] if isinstance(entry, str) else list(entry)
        for slug in cards:
            if slug not in SLUGS:
                raise ValueError(f"unknown card slug {slug!r} in tableau")
        entries.append(cards[0] if isinstance(entry, str) else cards)
    return entries


@dataclass(frozen=True)
class SceneConditions:
    """How a photo's cards, table and camera differ from the plain render, each on or off.

    Each condition that is on draws from a random stream of its own (the photo's seed and a
    number of its own), so switching one on leaves every other draw of the photo, and every
    photo with it off, exactly as it was.
    """

    #: every card printed its own way (``textures.print_style``: colour profile, halftone,
    #: gloss, wear, sleeve), as the copies of a physical deck differ
    print_styles: bool = False
    #: the photo taken from the table's near edge (``textures.far_side``): the far side
    #: smaller and out of focus, maybe a hard glare, a lamp's colour, a hand's shadow
    far_camera: bool = False
    #: the columns laid loosely (``layout_tableau``): thin, uneven strips, cards turned and
    #: shifted, as hands lay them
    piles: bool = False
    #: the camera held at any angle to the table (a phone raised from any seat, or turned in
    #: the hand): a column may run across the photo or diagonally, its strips boxed askew;
    #: else the table's seat 0 stays at the bottom, give or take a few degrees
    turned: bool = False
    #: the camera tilted 15-45 degrees from looking straight down (``_tilted``): cards
    #: foreshortened along the view, the far side receding
    tilted: bool = False
    #: a boldly checked, striped or gingham cloth on the table (``textures.patterned_cloth``),
    #: seen through the same camera as the cards
    patterned: bool = False


PLAIN = SceneConditions()


def compose_table(seed: int, tableaux: list[list[Entry]] | None = None, *, n_seats: int | None = None,
                  layout: str | None = None, size: tuple[int, int] = (1280, 960),
                  faces: FaceSet | str | None = None, clutter: bool = True, effects: bool = True,
                  fill: float | None = None, allow_cutoff: bool = False,
                  slug_weights: dict[str, float] | None = None,
                  conditions: SceneConditions = PLAIN) -> tuple[np.ndarray, dict]:
    """Render a photo of a table and return ``(image_bgr, truth)``.

    ``tableaux`` gives each seat's cards in game-record form (slug or stack list, bottom
    first); left out, ``n_seats`` random tableaux are drawn (1 to 5 when that is left out
    too). ``layout`` is ``"columns"`` (like cards overlapped in columns) or ``"loose"``
    (cards side by side; stacks still overlap); left out, it is drawn per seat. ``faces`` is
    ``"digital"`` (training faces) or ``"print"`` (printed scans where they exist). ``fill``
    fixes the share of the frame the table fills; ``effects=False`` gives a clean render.
    ``conditions`` says how the cards, table and camera differ from the plain render
    (:class:`SceneConditions`).
    The same seed and arguments give the same photo; the background, light and clutter
    depend on the seed alone, so frames of a game rendered turn by turn keep their table.

    ``truth`` holds ``cards`` (label, visible box ``[x1, y1, x2, y2]``, seat, covered,
    visible share, hidden), ``seats`` (seat, tableau, layout, angle), ``clutter`` (the
    boxes of the objects on the table) and, for one seat, ``tableau``.
    """
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}: use one of {', '.join(LAYOUTS)}")
    plan = np.random.default_rng([seed, 1])
    tableaux = _seat_tableaux(plan, tableaux, n_seats, slug_weights)
    face_set = _resolve_faces(faces)
    scene = build_scene(plan, tableaux, layout, conditions.piles)
    homography = _photo_camera(seed, scene, size, fill, allow_cutoff, conditions)
    table_rng = np.random.default_rng([seed, 3])
    if conditions.patterned:  # drawn apart, so the other photos keep their tables
        image = textures.patterned_cloth(np.random.default_rng([seed, 11]), size, np.linalg.inv(homography))
    else:
        image = textures.table_surface(table_rng, size)
    layers = _lay_cards(seed, table_rng, image, scene, face_set, homography, conditions.print_styles)
    clutter_boxes = _lay_clutter(np.random.default_rng([seed, 4]), image, layers) if clutter else []
    if effects:
        image = textures.shade(np.random.default_rng([seed, 5]), image)
        if conditions.far_camera:
            image = textures.far_side(np.random.default_rng([seed, 8]), image)
        photo = textures.degrade(np.random.default_rng([seed, 6]), image)
    else:
        photo = np.clip(image, 0, 255).astype(np.uint8)
    truth = {
        "seed": seed,
        "size": list(size),
        "faces": face_set.name,
        "cards": _card_truth(scene, layers),
        "seats": scene.seats,
        "clutter": clutter_boxes,
    }
    if len(tableaux) == 1:
        truth["tableau"] = scene.seats[0]["tableau"]
    return photo, truth


@dataclass(frozen=True)
class _CardLayers:
    """What drawing a photo's cards leaves for its truth: which card shows at each pixel
    (``zbuffer``: card index, -1 table, -2 clutter), each card's full area in the photo and
    the pixel box it was drawn in."""

    zbuffer: np.ndarray
    card_area: list[float]
    rois: list[tuple[int, int, int, int]]


def _seat_tableaux(plan: np.random.Generator, tableaux: list[list[Entry]] | None, n_seats: int | None,
                   slug_weights: dict[str, float] | None) -> list[list[Entry]]:
    """The seats' tableaux, checked: those given, or ``n_seats`` drawn from the photo's plan
    stream (1 to 5, half of them a single seat, when ``n_seats`` is left out)."""
    if tableaux is None:
        n = int(n_seats) if n_seats else int(plan.choice([1, 2, 3, 4, 5], p=[0.5, 0.25, 0.12, 0.08, 0.05]))
        most = 13 if n == 1 else 10
        tableaux = [random_tableau(plan, int(plan.integers(3, most)), weights=slug_weights)
                    for _ in range(n)]
    tableaux = [_entry_list(t) for t in tableaux]
    if not tableaux or any(not t for t in tableaux):
        raise ValueError("every seat needs at least one card")
    return tableaux


def _photo_camera(seed: int, scene: Scene, size: tuple[int, int], fill: float | None, allow_cutoff: bool,
                  conditions: SceneConditions) -> np.ndarray:
    """The table-to-photo homography: framing, spin and tilt from the camera stream, each
    condition that changes the camera from a stream of its own."""
    w, h = size
    camera_rng = np.random.default_rng([seed, 2])
    corners = np.concatenate([_card_corners(c) for c in scene.cards])
    fill = fill if fill is not None else float(camera_rng.uniform(0.55, 0.97))
    spin = float(camera_rng.normal(0, 0.1))
    if conditions.turned:  # drawn apart, so photos held the usual way stay as they were
        spin = float(np.random.default_rng([seed, 8]).uniform(-math.pi, math.pi))
    tilt = float(camera_rng.uniform(0.0, 0.12))
    homography = _camera(camera_rng, corners, size, fill, tilt, spin, allow_cutoff)
    if conditions.tilted:  # drawn apart, so photos taken from straight above stay as they were
        homography = _tilted(np.random.default_rng([seed, 10]), homography, corners, size, allow_cutoff)
    if conditions.far_camera:
        # seen across the table: the far (top) edge of the frame shrinks toward its middle
        inset, drop = camera_rng.uniform(0.08, 0.3) * w, camera_rng.uniform(0.0, 0.12) * h
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        seen = np.array([[inset, drop], [w - inset, drop], [w, h], [0, h]], np.float32)
        homography = cv2.getPerspectiveTransform(frame, seen) @ homography
    return homography


def _lay_cards(seed: int, table_rng: np.random.Generator, image: np.ndarray, scene: Scene, face_set: FaceSet,
               homography: np.ndarray, print_styles: bool) -> _CardLayers:
    """Draw the scene's cards into ``image`` (float, in place), bottom first, each with a soft
    shadow (its strength and direction from the table stream), and record where each shows."""
    h, w = image.shape[:2]
    layers = _CardLayers(np.full((h, w), -1, np.int32), [], [])
    shadow = table_rng.uniform(0.15, 0.45)
    shadow_dir = table_rng.uniform(-1, 1, 2)
    style_rng = np.random.default_rng([seed, 7])
    for index, card in enumerate(scene.cards):
        variants = face_set.faces.get(card.slug)
        if variants is None:
            raise ValueError(f"no face image for {card.slug!r} in the {face_set.name} face set")
        face = variants[card.variant % len(variants)]
        if print_styles:
            face = textures.print_style(style_rng, face)
        _lay_card(image, layers, index, face, homography @ _face_to_plane(card), shadow, shadow_dir)
    return layers


def _lay_card(image: np.ndarray, layers: _CardLayers, index: int, face: np.ndarray, matrix: np.ndarray,
              shadow: float, shadow_dir: np.ndarray) -> None:
    """Warp one card ``face`` by ``matrix`` (face pixels to photo) over ``image``, shading what
    lies under it, and mark its pixels in the z-buffer as card ``index``."""
    h, w = image.shape[:2]
    quad = cv2.perspectiveTransform(
        np.array([[[0, 0], [FACE_SIZE[0], 0], [FACE_SIZE[0], FACE_SIZE[1]], [0, FACE_SIZE[1]]]], np.float64),
        matrix)[0]
    unit = float(np.linalg.norm(quad[1] - quad[0]))
    pad = int(unit * 0.08) + 2
    x1, y1 = (int(v) - pad for v in np.floor(quad.min(0)))
    x2, y2 = (int(v) + pad for v in np.ceil(quad.max(0)))
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < 2 or y2 - y1 < 2:
        layers.card_area.append(1)
        layers.rois.append((0, 0, 0, 0))
        return
    local = np.array([[1, 0, -x1], [0, 1, -y1], [0, 0, 1]]) @ matrix
    roi = (x2 - x1, y2 - y1)
    if unit < FACE_SIZE[0] / 2:  # soften before shrinking: less aliasing, like a lens
        face = cv2.GaussianBlur(face, (0, 0), 0.35 * FACE_SIZE[0] / unit)
    warped = cv2.warpPerspective(face, local, roi, flags=cv2.INTER_LINEAR).astype(np.float32)
    alpha = cv2.warpPerspective(_CARD_MASK, local, roi, flags=cv2.INTER_LINEAR)
    full_area = float(cv2.contourArea(quad.astype(np.float32)))
    layers.card_area.append(max(full_area, 1.0))
    layers.rois.append((x1, y1, x2, y2))
    # a soft shadow falls from the card onto what lies under it
    offset = shadow_dir * unit * 0.04
    shift = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    shade_mask = cv2.warpAffine(alpha, shift, roi).astype(np.float32) / 255
    shade_mask = cv2.GaussianBlur(shade_mask, (0, 0), max(unit * 0.03, 0.8))
    region = image[y1:y2, x1:x2]
    region *= (1 - shadow * shade_mask)[..., None]
    a = (alpha.astype(np.float32) / 255)[..., None]
    region[:] = region * (1 - a) + warped * a
    layers.zbuffer[y1:y2, x1:x2][alpha >= 128] = index


def _lay_clutter(clutter_rng: np.random.Generator, image: np.ndarray, layers: _CardLayers) -> list[list[int]]:
    """Up to four objects on the table (sized to the cards), each left out where it would hide
    the cards; returns their boxes, from which the classifier learns "not a card"."""
    h, w = image.shape[:2]
    zbuffer = layers.zbuffer
    boxes = []
    unit = np.median([math.sqrt(a / CARD_ASPECT) for a in layers.card_area])
    for _ in range(int(clutter_rng.integers(0, 5))):
        layer = np.zeros((h, w, 3), np.float32)
        mask = np.zeros((h, w), np.uint8)
        textures.draw_clutter(clutter_rng, layer, mask, unit)
        on = mask > 0
        over_cards = np.count_nonzero(zbuffer[on] >= 0)
        if over_cards > 0.02 * max(int(np.count_nonzero(on)), 1):
            continue  # keep the cards readable: the truth tableau must stay visible
        image[on] = layer[on]
        zbuffer[on] = -2
        ys, xs = np.nonzero(on)
        if len(xs):
            boxes.append([int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1])
    return boxes


def _card_truth(scene: Scene, layers: _CardLayers) -> list[dict]:
    """Each card's truth: its label, visible box and share, seat and what covers it."""
    out = []
    for index, card in enumerate(scene.cards):
        box, visible = _visible_box(layers.zbuffer, index, layers.rois[index], layers.card_area[index])
        out.append({
            "label": card.slug,
            "box": box,
            "seat": card.seat,
            "covered": card.covered_by is not None,
            "covered_by": card.covered_by,
            "visible": round(float(min(visible, 1.0)), 3),
            "hidden": box is None or visible < MIN_VISIBLE,
        })
    return out


def printed_weights(boost: float = 6.0) -> dict[str, float]:
    """Slug weights that make the printed slugs common (for unseen-print test photos)."""
    return {slug: boost for slug in PRINTED_SLUGS}
