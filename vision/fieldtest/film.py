"""A live round filmed with the independent renderer: ``render_film(seed, players, turns)``.

2-5 players round a table, a webcam on one side looking over it with a slight tilt. Each
turn every player's hand slides one card in from their edge of the table (over their own
cards when they lie in the way) and lays it, the players a little out of step: cards of a
kind in overlapping columns, a nigiri on a free wasabi, a special order on the card it
copies, desserts apart; now and then a hand rests on another player's card for a moment.

The ``Film`` gives the frames (BGR, ``fps`` a second), the truth turn log in
``scorer.turns`` terms (``[{"reveals": {"Ann": ["tempura"], ...}}, ...]``) and the seating:
players in seat order (seat 0 nearest the bottom of the picture, then clockwise), each
with the pixel point of their tableau (``LiveGame(seat_anchors=...)``).

How the players play and the film is shot is a :class:`FilmStyle`: ``PLAIN`` (the default)
lays each card a third of a card's width down its column and ends the film a few seconds
after the last turn; ``STACKED`` has players lay the kind they laid before (a card over the
lower part of the one below in its column, a nigiri on the wasabi just laid), hands that
reach over a neighbour's tableau, and a film that ends a second after the last cards.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from scorer.cards import CARDS
from scorer.turns import TurnLog
from vision.fieldtest.cards import CARD_H_CM, CARD_W_CM, load_faces, styled_face
from vision.fieldtest.render import (
    Camera,
    _poly_mask,
    _roi,
    _warp_into,
    fit_camera,
    hand,
    table_background,
)
from vision.fieldtest.table import Card, Table, place_tableaux

NAMES = ("Ann", "Ben", "Cid", "Dan", "Eve")
NIGIRI = ("egg-nigiri", "salmon-nigiri", "squid-nigiri")
#: what the players play: cards that stay on the table once laid (no miso soup, uramaki or
#: tools the rules take away mid-round), so the table always shows the log
MENU = ("egg-nigiri", "salmon-nigiri", "squid-nigiri", "wasabi", "wasabi", "maki-2", "maki-3", "tempura",
        "sashimi", "dumpling", "eel", "tofu", "onigiri-circle", "pudding", "special-order", "tea")
#: a Sushi Go Party menu (its kinds) whose cards all stay on the table once laid
PARTY_MENU = ("nigiri", "maki", "tempura", "sashimi", "dumpling", "wasabi", "special-order", "pudding")
COPYABLE = ("maki-2", "maki-3", "tempura", "sashimi", "dumpling", "eel", "tofu", "onigiri-circle")
DESSERTS = ("pudding",)
TURN_S = 5.5
SLIDE_S = 0.9
LEAVE_S = 0.7
COVER_S = 1.6


@dataclass(frozen=True)
class FilmStyle:
    """How a film's players play and how it ends, apart from the round drawn from its seed.

    A style draws its own chances from a stream of its own, so the plain style renders the
    very films it always rendered."""

    name: str = "plain"
    #: the chance a player lays again the kind they laid the turn before (a nigiri after their
    #: wasabi), so a column grows card over card of one kind
    repeat: float = 0.0
    #: how much of a card (cm down its long side) the next card of its column leaves in sight
    strip: float = 0.33 * CARD_W_CM
    #: the chance a laying hand comes in over the tableau of the player beside its own
    reach: float = 0.0
    #: the print every card of the film is in (``cards.PRINT_STYLES``); None: one drawn from
    #: the seed among plain, profile, gloss and worn
    print_style: str | None = None
    #: the film ends this long (s) after the last card is laid (once every hand is gone);
    #: None: four seconds after the last turn's time is up
    tail_s: float | None = None
    #: how long (s) a hand takes to bring a card from its player's edge to where it is laid
    slide_s: float = SLIDE_S
    #: how high (cm) above the table a hand holds the card it brings (0: slid along the table)
    lift: float = 1.5

    def __post_init__(self) -> None:
        from vision.fieldtest.cards import PRINT_STYLES

        if not (0 <= self.repeat <= 1 and 0 <= self.reach <= 1):
            raise ValueError("a film style's chances lie between 0 and 1")
        if not 0 < self.strip < CARD_H_CM:
            raise ValueError(f"a column's strip lies between 0 and a card's length ({CARD_H_CM} cm)")
        if self.print_style is not None and self.print_style not in PRINT_STYLES:
            raise ValueError(f"unknown print {self.print_style!r} (expected one of {', '.join(PRINT_STYLES)})")
        if self.slide_s <= 0 or self.lift < 0:
            raise ValueError("a hand takes some time to bring a card, held on or above the table")


#: the films the renderer has always made
PLAIN = FilmStyle()
#: players who lay one kind turn after turn, each card over the lower part of the card below
#: (a little more than half of it in sight), hands over a neighbour's cards, and the film
#: over a second after the last cards are down
STACKED = FilmStyle("stacked", repeat=0.45, strip=0.55 * CARD_H_CM, reach=0.3, tail_s=1.0)
#: players who lay one kind turn after turn, each card slid flat along the table from their
#: edge, slowly, up its column to come to rest over the lower part of the card below (a
#: third of it left in sight), hands over a neighbour's cards, and the film over a second
#: after the last cards are down
SLID = FilmStyle("slid", repeat=0.6, strip=0.3 * CARD_H_CM, reach=0.3, tail_s=1.0, slide_s=1.5, lift=0.0)


@dataclass
class FilmCard:
    slug: str
    seat: int
    laid_at: float
    column: int
    row: int
    local: tuple[float, float] = (0.0, 0.0)
    plane: Card | None = None
    player: str = ""  # who laid it, as the film's log names them

    @property
    def placed(self) -> Card:
        """Where the card lies on the table plane once laid (``render_film`` places every card)."""
        if self.plane is None:
            raise ValueError(f"the {self.slug} of seat {self.seat} was never placed on the table")
        return self.plane

    def box(self, camera: Camera) -> np.ndarray:
        """Where the card lies in the picture once laid: its whole box, ``[x1, y1, x2, y2]``."""
        quad = np.asarray(camera.flat(self.placed.corners()), np.float64)
        return np.concatenate([quad.min(0), quad.max(0)])


@dataclass
class Hand:
    seat: int
    start: float
    end: float
    path: tuple[np.ndarray, np.ndarray]  # where the card is held from and to (plane)
    direction: float
    seed: int
    carries: FilmCard | None = None


@dataclass
class Film:
    players: tuple[str, ...]
    log: list[dict]
    seats: list[dict]
    fps: float
    size: tuple[int, int]
    duration: float
    camera: Camera
    cards: list[FilmCard]
    hands: list[Hand]
    seed: int
    #: the table without cards or hands, float32 BGR, as the camera sees it
    background: np.ndarray
    #: where the light comes from on the table plane (the hands' shadows fall away from it)
    light: np.ndarray
    #: the camera's gain per colour channel (B, G, R), applied to every frame
    gain: np.ndarray
    menu: tuple[str, ...] | None = None
    _faces: dict = field(default_factory=dict)
    #: how long a hand takes to bring a card, and how high it holds it (``FilmStyle``)
    slide_s: float = SLIDE_S
    lift: float = 1.5

    @property
    def n_frames(self) -> int:
        return int(self.duration * self.fps)

    @property
    def seat_anchors(self) -> list[tuple[float, float]]:
        return [tuple(s["anchor"]) for s in self.seats]

    @property
    def frames(self) -> Iterator[np.ndarray]:
        """Every frame in turn (a fresh iterator each time it is read)."""
        return (self.render(i) for i in range(self.n_frames))

    def timed_frames(self) -> Iterator[tuple[float, np.ndarray]]:
        return ((i / self.fps, self.render(i)) for i in range(self.n_frames))

    def record(self) -> dict:
        extra = {} if self.menu is None else {"menu": list(self.menu)}
        return {"edition": "party", "players": list(self.players), "rounds": [{"turns": self.log}], **extra}

    def _face(self, k: int, card: FilmCard):
        if k not in self._faces:
            rng = np.random.default_rng([self.seed, 7, k])
            face = load_faces().face(rng, card.slug, printed_share=0.3)
            self._faces[k] = styled_face(rng, face, self.style)
        return self._faces[k]

    style: str = "plain"

    def render(self, index: int) -> np.ndarray:
        t = index / self.fps
        w, h = self.size
        image = self.background.copy()
        moving = {id(hd.carries): hd for hd in self.hands if hd.carries is not None and hd.start <= t < hd.end}
        for k, card in enumerate(self.cards):
            if t < card.laid_at - self.slide_s:
                continue
            hd = moving.get(id(card))
            plane = card.placed
            lift = 0.0
            if hd is not None and t < card.laid_at:
                share = (t - hd.start) / max(card.laid_at - hd.start, 1e-6)
                share = 0.5 - 0.5 * math.cos(math.pi * min(max(share, 0), 1))
                xy = hd.path[0] * (1 - share) + hd.path[1] * share
                plane = Card(card.slug, card.seat, float(xy[0]), float(xy[1]), plane.angle)
                lift = self.lift
            styled, alpha, grow = self._face(k, card)
            quad = self.camera.flat(plane.corners(grow), lift + 0.02 * (k % 5))
            roi = _roi(quad, self.size)
            if roi is None:
                continue
            x1, y1, x2, y2 = roi
            warped = _warp_into(styled, quad, roi).astype(np.float32)
            a = _warp_into(alpha, quad, roi).astype(np.float32)[:, :, None] / 255
            region = image[y1:y2, x1:x2]
            region[:] = region * (1 - a * 0.3 * (lift > 0)) if lift else region
            region[:] = region * (1 - a) + warped * a
        for j, hd in enumerate(self.hands):
            if not hd.start <= t < hd.end:
                continue
            if hd.carries is not None and t < hd.carries.laid_at:
                share = (t - hd.start) / max(hd.carries.laid_at - hd.start, 1e-6)
                share = 0.5 - 0.5 * math.cos(math.pi * min(max(share, 0), 1))
            else:
                lay = hd.carries.laid_at if hd.carries is not None else hd.start + (hd.end - hd.start) / 2
                share = 1 - (t - lay) / max(hd.end - lay, 1e-6) if t >= lay else (t - hd.start) / max(lay - hd.start, 1e-6)
                share = min(max(share, 0), 1)
            target = hd.path[0] * (1 - share) + hd.path[1] * share
            c, s = math.cos(hd.direction), math.sin(hd.direction)
            wrist = target - np.array([s, c]) * 7.5
            polys, _, soft = hand(np.random.default_rng([self.seed, 11, j]), self.camera, wrist, hd.direction,
                                  self.light)
            # draw within the box round the hand and its shadow only (a frame is mostly table)
            blur = max(w, h) * 0.01
            roi = _roi(np.vstack([p for p, _ in polys] + soft), self.size)
            if roi is None:
                continue
            x1, y1, x2, y2 = roi
            x1, y1 = max(0, int(x1 - 3 * blur)), max(0, int(y1 - 3 * blur))
            x2, y2 = min(w, int(x2 + 3 * blur)), min(h, int(y2 + 3 * blur))
            part = image[y1:y2, x1:x2]
            box = (x2 - x1, y2 - y1)
            sm = cv2.GaussianBlur(_poly_mask([p - [x1, y1] for p in soft], box).astype(np.float32) / 255, (0, 0), blur)
            part *= (1 - 0.35 * sm)[:, :, None]
            for poly, colour in polys:
                m = _poly_mask([poly - [x1, y1]], box).astype(np.float32)[:, :, None] / 255
                part[:] = part * (1 - m) + np.float32(colour) * m
        image *= self.gain
        image += np.random.default_rng([self.seed, 13, index]).normal(0, 2.5, image.shape).astype(np.float32)
        return np.clip(image, 0, 255).astype(np.uint8)


def random_log(rng: np.random.Generator, players: tuple[str, ...], turns: int, menu: tuple[str, ...] = MENU,
               limits: tuple = (), repeat: float = 0.0, style_rng: np.random.Generator | None = None) -> list[dict]:
    """A round's turn log the table can show: special orders copy a card the player has; no
    more cards of a kind than the deck holds (``limits``: ``vision.deck.Deck.limits``).
    ``repeat``: the chance (drawn from ``style_rng``) a player lays again what they laid the
    turn before, or a nigiri on the wasabi they laid, while the deck has one left."""
    have: dict[str, list[str]] = {p: [] for p in players}
    laid: list[str] = []
    log = []

    def allowed(slug: str) -> bool:
        return slug in menu and not any(slug in faces and sum(c in faces for c in laid) >= copies
                                        for faces, copies in limits)

    for _ in range(turns):
        reveals = {}
        for p in players:
            again = _again(style_rng, have[p][-1] if have[p] else None, repeat, allowed)
            while again is None:
                slug = str(rng.choice(menu))
                if any(slug in faces and sum(c in faces for c in laid) >= copies for faces, copies in limits):
                    continue
                if slug != "special-order":
                    break
                copyable = [c for c in have[p] if c in COPYABLE]
                if copyable:
                    slug = f"special-order:{rng.choice(copyable)}"
                    break
            if again is not None:
                slug = again
            have[p].append(slug.split(":")[-1] if not slug.startswith("special") else "special-order")
            laid.append(slug.partition(":")[0])
            reveals[p] = [slug]
        log.append({"reveals": reveals})
    return log


def _again(rng: np.random.Generator | None, last: str | None, chance: float, allowed) -> str | None:
    """What a player lays again after ``last`` (the same card; a nigiri after a wasabi), with
    ``chance``; None: they draw a card as anyone would."""
    if rng is None or not chance or last is None or last == "special-order" or rng.random() >= chance:
        return None
    choices = [s for s in NIGIRI if allowed(s)] if last == "wasabi" else [last] if allowed(last) else []
    return str(rng.choice(choices)) if choices else None


def _stage(rng, log: list[dict], players: tuple[str, ...],
           strip: float = PLAIN.strip) -> tuple[list[FilmCard], list[float], list[bool]]:
    """Where each card goes in its player's columns and when it is laid; when each turn
    starts, and in which turns a hand rests on a card for a moment (those last longer: the
    players wait for the hand to leave before they pick their next card)."""
    cards: list[FilmCard] = []
    columns: dict[int, list[list[FilmCard]]] = {s: [] for s in range(len(players))}
    closed: set[tuple[int, int]] = set()
    starts: list[float] = []
    covered: list[bool] = []
    start = 2.0
    for k, turn in enumerate(log):
        if k:
            start += TURN_S + (COVER_S + 1.0 if covered[-1] else 0.0)
        starts.append(start)
        covered.append(bool(k) and rng.random() < 0.4)
        for seat, player in enumerate(players):
            slug, _, copied = turn["reveals"][player][0].partition(":")
            when = start + SLIDE_S + float(rng.uniform(0, 1.3))
            cols = columns[seat]
            target = None
            if slug in NIGIRI:
                target = next((c for c, col in enumerate(cols) if col[-1].slug == "wasabi" and (seat, c) not in closed),
                              None)
            elif slug == "special-order":
                target = next((c for c in range(len(cols) - 1, -1, -1)
                               if cols[c][-1].slug == copied and (seat, c) not in closed), None)
                if target is None:  # the copied card is covered: lay the copy beside it
                    cols.append([])
                    fresh = FilmCard(copied, seat, when, len(cols) - 1, 0)
                    raise ValueError(f"no free {copied} to copy for {player} ({fresh})")
            if target is not None:
                closed.add((seat, target))
            else:
                kind = "nigiri" if slug in NIGIRI else slug
                target = next((c for c, col in enumerate(cols)
                               if (seat, c) not in closed and len(col) < 5 and col[-1].slug != "wasabi"
                               and ("nigiri" if col[0].slug in NIGIRI else col[0].slug) == kind), None)
                if target is None:
                    cols.append([])
                    target = len(cols) - 1
            card = FilmCard(slug, seat, when, target, len(cols[target]))
            cols[target].append(card)
            cards.append(card)
    for cols in columns.values():
        order = [c for c in range(len(cols)) if cols[c][0].slug not in DESSERTS]
        order += [c for c in range(len(cols)) if cols[c][0].slug in DESSERTS]
        pitch = CARD_W_CM * 1.2
        for place, c in enumerate(order):
            extra = pitch * 0.8 if cols[c][0].slug in DESSERTS else 0.0
            u = (place - (len(order) - 1) / 2) * pitch + extra
            for card in cols[c]:
                card.local = (u, CARD_H_CM + 4 * strip - CARD_H_CM / 2 - card.row * strip)
    return cards, starts, covered


def _keep_apart(table, margin: float = 1.0, step: float = 1.0) -> None:
    """Players keep their cards apart: where two tableaux run into each other (deep columns
    where two seats are close), every player moves back from the middle of the table, a
    ``step`` (cm) at a time, until ``margin`` lies between any two players' cards."""
    for _ in range(100):
        if _tableaux_apart(table.cards, margin):
            return
        table.size = (table.size[0] + 2 * step, table.size[1] + 2 * step)
        for index, seat in enumerate(table.seats):
            out = np.array([seat.x, seat.y]) / max(math.hypot(seat.x, seat.y), 1e-9) * step
            seat.x, seat.y = seat.x + out[0], seat.y + out[1]
            for card in table.cards:
                if card.seat == index:
                    card.x, card.y = card.x + out[0], card.y + out[1]


