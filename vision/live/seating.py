"""Which player each card on a live table belongs to: :class:`SeatMemory`.

``SeatMemory.update(tracked) -> Detections`` gives each tracked card the seat
(``data[SEAT]``) whose row of cards it lies in line with, once, when it first appears, and
reads the seats again as more cards settle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.boxes import area as _box_area
from vision.boxes import overlaps as box_overlaps
from vision.detections import FIRST_SEEN, SEAT, TRACK_ID, VISIBLE, Detections
from vision.live.tuning import SeatTuning
from vision.seats import CARD_ASPECT, angle_towards, card_axes


@dataclass
class SeatMemory:
    """Give each card the seat it lies at: the seat whose row of cards it lies in line with.

    Players sit round the table and lay their cards in a row of columns in front of them,
    each card facing its player. So a seat is a row: a card laid far along it (a new column,
    a dessert put aside) is that player's, while a card as far off across it is not, and a
    card that lies the other way round (long across where the seat's cards are long down)
    faces another player. A row runs the way the seat's columns are spread; with one column,
    across the way its cards face (a card stands long towards its player); with no telling
    axis (a card turned near 45 degrees), along the table's edge: across the way from the
    table's middle to the seat.

    The seats are ``anchors`` (one point per seat in image pixels, e.g. clicked by the user,
    in the seat's card area) or, left out, learned from the first cards laid: cards lying
    within ``near`` card lengths of each other are one player's (and a group in line with an
    earlier one's row, facing its way, none of its cards laid with one of that group's: a
    dessert put at the end of the row), and once ``n_seats`` such
    groups lie still on the table, they are the seats, seat 0 the one straight down from
    the middle of the groups, then clockwise as the image shows it. Seats need not be
    evenly spaced.

    Learned seats are read again as cards settle (``revise``): the first cards say little (a
    dessert put aside lies nearer a neighbour's cards than its player's), while the whole
    round says more: every turn each player lays one card, so the cards laid together (no
    more than ``wave_s`` apart) go one to a seat, and a seat is its cards' row. Every card
    laid in the last ``recall`` such turns is seated again that way, from the seating so far and from each early turn
    of ``n_seats`` cards, the seating whose cards lie most in line with their rows kept; then
    the seats are named again round the table from the bottom of the picture. A card whose
    seat changed is in :attr:`revised` after that update (its turns already read are given to
    its player: ``TurnReader.reseat``). Seat points given fix the seats for good.

    >>> import numpy as np
    >>> from vision.detections import Detections
    >>> seats = SeatMemory(2, anchors=[(50, 400), (50, 0)])
    >>> cards = Detections(xyxy=np.array([[0, 0, 100, 150], [0, 300, 100, 450]], float),
    ...                    class_id=np.zeros(2, int), confidence=np.ones(2),
    ...                    data={"track_id": np.array([7, 8])})
    >>> seats.update(cards).data[SEAT].tolist()
    [1, 0]
    """

    n_seats: int
    anchors: Sequence[tuple[float, float]] | None = None
    tuning: SeatTuning = field(default_factory=SeatTuning)
    revise: bool = True
    revised: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _seat_of: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _settled: dict[int, _Seated] = field(default_factory=dict, init=False, repr=False)  # id -> where it lay
    _settled_seat: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _pieces: dict[int, int] = field(default_factory=dict, init=False, repr=False)  # id -> the card it shows again
    _members: dict[int, list[_Seated]] = field(default_factory=dict, init=False, repr=False)
    _groups: list[list[tuple[int, _Seated]]] = field(default_factory=list, init=False, repr=False)
    _now: float = field(default=-math.inf, init=False, repr=False)
    _laid: dict[int, float] = field(default_factory=dict, init=False, repr=False)  # seat -> its last card's time

    def __post_init__(self) -> None:
        if self.n_seats < 1:
            raise ValueError(f"a table needs at least one seat, got {self.n_seats}")
        if self.anchors is not None:
            if len(self.anchors) != self.n_seats:
                raise ValueError(f"{len(self.anchors)} seat points given for {self.n_seats} players")
            self._members = {s: [_Seated(np.asarray(p, float), -1, 0.0)] for s, p in enumerate(self.anchors)}

    @property
    def learned(self) -> bool:
        """Whether every seat has a remembered area yet."""
        return len(self._members) == self.n_seats

    def update(self, tracked: Detections, now: float | None = None) -> Detections:
        """``tracked`` with ``data[SEAT]``: -1 for cards that came before the seats are known.

        The seats are learned from cards that have lain in sight ``settle_s`` by ``now`` (a card
        still on its way in shows where its player's hand passes, not where it lies)."""
        ids = [int(i) for i in tracked.data[TRACK_ID]]
        self.revised = {}
        fresh = [k for k, i in enumerate(ids) if i not in self._seat_of]
        settling = self._settling(tracked, ids, now)
        if not fresh and not settling:  # every card seated already (most frames): nothing to measure
            if len(self._seat_of) > len(ids):
                alive = set(ids)
                self._seat_of = {i: s for i, s in self._seat_of.items() if i in alive}
            return tracked.with_data(**{SEAT: np.array([self._seat_of[i] for i in ids], int)})
        boxes = np.asarray(tracked.xyxy, float).reshape(-1, 4)
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        axes = card_axes(boxes)
        first_seen = tracked.data.get(FIRST_SEEN)
        cards = [_Seated(centres[k], int(axes[k]), float(np.max(boxes[k, 2:] - boxes[k, :2])), _tilt(boxes[k]),
                         float(first_seen[k]) if first_seen is not None else (now or 0.0), boxes[k])
                 for k in range(len(ids))]
        if fresh and not self.learned:
            lying = fresh
            if now is not None and FIRST_SEEN in tracked.data:
                visible = tracked.data.get(VISIBLE, np.ones(len(ids), bool))
                lying = [k for k in fresh if now - float(tracked.data[FIRST_SEEN][k]) >= self.tuning.settle_s
                         and bool(visible[k])]
            self._now = -math.inf if now is None else now
            self._learn([(ids[k], cards[k]) for k in lying])
        if self.learned:
            for k in fresh:
                if ids[k] in self._seat_of:
                    continue
                seat = self._nearest_seat(cards[k], now)
                self._seat_of[ids[k]] = seat
                self._members[seat].append(cards[k])
                if now is not None:
                    self._laid[seat] = now
        alive = set(ids)
        for gone in [i for i in self._seat_of if i not in alive]:
            del self._seat_of[gone]
        if self.learned and self.anchors is None and self.revise:
            for k in settling:
                if ids[k] in self._seat_of:
                    self._settle(ids[k], cards[k])
            if settling:
                self._revise([(ids[k], cards[k]) for k in range(len(ids))
                              if ids[k] in self._seat_of and ids[k] not in self._settled_seat], now)
        seats = np.array([self._seat_of.get(i, -1) for i in ids], int)
        return tracked.with_data(**{SEAT: seats})

    def _settling(self, tracked: Detections, ids: list[int], now: float | None) -> list[int]:
        """Cards seated, lying in sight ``settle_s`` and not yet remembered where they lie:
        what a revision of the seats reads."""
        if not self.learned or self.anchors is not None or not self.revise:
            return []
        if now is None or FIRST_SEEN not in tracked.data:
            return [k for k, i in enumerate(ids) if i not in self._settled_seat]
        visible = tracked.data.get(VISIBLE, np.ones(len(ids), bool))
        first_seen = tracked.data[FIRST_SEEN]
        return [k for k, i in enumerate(ids) if i not in self._settled_seat and bool(visible[k])
                and now - float(first_seen[k]) >= self.tuning.settle_s]

    def _settle(self, track_id: int, card: _Seated) -> None:
        """Remember where a card lies. A track where an earlier card lies (about the same box, or
        a piece of it: a strip a newer card left of it, found again as a new track) is that
        card seen again, not one more card laid: it keeps that card's seat."""
        for earlier_id, earlier in self._settled.items():
            if card.box is None or earlier.box is None:  # a card seated without its box
                continue
            iou, inside = box_overlaps(card.box[None], earlier.box[None])
            if iou[0, 0] >= self.tuning.same_iou or (inside[0, 0] >= self.tuning.same_iou and _box_area(card.box) <= 0.6 * _box_area(earlier.box)):
                seat = self._settled_seat[track_id] = self._settled_seat[earlier_id]
                if self._seat_of[track_id] != seat:
                    self.revised[track_id] = self._seat_of[track_id] = seat
                self._pieces[track_id] = earlier_id
                return
        self._settled[track_id] = card
        self._settled_seat[track_id] = self._seat_of[track_id]

    def _revise(self, arriving: list[tuple[int, _Seated]], now: float | None) -> None:
        """Seat every settled card again from all of them (see the class) and name the seats
        again; ``arriving`` cards (not settled yet) take the nearest seat of the new seating.
        Changed seats go to :attr:`revised`."""
        ids = sorted(self._settled, key=lambda i: (self._settled[i].laid, i))
        if len(ids) < self.n_seats or self.n_seats < 2:
            return
        waves: list[list[int]] = [[ids[0]]]
        for before, track_id in zip(ids, ids[1:], strict=False):
            if self._settled[track_id].laid - self._settled[before].laid > self.tuning.wave_s:
                waves.append([])
            waves[-1].append(track_id)
        # the last ``recall`` turns are a round's worth: enough to tell the seats, and a long
        # game costs no more to read again than one round (older cards keep their seats)
        ids = [i for wave in waves[-self.tuning.recall:] for i in wave]
        at = {track_id: k for k, track_id in enumerate(ids)}
        waves = [[at[i] for i in wave] for wave in waves[-self.tuning.recall:]]
        cards = [self._settled[i] for i in ids]
        starts = [[self._settled_seat[i] for i in ids]]
        for wave in waves[:3]:
            if len(wave) == self.n_seats:
                starts.append([wave.index(k) if k in wave else -1 for k in range(len(cards))])
        unit = float(np.median([c.size for c in cards]))
        best = min((self._cluster(cards, waves, start, unit) for start in starts), key=lambda r: r[0])
        labels = best[1]
        groups = [[cards[k] for k in range(len(cards)) if labels[k] == s] for s in range(self.n_seats)]
        if any(not g for g in groups):
            return
        order = _seat_order([np.mean([m.centre for m in g], axis=0) for g in groups],
                            [float(np.median([m.tilt for m in g])) for g in groups])
        name = {cluster: seat for seat, cluster in enumerate(order)}
        self._members = {name[s]: groups[s] for s in range(self.n_seats)}
        self._laid = {name[s]: max(m.laid for m in groups[s]) for s in range(self.n_seats)}
        for k, track_id in enumerate(ids):
            self._move_settled(track_id, name[labels[k]])
        for track_id, earlier_id in self._pieces.items():
            self._move_settled(track_id, self._settled_seat[earlier_id])
        for track_id, card in arriving:
            seat = self._nearest_seat(card, now)
            if self._seat_of[track_id] != seat:
                self.revised[track_id] = seat
            self._seat_of[track_id] = seat

    def _move_settled(self, track_id: int, seat: int) -> None:
        """Give a settled card ``seat`` (in :attr:`revised` when that changed its settled seat),
        and its track too while it is tracked."""
        if self._settled_seat[track_id] != seat:
            self.revised[track_id] = seat
        self._settled_seat[track_id] = seat
        if track_id in self._seat_of:
            self._seat_of[track_id] = seat

    def _cluster(self, cards: list[_Seated], waves: list[list[int]], start: list[int],
                 unit: float) -> tuple[float, list[int]]:
        """Seat ``cards`` from ``start`` (a seat per card, -1 for none yet): seat the cards of
        each wave (laid together) one to a seat (a second one at a seat costs ``one_each``
        times more, and a card's length), each seat a row through the middle of its cards,
        until the seating stays; the total cost and the seat of each card."""
        labels = list(start)
        rows: list[list[_Seated] | None] = [None] * self.n_seats
        total = math.inf
        for _ in range(10):
            for s in range(self.n_seats):
                members = [cards[k] for k in range(len(cards)) if labels[k] == s]
                if members:
                    rows[s] = members
            seated = [r for r in rows if r is not None]
            if len(seated) < self.n_seats:
                return math.inf, labels
            middle = np.mean([np.mean([m.centre for m in r], axis=0) for r in seated], axis=0)
            models = [_row_model(r, middle) for r in seated]
            copies = max(-(-max(len(w) for w in waves) // self.n_seats), 1) + 1
            new = [-1] * len(cards)
            total = 0.0
            for wave in waves:
                base = np.array([[self._row_cost(cards[k], model) for model in models] for k in wave])
                cost = np.concatenate([base * self.tuning.one_each ** c + c * unit for c in range(copies)], axis=1)
                for row, col in enumerate(_min_cost_assignment(cost)):
                    new[wave[row]] = col % self.n_seats
                    total += float(cost[row, col])
            if new == labels:
                break
            labels = new
        return total, labels

    def _row_cost(self, card: _Seated, model: tuple) -> float:
        """How far ``card`` lies from a seat's row (``_row_model``): along the row counts
        ``along`` times less than across it, a card facing another way ``crossing`` times more."""
        centre, row, axis = model
        offset = card.centre - centre
        if row is None:
            distance = float(np.linalg.norm(offset))
        else:
            distance = float(np.hypot(offset @ row / self.tuning.along, offset @ np.array([-row[1], row[0]])))
        if card.axis >= 0 and axis is not None and axis != card.axis:
            distance *= self.tuning.crossing
        return distance

    def _nearest_seat(self, card: _Seated, now: float | None = None) -> int:
        """The seat whose row the card lies most in line with (see the class); between two
        seats it lies near enough in line with (within ``one_each`` times), the one that
        has laid no card in the last ``turn_s`` seconds: each player lays one card a turn."""
        if self.n_seats == 1:
            return 0
        centre = np.mean([np.mean([m.centre for m in members], axis=0) for members in self._members.values()], axis=0)
        costs = {s: self._cost(card, members, centre) for s, members in self._members.items()}
        ranked = sorted(costs, key=lambda seat: costs[seat])
        best, second = ranked[:2]
        if now is not None:
            def busy(seat: int) -> bool:
                return now - self._laid.get(seat, -math.inf) <= self.tuning.turn_s
            if busy(best) and not busy(second) and costs[second] <= self.tuning.one_each * costs[best]:
                return second
        return best

    def _cost(self, card: _Seated, members: list[_Seated], centre: np.ndarray) -> float:
        row = _row_direction(members, centre)
        offsets = np.stack([card.centre - m.centre for m in members])
        if row is None:
            distance = float(np.linalg.norm(offsets, axis=1).min())
        else:
            along = offsets @ row
            across = offsets @ np.array([-row[1], row[0]])
            distance = float(np.hypot(along / self.tuning.along, across).min())
        axis = _majority_axis(members)
        if card.axis >= 0 and axis is not None and axis != card.axis:
            distance *= self.tuning.crossing  # it faces another way: another player's
        return distance

    def _learn(self, lying: list[tuple[int, _Seated]]) -> None:
        """Cards lying still found the seats: each joins the group of a card within ``near``
        card lengths of it, or starts a new one; ``n_seats`` groups are the seats."""
        placed = {i for group in self._groups for i, _ in group}
        for track_id, card in lying:
            if track_id in placed:
                continue
            home = next((g for g in self._groups if any(
                np.linalg.norm(card.centre - m.centre) <= self.tuning.near * min(card.size, m.size) for _, m in g)), None)
            if home is None:
                self._groups.append([(track_id, card)])
            else:
                home.append((track_id, card))
        groups = self._players_groups()
        if len(groups) < self.n_seats:
            return  # wait until every player has laid a card
        groups = groups[: self.n_seats]
        order = _seat_order([np.mean([m.centre for _, m in g], axis=0) for g in groups],
                            [float(np.median([m.tilt for _, m in g])) for g in groups])
        for seat, k in enumerate(order):
            self._members[seat] = [m for _, m in groups[k]]
            for track_id, _ in groups[k]:
                self._seat_of[track_id] = seat
            self._laid[seat] = self._now
        # cards of groups beyond the seats (seen in the same frame) get a seat like any other
        self._groups = []

    def _players_groups(self) -> list[list[tuple[int, _Seated]]]:
        """The groups of cards lying still, a group joined to an earlier one when it lies in
        line with that one's row, facing the same way, and none of its cards was laid with
        one of that group's (within ``wave_s``): the same player's card put further along
        the row (a dessert at its end), not a player's first card. A player's first card
        unseen, such a card would be taken for that player's seat and the seats learned wrong
        (a dessert at the end of one player's row taken for the next player's). Read again as
        cards come: a player laying with the group's player later (each lays one a turn) is
        another player, and the group stands alone again."""
        groups = [list(g) for g in self._groups]
        if len(groups) < 2:
            return groups
        middle = np.mean([np.mean([m.centre for _, m in g], axis=0) for g in groups], axis=0)
        for b in range(len(groups) - 1, 0, -1):
            cards = [m for _, m in groups[b]]
            best, least = None, math.inf
            for a in range(b):
                members = [m for _, m in groups[a]]
                axis = _majority_axis(members)
                if axis is None or any(c.axis != axis for c in cards) or any(
                        abs(c.laid - m.laid) <= self.tuning.wave_s for c in cards for m in members):
                    continue
                cost = max(self._cost(c, members, middle) / c.size for c in cards)
                if cost <= self.tuning.along / 2 and cost < least:
                    best, least = a, cost
            if best is not None:
                groups[best] += groups.pop(b)
        return groups


@dataclass(frozen=True)
class _Seated:
    """A card as the seats remember it: where it lies, its axis (``vision.seats.card_axes``:
    0 long up and down, 1 long sideways, -1 no telling) and its box's longer side."""

    centre: np.ndarray
    axis: int
    size: float
    tilt: float = 0.0  # how far from standing up or down its box says it is turned (radians, 0 to pi/2)
    laid: float = 0.0  # when it was first seen (seconds)
    box: np.ndarray | None = None  # where it lies, [x1, y1, x2, y2]


def _tilt(box: np.ndarray) -> float:
    """How far a whole card is turned from standing up or down, from its box: 0 for a box as
    tall as a card (1.55 times its width), pi/4 for a square one, pi/2 lying sideways."""
    ratio = max(float(box[3] - box[1]), 1e-6) / max(float(box[2] - box[0]), 1e-6)
    share = (math.log(CARD_ASPECT) - math.log(ratio)) / (2 * math.log(CARD_ASPECT))
    return math.pi / 2 * min(max(share, 0.0), 1.0)


def _majority_axis(members: list[_Seated]) -> int | None:
    """The axis (``card_axes``) most of a seat's cards that show one lie on, or None where
    no axis has more than half of them."""
    shown = [m.axis for m in members if m.axis >= 0]
    if not shown:
        return None
    axis = max((0, 1), key=shown.count)
    return axis if shown.count(axis) > len(shown) / 2 else None


def _row_direction(members: list[_Seated], centre: np.ndarray) -> np.ndarray | None:
    """The unit vector a seat's row of cards runs along, or None where nothing tells."""
    columns: list[np.ndarray] = []
    for m in members:  # cards a strip apart lie in one column
        if m.size and all(np.linalg.norm(m.centre - c) > 0.6 * m.size for c in columns):
            columns.append(m.centre)
    if len(columns) >= 2:
        spread = np.stack(columns) - np.mean(columns, axis=0)
        return np.linalg.svd(spread, full_matrices=False)[2][0]
    axis = _majority_axis(members)
    if axis is not None:
        return np.array([1.0, 0.0]) if axis == 0 else np.array([0.0, 1.0])
    outward = np.mean([m.centre for m in members], axis=0) - centre
    if np.linalg.norm(outward) < 1e-6:
        return None
    outward /= np.linalg.norm(outward)
    return np.array([-outward[1], outward[0]])


def _seat_order(homes: list[np.ndarray], tilts: list[float]) -> list[int]:
    """The seats (by the middle of each one's cards, and how far its cards are turned from
    standing up) in seat order: clockwise on screen from straight down. Seat 0 is the player
    at the bottom of the picture: the one nearest straight down from the middle of the seats
    whose cards stand upright (a card faces its player), not one turned towards a side nearly
    as low."""
    middle = np.mean(homes, axis=0)
    angles = [math.radians(angle_towards(h - middle)) for h in homes]
    bottom = min(range(len(homes)), key=lambda k: _angle_between(angles[k], 0.0) + tilts[k])
    return sorted(range(len(homes)), key=lambda k: (angles[k] - angles[bottom]) % (2 * math.pi))


def _row_model(members: list[_Seated], middle: np.ndarray) -> tuple:
    """A seat as a row of cards: the middle of its cards, the way its row runs
    (``_row_direction``) and the axis most of them lie on."""
    return np.mean([m.centre for m in members], axis=0), _row_direction(members, middle), _majority_axis(members)


def _min_cost_assignment(cost: np.ndarray) -> list[int]:
    """The column for each row (no column twice) with the least total cost: the Hungarian
    method with potentials, for a matrix with no more rows than columns (a few cards of one
    turn to a few seats: plain Python is quick enough)."""
    n, m = cost.shape
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)  # owner[j]: the row (1-based) column j is given to
    for i in range(1, n + 1):
        owner[0], j0 = i, 0
        least, used = [math.inf] * (m + 1), [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], math.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = float(cost[i0 - 1, j - 1]) - u[i0] - v[j]
                    if reduced < least[j]:
                        least[j], way[j] = reduced, j0
                    if least[j] < delta:
                        delta, j1 = least[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    out = [-1] * n
    for j in range(1, m + 1):
        if owner[j]:
            out[owner[j] - 1] = j - 1
    return out


def _angle_between(a: float, b: float) -> float:
    """The smaller angle between two directions (radians)."""
    d = abs(a - b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)
