"""Films of a scripted game: what a webcam over the table sees, frame by frame, with truth.

A :class:`GameScript` is a game as its per-turn log (``docs/turn-log.md``) plus how the
players handle their cards; :func:`plan_film` stages it on a fixed table under a fixed
camera: cards laid turn by turn (face down first where the script says so), hands reaching
in and crossing over other cards, a card hidden under a hand for a while, nigiri laid on
their wasabi, special orders on the card they copy, miso soups, scored uramaki, used
chopsticks and take-out boxes leaving the table, columns straightened (closed up after a card
left, or squared up by hand),
and the table cleared at the end of each round (desserts stay).

A :class:`Film` gives each frame's truth (:meth:`Film.truth`: every card's visible box and
face) and its picture (:meth:`Film.render`), drawn from the card faces of
``../shared/cards``. :func:`simulate_detections` turns a frame's truth into what a
recogniser reports, with jitter, misses, misreads and ghosts: the tracker's tests run on it.

The cards the rules discard (miso, uramaki, used tools, flips) come from the scorer's own
replay of the log, so a film always shows a game the scorer accepts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from scorer.cards import CARD_BACK, is_dessert, is_nigiri
from scorer.turns import TurnLog, replay
from vision.detections import Detections

CARD_ASPECT = 523 / 336
STRIP = 0.24 * CARD_ASPECT  # the top strip of a covered card left showing in a column
GAP = 0.25
COLUMNS_PER_SEAT = 6
COLUMN_CARDS = 5
HAND_BGR = (120, 160, 215)
SPECIAL_ORDER = "special-order"


# --- the script ------------------------------------------------------------------------


@dataclass(frozen=True)
class GameScript:
    """A game to film: ``rounds`` are turn logs (lists of ``{"reveals", "events"}``).

    ``face_down`` names ``(round, turn)`` pairs whose cards are laid face down and revealed
    together; ``covered`` names ``(round, turn)`` pairs in which a hand rests on a card of
    another seat for ``cover_s`` seconds. It parses back from its JSON.

    >>> script = GameScript(("Ann", "Ben"), "party", ([{"reveals": {"Ann": ["tempura"], "Ben": ["eel"]}}],))
    >>> GameScript.from_json(json.loads(json.dumps(script.to_json()))) == script
    True
    >>> script.record()["rounds"][0]["turns"][0]["reveals"]["Ben"]
    ['eel']
    """

    players: tuple[str, ...]
    edition: str
    rounds: tuple[tuple[dict, ...], ...]
    face_down: frozenset[tuple[int, int]] = frozenset()
    covered: frozenset[tuple[int, int]] = frozenset()
    cover_s: float = 2.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "rounds", tuple(tuple(r) for r in self.rounds))
        object.__setattr__(self, "face_down", frozenset(tuple(x) for x in self.face_down))
        object.__setattr__(self, "covered", frozenset(tuple(x) for x in self.covered))
        for r, turns in enumerate(self.rounds):
            TurnLog.from_json(list(turns), self.players, self.edition, f"rounds[{r}]")

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_json(), sort_keys=True))

    def to_json(self) -> dict:
        return {
            "players": list(self.players),
            "edition": self.edition,
            "rounds": [list(r) for r in self.rounds],
            "face_down": sorted(list(x) for x in self.face_down),
            "covered": sorted(list(x) for x in self.covered),
            "cover_s": self.cover_s,
        }

    @classmethod
    def from_json(cls, value: dict) -> GameScript:
        return cls(tuple(value["players"]), value["edition"], tuple(tuple(r) for r in value["rounds"]),
                   frozenset(tuple(x) for x in value.get("face_down", ())),
                   frozenset(tuple(x) for x in value.get("covered", ())),
                   float(value.get("cover_s", 2.5)))

    def record(self) -> dict:
        """The game record the film shows (what a perfect live reading produces)."""
        return {"edition": self.edition, "players": list(self.players),
                "rounds": [{"turns": list(turns)} for turns in self.rounds]}


# --- the staged table ------------------------------------------------------------------


@dataclass
class FilmCard:
    """One physical card: where it lies (table units) and when things happen to it."""

    uid: int
    slug: str
    seat: int
    column: int
    row: int
    z: int
    placed_at: float
    face_up_at: float
    removed_at: float = math.inf
    flipped_at: float = math.inf
    moves: list[tuple[float, int]] = field(default_factory=list)  # (time, new row)
    nudges: list[tuple[float, float, float]] = field(default_factory=list)  # (time, dx, dy)
    #: slid in by hand from ``slide_from`` (table units), reaching its place ``slide_s`` after
    #: ``placed_at``; left out, it appears in place under the hand that lays it
    slide_from: tuple[float, float] | None = None
    slide_s: float = 0.0

    def on_table(self, t: float) -> bool:
        return self.placed_at <= t < self.removed_at

    def face(self, t: float) -> str:
        return CARD_BACK if t < self.face_up_at or t >= self.flipped_at else self.slug

    def row_at(self, t: float) -> int:
        row = self.row
        for when, new_row in self.moves:
            if when <= t:
                row = new_row
        return row


@dataclass(frozen=True)
class HandPass:
    """A hand reaching from ``seat``'s edge to ``target`` (table units) and back."""

    seat: int
    start: float
    end: float
    target: tuple[float, float]
    hold: float = 0.0  # seconds it rests at the target

    def reach(self, t: float) -> float:
        if not self.start <= t <= self.end:
            return 0.0
        move = (self.end - self.start - self.hold) / 2
        if t < self.start + move:
            return math.sin((t - self.start) / move * math.pi / 2)
        if t > self.end - move:
            return math.sin((self.end - t) / move * math.pi / 2)
        return 1.0


