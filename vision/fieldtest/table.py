"""Tables, seats and tableaux on the table plane (centimetres, y away from the photographer).

A seat is a point at the table's edge with the direction its player looks across the table.
Each tableau is laid in its player's frame (u to the player's right, v away from the
player), every card upright for that player, in one of three ways: ``rows`` (cards side by
side), ``columns`` (each new card covers the lower part of the one before, so only a top
strip shows) or ``piles`` (columns laid loosely, each card slightly turned and shifted).
Nigiri lie on their wasabi, a special order on the card it copies; desserts lie apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.fieldtest.cards import CARD_H_CM, CARD_W_CM

NIGIRI = ("egg-nigiri", "salmon-nigiri", "squid-nigiri")
DESSERTS = ("pudding", "green-tea-ice-cream", "fruit-orange-orange", "fruit-pineapple-orange",
            "fruit-pineapple-pineapple", "fruit-watermelon-orange", "fruit-watermelon-pineapple",
            "fruit-watermelon-watermelon")
ROLLS = (("maki-1", "maki-2", "maki-3"), ("temaki",), ("uramaki-3", "uramaki-4", "uramaki-5"))
APPETIZERS = ("dumpling", "edamame", "eel", "miso-soup", "sashimi", "tempura", "tofu",
              "onigiri-circle", "onigiri-rectangle", "onigiri-square", "onigiri-triangle")
SPECIALS = ("chopsticks", "menu", "soy-sauce", "special-order", "spoon", "takeout-box", "tea", "wasabi")
ORIGINAL = ("maki-1", "maki-2", "maki-3", "tempura", "sashimi", "dumpling", "egg-nigiri", "salmon-nigiri",
            "squid-nigiri", "wasabi", "chopsticks", "pudding")
LAYOUTS = ("rows", "columns", "piles")


@dataclass
class Card:
    """One card on the table: centre and turn on the plane, and its seat."""

    slug: str
    seat: int
    x: float
    y: float
    angle: float  # radians: the direction of the card's top edge, from the plane's +y, clockwise
    style: str = "plain"

    def corners(self, grow: float = 0.0) -> np.ndarray:
        """Plane corners in the face's order: top-left, top-right, bottom-right, bottom-left."""
        hw, hh = CARD_W_CM * (1 + grow) / 2, CARD_H_CM / 2 + CARD_W_CM * grow / 2
        local = np.array([[-hw, hh], [hw, hh], [hw, -hh], [-hw, -hh]])
        c, s = math.cos(self.angle), math.sin(self.angle)
        rot = np.array([[c, s], [-s, c]])  # turn clockwise by angle (y up)
        return local @ rot.T + [self.x, self.y]


@dataclass
class Seat:
    """A player's place: ``x, y`` at the table's edge, ``facing`` the direction they look
    (radians from +y, clockwise), the tableau they have laid."""

    x: float
    y: float
    facing: float
    tableau: list = field(default_factory=list)


