"""Pair the cards a tracker follows with one frame's boxes: pure cost functions and named rules.

:func:`pair` scores every (track, box) pair and assigns them greedily, cards already on the
table first. The score starts as the boxes' overlap (:func:`overlap`, lenient with a strip of
the card) and each rule of :data:`RULES` then says, in that order, where a pair is no match
or a better one than its overlap tells. A later rule sees what the earlier ones made; the
:attr:`Pairing.decided` trace names, for each pair made, the last rule that changed its score
(``"overlap"``: none did).

Cards do not move on their own: they get covered (by a hand, or by the next card of a
column, which shrinks the visible box to a strip). So a box is compared with where a card
lies now, where it lay whole (``full``) and where it rested (``rest``), by overlap *and*
containment, and the same name is preferred.

>>> import numpy as np
>>> from vision.live.tuning import TrackerTuning
>>> cards = Cards(boxes=np.array([[0, 0, 100, 150.]]), full=np.array([[0, 0, 100, 150.]]),
...               rest=np.array([[0, 0, 100, 150.]]), full_area=np.array([15000.]),
...               labels=["eel"], unseen=np.array([0.]), just_seen=np.array([True]),
...               arriving=np.array([False]), lain=np.array([False]), glimpse=np.array([False]),
...               confirmed=np.array([True]))
>>> result = pair(cards, np.array([[1, 1, 101, 151.]]), ["eel"], TrackerTuning())
>>> result.pairs, result.decided
([(0, 0)], {(0, 0): 'whole_where_it_is_first'})
>>> pair(cards, np.array([[0, 60, 100, 210.]]), ["eel"], TrackerTuning()).pairs  # the next eel laid over it
[]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from scorer.cards import CARD_BACK
from vision.boxes import areas as box_areas
from vision.boxes import coverage_matrix as box_coverage
from vision.boxes import greedy_matching
from vision.boxes import overlaps as box_overlaps
from vision.live.tuning import TrackerTuning


@dataclass(frozen=True)
class Cards:
    """The tracked cards as matching sees them, one row per card: where each lies now
    (``boxes``), where it last lay whole (``full``), where it last rested whole two frames
    running (``rest``), its largest area shown (``full_area``), its name, how long it has been
    out of sight (``unseen``, seconds), whether it was seen in the frame before (``just_seen``),
    whether it came within ``arriving_s`` and was seen in the frame before (``arriving``),
    whether it has lain whole ``lain_s`` with a hand over it just now (``lain``), whether it
    was only glimpsed (``glimpse``) and whether it is confirmed (``confirmed``)."""

    boxes: np.ndarray
    full: np.ndarray
    rest: np.ndarray
    full_area: np.ndarray
    labels: Sequence[str]
    unseen: np.ndarray
    just_seen: np.ndarray
    arriving: np.ndarray
    lain: np.ndarray
    glimpse: np.ndarray
    confirmed: np.ndarray


@dataclass(frozen=True)
class Frame:
    """Every (card, box) measure the rules read, computed once: rows are cards, columns boxes."""

    cards: Cards
    boxes: np.ndarray
    names: Sequence[str]  # the boxes' names
    tuning: TrackerTuning
    iou: np.ndarray  # overlap of the card's box now and the box
    inside: np.ndarray  # how much of the smaller of the two lies in the larger
    same: np.ndarray  # the same name
    full: np.ndarray  # (card, 1): the card's largest area
    areas_t: np.ndarray  # (card, 1): the area of the card's box now
    areas_d: np.ndarray  # (1, box): the boxes' areas
    where_it_lay: np.ndarray  # overlap of where the card lay whole and the box
    on_where_it_lay: np.ndarray  # how much of the box lies where the card lay whole
    on_where_it_rests: np.ndarray  # how much of the box lies where the card rested
    lain: np.ndarray  # (card, 1): see ``Cards.lain``
    larger: np.ndarray  # the box is larger than the card ever showed, past a still card's jitter
    grown: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))  # see ``grown_by_next_card``

    def whole(self, box_share: float | None = None) -> np.ndarray:
        """(1-or-card, box): boxes the size of the card seen whole (``full_share`` of its largest)."""
        return self.areas_d >= (self.tuning.full_share if box_share is None else box_share) * self.full


def measure(cards: Cards, boxes: np.ndarray, names: Sequence[str], tuning: TrackerTuning) -> Frame:
    """The measures of every (card, box) pair (see :class:`Frame`)."""
    iou, inside = box_overlaps(cards.boxes, boxes)
    full = cards.full_area[:, None]
    areas_d = box_areas(boxes)[None, :]
    frame = Frame(
        cards=cards, boxes=boxes, names=names, tuning=tuning, iou=iou, inside=inside,
        same=np.array([[c == lab for lab in names] for c in cards.labels], bool).reshape(iou.shape),
        full=full, areas_t=box_areas(cards.boxes)[:, None], areas_d=areas_d,
        where_it_lay=box_overlaps(cards.full, boxes)[0],
        on_where_it_lay=box_coverage(boxes, cards.full).T,
        on_where_it_rests=box_coverage(boxes, cards.rest).T,
        lain=cards.lain[:, None],
        larger=areas_d > (1.0 + tuning.grown_share / 2) * full,
    )
    return replace(frame, grown=grown_mask(frame))


def overlap(f: Frame) -> np.ndarray:
    """The starting score of a same-named pair: the overlap, or, for a box that shrank to a
    strip of the card (covered, a corner under a hand) or grew back, how much of the smaller
    lies in the larger (a little less, so a box in place still wins)."""
    t = f.tuning
    return np.where(f.inside >= t.contain_min, np.maximum(f.iou, f.inside - 0.1), f.iou)


def not_another_card_laid_over(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card lying in full view keeps its box to a few pixels: a whole box that only partly
    overlaps it is the next card of its column, laid on it (its strip may go unseen). And a
    whole box where only a strip of this card showed is this card grown back only where it
    lay whole: elsewhere it is the next card of its column, laid over it."""
    t = f.tuning
    both_full = (f.areas_t >= t.full_share * f.full) & f.whole()
    kept = (f.iou >= t.still_iou) | (f.inside >= t.contain_min)
    lay_area = box_areas(f.cards.full)[:, None]
    elsewhere = f.whole() & (f.areas_t < t.whole_share * lay_area) & (f.where_it_lay < t.still_iou)
    return np.where((both_full & ~kept) | elsewhere, -1.0, score)