@dataclass(frozen=True)
class CardTruth:
    uid: int
    label: str
    seat: int
    box: tuple[float, float, float, float] | None  # visible region, pixels
    visible: float  # share of the card seen
    under_hand: float  # share of the card hidden by a hand


@dataclass
class Film:
    """A staged game: the cards and hands over time, seen by one fixed camera."""

    script: GameScript
    fps: float
    duration: float
    size: tuple[int, int]
    cards: list[FilmCard]
    hands: list[HandPass]
    homography: np.ndarray
    seed: int
    radius: float
    turn_starts: list[list[float]]
    faces: str = "digital"

    @property
    def n_frames(self) -> int:
        return int(self.duration * self.fps)

    def time(self, index: int) -> float:
        return index / self.fps

    # geometry on the table plane: seat 0 at the bottom of the picture, then clockwise
    def _seat_frame(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.script.players)
        phi = math.pi / 2 + 2 * math.pi * seat / n
        turn = phi - math.pi / 2
        c, s = math.cos(turn), math.sin(turn)
        return np.array([[c, -s], [s, c]]), np.array([self.radius * math.cos(phi), self.radius * math.sin(phi)])

    def card_pose(self, card: FilmCard, t: float) -> tuple[np.ndarray, float]:
        """Centre (table units) and turn of ``card`` at time ``t``."""
        rot, origin = self._seat_frame(card.seat)
        width = COLUMNS_PER_SEAT * (1 + GAP) - GAP
        rng = np.random.default_rng([self.seed, card.uid, 7])
        local = np.array([
            -width / 2 + 0.5 + card.column * (1 + GAP) + rng.normal(0, 0.03),
            -1.6 + CARD_ASPECT / 2 + card.row_at(t) * STRIP + rng.normal(0, 0.02),
        ])
        for when, dx, dy in card.nudges:  # a player squaring up the column
            if when <= t:
                local += (dx, dy)
        angle = math.atan2(rot[1, 0], rot[0, 0]) + rng.normal(0, 0.03)
        centre = rot @ local + origin
        if card.slide_from is not None and t < card.placed_at + card.slide_s:
            # on its way in from the player's edge, over the table and the cards in between
            start = np.asarray(card.slide_from)
            centre = start + _slid(t - card.placed_at, card.slide_s) * (centre - start)
        return centre, angle

    def seat_edge(self, seat: int) -> np.ndarray:
        """Where ``seat``'s hands come in from (table units)."""
        rot, origin = self._seat_frame(seat)
        return rot @ np.array([0.0, 3.2]) + origin

    def seat_anchors(self) -> list[tuple[float, float]]:
        """Each seat's tableau centre in pixels (what a user would click)."""
        out = []
        for seat in range(len(self.script.players)):
            rot, origin = self._seat_frame(seat)
            point = rot @ np.array([0.0, -1.6 + CARD_ASPECT]) + origin
            out.append(tuple(self._project(point[None])[0]))
        return out

    def _project(self, points: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(points, np.float64)[None], self.homography)[0]

    def _card_quad(self, card: FilmCard, t: float) -> np.ndarray:
        centre, angle = self.card_pose(card, t)
        hw, hh = 0.5, CARD_ASPECT / 2
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        c, s = math.cos(angle), math.sin(angle)
        return self._project(local @ np.array([[c, s], [-s, c]]) + centre)

    def _hand_polygons(self, t: float) -> list[np.ndarray]:
        polygons = []
        for hand in self.hands:
            reach = hand.reach(t)
            if reach <= 0:
                continue
            edge = self.seat_edge(hand.seat)
            tip = edge + reach * (np.asarray(hand.target) - edge)
            direction = tip - edge
            length = max(float(np.linalg.norm(direction)), 1e-6)
            along = direction / length
            across = np.array([-along[1], along[0]])
            palm = [tip + along * 0.45 + across * 0.5 * math.cos(a) + along * 0.55 * math.sin(a)
                    for a in np.linspace(0, 2 * math.pi, 16)]
            arm = [edge + across * 0.35, tip + across * 0.4, tip - across * 0.4, edge - across * 0.35]
            polygons.append(self._project(np.array(arm)))
            polygons.append(self._project(np.array(palm) - along * 0.3))
        return polygons

    def _z_order(self, t: float) -> list[FilmCard]:
        return sorted((c for c in self.cards if c.on_table(t)), key=lambda c: c.z)

    def truth(self, index: int, scale: float = 0.25) -> list[CardTruth]:
        """Every card on the table at frame ``index``: visible box (pixels) and face.

        Visibility is measured on a z-buffer ``scale`` times the picture size (a quarter is
        plenty for boxes; 1.0 for exact ones).
        """
        t = self.time(index)
        w, h = (max(int(round(v * scale)), 1) for v in self.size)
        zbuffer = np.full((h, w), -1, np.int32)
        cards = self._z_order(t)
        areas = []
        rois = []
        for k, card in enumerate(cards):
            quad = self._card_quad(card, t) * scale
            cv2.fillConvexPoly(zbuffer, np.round(quad).astype(np.int32), k)
            areas.append(max(float(cv2.contourArea(quad.astype(np.float32))), 1.0))
            x1, y1 = np.maximum(np.floor(quad.min(0)).astype(int) - 2, 0)
            x2, y2 = np.minimum(np.ceil(quad.max(0)).astype(int) + 3, (w, h))
            rois.append((x1, y1, max(x2, x1), max(y2, y1)))
        before_hands = zbuffer.copy()
        for polygon in self._hand_polygons(t):
            cv2.fillPoly(zbuffer, [np.round(polygon * scale).astype(np.int32)], -2)
        out = []
        # thin slivers of a covered card left along the sides of the card on it are not what
        # anyone calls its visible part (nor what a recogniser boxes): an opening drops them
        width = math.sqrt(float(np.median(areas)) / CARD_ASPECT) if areas else 1.0
        k_size = max(3, int(round(width * 0.08)) | 1)
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k_size, k_size))
        for k, card in enumerate(cards):
            x1, y1, x2, y2 = rois[k]
            here, before = zbuffer[y1:y2, x1:x2], before_hands[y1:y2, x1:x2]
            mask = cv2.morphologyEx((here == k).astype(np.uint8), cv2.MORPH_OPEN, kernel)
            ys, xs = np.nonzero(mask)
            hidden = np.count_nonzero((before == k) & (here == -2))
            box = None
            if len(xs):
                box = ((xs.min() + x1) / scale, (ys.min() + y1) / scale,
                       (xs.max() + 1 + x1) / scale, (ys.max() + 1 + y1) / scale)
            out.append(CardTruth(card.uid, card.face(t), card.seat, box,
                                 min(len(xs) / areas[k], 1.0), min(hidden / areas[k], 1.0)))
        return out

    @cached_property
    def _background(self) -> np.ndarray:
        from vision.synth import textures

        return textures.table_surface(np.random.default_rng([self.seed, 3]), self.size)

    @cached_property
    def _faces(self):
        from vision.faces import training_faces, unseen_print_faces

        return unseen_print_faces() if self.faces == "print" else training_faces()

    def render(self, index: int) -> np.ndarray:
        """The camera's picture at frame ``index`` (BGR uint8)."""
        t = self.time(index)
        image = self._background.copy()
        for card in self._z_order(t):
            variants = self._faces.faces[card.face(t)]
            face = variants[card.uid % len(variants)]
            fh, fw = face.shape[:2]
            quad = self._card_quad(card, t).astype(np.float32)
            src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
            x1, y1 = np.floor(quad.min(0)).astype(int) - 2
            x2, y2 = np.ceil(quad.max(0)).astype(int) + 2
            x1, y1 = max(x1, 0), max(y1, 0)
            x2, y2 = min(x2, self.size[0]), min(y2, self.size[1])
            if x2 <= x1 or y2 <= y1:
                continue
            matrix = cv2.getPerspectiveTransform(src, quad - np.array([x1, y1], np.float32))
            roi = (x2 - x1, y2 - y1)
            warped = cv2.warpPerspective(face, matrix, roi, flags=cv2.INTER_AREA).astype(np.float32)
            alpha = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), matrix, roi)
            a = (alpha.astype(np.float32) / 255)[..., None]
            region = image[y1:y2, x1:x2]
            region[:] = region * (1 - a) + warped * a
        for polygon in self._hand_polygons(t):
            cv2.fillPoly(image, [np.round(polygon).astype(np.int32)], HAND_BGR, cv2.LINE_AA)
        rng = np.random.default_rng([self.seed, index, 11])
        image = image * rng.uniform(0.96, 1.04) + rng.normal(0, 3, image.shape).astype(np.float32)
        return np.clip(image, 0, 255).astype(np.uint8)

    def frames(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[float, np.ndarray]]:
        for index in range(start, self.n_frames if stop is None else stop):
            yield self.time(index), self.render(index)