def _tableaux_apart(cards: list[Card], margin: float) -> bool:
    """Whether every two cards of different players lie ``margin`` (cm) apart or more."""
    grown = [np.asarray(c.corners(margin / CARD_W_CM), np.float32) for c in cards]
    for i, a in enumerate(cards):
        for j in range(i + 1, len(cards)):
            b = cards[j]
            if a.seat == b.seat or math.hypot(a.x - b.x, a.y - b.y) > CARD_H_CM + CARD_W_CM + margin:
                continue
            overlap, _ = cv2.intersectConvexConvex(grown[i], grown[j])
            if overlap > 0:
                return False
    return True


def _over_neighbour(rng: np.random.Generator, by_seat: dict[int, list[FilmCard]], card: FilmCard,
                    goal: np.ndarray) -> tuple[np.ndarray, float]:
    """Where a hand that reaches over the tableau of a player beside its own comes in from, and
    the way it points: from beyond that tableau's middle, so the hand and arm cross its cards."""
    players = len(by_seat)
    beside = (card.seat + (1 if rng.random() < 0.5 else -1)) % players
    middle = np.mean([[c.placed.x, c.placed.y] for c in by_seat[beside]], 0)
    entry = middle + (middle - goal) * 0.4 + rng.normal(0, 2, 2)
    return entry, math.atan2(goal[0] - entry[0], goal[1] - entry[1])


