"""Splitting a whole-table photo into the seats' tableaux.

Seat 0 sits at the bottom of the photo and seats follow clockwise. Each tableau faces its
player, so every seat also gets its *turn*: 0 for a player at the bottom, 90 at the left,
180 across the table, 270 at the right; ``read_tableau`` reads a seat's columns in that
frame. The turn comes from the seat's own cards (the way their columns and rows run, how
far their boxes say they are turned), at any angle, so seats need not be evenly spaced: two
players on one side of a rectangular table both face that side, a player at a corner faces
the corner. Which cards are whose comes from where they lie round the table and how they
are turned (``tableau_segments``): seen from the middle of the cards each tableau lies in a
sector of its own, and neighbouring tableaux that touch are told apart by their cards'
turns (a box gives a card's turn folded, t alike with -t; its tilt read from its outline,
``data["tilt"]`` where the recogniser gives it, gives the sign); gaps are measured in the
size of the cards there and the phone's tilt is undone (``table_top``: the far side smaller
and flatter than the near side, as far as the cards' sizes and aspects tell), so a far
seat's small, flat cards count alike and a turned card there is not taken for a card lying
sideways. A player whose cards are out of sight (or all missed) leaves their seat empty,
where the others' turns and the gaps between them leave the most room, rather than a
neighbour's tableau cut in two; and boxes that can be no player's cards (``clutter``: a
score pad boxed as thin cards, lying apart) take no seat, nor move the table's middle the
seats are numbered from. Every length is measured in card sizes and every turn in degrees,
never in pixels: a table reads alike in a 640x480 webcam frame and a 4032x3024 phone photo.

Seat areas (what the web remembers) are given in normalised image coordinates, as a
rectangle ``[x1, y1, x2, y2]``, a polygon ``[[x, y], ...]`` or a dict ``{"polygon": ...,
"angle": deg}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from vision.boxes import coverage_matrix, gap_matrix
from vision.detections import TILT, Detections
from vision.faces import FACE_SIZE

CARD_ASPECT = FACE_SIZE[1] / FACE_SIZE[0]

#: a seat's area in normalised coordinates: ``[x1, y1, x2, y2]``, three or more ``[x, y]``
#: points, or ``{"rect" or "polygon": ..., "angle": degrees}``
SeatArea = Sequence[float] | Sequence[Sequence[float]] | Mapping[str, Any]


class SeatAreaError(ValueError):
    """A seat area that is not a rectangle or polygon in normalised coordinates."""


def _tag(detections: Detections, seat: int, angle: float) -> Detections:
    n = len(detections)
    return detections.with_data(seat=np.full(n, seat), seat_angle=np.full(n, angle, np.float32))


def table_centre(detections: Detections) -> np.ndarray:
    """The middle of the box around every card: the table's centre."""
    return np.asarray((detections.xyxy[:, :2].min(0) + detections.xyxy[:, 2:].max(0)) / 2)


#: Boxes smaller than this share of the largest box near them (a whole card) are covered
#: cards' strips: a strip is about a fifth of a card
STRIP_AREA = 0.5
#: Boxes this close (in the smaller one's size) touch: a detector's boxes leave a little room
TOUCH = 0.4
#: A box whose sides differ by less than this ratio shows no axis (a card turned near 45
#: degrees); a whole card is 1.56 times as tall as wide, a strip 2-3 times as wide as tall
SQUARE = 1.15
#: A tableau whose cards show no axis and that lies within this many degrees of a side of the
#: table faces that side
SNAP = 20.0
#: A tableau whose columns run within this many degrees of a right angle is read at that
#: angle (its boxes are exact there)
COLUMN_SNAP = 8.0
#: A group of cards has an axis when this share of its cards that show one agree on it
AXIS_AGREEMENT = 0.7
#: A tableau whose cards' boxes say they are turned within this many degrees of a right
#: angle is read at that angle (a box tells a turn near a right angle poorly)
FOLD_SNAP = 15.0
#: Without rows to say its sign, a turn the boxes give is taken only within this many
#: degrees of the direction the tableau lies in from the table's centre
FOLD_SIDE = 30.0
#: A tableau's rows give its turn where this many of its cards lie in rows
ROW_CARDS = 3
#: The perspective is measured from this many whole cards (``table_top``)
PERSPECTIVE_CARDS = 6
#: A horizon must make whole cards' sizes this much more alike (their variance) than one
#: squash throughout (``table_top``)
PERSPECTIVE_GAIN = 0.8
#: ... and by at least this much (the variance of their logarithms: a card's own wobble of a
#: few per cent leaves sizes alike)
PERSPECTIVE_FLOOR = 0.008


def strips(xyxy: np.ndarray) -> np.ndarray:
    """Which boxes are covered cards' strips: those much smaller than the largest box near
    them (every column ends in a whole card). Near, not the whole photo: a tilted phone
    shows the far side's cards at half the size of the near side's."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    area = (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1])
    largest = _largest_area_near(xyxy, area)
    # and a strip touches the card covering it: a small box standing alone is a far card
    side = np.sqrt(area)
    touching = gap_matrix(xyxy, xyxy) <= TOUCH * np.minimum(side[:, None], side[None, :])
    np.fill_diagonal(touching, False)
    covered = touching.any(1)
    return (area < STRIP_AREA * largest) & covered


def card_axes(xyxy: np.ndarray) -> np.ndarray:
    """Each card's axis from its box: 0 where the card stands up or down in the photo (its
    player sits at the bottom or the top), 1 where it lies sideways (left or right), -1 where
    the box cannot say (near-square: turned near 45 degrees). A whole card is long along its
    axis; a strip (``strips``) is long across it.

    >>> card_axes(np.array([[0, 0, 100, 156], [0, 0, 156, 100], [0, 0, 100, 35], [0, 0, 35, 100],
    ...                     [0, 0, 140, 150]])).tolist()
    [0, 1, 0, 1, -1]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    ratio = (xyxy[:, 3] - xyxy[:, 1]) / np.maximum(xyxy[:, 2] - xyxy[:, 0], 1e-6)
    is_strip = strips(xyxy)
    tall = np.where(is_strip, ratio < 1 / SQUARE, ratio > SQUARE)
    wide = np.where(is_strip, ratio > SQUARE, ratio < 1 / SQUARE)
    return np.where(tall, 0, np.where(wide, 1, -1))