def plan_film(script: GameScript, *, fps: float = 10.0, seed: int = 0, size: tuple[int, int] = (960, 720),
              crossings: bool = True, straighten: bool = True, faces: str = "digital",
              turn_s: float | tuple[float, float] = 5.5, clear_wait_s: float = 9.0,
              lag_s: float = 0.9, slide: bool = False, side_view: float = 0.0) -> Film:
    """Stage ``script`` on a table: when every card is laid, covered, moved, flipped or taken.

    ``turn_s`` is the time from one turn's start to the next: a number (a steady pace) or a
    range each turn draws from (no cadence); players lay up to ``lag_s`` apart. With ``slide``
    each card is slid in by hand from its player's edge over the table and the player's own
    cards, as people lay cards, instead of appearing under the hand. ``side_view`` (0 to about
    0.4) films from one side of the table: the far side is that much narrower (perspective).
    """
    rng = np.random.default_rng([seed, 101])
    n = len(script.players)
    film = Film(script, fps, 0.0, size, [], [], np.eye(3), seed, _radius(n), [], faces)
    film.homography = _camera(film, size, rng, side_view)
    stage = _Staging(film, rng, [[[] for _ in range(COLUMNS_PER_SEAT)] for _ in range(n)],
                     crossings=crossings, straighten=straighten, slide=slide, lag_s=lag_s, turn_s=turn_s)
    t = 2.0  # the camera sees the empty table first
    for r, turns in enumerate(script.rounds):
        starts: list[float] = []
        log = TurnLog.from_json(list(turns), script.players, script.edition)
        for k in range(len(log.turns)):
            starts.append(t)
            t = stage.play_turn(log, r, k, t)
        film.turn_starts.append(starts)
        stage.clear_round(t)
        t += n * 0.8 + clear_wait_s
    film.duration = t
    return film