def seen_whole_in_its_place(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card that showed a piece of itself (a hand over part of it), seen whole again where
    it lay whole, is that card, however little of the box of the piece it fills."""
    return np.where(f.where_it_lay >= f.tuning.whole_iou, np.maximum(score, f.where_it_lay), score)


def not_beside_its_own_piece(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card shows itself whole or in part, not both: a whole box of a card that has lain
    still (a hand just over it), seen with a piece of the card lying where it lay and sticking
    out from under that box, is the next card of its column on its way in over it (a column
    running sideways, the new card boxed almost where the one below lies), and the piece is
    this card. Not a card seen in the frame before whose box is there still to a few pixels:
    a piece of it beside is the detector boxing it twice. Nor a box wholly within where the
    card rests: that is the card, a hand over part of it."""
    t = f.tuning
    just_there = f.cards.just_seen[:, None] & (f.iou >= t.just_there_iou)
    on_where_it_rested = np.maximum(f.on_where_it_lay, f.on_where_it_rests)
    whole = f.same & f.whole() & (f.on_where_it_rests < t.rests_within)
    # a piece lying where this card lay, and not more where another card of its name lay (the
    # strip of the card below a card just laid reaches under that card's box)
    lay = np.where(f.same, on_where_it_rested, 0.0)
    piece = f.same & ~f.whole() & (lay >= t.full_share) & (lay >= lay.max(axis=0, keepdims=True))
    sticks_out = box_coverage(f.boxes, f.boxes) < t.holds  # (piece, whole): how little the whole box covers it
    beside = (piece.astype(int) @ sticks_out.astype(int) > 0) & whole
    return np.where(beside & f.lain & ~just_there, -1.0, score)


def grown_mask(f: Frame) -> np.ndarray:
    """(card, box): the box is the next card of the card's column laid over it, boxed together
    with the strip of the card it leaves: it holds all of where the card has lain whole, is
    longer than that by a strip past one edge only (past two it holds the hand over the card),
    larger than the card ever showed, just after a hand was over it, and of the same name."""
    t = f.tuning
    full_boxes = f.cards.full
    holds = box_coverage(full_boxes, f.boxes) >= t.holds
    # how far past each edge of where the card lay the box reaches, in the card's lengths (a
    # box of a card lying still shifts by a few pixels on every side, not by a strip)
    sides = np.maximum(np.tile(full_boxes[:, 2:] - full_boxes[:, :2], 2), 1.0)[:, None, :]
    past = np.concatenate([full_boxes[:, None, :2] - f.boxes[None, :, :2],
                           f.boxes[None, :, 2:] - full_boxes[:, None, 2:]], axis=2) / sides
    longer = past.max(axis=2) >= t.grown_share
    longer &= np.sort(past, axis=2)[:, :, -2] < t.grown_share
    return holds & longer & f.larger & f.lain & f.same


def grown_by_next_card(f: Frame, score: np.ndarray) -> np.ndarray:
    """A box reaching a strip past where a card lay still is the card laid over it
    (:func:`grown_mask`), not this card: a card boxed a little short for a while, then at the
    size it first showed, is itself (hence ``larger``)."""
    return np.where(f.grown, -1.0, score)


def prefers_where_it_lay(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card that has lain whole, a hand just over it, prefers the box lying where it lay (a
    piece of it left in sight) to one partly off it (the next card of its column on its way in
    over it, boxed mostly where it lies)."""
    return np.where(f.lain & (score > 0), score - (1.0 - f.on_where_it_lay), score)


def whole_where_it_is_first(f: Frame, score: np.ndarray) -> np.ndarray:
    """A box of the card's full size where its box is now, to a few pixels, is the card seen
    whole, before any piece of it in the same frame: a piece lying within its box scores as
    well as a whole box a few pixels off, and a lying card that took such a piece would follow
    the hand away."""
    here = f.whole() & (f.iou >= f.tuning.whole_iou) & (score > 0)
    return np.where(here, 1.0 + f.iou, score)


def another_name(f: Frame, score: np.ndarray) -> np.ndarray:
    """A box under another name is the card only while the card is in sight (a misread frame)
    or when one name is the card back (a card revealed, or turned face down by a take-out
    box), by plain overlap less a penalty: a different card laid where one went out of sight
    is a new card. A face-down card turned up is the common case; a card turned face down lies
    exactly where it was, so it needs the overlap of a misread."""
    t = f.tuning
    names = f.names
    unseen = f.cards.unseen[:, None]
    backs = np.array([[CARD_BACK in (c, lab) for lab in names] for c in f.cards.labels]).reshape(f.same.shape)
    reveals = np.array([[c == CARD_BACK and lab != CARD_BACK for lab in names]
                        for c in f.cards.labels]).reshape(f.same.shape)
    may_differ = (unseen <= t.misread_s) | (backs & (unseen <= t.flip_s))
    penalty = np.where(reveals, t.back_penalty, t.label_penalty)
    return np.where(f.same, score, np.where(may_differ, f.iou - penalty, -1.0))


def not_a_glimpse(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card seen for a moment only (a misread for a few frames, a card in a hand on its way
    in) and out of sight since for longer than a card takes to be laid is no card lying
    there: a box in its place seconds later is a new one."""
    return np.where(f.cards.glimpse[:, None], -1.0, score)


def moving_mask(f: Frame, score: np.ndarray) -> np.ndarray:
    """(card, box): a card slid in by hand moves from frame to frame: the same name, about
    the same size, a short way from where it was in the frame just before; only a card that
    just came (one lying still is not dragged along by the next card of its column laid over
    it), and only where the overlap alone would not pair them."""
    t = f.tuning
    boxes_t, boxes_d = f.cards.boxes, f.boxes
    centres_t = (boxes_t[:, :2] + boxes_t[:, 2:]) / 2
    centres_d = (boxes_d[:, :2] + boxes_d[:, 2:]) / 2
    size = np.sqrt(np.maximum(f.areas_t, 1.0))
    shift = np.linalg.norm(centres_t[:, None, :] - centres_d[None, :, :], axis=2) / size
    ratio = f.areas_d / np.maximum(f.areas_t, 1.0)
    moving = (f.same & f.cards.arriving[:, None] & (shift <= t.move_step)
              & (ratio >= t.move_shrink) & (ratio <= t.move_grow))
    return moving & (score < t.match_threshold)


def on_the_move(f: Frame, score: np.ndarray) -> np.ndarray:
    """A card on its way in (:func:`moving_mask`) pairs with the box it moved to."""
    return np.where(moving_mask(f, score), f.tuning.match_threshold + 0.01, score)


Rule = Callable[[Frame, np.ndarray], np.ndarray]

#: The rules in the order they apply: the same-name rules first, then the other names, the
#: glimpses and the cards on the move.
RULES: tuple[Rule, ...] = (
    not_another_card_laid_over,
    seen_whole_in_its_place,
    not_beside_its_own_piece,
    grown_by_next_card,
    prefers_where_it_lay,
    whole_where_it_is_first,
    another_name,
    not_a_glimpse,
    on_the_move,
)


@dataclass(frozen=True)
class Pairing:
    """What :func:`pair` made: ``pairs`` (card row, box index), those of them that are a card on
    the move (``moving``), the boxes taken for the next card of a column laid over a card
    lying still (``over_a_card``), and per pair the rule that decided its score (``decided``)."""

    pairs: list[tuple[int, int]]
    moving: set[tuple[int, int]]
    over_a_card: np.ndarray
    decided: dict[tuple[int, int], str]


def pair(cards: Cards, boxes: np.ndarray, labels: Sequence[str], tuning: TrackerTuning) -> Pairing:
    """Pair ``cards`` with ``boxes`` (named ``labels``): score every pair by :func:`overlap`
    and :data:`RULES`, then give the boxes to the confirmed cards first, greedily by score
    (at least ``match_threshold``), and the rest to the cards still being confirmed."""
    if not len(cards.labels) or not len(boxes):
        return Pairing([], set(), np.zeros(len(boxes), bool), {})
    f = measure(cards, boxes, labels, tuning)
    score = overlap(f)
    decided = np.full(score.shape, "overlap", dtype=object)
    moving = np.zeros(score.shape, bool)
    for rule in RULES:
        if rule is on_the_move:
            moving = moving_mask(f, score)
        new = rule(f, score)
        decided[new != score] = rule.__name__
        score = new
    confirmed = cards.confirmed
    first = greedy_matching(np.where(confirmed[:, None], score, -1.0), tuning.match_threshold)
    taken = {d for _, d in first}
    score[:, sorted(taken)] = -1.0
    pairs = first + greedy_matching(np.where(confirmed[:, None], -1.0, score), tuning.match_threshold)
    return Pairing(pairs, {(t, d) for t, d in pairs if moving[t, d]}, np.asarray(f.grown.any(axis=0)),
                   {(t, d): str(decided[t, d]) for t, d in pairs})