def render_film(seed: int, players: int = 3, turns: int = 4, size: tuple[int, int] = (960, 720),
                fps: float = 10.0, cards_dir: str | None = None, log: list[dict] | None = None,
                menu: tuple[str, ...] | None = None, style: FilmStyle = PLAIN) -> Film:
    """The film of one round of ``turns`` turns by ``players`` players (2-5); ``log`` (one card
    a player a turn, players named ``Ann``, ``Ben``...) plays that round instead of a drawn one.
    ``menu`` (the kinds of a Sushi Go Party menu, e.g. ``PARTY_MENU``) draws the round from
    those cards only; left out, from every card the film shows (no Party menu holds them all).
    ``style``: how the players play and the film ends (:class:`FilmStyle`).
    The film's own log names the players by where they sit in the picture."""
    if log is not None:
        players, turns = len(log[0]["reveals"]), len(log)
    if not 2 <= players <= len(NAMES):
        raise ValueError(f"a film has 2 to {len(NAMES)} players, not {players}")
    if turns < 1:
        raise ValueError("a film needs at least one turn")
    rng = np.random.default_rng([seed, 0xF11])
    style_rng = np.random.default_rng([seed, 0x5717E])  # the style's own chances
    names = NAMES[:players]
    log = log if log is not None else _drawn_log(rng, style_rng, names, turns, menu, style)
    TurnLog.from_json(log, names, "party")  # the scorer accepts it
    cards, starts, covered = _stage(rng, log, names, style.strip)
    table, by_seat = _seat_table(rng, cards, players)
    # the webcam: on seat 0's side, looking over the table with a slight tilt
    seat0 = table.seats[0]
    corners = np.vstack([c.placed.corners() for c in cards])
    camera = fit_camera(rng, corners, size, seat0.facing + rng.normal(0, 0.1), math.radians(rng.uniform(12, 25)),
                        0.8, math.radians(rng.uniform(60, 70)))
    background = table_background(rng, table, camera, size, corners).astype(np.float32)
    light = np.array([rng.normal(0, 0.3), rng.normal(0, 0.3)])
    hands = _laying_hands(rng, style_rng, style, table, cards, by_seat)
    hands += _covering_hands(rng, table, cards, starts, covered, players)
    end = starts[-1] + TURN_S + 4.0
    if style.tail_s is not None:  # the film stops soon after the last cards are down
        end = max(max(c.laid_at for c in cards) + style.tail_s, max(hd.end for hd in hands) + 0.1)
    log, seats = _seat_in_picture(camera, table, by_seat, cards, log, names)
    gain = rng.choice([[0.85, 0.97, 1.1], [1.0, 1.0, 1.0], [1.08, 1.0, 0.92]]).astype(np.float32)
    film = Film(NAMES[:players], log, seats, fps, size, end, camera, cards, hands, seed, background, light, gain,
                menu, style=str(rng.choice(["plain", "profile", "gloss", "worn"])), slide_s=style.slide_s,
                lift=style.lift)
    film.style = style.print_style or film.style
    return film