@dataclass
class _Staging:
    """The table while :func:`plan_film` stages a script: the film so far, each seat's columns
    and the one random stream every choice draws from, in the order the staging happens, so
    a seed always stages the same film."""

    film: Film
    rng: np.random.Generator
    columns: list[list[list[FilmCard]]]  # seat -> column -> cards, bottom first
    crossings: bool
    straighten: bool
    slide: bool
    lag_s: float
    turn_s: float | tuple[float, float]
    closed: set[tuple[int, int]] = field(default_factory=set)  # (seat, column) no card may join
    z: int = 0

    def target_of(self, card: FilmCard, when: float) -> tuple[float, float]:
        """Where ``card`` lies on the table at ``when``: where a hand reaches to touch it."""
        centre, _ = self.film.card_pose(card, when)
        return float(centre[0]), float(centre[1])

    def play_turn(self, log: TurnLog, r: int, k: int, t: float) -> float:
        """Stage turn ``k`` of round ``r`` starting at ``t``: its cards laid, the rules' removals,
        the hands that come and go; returns when the next turn starts."""
        script = self.film.script
        turn = log.turns[k]
        face_down = (r, k) in script.face_down
        fresh = self.lay_turn(turn, t, face_down)
        after = t + (4.2 if face_down else 2.0)
        self.use_tools(turn, fresh, after)
        # what the rules take off the table: the scorer's replay up to this turn says
        self.apply_rules(replay(TurnLog(log.turns[: k + 1]), script.players, script.edition), after)
        if (r, k) in script.covered:
            self.cover(t, fresh)
        if self.straighten and self.rng.random() < 0.4:
            self.square_up(t)
        if self.crossings and self.rng.random() < 0.5:
            self.cross(t)
        pace = float(self.rng.uniform(*self.turn_s)) if isinstance(self.turn_s, tuple) else self.turn_s
        wait = pace + (2.2 if face_down else 0.0) + ((script.cover_s + 1) if (r, k) in script.covered else 0.0)
        return t + wait

    def lay_turn(self, turn, t: float, face_down: bool) -> list[FilmCard]:
        """Every player lays their cards of ``turn``, a little out of step (face down ones are
        turned up together); a nigiri goes on a free wasabi, a special order on its copy."""
        reveal_at = t + 2.2 if face_down else 0.0
        fresh: list[FilmCard] = []
        for seat, player in enumerate(self.film.script.players):
            texts = dict(turn.reveals).get(player, ())
            when = t + float(self.rng.uniform(0.0, self.lag_s if not face_down else max(self.lag_s, 1.4)))
            for text in texts:
                slug, _, copied = text.partition(":")
                onto = None
                if slug == SPECIAL_ORDER and copied:
                    onto = _last_of(self.columns[seat], copied)
                elif is_nigiri(slug):
                    onto = _free_wasabi(self.columns[seat], self.closed, seat)
                up = max(when, reveal_at) + float(self.rng.uniform(0, 0.25)) if face_down else when
                fresh.append(self.lay(seat, slug, when, up, onto))
                when += 1.1  # a second card (chopsticks, spoon) comes a moment later
        return fresh

    def lay(self, seat: int, slug: str, when: float, face_up_at: float, onto: FilmCard | None) -> FilmCard:
        """Lay one card at ``when`` in its column (on ``onto`` where given), under a hand or, with
        ``slide``, slid in by the hand from the player's edge."""
        columns = self.columns[seat]
        column = onto.column if onto is not None else _column_for(columns, slug, seat, self.closed)
        row = 1 + max((c.row_at(math.inf) for c in columns[column]), default=-1)
        card = FilmCard(len(self.film.cards), slug, seat, column, row, self.z, when, face_up_at)
        self.z += 1
        self.film.cards.append(card)
        columns[column].append(card)
        if onto is not None:  # a dipped nigiri, a special order on its copy: nothing joins them
            self.closed.add((seat, column))
        if not self.slide:
            self.film.hands.append(HandPass(seat, when - 0.45, when + 0.45, self.target_of(card, when)))
            return card
        # the card leads the hand holding its near end: it shows, moving, before it lies still
        slide_s = float(self.rng.uniform(0.6, 1.0))
        edge = self.film.seat_edge(seat)
        place = np.asarray(self.target_of(card, when))
        along = (place - edge) / max(float(np.linalg.norm(place - edge)), 1e-6)
        card.slide_from, card.slide_s = tuple(edge + along * 0.5), slide_s
        card.placed_at = when - slide_s
        card.face_up_at = max(card.face_up_at, card.placed_at) if face_up_at > when else card.placed_at
        grip = place - along * (CARD_ASPECT / 2 + 0.35)
        self.film.hands.append(HandPass(seat, when - slide_s, when + slide_s, (float(grip[0]), float(grip[1]))))
        return card

    def take(self, card: FilmCard, when: float) -> None:
        """A hand takes ``card`` off the table at ``when``; with ``straighten`` the cards below
        it in its column are pushed up to close the gap."""
        card.removed_at = when
        hands = self.film.hands
        hands.append(HandPass(card.seat, when - 0.45, when + 0.45, self.target_of(card, when - 0.5)))
        column = self.columns[card.seat][card.column]
        column.remove(card)
        self.closed.discard((card.seat, card.column))
        if self.straighten:
            for k, below in enumerate(sorted(column, key=lambda c: c.row_at(when))):
                if below.row_at(when) != k:
                    below.moves.append((when + 0.9, k))
                    hands.append(HandPass(card.seat, when + 0.6, when + 1.2, self.target_of(below, when)))

    def use_tools(self, turn, fresh: list[FilmCard], after: float) -> None:
        """The turn's events: used chopsticks and spoons leave the table, take-out boxes flip
        the cards they name face down."""
        for event in turn.events:
            seat = self.film.script.players.index(event.player)
            if event.event in ("chopsticks-used", "spoon-used"):
                tool = event.event.removesuffix("-used")
                used = next(c for c in self.film.cards if c.seat == seat and c.slug == tool and c not in fresh
                            and c.on_table(after))
                self.take(used, after - 0.6)
            elif event.event == "takeout-flip":
                for text in event.cards:
                    target = next(c for c in self.film.cards if c.seat == seat and c.slug == text.split(":")[0]
                                  and c.on_table(after) and c.flipped_at == math.inf and c not in fresh)
                    target.flipped_at = after + 0.3
                    self.film.hands.append(HandPass(seat, after - 0.2, after + 0.7, self.target_of(target, after)))

    def apply_rules(self, result, after: float) -> None:
        """Take off each seat's cards beyond what the scorer's replay (``result``) leaves on its
        tableau (miso soups, scored uramaki...), the last laid first, once all have looked."""
        for seat, player in enumerate(self.film.script.players):
            want = _multiset(result.tableaux[player])
            have: dict[str, list[FilmCard]] = {}
            for c in self.film.cards:
                if c.seat == seat and c.on_table(after + 1.0):
                    have.setdefault(CARD_BACK if c.flipped_at < math.inf else c.slug, []).append(c)
            for key, group in have.items():
                extra = len(group) - want.get(key, 0)
                for c in sorted(group, key=lambda c: -c.z)[: max(extra, 0)]:
                    self.take(c, after + 1.0)

    def cover(self, t: float, fresh: list[FilmCard]) -> None:
        """A hand rests on a card of another seat for the script's ``cover_s`` seconds."""
        victims = [c for c in self.film.cards if c.on_table(t + 4) and c not in fresh]
        if victims:
            victim = victims[int(self.rng.integers(len(victims)))]
            other = (victim.seat + 1) % len(self.film.script.players)
            cover_s = self.film.script.cover_s
            self.film.hands.append(HandPass(other, t + 3.6, t + 3.6 + cover_s + 0.8,
                                            self.target_of(victim, t + 3.6), hold=cover_s))

    def square_up(self, t: float) -> None:
        """A player squares up one of their columns: its cards shift a little together."""
        seat = int(self.rng.integers(len(self.film.script.players)))
        stacks = [col for col in self.columns[seat] if col]
        if stacks:
            column = stacks[int(self.rng.integers(len(stacks)))]
            dx, dy = (float(v) for v in self.rng.uniform(-0.15, 0.15, 2))
            for card in column:
                card.nudges.append((t + 4.3, dx, dy))
            self.film.hands.append(HandPass(seat, t + 3.9, t + 4.8, self.target_of(column[-1], t + 3.9)))

    def cross(self, t: float) -> None:
        """A hand reaching across the table (for a drink, to point at a card), or over another
        player's cards."""
        n = len(self.film.script.players)
        seat = int(self.rng.integers(n))
        if self.slide and self.rng.random() < 0.5:
            edge = self.film.seat_edge((seat + 1 + int(self.rng.integers(n - 1))) % n) * 0.55
            aim = (float(edge[0]), float(edge[1]))
        else:
            aim = (float(self.rng.normal(0, 0.5)), float(self.rng.normal(0, 0.5)))
        self.film.hands.append(HandPass(seat, t + 3.4, t + 4.6, aim))

    def clear_round(self, t: float) -> None:
        """The end of a round: every card but the desserts is cleared away, seat by seat."""
        for seat in range(len(self.film.script.players)):
            when = t + seat * 0.8
            for card in [c for c in self.film.cards if c.seat == seat and c.on_table(when)
                         and not is_dessert(c.slug)]:
                card.removed_at = when
                self.columns[seat][card.column].remove(card)
                self.closed.discard((seat, card.column))
            self.film.hands.append(HandPass(seat, when - 0.5, when + 0.5, (0.0, 0.0)))


