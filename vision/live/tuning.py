"""Every threshold of the live reader, in one frozen value: what each means, on one line.

:class:`Tuning` holds one section per stage: :class:`TrackerTuning` (the tracker and its
matching rules, ``vision.live.tracker``/``vision.live.matching``), :class:`SeatTuning` (the
seats learned from the cards), :class:`HistoryTuning` (the card history, ``vision.live.history``),
:class:`TurnTuning` (the turn reader, ``vision.live.turns``) and :class:`GameTuning` (what counts as a card in
play, ``vision.live.pipeline.LiveGame``). Seconds are the frames' timestamps; sizes are shares
of a card's box (its area, or its longer side where said).

>>> tuning = Tuning()
>>> tuning.tracker.keep_hidden_s, tuning.turns.still_s
(5.0, 3.0)
>>> Tuning(tracker=TrackerTuning(confirm_hits=1)).tracker.confirm_hits
1
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TrackerTuning:
    """The tracker's thresholds (see ``vision.live.tracker.CardTracker``)."""

    # -- pairing a box with a card ------------------------------------------------------------
    match_threshold: float = 0.4  # the least pairing score a box needs to be a card already tracked
    label_penalty: float = 0.4  # a box under another name pairs only with an overlap this much higher
    back_penalty: float = 0.15  # ... and a face-down card turned up pays only this much
    misread_s: float = 0.5  # another name pairs only with a card seen this recently (a misread frame)
    flip_s: float = 2.0  # ... or this recently when one name is the card back (revealed, turned over)
    contain_min: float = 0.8  # a box this much within the card's (or the card's within it) is a strip of it
    still_iou: float = 0.7  # a whole box overlapping where the card lay whole less than this lies elsewhere
    whole_iou: float = 0.85  # a box overlapping where the card lay whole this much is the card in its place
    full_share: float = 0.75  # a box at least this share of the card's largest shows the card whole
    # -- sizes and overlaps: shares of a box's area, or of a card's usual area (``size``) ----------
    whole_share: float = 0.85  # a box this share of the card's largest leaves it seen whole (else covered)
    moved_iou: float = 0.4  # a same-named box overlapping the card this much moves its box there
    moved_inside: float = 0.6  # ... or lying this much within it
    just_there_iou: float = 0.9  # a card seen last frame with its box here to this overlap lies still
    rests_within: float = 0.95  # a whole box this much within where the card rests is the card itself
    holds: float = 0.9  # a box holding this share of where a card lay whole is boxed over it
    # -- a new card, a card kept ---------------------------------------------------------------
    confirm_hits: int = 3  # sightings before a new card counts (a one-frame false box does not)
    tentative_s: float = 1.0  # ... within this many seconds of its first
    keep_hidden_s: float = 5.0  # how long a card out of sight is still on the table
    vote_window: int = 15  # the last sightings whose names vote on a card's name
    strip_ratio: float = 0.6  # a box at most this share of a card's largest is only a strip of it
    double_iou: float = 0.7  # a new track lying this much on a card seen in the same frame is that card
    twin_iou: float = 0.85  # two cards seen this much in one place this frame are one card boxed twice
    piece_inside: float = 0.5  # a box this share within a same-named box ...
    piece_larger: float = 1.5  # ... this many times its area is a piece of that card, no new card
    # -- a card moved, covered, laid over ------------------------------------------------------
    move_step: float = 0.8  # a card arriving moves at most this share of its size from frame to frame
    move_shrink: float = 0.6  # ... its box at least this share of its area ...
    move_grow: float = 1.6  # ... and at most this many times it
    arriving_s: float = 1.5  # a card first seen this recently is still arriving (slid in by hand)
    reid_distance: float = 1.5  # a card out of sight is found again within this many of its lengths
    moved_larger: float = 1.25  # a box more than this times a card's largest is not that card moved
    glimpse_s: float = 0.5  # a card seen less than this long, out of sight since, was a glimpse
    grown_share: float = 0.1  # a box this share of a card's length past one edge of it is the next card over it
    lain_s: float = 1.0  # a card whole in one place this long lies still
    frame_rate: float = 10.0  # frames a second, when frames come without timestamps


@dataclass(frozen=True)
class SeatTuning:
    """How the seats are learned and read again (see ``vision.live.tracker.SeatMemory``)."""

    settle_s: float = 1.0  # a card lying in sight this long shows where it lies (not the hand's path)
    near: float = 1.0  # cards within this many card lengths of each other are one player's
    along: float = 3.0  # along a seat's row counts this many times less than across it
    crossing: float = 2.0  # a card facing another way than the seat's costs this many times more
    turn_s: float = 3.0  # a seat that laid a card this recently lays no second one (one a turn)
    one_each: float = 3.0  # a second card at a seat in one turn costs this many times more
    wave_s: float = 2.0  # cards first seen no further apart than this were laid in one turn
    recall: int = 10  # the last turns read again when the seats are revised
    same_iou: float = 0.8  # a settled card overlapping an earlier one this much is that card again