def _drawn_log(rng: np.random.Generator, style_rng: np.random.Generator, names: tuple[str, ...], turns: int,
               menu: tuple[str, ...] | None, style: FilmStyle) -> list[dict]:
    """A round drawn from the film's stream: from ``menu``'s cards under its deck's limits, or
    from every card the film shows when no menu is given."""
    drawable: tuple[str, ...] = MENU
    limits: tuple[tuple[frozenset[str], int], ...] = ()
    if menu is not None:
        from vision.deck import Deck

        drawable = tuple(s for s in MENU if CARDS[s].kind in menu)
        limits = Deck.of("party", list(menu)).limits
    return random_log(rng, names, turns, drawable, limits, style.repeat, style_rng)


def _seat_table(rng: np.random.Generator, cards: list[FilmCard],
                players: int) -> tuple[Table, dict[int, list[FilmCard]]]:
    """Seat the players round a table, their staged tableaux kept apart, and give each card its
    place on the table plane; returns the table and each seat's cards."""
    local = [[Card(c.slug, s, c.local[0], c.local[1], float(rng.normal(0, 0.02))) for c in cards if c.seat == s]
             for s in range(players)]
    table = place_tableaux(rng, local, "round")
    _keep_apart(table)
    placed = iter(table.cards)
    by_seat = {s: [c for c in cards if c.seat == s] for s in range(players)}
    for s in range(players):
        for c in by_seat[s]:
            c.plane = next(placed)
    return table, by_seat