def _multiset(tableau) -> dict[str, int]:
    out: dict[str, int] = {}
    for stack in tableau.stacks:
        for played in stack.cards:
            key = CARD_BACK if played.printed == CARD_BACK else played.printed
            out[key] = out.get(key, 0) + 1
    return out


def _column_for(columns: list[list[FilmCard]], slug: str, seat: int, closed: set) -> int:
    """Same cards go in one column (each covering the last); a new kind starts a column."""
    for i, column in enumerate(columns):
        if (column and column[-1].slug == slug and (seat, i) not in closed and len(column) < COLUMN_CARDS
                and slug not in ("wasabi", SPECIAL_ORDER)):
            return i
    for i, column in enumerate(columns):
        if not column:
            return i
    return min(range(len(columns)), key=lambda i: len(columns[i]))


def _free_wasabi(columns: list[list[FilmCard]], closed: set, seat: int) -> FilmCard | None:
    for i, column in enumerate(columns):
        if column and column[-1].slug == "wasabi" and (seat, i) not in closed:
            return column[-1]
    return None


def _last_of(columns: list[list[FilmCard]], slug: str) -> FilmCard | None:
    for column in columns:
        for card in reversed(column):
            if card.slug == slug:
                return card
    return None


def _radius(n: int) -> float:
    width = COLUMNS_PER_SEAT * (1 + GAP)
    depth = 3.2
    if n <= 2:
        return depth / 2 + 1.0
    return (width / 2 + 0.3) / math.tan(math.pi / n) + depth / 2