@dataclass
class Table:
    shape: str  # "round" or "rect"
    size: tuple[float, float]  # diameter, or length x depth
    seats: list[Seat]
    cards: list[Card] = field(default_factory=list)

    def contains(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        if self.shape == "round":
            return np.hypot(xy[:, 0], xy[:, 1]) <= self.size[0] / 2
        return (np.abs(xy[:, 0]) <= self.size[0] / 2) & (np.abs(xy[:, 1]) <= self.size[1] / 2)


# --- tableaux ------------------------------------------------------------------------------


def random_menu(rng: np.random.Generator) -> list[str]:
    if rng.random() < 0.25:
        return list(ORIGINAL)
    roll = ROLLS[int(rng.integers(len(ROLLS)))]
    appetizers = list(rng.choice(APPETIZERS, 3, replace=False))
    specials = list(rng.choice(SPECIALS, 2, replace=False))
    if "wasabi" not in specials and rng.random() < 0.5:
        specials[0] = "wasabi"
    dessert = DESSERTS[int(rng.integers(3))] if rng.random() < 0.6 else str(rng.choice(DESSERTS))
    if dessert.startswith("fruit"):
        dessert = "fruit"
    return [*NIGIRI, *roll, *appetizers, *specials, dessert]


def random_tableau(rng: np.random.Generator, menu: list[str], n_cards: int) -> list:
    """Entries as the scorer writes them: ``"eel"``, ``["wasabi", "squid-nigiri"]``,
    ``["tempura", "special-order"]``."""
    entries: list = []
    cards = 0
    while cards < n_cards:
        slug = str(rng.choice(menu))
        if slug == "fruit":
            slug = str(rng.choice([d for d in DESSERTS if d.startswith("fruit")]))
        if slug == "special-order":
            copied = [e for e in entries if isinstance(e, str) and e not in ("special-order",)]
            if not copied or cards + 2 > n_cards + 1:
                continue
            entries.append([str(rng.choice(copied)), "special-order"])
            cards += 2
            continue
        if slug in NIGIRI and "wasabi" in entries and rng.random() < 0.85:
            entries.remove("wasabi")
            entries.append(["wasabi", slug])
        else:
            entries.append(slug)
        cards += 1
    return entries


def _column_plan(rng: np.random.Generator, tableau: list, max_len: int) -> tuple[list[list[str]], list[list[str]]]:
    """Physical columns (covered card first), desserts in columns of their own. A lone wasabi
    ends its column (nothing lies on a free wasabi); a stack's cards stay together."""
    groups: dict[str, list[list[str]]] = {}
    for entry in tableau:
        cards = list(entry) if isinstance(entry, list) else [entry]
        key = "nigiri" if cards[-1] in NIGIRI else cards[0]
        groups.setdefault(key, []).append(cards)
    main: list[list[str]] = []
    desserts: list[list[str]] = []
    keys = list(groups)
    rng.shuffle(keys)
    for key in keys:
        chunks = groups[key]
        # lone wasabi last; stacks in random order otherwise
        chunks.sort(key=lambda c: c == ["wasabi"])
        column: list[str] = []
        for chunk in chunks:
            if column and (len(column) + len(chunk) > max_len or column[-1] == "wasabi"):
                (desserts if key in DESSERTS else main).append(column)
                column = []
            column += chunk
        if column:
            (desserts if key in DESSERTS else main).append(column)
    return main, desserts


def lay_tableau(rng: np.random.Generator, tableau: list, layout: str, seat_index: int) -> list[Card]:
    """The cards of ``tableau`` in the player's frame (u right, v away; angle 0 = upright)."""
    w, h = CARD_W_CM, CARD_H_CM
    strip = rng.uniform(0.26, 0.4) * w
    gap = rng.uniform(0.1, 0.35) * w
    cards: list[Card] = []
    if layout == "rows":
        # entries side by side, a stack as a short column, rows of up to 5 or 6
        per_row = int(rng.integers(4, 7))
        main, desserts = _column_plan(rng, tableau, 2)
        columns = [c for col in main for c in _split_stacks(col)] + [c for col in desserts for c in _split_stacks(col)]
    else:
        main, desserts = _column_plan(rng, tableau, int(rng.integers(3, 6)))
        columns = main + desserts
        per_row = 99
    n_main = len(main) if layout != "rows" else len(columns) - sum(len(_split_stacks(c)) for c in desserts)
    loose = layout == "piles"
    x = 0.0
    row_y = 0.0
    for k, column in enumerate(columns):
        if k and k % per_row == 0:
            x, row_y = 0.0, row_y - (h + strip + gap)
        if k == n_main and k:
            x += rng.uniform(0.6, 1.5) * w  # desserts apart
        top = row_y
        for slug in column:
            jx = rng.normal(0, 0.06 * w) if loose else rng.normal(0, 0.01 * w)
            jy = rng.normal(0, 0.04 * w) if loose else 0.0
            turn = math.radians(rng.normal(0, 6 if loose else 1.2))
            step = strip * (rng.uniform(0.85, 1.3) if loose else 1.0)
            cards.append(Card(slug, seat_index, x + jx, top - h / 2 + jy, turn))
            top -= step
        x += w + gap * (rng.uniform(0.6, 1.8) if loose else 1.0)
    # centre the tableau on the player's axis, its near edge at v = 0
    us = np.array([c.x for c in cards])
    vs = np.array([c.y for c in cards])
    du, dv = -(us.min() + us.max()) / 2, -(vs.min() - h / 2)
    for c in cards:
        c.x += du
        c.y += dv
    return cards


def _split_stacks(column: list[str]) -> list[list[str]]:
    """A column cut so that only stacks stay together (rows layout)."""
    out, k = [], 0
    while k < len(column):
        nxt = column[k + 1] if k + 1 < len(column) else None
        if nxt == "special-order" or (column[k] == "wasabi" and nxt in NIGIRI):
            out.append(column[k:k + 2])
            k += 2
        else:
            out.append([column[k]])
            k += 1
    return out


def tableau_extent(cards: list[Card]) -> tuple[float, float]:
    """Width and depth of a laid tableau in cm."""
    if not cards:
        return 0.0, 0.0
    us = [c.x for c in cards]
    vs = [c.y for c in cards]
    return max(us) - min(us) + CARD_W_CM, max(vs) - min(vs) + CARD_H_CM


# --- seats --------------------------------------------------------------------------------


def _uneven_angles(rng: np.random.Generator, n: int, min_share: float = 0.6) -> np.ndarray:
    """``n`` angles round a circle, not evenly spaced, no two closer than ``min_share`` of even."""
    even = 2 * math.pi / n
    while True:
        gaps = rng.uniform(min_share, 2 - min_share, n) * even
        gaps *= 2 * math.pi / gaps.sum()
        if gaps.min() >= min_share * even * 0.95:
            break
    return (rng.uniform(0, 2 * math.pi) + np.concatenate([[0], np.cumsum(gaps[:-1])])) % (2 * math.pi)


def place_tableaux(rng: np.random.Generator, tableaux: list[list[Card]], shape: str,
                   apart: float = 0.0) -> Table:
    """Seats round a table big enough for the tableaux, each tableau turned to face its player.

    Round tables: seats at uneven angles, players looking at the centre. Rectangular tables:
    players along the two long sides (two or more on a side) and perhaps one at an end, at
    uneven places along the side; ``apart`` (cm) widens the table between the two sides, so
    that the tableaux at its near and far edge lie that much farther apart.
    """
    n = len(tableaux)
    widths = [tableau_extent(t)[0] for t in tableaux]
    depths = [tableau_extent(t)[1] for t in tableaux]
    seats: list[Seat] = []
    if shape == "round" or n == 1:
        angles = _uneven_angles(rng, n) if n > 1 else np.array([rng.uniform(0, 2 * math.pi)])
        gaps = np.diff(np.sort(np.concatenate([angles, [angles.min() + 2 * math.pi]])))
        need = max((widths[i] + 6) / max(gaps.min(), 1e-3) for i in range(n)) if n > 1 else 0
        radius = max(need, max(depths) * 1.25 + 10, 40.0)
        for a in angles:
            # a seat at polar angle a (from +y clockwise) looks back toward the centre
            seats.append(Seat(radius * math.sin(a), radius * math.cos(a), (a + math.pi) % (2 * math.pi)))
        table = Table("round", (2 * radius, 2 * radius), seats)
    else:
        ends = int(rng.random() < 0.4) if n >= 5 else 0
        sides = n - ends
        near = sides // 2 + (sides % 2) * int(rng.integers(2))
        far = sides - near
        per_side = max(near, far)
        width_need = max(widths) + 10
        length = max(per_side * width_need * rng.uniform(1.1, 1.5), 120.0)
        depth = max(max(depths) * 2 + 20, 80.0) + 2 * apart
        for side, count in ((0, near), (1, far)):
            slots = np.sort(rng.uniform(-0.5, 0.5, count)) if count else np.array([])
            base = (np.arange(count) - (count - 1) / 2) * width_need * 1.05
            xs = base + slots * (length - width_need * count) * 0.5
            for x in xs:
                y = -depth / 2 if side == 0 else depth / 2
                seats.append(Seat(float(x), y, 0.0 if side == 0 else math.pi))
        total = length + (2 * (max(depths) + 8) if ends else 0)
        if ends:
            seats.append(Seat(total / 2, rng.uniform(-0.15, 0.15) * depth, 1.5 * math.pi))
        table = Table("rect", (total, depth), seats)
    for s, (seat, cards) in enumerate(zip(table.seats, tableaux, strict=True)):
        inset = rng.uniform(5, 12)
        c, sn = math.cos(seat.facing), math.sin(seat.facing)
        away = np.array([sn, c])
        right = np.array([c, -sn])
        origin = np.array([seat.x, seat.y]) + away * inset
        for card in cards:
            p = origin + right * card.x + away * card.y
            table.cards.append(Card(card.slug, s, float(p[0]), float(p[1]), card.angle + seat.facing, card.style))
    return table