@dataclass(frozen=True)
class TurnTuning:
    """The turn reader's thresholds (``vision.live.turns``), and the times the card history
    shares with it (``settle_s``, ``quiet_s``, ``glimpse_s``, ``just_seen_s``, ``reread_s``)."""

    settle_s: float = 1.0  # a card named the same this long, face up, is revealed
    seen_s: float = 1.5  # a card gone again within this was a hand or a misread, no card
    glimpse_s: float = 0.5  # a card in sight less than this, gone since, is in no turn
    quiet_s: float = 2.0  # a turn is read once nothing new happened for this long ...
    still_s: float = 3.0  # ... and once the table lay still this long, even with a seat missing
    wave_s: float = 2.0  # a seat's cards first boxed no further apart than this were laid in one turn
    doubted_s: float = 2.0  # a box in play this long after first boxed, a turn its seat is in read between: no card
    just_seen_s: float = 0.5  # a card seen this recently is in sight still (between two detections)
    unsure_s: float = 5.0  # a card whose name wavered this recently is not re-read yet
    reread_s: float = 3.0  # the span of whole sightings a revealed card is re-read over
    reread_share: float = 0.8  # ... the share of them another name needs to rename it
    reread_reads: int = 5  # the fewest whole sightings a revealed card is re-read from
    reread_span: float = 0.75  # ... spread over at least this share of ``reread_s``
    reread_lead: float = 2.0  # ... its new name read this many times as often as the logged one since its reveal


@dataclass(frozen=True)
class HistoryTuning:
    """The card history's thresholds (``vision.live.history``): where a card lies, what lies
    on it, which boxes are a card already there."""

    reid_distance: float = 2.0  # a card gone is found again within this many of its lengths
    flip_s: float = 2.0  # a card turned face down within this of its going is a take-out flip
    piece: float = 0.5  # a box this share within a card's box is a piece of it
    part: float = 0.8  # a box never bigger than this share of a card lying within it: a part of it
    same_place_iou: float = 0.85  # a box overlapping where a card lay this much is that card in its place
    moved_iou: float = 0.7  # a card's whole box overlapping where it lay less than this: it moved
    hidden_s: float = 0.5  # a card's box back about its place after this long out of sight may be a move
    cover_share: float = 0.3  # a later card of its seat over this share of where a card lay lies on it
    cover_late_s: float = 1.0  # ... laid at most ``settle_s`` and this much after it went out of sight
    # -- sizes and overlaps: shares of a box's area, or of a card's usual area (``size``) ----------
    whole_share: float = 0.8  # a box this share of a card's usual size shows it whole
    with_hand: float = 1.25  # a box more than this times a card's usual size holds a hand too
    over_share: float = 0.2  # a newer card of its seat over this share of a card leaves a strip of it in sight
    turned_up_iou: float = 0.5  # a card turned face up lies about where the back lay: this overlap
    turned_down_iou: float = 0.7  # a card turned face down lies right where its face lay: this overlap
    strip_within: float = 0.7  # a strip of a covered card lies this share within where the card lay
    dessert_within: float = 0.85  # a dessert kept from an earlier round, seen again, lies this share within its place
    strip_size: float = 0.5  # a box at most this share of a card's largest is a strip of it ...
    strip_inside: float = 0.6  # ... lying this share within where it lay
    laid_over_iou: float = 0.3  # a card's places before and after a move overlapping this much: a card laid over it
    lies_on: float = 0.6  # two boxes, this share of the smaller within the other, lie on each other
    past_share: float = 0.1  # a whole box reaching this share of a card's length past where it lay is another card
    twin_lies_on: float = 0.3  # ... this share, for a card boxed twice as a hand laid it
    piece_within: float = 0.8  # a piece of a card lies this share within where the card lay
    part_within: float = 0.9  # a part of a played card, misnamed, lies this share within it
    strip_left: float = 0.6  # a card showing at most this share of its largest box shows only a strip ...
    strip_outside: float = 0.75  # ... with less than this share of that strip under the card laid on it
    under_outside: float = 0.5  # the strip a card leaves of the one under it lies less than this share within it
    reach: float = 0.1  # ... and within this share of its length of it
    piece_left_s: float = 1.0  # a card gone whose piece lay in sight this recently lies there still: not found elsewhere


@dataclass(frozen=True)
class GameTuning:
    """What counts as a card in play (see ``vision.live.pipeline.LiveGame``)."""

    background_s: float = 1.0  # whatever is found this soon after the start is the table, not a card
    min_score: float = 0.5  # a new card plays once the recogniser's mean confidence reaches this
    card_region: float = 0.85  # ... or the detector's mean score (it is a card, however unsure its name)
    oversized: float = 3.0  # a box whose long side is this many times the middle box's is no card


@dataclass(frozen=True)
class Tuning:
    """The live reader's thresholds, one section per stage."""

    tracker: TrackerTuning = field(default_factory=TrackerTuning)
    seats: SeatTuning = field(default_factory=SeatTuning)
    history: HistoryTuning = field(default_factory=HistoryTuning)
    turns: TurnTuning = field(default_factory=TurnTuning)
    game: GameTuning = field(default_factory=GameTuning)