def _slid(elapsed: float, duration: float) -> float:
    """How far along its way in a card slid by hand is (0 to 1), in step with the hand
    (:meth:`HandPass.reach`)."""
    return math.sin(math.pi / 2 * min(max(elapsed / max(duration, 1e-6), 0.0), 1.0))


def _camera(film: Film, size: tuple[int, int], rng: np.random.Generator, side_view: float = 0.0) -> np.ndarray:
    """A fixed camera framing every seat's card area (hands reach in from outside), a little
    tilted; with ``side_view``, from one side: the far (top) edge is narrower."""
    n = len(film.script.players)
    width = COLUMNS_PER_SEAT * (1 + GAP)
    points = []
    for seat in range(n):
        rot, origin = film._seat_frame(seat)
        for x, y in ((-width / 2, -1.8), (width / 2, -1.8), (width / 2, 2.0), (-width / 2, 2.0)):
            points.append(rot @ np.array([x, y]) + origin)
    corners = np.array(points)
    lo, hi = corners.min(0), corners.max(0)
    w, h = size
    scale = 0.96 * min(w / (hi[0] - lo[0]), h / (hi[1] - lo[1]))
    similarity = np.array([[scale, 0, w / 2 - scale * (lo[0] + hi[0]) / 2],
                           [0, scale, h / 2 - scale * (lo[1] + hi[1]) / 2], [0, 0, 1]])
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + (rng.uniform(-0.02, 0.02, (4, 2)) * [w, h]).astype(np.float32)
    if side_view:
        # the far side narrower, and seen from a little left or right of the middle
        shift = float(rng.uniform(-0.5, 0.5)) * side_view * w / 2
        dst[0] += (side_view * w / 2 + shift, 0)
        dst[1] += (-side_view * w / 2 + shift, 0)
    return cv2.getPerspectiveTransform(src, dst) @ similarity