def _laying_hands(rng: np.random.Generator, style_rng: np.random.Generator, style: FilmStyle, table: Table,
                  cards: list[FilmCard], by_seat: dict[int, list[FilmCard]]) -> list[Hand]:
    """The hand that slides each card in from its player's edge (or, as the style has it now
    and then, over a neighbour's tableau) and leaves once the card is down."""
    hands = []
    for k, card in enumerate(cards):
        seat = table.seats[card.seat]
        entry = np.array([seat.x, seat.y]) + rng.normal(0, 4, 2)
        goal = np.array([card.placed.x, card.placed.y])
        direction = seat.facing + float(rng.normal(0, 0.2))
        if style.reach and style_rng.random() < style.reach:
            entry, direction = _over_neighbour(style_rng, by_seat, card, goal)
        hands.append(Hand(card.seat, card.laid_at - style.slide_s, card.laid_at + LEAVE_S, (entry, goal),
                          direction, k, card))
    return hands


def _covering_hands(rng: np.random.Generator, table: Table, cards: list[FilmCard], starts: list[float],
                    covered: list[bool], players: int) -> list[Hand]:
    """In each covered turn, a hand that rests for a moment on a card another player laid."""
    hands = []
    for k, cover in enumerate(covered):
        if cover:
            start = starts[k] + 3.3
            laid = [c for c in cards if c.laid_at < start - 0.5]
            victim = laid[int(rng.integers(len(laid)))]
            other = (victim.seat + 1) % players
            seat = table.seats[other]
            where = victim.placed
            hands.append(Hand(other, start, start + COVER_S, (np.array([seat.x, seat.y]), np.array([where.x, where.y])),
                              math.atan2(where.x - seat.x, where.y - seat.y), 1000 + k))
    return hands