def column_angles(xyxy: np.ndarray, is_strip: np.ndarray) -> np.ndarray:
    """The turn each column of one tableau shows, in degrees: a column runs from its first
    card, away from its player, to its last, the whole card nearest its player, so the step
    from the strip a whole card covers to that card's centre points at the player. The
    centres of axis-aligned boxes turn exactly with the cards, so this holds at any turn.

    >>> column_angles(np.array([[0, 0, 100, 35], [0, 30, 100, 186]]), np.array([True, False])).round(1).tolist()
    [0.0]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    return np.array([angle_towards(centres[card] - centres[strip]) for strip, card in column_pairs(xyxy, is_strip)])


def _mean_turn(turns: np.ndarray) -> float:
    radians = np.radians(turns)
    return math.degrees(math.atan2(np.sin(radians).mean(), np.cos(radians).mean())) % 360


def angle_towards(vector: np.ndarray) -> float:
    """The turn of a seat whose player sits in ``vector``'s direction from the table's centre
    (0: below it, 90: to its left, then on round), in degrees; image y grows downwards.

    >>> [round(angle_towards(np.array(v))) for v in ([0, 1], [-1, 0], [0, -1], [1, 0])]
    [0, 90, 180, 270]
    """
    return (math.degrees(math.atan2(vector[1], vector[0])) - 90) % 360


def seat_angle(xyxy: np.ndarray, towards: np.ndarray | None, axes: np.ndarray | None = None,
              is_strip: np.ndarray | None = None, top: TableTop | None = None) -> float:
    """The turn of one tableau (0: its player at the bottom of the photo, 90 at the left, 180
    at the top, 270 at the right) from its own cards: their boxes give the axis, the way
    their columns run gives the side; where no column says, the cards' own turn at any
    angle (a player at a corner of the table): how far their boxes say they are turned,
    which way their rows run, and the side of the table the tableau lies on (``towards``:
    from the table's centre to the tableau; None for a lone tableau, read upright) which of
    the two ways along that axis its player sits. Where the cards disagree, their axis, or
    the direction from the centre, or the side it lies within ``SNAP`` degrees of, is the
    turn. ``axes`` and ``is_strip``: ``card_axes`` and ``strips``
    as measured on the whole photo (the tableau's own boxes when left out); ``top``: the
    photo's ``table_top`` (seen from straight above when left out)."""
    axes = card_axes(xyxy) if axes is None else axes
    is_strip = strips(xyxy) if is_strip is None else is_strip
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    top = TableTop() if top is None else top
    # on the table top as if seen from straight above
    flat = top.flat(xyxy)
    at = ((xyxy[:, :2] + xyxy[:, 2:]) / 2).mean(0) if len(xyxy) else np.zeros(2)
    columns = column_angles(flat, is_strip)
    folded = folded_turns(flat, is_strip)[~is_strip]
    if len(columns):
        # the turn most columns agree on (a stray pair with a neighbouring column's strip
        # points elsewhere); between as many, the one along the cards' long side
        close = np.abs((columns[:, None] - columns[None, :] + 180) % 360 - 180) < 20
        support = close.sum(1)
        along = np.abs(np.minimum(columns % 180, 180 - columns % 180) - np.median(folded)) if len(folded) else 0
        best = int(np.lexsort((along, -support))[0])
        agree = close[best]
        rivals = np.any(support[~agree] >= support[best])
        if agree.mean() > 0.5 or agree.sum() >= 3 or agree.sum() >= 2 and not rivals:
            # back into the photo, squashed again
            return _square(top.photo_turn(_mean_turn(columns[agree]), at), COLUMN_SNAP)
    if len(folded) and towards is not None and np.any(towards):
        # the cards' own turn: how far they are turned their boxes say (``folded_turns``), its
        # sign the way their rows run (``_row_axes``), and the side of the table the tableau
        # lies on which of the two ways along that axis its player sits
        turn = float(np.median(folded))
        if np.mean(np.abs(folded - turn) <= FOLD_AGREEMENT) >= AXIS_AGREEMENT:
            candidates = np.array([turn, 180 - turn, 180 + turn, 360 - turn]) % 360
            rows = _row_axes(flat, is_strip, folded_turns(flat, is_strip), _relative_gaps(flat))[~is_strip]
            rows = rows[~np.isnan(rows[:, 0])]
            # rows of cards (a lone pair may be two cards laid unevenly): their centres say
            # the turn better than the boxes, and its sign
            by_rows = len(rows) >= ROW_CARDS and np.linalg.norm(rows.mean(0)) >= AXIS_AGREEMENT
            if by_rows:
                axis = math.degrees(math.atan2(rows[:, 1].sum(), rows[:, 0].sum())) / 2
                candidates = np.array([axis, axis + 180]) % 360
            side = angle_towards(np.subtract(*top.place(np.array([at, at - towards]))))
            off = np.abs((candidates - side + 180) % 360 - 180)
            # without rows, a turn far from the tableau's side of the table is a guess between
            # two: left to the cards' axis below
            if by_rows or off.min() <= FOLD_SIDE:
                return _square(top.photo_turn(float(candidates[int(np.argmin(off))]), at), FOLD_SNAP)
    shown = axes[axes >= 0]
    if len(shown):
        axis = int(np.bincount(shown, minlength=2).argmax())
        if np.mean(shown == axis) >= AXIS_AGREEMENT:
            side = 1.0
            if towards is not None and towards[1 - axis] < 0:
                side = -1.0
            if axis == 0:
                return 0.0 if side > 0 else 180.0
            return 270.0 if side > 0 else 90.0
    if towards is None or not np.any(towards):
        return 0.0
    # a tableau is seldom centred on its player: near a side of the table, that side it is
    return _square(angle_towards(towards), SNAP)


def _square(turn: float, within: float) -> float:
    """``turn`` or the right angle it lies within ``within`` degrees of."""
    square = round(turn / 90) * 90 % 360
    return float(square) if abs((turn - square + 180) % 360 - 180) < within else float(turn)


def card_sizes(xyxy: np.ndarray) -> np.ndarray:
    """Each card's size where it lies: the side of a square as large as the largest box near
    it (a whole card: every column ends in one). A tilted phone shows the far side's cards
    smaller than the near side's, so gaps are measured in these."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.asarray(np.sqrt(_largest_area_near(xyxy, (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1]))))


def _largest_area_near(xyxy: np.ndarray, area: np.ndarray) -> np.ndarray:
    """The area of the largest box within three of its own sides of each box (itself too)."""
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    near = distance <= 3 * np.sqrt(area)[:, None]
    return np.asarray(np.where(near, area[None, :], 0).max(1))


def _relative_gaps(xyxy: np.ndarray) -> np.ndarray:
    """The gaps between boxes (``vision.boxes.gap_matrix``) in the smaller of the two cards'
    sizes where they lie (``card_sizes``): a far seat's small cards count alike."""
    size = card_sizes(xyxy)
    return np.asarray(gap_matrix(xyxy, xyxy) / np.minimum(size[:, None], size[None, :]))


def folded_turns(xyxy: np.ndarray, is_strip: np.ndarray) -> np.ndarray:
    """How far each whole card is turned from upright, folded into 0-90 degrees (0: it
    stands up or down in the photo, 90: it lies sideways), from its box alone: the box of a
    ``W x H`` card turned by t measures ``W|cos t| + H|sin t|`` by ``W|sin t| + H|cos t|``.
    A box cannot tell t from -t nor from 180 - t. NaN for strips (their own length is
    unknown).

    >>> folded_turns(np.array([[0, 0, 100, 156], [0, 0, 156, 100], [0, 0, 128, 128]]), np.zeros(3, bool)).round().tolist()
    [0.0, 90.0, 45.0]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    w, h = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
    turn = np.degrees(np.arctan2(np.maximum(CARD_ASPECT * w - h, 0), np.maximum(CARD_ASPECT * h - w, 0)))
    return np.where(is_strip, np.nan, turn)


def column_pairs(xyxy: np.ndarray, is_strip: np.ndarray) -> list[tuple[int, int]]:
    """``(strip, card)``: each whole card and the strip it covers, where it covers one. The
    strip a card covers shares an edge with it: their boxes, widened a little, meet along
    the strip's whole length; a neighbouring column's strip meets it at a corner."""
    return _edge_pairs(xyxy, np.flatnonzero(~np.asarray(is_strip, bool)), np.flatnonzero(is_strip))


def _edge_pairs(xyxy: np.ndarray, covering: np.ndarray, strip_ids: np.ndarray) -> list[tuple[int, int]]:
    """``column_pairs`` for the boxes ``covering`` (each with the one of ``strip_ids``, never
    itself, whose edge it meets most)."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    sides = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    pairs: list[tuple[int, int]] = []
    if not len(strip_ids):
        return pairs
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    ratio = (xyxy[strip_ids, 3] - xyxy[strip_ids, 1]) / np.maximum(xyxy[strip_ids, 2] - xyxy[strip_ids, 0], 1e-6)
    for i in covering:
        pad = 0.1 * sides[i] * np.array([-1, -1, 1, 1])
        shared = coverage_matrix(xyxy[strip_ids] + pad, xyxy[i] + pad)[:, 0]
        # a strip lies along its card's edge: the box of a strip of a card turned by t is
        # wider than tall exactly where t is under 45 degrees, where the step from the strip
        # to the card runs more down (or up) than across; a tall strip beside a card's short
        # edge belongs to a card lying the other way (a neighbouring tableau's)
        step = np.abs(centres[i] - centres[strip_ids])
        shared[(ratio < 1 / SQUARE) & (step[:, 0] > step[:, 1])] = 0
        shared[(ratio > SQUARE) & (step[:, 1] > step[:, 0])] = 0
        shared[strip_ids == i] = 0
        best = int(shared.argmax())
        if shared[best] > 0.15:
            pairs.append((int(strip_ids[best]), int(i)))
    return pairs


def _turn_evidence(xyxy: np.ndarray, is_strip: np.ndarray,
                   gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What each card's box, its column and its row say of its turn: its folded turn
    (``folded_turns``), the unit step of its column, from strip to covering card (it points
    at the card's player, which tells a card turned by t from one turned by -t, as its box
    cannot), and its axis along its row (``_row_axes``). A strip takes the first two from
    the card that covers it. NaN where unknown. ``is_strip``: ``strips(xyxy)``; ``gaps``:
    ``_relative_gaps(xyxy)``."""
    folded = folded_turns(xyxy, is_strip)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    vectors = np.full((len(xyxy), 2), np.nan)
    for strip, card in column_pairs(xyxy, is_strip):
        step = centres[card] - centres[strip]
        # a column runs along its cards' long side: a step across it pairs a strip with a
        # neighbouring column's card
        along = angle_towards(step) % 180
        if abs(min(along, 180 - along) - folded[card]) > FOLD_AGREEMENT:
            continue
        vectors[card] = vectors[strip] = step / max(float(np.linalg.norm(step)), 1e-9)
        folded[strip] = folded[card]
    # a strip covered by another strip takes its evidence from the strip on it (down the
    # column, one strip at a time), else from the box it touches most that has some
    strip_ids = np.flatnonzero(is_strip)
    on_strips = _edge_pairs(xyxy, strip_ids, strip_ids)
    for _ in range(4):
        for covered, cover in on_strips:
            if np.isnan(folded[covered]) and not np.isnan(folded[cover]):
                folded[covered], vectors[covered] = folded[cover], vectors[cover]
    sides = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    for _ in range(4):
        unknown = np.flatnonzero(np.isnan(folded))
        known = np.flatnonzero(~np.isnan(folded))
        if not len(unknown) or not len(known):
            break
        pad = 0.1 * sides[unknown, None] * np.array([-1, -1, 1, 1])
        shared = coverage_matrix(xyxy[unknown] + pad, xyxy[known])
        for row, i in enumerate(unknown):
            if shared[row].max() > 0.15:
                j = known[int(shared[row].argmax())]
                folded[i], vectors[i] = folded[j], vectors[j]
    return folded, vectors, _row_axes(xyxy, is_strip, folded, gaps)


def _row_axes(xyxy: np.ndarray, is_strip: np.ndarray, folded: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Each whole card's axis (its turn modulo 180 degrees, as the unit vector of twice that
    angle; NaN where unknown) from the step to its nearest whole card, where that card lies
    beside it in a row (the step runs across both cards' long side, and they are turned
    alike): the step tells a card turned by t from one turned by -t, as their boxes cannot."""
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    whole = np.flatnonzero(~is_strip & ~np.isnan(folded))
    axes = np.full(len(xyxy), np.nan)
    for i in whole:
        for j in whole[np.argsort(distance[i, whole])]:
            if j == i or gaps[i, j] > ROW_GAP:
                continue
            across = (angle_towards(centres[j] - centres[i]) + 90) % 180
            if (abs(min(across, 180 - across) - folded[i]) <= FOLD_AGREEMENT
                    and abs(folded[i] - folded[j]) <= FOLD_AGREEMENT):
                axes[i] = across
            break
    doubled = np.radians(2 * axes)
    return np.stack([np.cos(doubled), np.sin(doubled)], 1)


#: A column's step and its card's folded turn agree within this many degrees
FOLD_AGREEMENT = 25.0
#: A card may move to another seat's group that has a card this close (in card sizes)
NEIGHBOUR_GAP = 0.5
#: Whole cards' boxes whose aspects span this ratio show cards both standing and lying
BOTH_WAYS = 1.3
#: What a seat of one card costs: a player's card laid apart is likelier than a player with one
LONE_CARD = 1.0
#: A gap counts at most this many card sizes: a dessert laid apart still belongs to its tableau
GAP_CAP = 2.0
#: Cards this many card sizes from the rest of their group, with the bare table between, are
#: no part of it: more than any dessert is laid apart, less than a table's width between two
#: players (``_far_pieces``)
FAR_APART = 6.0
#: Cards this many card sizes apart, with the bare table between, lie in islands of their own
#: (``_islands``): more than any dessert is laid apart from its tableau
ISLAND_APART = 2 * GAP_CAP
#: The weight of a seat's cards disagreeing on how far they are turned, per (30 degrees)^2:
#: on the table top (``table_top``) a card's box tells its turn well, as much as a gap of a
#: card size between two of them tells
TURN_WEIGHT = 1.0
#: The weight of a seat's columns disagreeing on which way they run
COLUMN_WEIGHT = 0.25
#: The weight of a seat's rows disagreeing on their axis (``_row_axes``)
AXIS_WEIGHT = 0.25
#: The weight of a seat's cards disagreeing on their tilt read from their outlines
#: (``tilt_vectors``)
TILT_WEIGHT = 0.2
#: A whole card this close (in card sizes) to a card may be its neighbour in a row
ROW_GAP = 0.3
#: What one more tableau must save in a split (``tableau_segments``): cutting one tableau in
#: two saves less, so a player with no cards in sight leaves a seat empty
SEAT_SAVING = 0.6
#: A whole card's box on the table top measures at most ``CARD_ASPECT`` times as long as
#: wide at any turn; this much more leaves room for a box a little off and a squash
#: misjudged
SHAPE_SLACK = 1.3


def tilt_vectors(tilts: np.ndarray) -> np.ndarray:
    """Each card's tilt read from its outline (``vision.tilts.card_tilts``: its turn modulo 90,
    with its sign) as a unit vector at four times its angle, ``(N, 2)``, so that tilts of 44
    and -44 degrees (one outline) lie together; NaN where unknown. Two tableaux turned by t
    and -t (their boxes alike, ``folded_turns``) lie apart here; a quarter turn apart they lie
    together here and apart in their boxes.

    >>> tilt_vectors(np.array([0.0, 44.0, -44.0, 22.5, np.nan])).round(2).tolist()
    [[1.0, 0.0], [-1.0, 0.07], [-1.0, -0.07], [0.0, 1.0], [nan, nan]]
    """
    quadrupled = np.radians(4 * np.asarray(tilts, np.float64))
    return np.stack([np.cos(quadrupled), np.sin(quadrupled)], 1)


def _interval_costs(order: np.ndarray, gaps: np.ndarray, folded: np.ndarray, vectors: np.ndarray,
                    axes: np.ndarray, tilted: np.ndarray | None = None) -> np.ndarray:
    """``cost[a, n]``: how unlike one tableau the ``n`` cards from ``order[a]`` on (round the
    circle) are: the gaps that join them (each card's to the nearest card before it), how
    much their folded turns, their columns' directions, their rows' axes and their outlines'
    tilts (``tilted``: ``tilt_vectors``, where read) disagree, and a seat of one card."""
    m = len(order)
    doubled = np.concatenate([order, order])
    members = np.stack([doubled[a:a + m] for a in range(m)])
    # each card joins the run by its gap to the nearest card before it: a run of two
    # tableaux apart pays the gap between them
    joins = np.zeros((m, m + 1))
    cost = np.full((m, m + 1), np.inf)
    turn = folded[doubled]
    known = ~np.isnan(turn)

    def prefix(v: np.ndarray) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum(v)])

    t_n, t_1, t_2 = prefix(known), prefix(np.where(known, turn, 0)), prefix(np.where(known, turn, 0) ** 2)
    column_spread, row_spread = _run_spreads(vectors[doubled]), _run_spreads(axes[doubled])
    tilt_spread = _run_spreads(np.full((len(doubled), 2), np.nan) if tilted is None else tilted[doubled])
    starts = np.arange(m)
    for n in range(1, m + 1):
        new = members[:, n - 1]
        joins[:, n] = joins[:, n - 1]
        if n > 1:
            joins[:, n] += np.minimum(gaps[members[:, :n - 1], new[:, None]].min(1), GAP_CAP)
        ends = starts + n
        count = t_n[ends] - t_n[starts]
        total = t_1[ends] - t_1[starts]
        spread = (t_2[ends] - t_2[starts]) - total ** 2 / np.maximum(count, 1)
        cost[:, n] = (joins[:, n] + TURN_WEIGHT * spread / 900 + COLUMN_WEIGHT * column_spread(starts, ends)
                      + LONE_CARD * (n == 1) + AXIS_WEIGHT * row_spread(starts, ends)
                      + TILT_WEIGHT * tilt_spread(starts, ends))
    return cost


def _unit_spread(vectors: np.ndarray) -> float:
    """How much unit vectors ``(N, 2)`` disagree, over those known (NaN: unknown): N less their
    sum's squared length over N; 0 when all alike.

    >>> _unit_spread(np.array([[1.0, 0.0], [1.0, 0.0], [np.nan, np.nan]])), _unit_spread(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    (0.0, 2.0)
    """
    known = vectors[~np.isnan(vectors[:, 0])]
    return len(known) - float(np.linalg.norm(known.sum(0))) ** 2 / len(known) if len(known) else 0.0


def _run_spreads(vectors: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``spread(starts, ends)``: :func:`_unit_spread` of each run ``vectors[start:end]`` at once,
    from prefix sums (``_interval_costs`` weighs every run round the table)."""
    known = ~np.isnan(vectors[:, 0])
    count, x, y = (np.concatenate([[0.0], np.cumsum(v)])
                   for v in (known, np.where(known, vectors[:, 0], 0), np.where(known, vectors[:, 1], 0)))

    def spread(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        n = count[ends] - count[starts]
        return np.asarray(n - np.hypot(x[ends] - x[starts], y[ends] - y[starts]) ** 2 / np.maximum(n, 1))

    return spread


def foreshortening(xyxy: np.ndarray) -> float:
    """How much a tilted phone squashes the table top's depth in the photo (1: looked at
    straight down): whole cards' boxes measure at most ``CARD_ASPECT`` times as tall as
    wide (a card standing up in the photo) and at least ``1 / CARD_ASPECT`` (lying
    sideways), both squashed alike, so where the photo shows both their geometric middle is
    the squash. 1 where it does not.

    >>> round(foreshortening(np.array([[0, 0, 100, 117], [0, 0, 156, 75]] * 2)), 2)
    0.75
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    ratio = (xyxy[:, 3] - xyxy[:, 1]) / np.maximum(xyxy[:, 2] - xyxy[:, 0], 1e-6)
    squash = _squash_of(ratio[~strips(xyxy)])
    return 1.0 if squash is None else squash


def _squash_of(ratio: np.ndarray) -> float | None:
    """``foreshortening`` from whole cards' aspects (height over width, squashed alike);
    None where they do not show cards both standing and lying."""
    if len(ratio) < 4:
        return None
    low, high = np.percentile(ratio, [10, 90])
    if high / low < BOTH_WAYS:
        return None
    return float(np.clip(math.sqrt(high * low), 0.5, 1.0))


@dataclass(frozen=True)
class TableTop:
    """How the photo shows the flat table top. A phone tilted forward over a table (a pinhole
    camera, little roll) shows it ever smaller and flatter towards the top of the photo:
    at a row ``y`` both the table's scale across and its squash in depth are
    ``(y - horizon) / (row - horizon)`` times those at ``row`` (the squash there:
    ``squash``), falling linearly to nothing at the horizon's row, above the photo.
    ``horizon`` -inf: one squash throughout (a phone held far off, or too few cards to
    tell). ``middle``: the column the camera looks along, about which upright edges lean."""

    squash: float = 1.0
    row: float = 0.0
    horizon: float = -math.inf
    middle: float = 0.0

    def scale(self, y: np.ndarray) -> np.ndarray:
        """The table's scale at rows ``y``, relative to ``row``."""
        y = np.asarray(y, np.float64)
        if not math.isfinite(self.horizon):
            return np.ones_like(y)
        return (y - self.horizon) / (self.row - self.horizon)

    def flat(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes on the table top as if seen from straight above, at the scale of ``row``:
        centres mapped exactly, sizes by the scale and squash where each box lies.

        >>> TableTop(0.5, 100.0).flat(np.array([[0, 100, 10, 110]])).tolist()
        [[0.0, 100.0, 10.0, 120.0]]
        """
        xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
        across, down = self.place((xyxy[:, :2] + xyxy[:, 2:]) / 2).T
        k = self.scale((xyxy[:, 1] + xyxy[:, 3]) / 2)
        half_w = (xyxy[:, 2] - xyxy[:, 0]) / k / 2
        half_h = (xyxy[:, 3] - xyxy[:, 1]) / (k * k * self.squash) / 2
        return np.stack([across - half_w, down - half_h, across + half_w, down + half_h], 1)

    def place(self, points: np.ndarray) -> np.ndarray:
        """Points of the photo on the table top (``flat``'s frame)."""
        x, y = np.asarray(points, np.float64).reshape(-1, 2).T
        if not math.isfinite(self.horizon):
            return np.stack([x, self.row + (y - self.row) / self.squash], 1)
        depth = self.row - self.horizon
        return np.stack([self.middle + (x - self.middle) / self.scale(y),
                         self.row + depth / self.squash * (1 - depth / (y - self.horizon))], 1)

    def photo_turn(self, turn: float, at: np.ndarray) -> float:
        """A turn on the table top (``angle_towards``'s degrees) as the photo shows it at the
        point ``at``: squashed in depth, and leaning with the upright edges there."""
        a = math.radians(turn)
        across, down = -math.sin(a), math.cos(a)
        squash = self.squash * float(self.scale(at[1]))
        lean = (at[0] - self.middle) / (at[1] - self.horizon) if math.isfinite(self.horizon) else 0.0
        return angle_towards(np.array([across + lean * squash * down, squash * down]))

    def table_tilts(self, tilts: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Cards' tilts read in the photo (``vision.tilts.card_tilts``: degrees modulo 90, the
        photo's own frame) at ``points``, as they lie on the table top: the tilt there whose
        two edges, squashed and leaning as the photo shows them at that point, the photo's
        outline reading would give. NaN stays NaN.

        >>> top = TableTop(0.8, 100.0, 0.0, 0.0)  # the horizon at row 0, the camera looking along x = 0
        >>> top.table_tilts(np.array([15.0, 0.0, np.nan]), np.array([[20.0, 100.0], [0.0, 100.0], [0.0, 50.0]])).round().tolist()
        [20.0, 0.0, nan]
        """
        tilts = np.asarray(tilts, np.float64)
        points = np.asarray(points, np.float64).reshape(-1, 2)
        squash = self.squash * self.scale(points[:, 1])
        lean = ((points[:, 0] - self.middle) / (points[:, 1] - self.horizon) if math.isfinite(self.horizon)
                else np.zeros(len(points)))
        candidates = np.radians(np.arange(-45.0, 45.0, 1.0))
        shown = np.zeros((len(points), len(candidates), 2))
        for edge in (candidates, candidates + math.pi / 2):
            # a table-top direction (across, down) shows as (across + lean * squash * down, squash * down)
            angle = np.arctan2(squash[:, None] * np.sin(edge)[None, :],
                               np.cos(edge)[None, :] + (lean * squash)[:, None] * np.sin(edge)[None, :])
            shown += np.stack([np.cos(4 * angle), np.sin(4 * angle)], 2)
        read = np.radians(4 * tilts)
        fit = shown[:, :, 0] * np.cos(read)[:, None] + shown[:, :, 1] * np.sin(read)[:, None]
        on_table = np.degrees(candidates[np.argmax(np.nan_to_num(fit, nan=-9.0), 1)])
        return np.where(np.isnan(tilts), np.nan, on_table)


def table_top(xyxy: np.ndarray) -> TableTop:
    """The ``TableTop`` the cards' boxes show. Whole cards are all one size on the table, and
    the longer side of a card's box, its height unsquashed, measures 1.56 to 1.81 card
    widths at any turn: of the horizons above the cards (and none), the one that leaves
    those sizes, taken back to the middle row, most alike, and with it the squash there
    (``_aspect_squash``), each card's aspect taken back to that row. A horizon must make the
    sizes more alike than one squash throughout does (``PERSPECTIVE_GAIN``,
    ``PERSPECTIVE_FLOOR``); it is not looked for with fewer than ``PERSPECTIVE_CARDS`` whole
    cards, nor where the squash is unknown (cards all turned one way, and no column to say
    which): a horizon would only stand in for it. The perspective alone makes the aspects
    of cards all standing unalike (the far ones flatter), so whether they show cards both
    standing and lying is asked of the aspects taken back to the middle row.

    >>> top = table_top(np.array([[0, 85, 57, 115], [400, 90, 489, 110], [200, 203, 300, 297],
    ...                           [600, 220, 756, 280], [400, 304, 543, 496], [800, 339, 1023, 461]]))
    >>> bool(abs(top.horizon + 100) < 15), round(float(top.squash * top.scale(250)), 2)
    (True, 0.6)
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    is_strip = strips(xyxy)
    whole = ~is_strip
    w, h = (xyxy[:, 2] - xyxy[:, 0])[whole], (xyxy[:, 3] - xyxy[:, 1])[whole]
    standing = _columns_stand(xyxy, is_strip)
    squash = _aspect_squash(h / np.maximum(w, 1e-6), standing)
    uniform = TableTop(1.0 if squash is None else squash,
                       float(xyxy[:, 1].min() + xyxy[:, 3].max()) / 2 if len(xyxy) else 0.0,
                       -math.inf, float(xyxy[:, 0].min() + xyxy[:, 2].max()) / 2 if len(xyxy) else 0.0)
    if whole.sum() < PERSPECTIVE_CARDS or squash is None:
        return uniform
    y = ((xyxy[:, 1] + xyxy[:, 3]) / 2)[whole]
    highest, depth = float(xyxy[:, 1].min()), float(xyxy[:, 3].max() - xyxy[:, 1].min())

    def unevenness(top: TableTop) -> float:
        k = top.scale(y)
        # each card's width, its turn undone (``folded_turns``): a box of a W x H card turned
        # by t measures A w - h = (A^2 - 1) W sin t and A h - w = (A^2 - 1) W cos t
        upright = h / (top.squash * k)
        width = np.hypot(np.maximum(CARD_ASPECT * w - upright, 0), np.maximum(CARD_ASPECT * upright - w, 0))
        return float(np.var(np.log(np.maximum(width, 1e-6) / k)))

    # a horizon must explain enough of how unalike the sizes are: not a card's wobble
    chosen, least = uniform, unevenness(uniform)
    best = min(least * PERSPECTIVE_GAIN, least - PERSPECTIVE_FLOOR)
    for above in np.geomspace(0.05, 20, 40):
        top = replace(uniform, horizon=highest - float(above) * depth)
        top = replace(top, squash=_row_squash(h / w / top.scale(y), standing))
        spread = unevenness(top)
        if spread < best:
            best, chosen = spread, top
    return chosen


#: A column's step from strip to card within this many degrees of the photo's up-down axis
#: runs up or down the table top (a squash only turns a step away from that axis, and a
#: tilted phone leans upright edges off the photo's middle by up to about this much); the
#: same of its left-right axis (``_columns_stand``)
UPRIGHT_STEP = 30.0


def _columns_stand(xyxy: np.ndarray, is_strip: np.ndarray) -> bool | None:
    """Whether the cards' columns (``column_pairs``) run up and down the photo (True: the
    cards stand, their players at the bottom and top) or across it (False: the cards lie
    sideways), where ``AXIS_AGREEMENT`` of at least two columns agree; None where they do
    not say. A squash leaves a step up or down the photo up or down it, so this holds
    however tilted the phone, as the boxes' aspects cannot tell.

    >>> boxes = np.array([[0, 0, 100, 35], [0, 30, 100, 186], [120, 0, 220, 35], [120, 30, 220, 186]])
    >>> _columns_stand(boxes, strips(boxes)), _columns_stand(boxes[:, [1, 0, 3, 2]], strips(boxes[:, [1, 0, 3, 2]]))
    (True, False)
    """
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    steps = np.array([centres[card] - centres[strip] for strip, card in column_pairs(xyxy, is_strip)]).reshape(-1, 2)
    if len(steps) < 2:
        return None
    off_upright = np.degrees(np.arctan2(np.abs(steps[:, 0]), np.abs(steps[:, 1])))
    for stand, share in ((True, np.mean(off_upright <= UPRIGHT_STEP)), (False, np.mean(off_upright >= 90 - UPRIGHT_STEP))):
        if share >= AXIS_AGREEMENT:
            return stand
    return None


def _aspect_squash(ratio: np.ndarray, standing: bool | None) -> float | None:
    """The squash whole cards' aspects (height over width, squashed alike) show: where they
    show cards both standing and lying, the geometric middle of the two (``_squash_of``);
    where they show cards all one way, the squash that makes them ``CARD_ASPECT`` times as
    tall as wide (standing) or as wide as tall (lying), as the cards' columns say
    (``standing``: ``_columns_stand``). None where neither tells (too few cards, or no
    column to say which way they all lie).

    >>> ratio = np.array([0.9, 0.92, 0.88, 0.91])  # cards standing, seen at a squash of 0.58
    >>> round(_aspect_squash(ratio, True), 2), _aspect_squash(ratio, None)
    (0.58, None)
    """
    both = _squash_of(ratio)
    if both is not None or len(ratio) < 4 or standing is None:
        return both
    return _one_way_squash(ratio, standing)


def _one_way_squash(ratio: np.ndarray, standing: bool) -> float:
    """The squash that makes whole cards' aspects, all one way, ``CARD_ASPECT`` times as tall
    as wide (``standing``) or as wide as tall."""
    middle = float(np.median(ratio))
    return float(np.clip(middle / CARD_ASPECT if standing else middle * CARD_ASPECT, 0.3, 1.0))


def _row_squash(ratio: np.ndarray, standing: bool | None) -> float:
    """``table_top``'s squash at its middle row for a horizon, from whole cards' aspects taken
    back to that row (``ratio``): the geometric middle of the cards standing and lying, or,
    where they show cards all one way (``BOTH_WAYS``) and their columns say which
    (``standing``), ``_one_way_squash``."""
    low, high = np.percentile(ratio, [10, 90])
    if high / low < BOTH_WAYS and standing is not None:
        return _one_way_squash(ratio, standing)
    return float(np.clip(math.sqrt(high * low), 0.3, 1.1))


def tableau_segments(xyxy: np.ndarray, k: int, top: TableTop | None = None,
                     tilts: np.ndarray | None = None) -> list[np.ndarray]:
    """At most ``k`` groups of cards, each a run of cards round the table's middle: seen from
    the middle of the cards, every tableau lies in its own sector, whatever the table's shape
    and however the seats are spaced. The runs are those that fit tableaux best
    (``_interval_costs``): near neighbours, cards turned alike, columns running one way.
    Fewer than ``k`` where a further run would only cut a tableau in two (it must save
    ``SEAT_SAVING``): a player whose cards are out of sight, or missed, leaves a seat empty
    rather than a neighbour's tableau halved. Where two tableaux share a sector (side by
    side along a far edge, their cards at the same angles from the middle), the runs are
    cut again by what the cards say (``_recut``): one box more or less moves the angles,
    and must not join two tableaux while cutting a third. Where the cards lie in as many
    islands, with the bare table between them (``_islands``), as there are tableaux, each
    island is one: no run crosses a table's depth between two players. ``top``: the photo's
    ``table_top`` (measured when left out); ``tilts``: each card's tilt read from its
    outline (``vision.tilts.card_tilts``), which gives the turns their signs."""
    n = len(xyxy)
    if k >= n:
        return [np.array([i]) for i in range(n)]
    if top is None:
        top = table_top(xyxy)
    if tilts is not None:
        tilts = top.table_tilts(tilts, (xyxy[:, :2] + xyxy[:, 2:]) / 2)
    # on the table top as if seen from straight above
    xyxy = top.flat(xyxy)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    offset = centres - centres.mean(0)
    order = np.argsort(np.arctan2(offset[:, 1], offset[:, 0]), kind="stable")
    gaps = _relative_gaps(xyxy)
    # islands of cards with the bare table between them (``_islands``): as many as there are
    # tableaux, each is one player's
    islands = _islands(gaps)
    if len(islands) == k:
        return islands
    is_strip = strips(xyxy)
    evidence: tuple[np.ndarray, ...] = _turn_evidence(xyxy, is_strip, gaps)
    if tilts is not None and TILT_WEIGHT:
        evidence = (*evidence, tilt_vectors(tilts))
    cost = _interval_costs(order, gaps, *evidence)
    m = n
    # best[s, p]: the least cost of cutting the p cards from order[s] on into j runs
    rows = np.arange(m)[:, None]
    best = np.full((m, m + 1), np.inf)
    best[:, 0] = 0.0
    cuts, totals = [], []
    for _ in range(k):
        new = np.full((m, m + 1), np.inf)
        arg = np.zeros((m, m + 1), int)
        for p in range(1, m + 1):
            q = np.arange(p)
            total = best[:, :p] + cost[(rows + q[None, :]) % m, p - q[None, :]]
            arg[:, p] = total.argmin(1)
            new[:, p] = total[np.arange(m), arg[:, p]]
        best = new
        cuts.append(arg)
        # j runs leave k - j seats empty
        # each run must save SEAT_SAVING: one that saves less only cuts a tableau in two
        totals.append((best[:, m].min() + SEAT_SAVING * len(cuts), int(best[:, m].argmin())))
    runs = int(np.argmin([t for t, _ in totals]))
    s = totals[runs][1]
    groups, end = [], m
    for arg in reversed(cuts[:runs + 1]):
        start = int(arg[s, end])
        groups.append(order[(s + np.arange(start, end)) % m])
        end = start
    groups = _refine(groups[::-1], xyxy, is_strip, gaps, *evidence)
    # runs round the table may take two tableaux as one and cut another (``_recut``)
    recut = _recut(groups, k, centres, gaps, evidence)
    groups = groups if recut is None else _refine(recut, xyxy, is_strip, gaps, *evidence)
    # two neighbours parted where no run could part them (``_resplit``)
    resplit = _resplit(groups, centres, gaps, evidence)
    groups = groups if resplit is None else _refine(resplit, xyxy, is_strip, gaps, *evidence)
    # a piece a table's width from the rest of its group, beside another tableau (``_far_pieces``)
    return _far_pieces(groups, gaps)


def _islands(gaps: np.ndarray) -> list[np.ndarray]:
    """The cards (``gaps``: ``_relative_gaps`` on the table top) in islands: cards joined by
    gaps under ``ISLAND_APART`` card sizes, directly or through others. A player lays their
    tableau within reach before them, so the bare table between two players who sit apart
    (across the table, at its two ends) parts their tableaux into islands of their own,
    however the cards' boxes and turns are misjudged; two neighbours' tableaux may touch,
    and make one island.

    >>> gaps = np.full((5, 5), 9.0)
    >>> for i, j in ((0, 1), (2, 3), (3, 4)):
    ...     gaps[i, j] = gaps[j, i] = 0.2
    >>> [g.tolist() for g in _islands(gaps)]
    [[0, 1], [2, 3, 4]]
    """
    return _pieces(np.arange(len(gaps)), gaps, ISLAND_APART)


def _far_pieces(groups: list[np.ndarray], gaps: np.ndarray) -> list[np.ndarray]:
    """``groups`` with each piece that lies more than ``FAR_APART`` card sizes from the rest
    of its group, and nearer another group, moved to that group. The runs' costs count a gap
    at most ``GAP_CAP``, so that a dessert laid apart stays with its tableau; a few boxes
    whose turns are misjudged can then outweigh the bare table between two players and give
    the end of a near tableau to the far one. No tableau spreads over a table's width.

    Cards 0 and 1 lie together, card 2 nine card sizes from them and beside cards 3 and 4:

    >>> gaps = np.full((5, 5), 9.0)
    >>> for i, j in ((0, 1), (2, 3), (3, 4)):
    ...     gaps[i, j] = gaps[j, i] = 0.2
    >>> [g.tolist() for g in _far_pieces([np.array([0, 1, 2]), np.array([3, 4])], gaps)]
    [[0, 1], [2, 3, 4]]
    """
    groups = [g.copy() for g in groups]
    for a in range(len(groups)):
        pieces = _pieces(groups[a], gaps, FAR_APART)
        if len(pieces) < 2:
            continue
        keep = max(pieces, key=len)
        for piece in pieces:
            if piece is keep:
                continue
            others = [b for b in range(len(groups)) if b != a and len(groups[b])]
            if not others:
                continue
            near = min(others, key=lambda b: float(gaps[np.ix_(piece, groups[b])].min()))
            if gaps[np.ix_(piece, groups[near])].min() < gaps[np.ix_(piece, keep)].min():
                groups[near] = np.sort(np.concatenate([groups[near], piece]))
                groups[a] = np.setdiff1d(groups[a], piece)
    return groups


def _pieces(ids: np.ndarray, gaps: np.ndarray, within: float) -> list[np.ndarray]:
    """``ids`` in pieces: cards joined by gaps under ``within``, directly or through others."""
    left, pieces = list(ids.tolist()), []
    while left:
        piece, frontier = [left.pop(0)], 0
        while frontier < len(piece):
            near = [j for j in left if gaps[piece[frontier], j] < within]
            piece += near
            left = [j for j in left if j not in near]
            frontier += 1
        pieces.append(np.array(sorted(piece)))
    return pieces


def _resplit(groups: list[np.ndarray], centres: np.ndarray, gaps: np.ndarray,
             evidence: tuple[np.ndarray, ...]) -> list[np.ndarray] | None:
    """``groups`` with two of them parted again where their cards, taken together and cut in
    two along the line they lie along (``_halves``), cost ``SEAT_SAVING`` less
    (``_group_cost``); None where no two do. The runs round the table and the moves of one
    column at a time (``_refine``) leave two tableaux side by side cut at the wrong place when
    the right cut moves several columns at once."""
    groups = [g for g in groups if len(g)]
    costs = [_group_cost(g, gaps, *evidence) for g in groups]
    changed = False
    for _ in range(2 * len(groups)):
        # a new cut must save what a seat more must (``SEAT_SAVING``): the weighing is coarse,
        # and a cut along one line seldom parts two tableaux better by less
        best, move = SEAT_SAVING, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                # only neighbours: boxes of the two within a card or so of each other
                if gaps[np.ix_(groups[a], groups[b])].min() > NEIGHBOUR_GAP:
                    continue
                cost, halves = _halves(np.concatenate([groups[a], groups[b]]), centres, gaps, evidence)
                if len(halves) == 2 and costs[a] + costs[b] - cost > best:
                    best, move = costs[a] + costs[b] - cost, (a, b, halves)
        if move is None:
            break
        a, b, halves = move
        groups[a], groups[b] = halves
        costs[a], costs[b] = (_group_cost(h, gaps, *evidence) for h in halves)
        changed = True
    return groups if changed else None


def _halves(ids: np.ndarray, centres: np.ndarray, gaps: np.ndarray,
            evidence: tuple[np.ndarray, ...]) -> tuple[float, list[np.ndarray]]:
    """The cheapest cut of one group of cards in two (``_group_cost``), along the line its
    cards lie along most (two tableaux side by side lie along the table's edge), and what
    the two halves cost."""
    if len(ids) < 2:
        return math.inf, [ids]
    offset = centres[ids] - centres[ids].mean(0)
    _, _, axes = np.linalg.svd(offset, full_matrices=False)
    ranked = ids[np.argsort(offset @ axes[0], kind="stable")]
    best, halves = math.inf, [ids]
    for cut in range(1, len(ranked)):
        cost = _group_cost(ranked[:cut], gaps, *evidence) + _group_cost(ranked[cut:], gaps, *evidence)
        if cost < best:
            best, halves = cost, [ranked[:cut], ranked[cut:]]
    return best, halves


def _recut(groups: list[np.ndarray], k: int, centres: np.ndarray, gaps: np.ndarray,
           evidence: tuple[np.ndarray, ...]) -> list[np.ndarray] | None:
    """``groups`` with a group cut in two (``_halves``), and two neighbouring groups joined
    to keep the count or ``SEAT_SAVING`` paid for a seat more (at most ``k``), while that
    costs less as ``tableau_segments`` weighs it (``_group_cost``); None where nothing does.
    Runs round the table cannot part two tableaux side by side along a far edge, whose
    cards lie at the same angles from the table's middle: one run takes both, and to keep
    the count another run cuts a tableau in two, or a seat is left empty. Two groups are
    never joined alone: how many seats the cards fill, the runs round the table weighed."""
    groups = [g for g in groups if len(g)]
    costs = [_group_cost(g, gaps, *evidence) for g in groups]
    halves: list[tuple[float, list[np.ndarray]] | None] = [None] * len(groups)
    middle = centres.mean(0)
    changed = False
    for _ in range(2 * k):
        around = np.argsort([angle_towards(centres[g].mean(0) - middle) for g in groups])
        if len(groups) > 2:
            neighbours = list(zip(around, np.roll(around, -1), strict=True))
        else:
            neighbours = [(0, 1)][:len(groups) - 1]
        # what joining two neighbours adds, and a seat more where one is free
        joins: dict[tuple[int, ...], float] = {
            (int(a), int(b)): _group_cost(np.concatenate([groups[a], groups[b]]), gaps, *evidence) - costs[a] - costs[b]
            for a, b in neighbours}
        if len(groups) < k:
            joins[()] = SEAT_SAVING
        cheapest = min(joins.values(), default=math.inf)
        saves = np.full(len(groups), -math.inf)
        for c in range(len(groups)):
            # a cut saves at most what the group costs: most are not worth weighing
            if costs[c] - cheapest > 1e-6:
                cut = halves[c] or _halves(groups[c], centres, gaps, evidence)
                halves[c] = cut
                saves[c] = costs[c] - cut[0]
        best, move = 1e-6, None
        for pair, joined in joins.items():
            for c in set(range(len(groups))) - set(pair):
                if saves[c] - joined > best:
                    best, move = saves[c] - joined, (pair, c)
        if move is None:
            break
        pair, c = move
        chosen = halves[c]
        assert chosen is not None  # weighed above: only a weighed cut saves anything
        new = ([np.concatenate([groups[a] for a in pair])] if pair else []) + chosen[1]
        keep = [i for i in range(len(groups)) if i not in pair and i != c]
        groups = [groups[i] for i in keep] + new
        costs = [costs[i] for i in keep] + [_group_cost(g, gaps, *evidence) for g in new]
        halves = [halves[i] for i in keep] + [None] * len(new)
        changed = True
    return groups if changed else None


def _spanning_cost(gaps: np.ndarray) -> float:
    """The total length of the shortest tree joining boxes with these gaps (Prim)."""
    n = len(gaps)
    if n < 2:
        return 0.0
    joined = np.zeros(n, bool)
    joined[0] = True
    reach = np.minimum(gaps[0], GAP_CAP)
    total = 0.0
    for _ in range(n - 1):
        i = int(np.where(joined, np.inf, reach).argmin())
        total += reach[i]
        joined[i] = True
        reach = np.minimum(reach, np.minimum(gaps[i], GAP_CAP))
    return float(total)


def _group_cost(ids: np.ndarray, gaps: np.ndarray, folded: np.ndarray, vectors: np.ndarray,
                axes: np.ndarray, tilted: np.ndarray | None = None) -> float:
    """``_interval_costs`` for any set of cards: the shortest tree joining them, and how much
    their turns, their columns' directions, their rows' axes and their outlines' tilts
    disagree."""
    if not len(ids):
        return 0.0
    turn = folded[ids]
    turn = turn[~np.isnan(turn)]
    spread = float(((turn - turn.mean()) ** 2).sum()) if len(turn) else 0.0
    tilt_spread = 0.0 if tilted is None else _unit_spread(tilted[ids])
    return (_spanning_cost(gaps[np.ix_(ids, ids)]) + TURN_WEIGHT * spread / 900 + COLUMN_WEIGHT * _unit_spread(vectors[ids])
            + LONE_CARD * (len(ids) == 1) + AXIS_WEIGHT * _unit_spread(axes[ids]) + TILT_WEIGHT * tilt_spread)


def _refine(groups: list[np.ndarray], xyxy: np.ndarray, is_strip: np.ndarray, gaps: np.ndarray,
            folded: np.ndarray, vectors: np.ndarray, axes: np.ndarray,
            tilted: np.ndarray | None = None) -> list[np.ndarray]:
    """The runs with a column (a card and the strips it covers), or a lone card, moved to the
    neighbouring group it fits better (``_group_cost``): where two tableaux reach into each
    other's sector, a run round the table cannot part them."""
    n = len(xyxy)
    units = list(range(n))

    def root(a: int) -> int:
        while units[a] != a:
            a = units[a]
        return a

    for strip, card in column_pairs(xyxy, is_strip):
        units[root(strip)] = root(card)
    roots = np.array([root(a) for a in range(n)])
    label = np.zeros(n, int)
    for g, ids in enumerate(groups):
        label[ids] = g
    costs = [_group_cost(np.flatnonzero(label == g), gaps, folded, vectors, axes, tilted) for g in range(len(groups))]
    for _ in range(3):
        moved = False
        for unit in dict.fromkeys(roots.tolist()):
            members = np.flatnonzero(roots == unit)
            here = int(label[members[0]])
            rest = np.setdiff1d(np.flatnonzero(label == here), members)
            # a column the runs cut apart stays as cut; a group is never emptied
            if np.any(label[members] != here) or not len(rest):
                continue
            near = gaps[members].min(0) <= NEIGHBOUR_GAP
            best: int | None = None
            best_gain = 1e-6
            best_costs: tuple[float, float] = (0.0, 0.0)
            cost_rest = _group_cost(rest, gaps, folded, vectors, axes, tilted)
            for other in set(label[near].tolist()) - {here}:
                grown = np.concatenate([np.flatnonzero(label == other), members])
                cost_grown = _group_cost(grown, gaps, folded, vectors, axes, tilted)
                gain = costs[here] + costs[other] - cost_rest - cost_grown
                if gain > best_gain:
                    best, best_gain, best_costs = other, gain, (cost_rest, cost_grown)
            if best is not None:
                label[members] = best
                costs[here], costs[best] = best_costs
                moved = True
        if not moved:
            break
    return [np.flatnonzero(label == g) for g in range(len(groups))]


def clutter(xyxy: np.ndarray, top: TableTop | None = None) -> np.ndarray:
    """Which boxes are no player's cards: a cluster of boxes (each within ``NEIGHBOUR_GAP``
    card sizes of the next) none of which can be a whole card, its box on the table top
    (``top``) longer than any card's at any turn (``SHAPE_SLACK``). Every column ends in a
    whole card, so a real tableau's strips lie against one; a score pad, chopsticks or a
    box's lid on the table, boxed as cards, lie apart and would take a seat of their own
    (two real tableaux merged to make up for it). A box shaped like no card beside a
    tableau (a card boxed with the strip below it) stays with it."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    n = len(xyxy)
    if not n:
        return np.zeros(0, bool)
    flat = (table_top(xyxy) if top is None else top).flat(xyxy)
    w, h = flat[:, 2] - flat[:, 0], flat[:, 3] - flat[:, 1]
    longest = CARD_ASPECT * SHAPE_SLACK
    shaped = (h <= longest * w) & (w <= longest * h)
    linked = _relative_gaps(flat) <= NEIGHBOUR_GAP
    # clusters: the boxes linked to each, grown till nothing more joins
    reached = np.eye(n, dtype=bool) | linked
    for _ in range(n):
        grown = (reached.astype(np.int32) @ reached.astype(np.int32)) > 0
        if np.array_equal(grown, reached):
            break
        reached = grown
    return np.asarray(~(reached & shaped[None, :]).any(1))


def split_by_position(detections: Detections, n_seats: int) -> list[Detections]:
    """``n_seats`` tableaux (``tableau_segments``: runs of cards round the table that lie
    close and are turned alike), each turned by its own cards (``seat_angle``), not by an
    assumed even spacing round the table: two players on one side of a rectangular table
    face the same way. Seats are numbered by their direction from the table's centre:
    seat 0 nearest the bottom, then clockwise; a seat left empty (fewer tableaux than
    players) counts where there is the most room for a player between the tableaux
    (``_room_between``, ``_empty_directions``)."""
    if n_seats < 1:
        raise ValueError(f"the number of seats must be at least 1, not {n_seats}")
    if not len(detections):
        return [_tag(Detections.empty(), s, 0.0) for s in range(n_seats)]
    if n_seats == 1:
        return [_tag(detections, 0, seat_angle(detections.xyxy, None))]
    top = table_top(detections.xyxy)
    # boxes that are no player's cards take no seat of their own (``clutter``): split the
    # rest, then each goes with the tableau nearest it
    stray = clutter(detections.xyxy, top)
    if stray.all():
        stray[:] = False
    kept = np.flatnonzero(~stray)
    k = min(n_seats, len(kept))
    tilts = detections.data.get(TILT)
    groups = [kept[g] for g in tableau_segments(detections.xyxy[kept], k, top,
                                                None if tilts is None else np.asarray(tilts)[kept])]
    # the table's centre, the seats' directions and turns from the tableaux alone
    centre = table_centre(detections[kept])
    towards = [detections.centres[g].mean(0) - centre for g in groups]
    directions = [angle_towards(t) for t in towards]
    # the seats left empty lie where the table has room for a player: in the widest gaps
    # between neighbouring tableaux round it (``_room_between``), so the seats still count
    # round the table from the bottom
    around = sorted(range(len(groups)), key=lambda g: directions[g])
    axes, is_strip = card_axes(detections.xyxy), strips(detections.xyxy)
    turns = [seat_angle(detections.xyxy[g], towards[i], axes[g], is_strip[g], top) for i, g in enumerate(groups)]
    widths = []
    # gaps between the boxes on the table top, in card sizes: for the room an empty seat
    # takes and the tableau each stray box goes with
    gaps = _relative_gaps(top.flat(detections.xyxy)) if len(groups) < n_seats or stray.any() else None
    if gaps is not None and len(groups) < n_seats:
        for a, g in enumerate(around):
            after = around[(a + 1) % len(around)]
            apart = float(gaps[np.ix_(groups[g], groups[after])].min())
            widths.append(_room_between(directions[g], directions[after], turns[g], turns[after], apart))
    empty = _empty_directions([directions[g] for g in around], widths, n_seats - len(groups))
    places = sorted([(d, g) for g, d in enumerate(directions)] + [(d, None) for d in empty], key=lambda p: p[0])
    start = int(np.argmin([min(d, 360 - d) for d, _ in places]))
    places = places[start:] + places[:start]
    if gaps is not None and stray.any():
        nearest = np.array([int(np.argmin([gaps[i, g].min() for g in groups])) for i in np.flatnonzero(stray)])
        groups = [np.sort(np.concatenate([g, np.flatnonzero(stray)[nearest == j]])) for j, g in enumerate(groups)]
    return [_tag(Detections.empty(), s, 0.0) if g is None else _tag(detections[groups[g]], s, turns[g])
            for s, (_, g) in enumerate(places)]


def _room_between(direction: float, next_direction: float, turn: float, next_turn: float, apart: float) -> float:
    """How much room for a player lies between a tableau and the next one round the table
    (clockwise): how far their players' turns lie apart, in degrees, times one plus the gap
    between their cards (``apart``, in card sizes). Turns, not the tableaux' directions from
    the table's centre: where a whole tableau is missing (out of sight, every card missed)
    the cards' centre moves away from it and the directions of the others with it; their
    turns come from their own cards. Two players on one side of a table turn alike: no room
    between them; and the more table lies between two tableaux, the more room. The turn gap
    is taken the way round the directions say (a turn a little off never makes it go all
    the way round).

    >>> round(_room_between(10, 100, 0, 90, 1.0)), round(_room_between(100, 10 + 360, 90, 0, 1.0))
    (180, 540)
    >>> round(_room_between(10, 40, 20, 10, 2.0))
    0
    """
    around = (next_direction - direction) % 360 or 360.0
    turned = around + (((next_turn - turn) - around + 180) % 360 - 180)
    return max(turned, 0.0) * (1.0 + apart)


def _empty_directions(directions: list[float], widths: list[float], empty: int) -> list[float]:
    """Where round the table ``empty`` seats without cards sit: ``directions`` are those of
    the tableaux seen (from the table's centre, ``angle_towards``'s degrees, in order round
    it), ``widths[g]`` the room from tableau ``g`` to the next (``_room_between``). Each
    empty seat in turn goes into the widest room left, the room's seats spaced evenly."""
    if not empty:
        return []
    if not directions:
        return [360.0 * (s + 0.5) / empty for s in range(empty)]
    counts = [0] * len(directions)
    for _ in range(empty):
        g = int(np.argmax([w / (c + 1) for w, c in zip(widths, counts, strict=True)]))
        counts[g] += 1
    spans = [(directions[(g + 1) % len(directions)] - d) % 360 or 360.0 for g, d in enumerate(directions)]
    return [(d + spans[g] * (j + 1) / (counts[g] + 1)) % 360
            for g, d in enumerate(directions) for j in range(counts[g])]


def _polygon(area: SeatArea) -> tuple[np.ndarray, float | None]:
    angle = None
    shape: object = area
    if isinstance(area, dict):
        angle = area.get("angle")
        shape = area.get("polygon", area.get("rect"))
    try:
        points = np.asarray(shape, np.float32)
    except (TypeError, ValueError) as exc:
        raise SeatAreaError(f"seat area {shape!r} is not a list of numbers") from exc
    if points.shape == (4,):
        x1, y1, x2, y2 = points
        points = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
        raise SeatAreaError(f"seat area {shape!r} needs [x1, y1, x2, y2] or 3+ [x, y] points")
    if points.min() < -0.01 or points.max() > 1.01:
        raise SeatAreaError("seat areas are in normalised image coordinates (0 to 1)")
    return points, angle


def split_by_areas(detections: Detections, seat_areas: Sequence[SeatArea],
                   image_shape: tuple[int, ...]) -> list[Detections]:
    """Cards whose centre lies in each area; cards outside every area are left out. A seat
    is turned as its area says (its ``angle``), else by its own cards as in a split by
    position (``seat_angle``: the way their columns run, their own turn, the side of the
    areas' middle the area lies on); an area without cards faces that side."""
    h, w = image_shape[:2]
    polygons = [_polygon(a) for a in seat_areas]
    centres_all = np.array([p.mean(0) for p, _ in polygons])
    middle = centres_all.mean(0) if len(polygons) > 1 else np.array([0.5, 0.0])
    taken = np.zeros(len(detections), bool)
    top = table_top(detections.xyxy) if len(detections) else TableTop()
    axes, is_strip = card_axes(detections.xyxy), strips(detections.xyxy)
    seats = []
    for s, (points, angle) in enumerate(polygons):
        contour = (points * [w, h]).astype(np.float32).reshape(-1, 1, 2)
        inside = np.array([cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0
                           for x, y in detections.centres], bool).reshape(-1) & ~taken
        taken |= inside
        if angle is None:
            towards = None if len(polygons) == 1 else (points.mean(0) - middle) * [w, h]
            if inside.any():
                angle = seat_angle(detections.xyxy[inside], towards, axes[inside], is_strip[inside], top)
            elif towards is None:
                angle = 0.0
            else:
                angle = round(angle_towards(towards) / 90) * 90 % 360
        seats.append(_tag(detections[inside], s, float(angle)))
    return seats


def split_seats(detections: Detections, n_seats: int | None = None,
                seat_areas: Sequence[SeatArea] | None = None,
                image_shape: tuple[int, ...] | None = None) -> list[Detections]:
    """One ``Detections`` per seat (``data["seat"]``, ``data["seat_angle"]`` set).

    With ``seat_areas`` cards are assigned by area (``image_shape`` needed); otherwise by
    position around the table into ``n_seats`` (1 when left out).
    """
    if seat_areas is not None:
        if image_shape is None:
            raise ValueError("seat areas need the image shape")
        return split_by_areas(detections, seat_areas, image_shape)
    return split_by_position(detections, 1 if n_seats is None else int(n_seats))