# --- what a recogniser would report ----------------------------------------------------


def simulate_detections(truth: Sequence[CardTruth], rng: np.random.Generator, *, miss: float = 0.08,
                        jitter: float = 0.03, misread: float = 0.03, ghost: float = 0.02,
                        min_visible: float = 0.12, labels: Sequence[str] | None = None) -> Detections:
    """Detections of one frame as an imperfect recogniser gives them.

    A card shows when enough of it is visible and a hand does not cover a good part of it;
    it is then missed with probability ``miss``, its box moves by ``jitter`` of its size,
    it is misread (another face) with probability ``misread``; a ``ghost`` box appears now
    and then on the table.
    """
    from vision.faces import SLUG_INDEX, SLUGS

    names = tuple(labels or SLUGS)
    boxes, found, confidence = [], [], []
    for card in truth:
        if card.box is None or card.visible < min_visible or card.under_hand > 0.25:
            continue
        if rng.random() < miss:
            continue
        x1, y1, x2, y2 = card.box
        bw, bh = x2 - x1, y2 - y1
        noise = rng.normal(0, jitter, 4) * [bw, bh, bw, bh]
        boxes.append([x1 + noise[0], y1 + noise[1], x2 + noise[2], y2 + noise[3]])
        label = card.label if rng.random() >= misread else str(names[int(rng.integers(len(names)))])
        found.append(label)
        confidence.append(float(rng.uniform(0.55, 0.95)))
    if rng.random() < ghost and truth:
        anchor = truth[int(rng.integers(len(truth)))].box
        if anchor is not None:
            x1, y1, x2, y2 = anchor
            dx = rng.normal(0, 1.5) * (x2 - x1)
            boxes.append([x1 + dx, y1 + dx, x2 + dx, y2 + dx])
            found.append(str(names[int(rng.integers(len(names)))]))
            confidence.append(float(rng.uniform(0.3, 0.6)))
    return Detections(
        xyxy=np.array(boxes, np.float32).reshape(-1, 4),
        class_id=np.array([SLUG_INDEX.get(lab, -1) for lab in found], np.int64),
        confidence=np.array(confidence, np.float32),
        data={"label": np.array(found, dtype=object)},
    )