def _seat_in_picture(camera: Camera, table: Table, by_seat: dict[int, list[FilmCard]], cards: list[FilmCard],
                     log: list[dict], names: tuple[str, ...]) -> tuple[list[dict], list[dict]]:
    """Name the players by where they sit in the picture (seat 0 nearest the bottom, then
    clockwise), as the live page seats them: the renamed log and each seat's anchor point."""
    players = len(by_seat)
    anchors = [camera.flat([[np.mean([c.placed.x for c in by_seat[s]]), np.mean([c.placed.y for c in by_seat[s]])]])[0]
               for s in range(players)]
    centre = np.mean(anchors, 0)
    directions = [(math.degrees(math.atan2(a[1] - centre[1], a[0] - centre[0])) - 90) % 360 for a in anchors]
    order = sorted(range(players), key=lambda s: directions[s])
    first = int(np.argmin([min(directions[s], 360 - directions[s]) for s in order]))
    order = order[first:] + order[:first]
    renamed = {old: NAMES[new] for new, old in enumerate(order)}
    for card in cards:
        card.player = renamed[card.seat]
    log = [{"reveals": {renamed[names.index(p)]: v for p, v in turn["reveals"].items()}} for turn in log]
    log = [{"reveals": dict(sorted(turn["reveals"].items(), key=lambda kv: NAMES.index(kv[0])))} for turn in log]
    seats = [{"player": NAMES[new], "anchor": [round(float(v), 1) for v in anchors[old]],
              "facing_deg": round(math.degrees(table.seats[old].facing), 1)} for new, old in enumerate(order)]
    return log, seats