def columns_script() -> GameScript:
    """A 3-player Party round laid in columns (each like card over the lower part of the
    last, which then shows its top strip) for ``sushicam bench-live`` and the live tests:
    three salmon nigiri in one column, tempura and eel columns, a nigiri on a free wasabi,
    chopsticks used, a special order on its tempura, a hand resting on a card."""

    def turn(ann, ben, cid, events=None):
        out = {"reveals": {"Ann": ann, "Ben": ben, "Cid": cid}}
        return {**out, "events": events} if events else out

    return GameScript(
        ("Ann", "Ben", "Cid"), "party",
        ((turn(["salmon-nigiri"], ["tempura"], ["wasabi"]),
          turn(["salmon-nigiri"], ["tempura"], ["egg-nigiri"]),
          turn(["salmon-nigiri"], ["chopsticks"], ["tempura"]),
          turn(["wasabi"], ["tempura", "eel"], ["tempura"], [{"player": "Ben", "event": "chopsticks-used"}]),
          turn(["squid-nigiri"], ["eel"], ["special-order:tempura"]),
          turn(["eel"], ["pudding"], ["eel"]),
          turn(["eel"], ["miso-soup"], ["pudding"])),),
        covered=frozenset({(0, 4)}),
    )


#: How people lay cards, beside the steady scripted pace: each card slid in by hand from the
#: player's edge over the table and their own cards, turns of no fixed length, players laying
#: up to 1.5 s apart, hands reaching over other seats, the camera at one side.
AS_PEOPLE_PLAY = {"slide": True, "turn_s": (3.5, 8.0), "lag_s": 1.5, "side_view": 0.3}

