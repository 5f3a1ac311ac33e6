"""Follow the cards on a table across the frames of a live camera.

Two one-verb stages over :class:`~vision.detections.Detections`:

- :class:`CardTracker` ``.update(detections, timestamp) -> Detections``: every card keeps one
  ``data["track_id"]`` for as long as it lies on the table; its name is settled by a
  confidence-weighted vote over its recent sightings (``data["label"]``); a card hidden for a
  few seconds (a hand over the table, a column being straightened) is kept, with
  ``data["visible"]`` False, at the place it was last seen.
- :class:`SeatMemory` ``.update(tracked) -> Detections``: each card gets the seat
  (``data["seat"]``) whose remembered area it lies in, once, when it first appears.

Why not ultralytics' ByteTrack: its Kalman motion model is made for things that move, and it
drops a lost track after a fixed number of frames. Cards do not move; they get covered (by a
hand, or by the next card of a column, which shrinks the visible box to a strip), so matching
here compares boxes by overlap *and* containment and prefers the same name; a card seen again
near where a same-named card vanished is the same card (a column straightened). A card that
has lain whole in one place stays there: a same-named box reaching a strip past it after a hand
was over it is the next card of its column, even when the detector boxes the thin strip it
leaves together with it (far cards of a table that seats five).

>>> import numpy as np
>>> from vision.detections import Detections
>>> def frame(*cards):
...     return Detections(xyxy=np.array([c[1] for c in cards], float).reshape(-1, 4),
...                       class_id=np.zeros(len(cards), int), confidence=np.full(len(cards), 0.9),
...                       data={"label": np.array([c[0] for c in cards], dtype=object)})
>>> tracker = CardTracker(confirm_hits=2)
>>> _ = tracker.update(frame(("tempura", (0, 0, 100, 150))), timestamp=0.0)
>>> tracked = tracker.update(frame(("tempura", (2, 1, 101, 152))), timestamp=0.1)
>>> tracked.data["track_id"].tolist(), tracked.data["label"].tolist()
([1], ['tempura'])
>>> tracked = tracker.update(frame(), timestamp=2.0)   # a hand over the card: kept
>>> tracked.data["track_id"].tolist(), tracked.data["visible"].tolist()
([1], [False])
>>> len(tracker.update(frame(), timestamp=10.0))        # gone for good
0
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.boxes import area as _box_area
from vision.boxes import areas as _box_areas
from vision.boxes import coverage_matrix as box_coverage
from vision.boxes import greedy_matching as greedy_assignment
from vision.boxes import overlaps as box_overlaps
from vision.boxes import piece_mask
from vision.detections import REGION_SCORE, Detections
from vision.seats import CARD_ASPECT, card_axes, turn_towards

CARD_BACK = "card-back"


def inner_duplicates(boxes: np.ndarray, labels: Sequence[str], ratio: float = 0.6) -> np.ndarray:
    """Keep-mask dropping a box that lies inside a much larger box, whatever its name.

    A recogniser trained on covered cards sometimes also reports the top strip of a card
    lying in full view, or a third of it under another name (a maki read by its rolls); the
    piece is that card again, not one under it (the card under a strip lies above the
    covering card, outside its box).

    >>> inner_duplicates(np.array([[0, 0, 10, 15], [0, 0, 10, 4], [0, 15, 10, 30]]),
    ...                  ["eel", "eel", "eel"]).tolist()
    [True, False, True]
    """
    keep = np.ones(len(boxes), bool)
    if len(boxes) < 2:
        return keep
    _, inside = box_overlaps(boxes, boxes)
    areas = _box_areas(boxes)
    for small in range(len(boxes)):
        for big in range(len(boxes)):
            # (under another name only within a box a card's size: a stretch of cloth boxed
            # as one card holds whole cards)
            if (small != big and inside[small, big] >= 0.85
                    and (labels[small] == labels[big] or areas[big] <= 10 * areas[small])
                    and areas[small] <= ratio * areas[big]):
                keep[small] = False
    return keep


@dataclass
class _Track:
    track_id: int
    box: np.ndarray
    first_seen: float
    last_seen: float
    votes: deque
    hits: int = 1
    confirmed: bool = False
    label: str = ""
    class_id: int = -1
    label_since: float = 0.0
    share: float = 0.0
    score: float = 0.0  # mean recogniser confidence over the recent sightings
    region: float = 0.0  # mean detector score (is it a card at all) over the recent sightings
    full_area: float = 0.0  # the largest box it has shown: the card in full view
    full_box: np.ndarray | None = None  # where it was last seen in full view
    # where it last lay whole in two frames running: ``full_box`` follows a box seen in one
    # frame only (the next card of its column under the hand, boxed almost where it lies),
    # this does not, so a strip of the card can still be found where the card rested
    rest_box: np.ndarray | None = None
    whole_since: float = 0.0  # since when it has lain whole about where ``full_box`` says
    covered_at: float = -math.inf  # when it was last out of sight or seen only in part
    grown_since: float | None = None  # since when its box has held more than the card

    def vote(self, label: str, class_id: int, confidence: float, timestamp: float,
             region: float | None = None) -> None:
        """Add a sighting and settle the name: the label with the most confidence wins.

        The current name keeps its place on a tie, so one odd frame cannot flip it.
        ``region``: the detector's score of the sighting (``confidence`` when not known).
        """
        self.votes.append((label, class_id, confidence, confidence if region is None else region))
        weight: dict[str, float] = {}
        ids: dict[str, int] = {}
        for lab, cid, conf, _ in self.votes:
            weight[lab] = weight.get(lab, 0.0) + conf
            ids[lab] = cid
        best = max(weight, key=lambda lab: (weight[lab], lab == self.label))
        if best != self.label:
            self.label, self.label_since = best, timestamp
        self.class_id = ids[self.label]
        self.share = weight[self.label] / max(sum(weight.values()), 1e-9)
        self.score = sum(conf for _, _, conf, _ in self.votes) / len(self.votes)
        self.region = sum(region for *_, region in self.votes) / len(self.votes)


@dataclass
class CardTracker:
    """Give every card on the table a stable id and a settled name, frame after frame.

    ``update(detections, timestamp)`` takes one frame's detections (``data["label"]`` holds
    slugs) and returns the cards on the table now: ``xyxy`` where each was last seen,
    ``class_id``/``data["label"]`` by vote, ``confidence`` the share of the vote,
    ``data["score"]`` the mean recogniser confidence of the recent sightings,
    ``data["region_score"]`` their mean detector score, ``data["track_id"]``, ``data["visible"]`` (seen in this frame), ``data["first_seen"]``
    and ``data["label_since"]`` (timestamps). Timestamps are seconds; left out, frames are
    counted at ``frame_rate``.

    - ``confirm_hits``: sightings before a new card counts (a one-frame false detection does
      not), within ``tentative_s`` seconds.
    - ``keep_hidden_s``: how long a card unseen is still on the table.
    - ``label_penalty``: a detection with another name matches a card only with an overlap this
      much higher (a nigiri laid on a wasabi is a new card, a misread frame is not; a face-down
      card turned up pays only ``back_penalty``), and only
      if the card was seen in the last ``misread_s`` seconds, or ``flip_s`` when one of the names
      is the card back (a card revealed, or turned over under a hand).
    - ``move_step``: a card seen in the frame before and found again, the same name and size,
      within this share of its size is that card on the move (slid in by hand), while it is
      still arriving (first seen at most ``arriving_s`` ago).
    - ``whole_iou``: a card that showed only a piece of itself, seen whole again where it lay
      whole (its box of then this much the same), is that card, not a second one.
    - ``glimpse_s``: a card seen for less than this, out of sight for more than
      ``arriving_s``, matches no box again.
    - ``piece_inside``, ``piece_larger``: a box matching no card that lies this share of its
      area within a box of the same name this many times its area, seen in the same frame, is
      a piece of that card boxed again, not a new card.
    - ``grown_share``: a box holding all of a card that has lain whole ``lain_s`` in one place,
      seen within ``arriving_s`` of a hand over it, reaching past one of its edges by this
      share of its length or more (on that side only) and larger than any box the card showed
      (by half that share: a still card's box varies by a few pixels),
      is the next card of its column laid over it, boxed together with the thin strip it
      leaves (a same-named card; another name is a new card anyway).
    """

    match_threshold: float = 0.4
    label_penalty: float = 0.4
    confirm_hits: int = 3
    tentative_s: float = 1.0
    keep_hidden_s: float = 5.0
    back_penalty: float = 0.15
    contain_min: float = 0.8
    strip_ratio: float = 0.6
    moved_larger: float = 1.25  # a box more than this times a card's largest is not that card moved
    still_iou: float = 0.7
    double_iou: float = 0.7
    twin_iou: float = 0.85
    misread_s: float = 0.5
    flip_s: float = 2.0
    vote_window: int = 15
    reid_distance: float = 1.5
    move_step: float = 0.8
    arriving_s: float = 1.5
    whole_iou: float = 0.85
    grown_share: float = 0.1
    lain_s: float = 1.0
    piece_inside: float = 0.5
    glimpse_s: float = 0.5
    piece_larger: float = 1.5
    frame_rate: float = 10.0
    _tracks: list[_Track] = field(default_factory=list, init=False, repr=False)
    _next_id: int = field(default=1, init=False, repr=False)
    _frames: int = field(default=0, init=False, repr=False)
    _now: float = field(default=0.0, init=False, repr=False)
    _previous: float = field(default=-math.inf, init=False, repr=False)

    def reset(self) -> None:
        """Forget every card (a new game)."""
        self._tracks.clear()
        self._next_id, self._frames, self._now = 1, 0, 0.0

    def update(self, detections: Detections, timestamp: float | None = None) -> Detections:
        now = self._frames / self.frame_rate if timestamp is None else float(timestamp)
        self._frames += 1
        self._previous, self._now = self._now if self._frames > 1 else -math.inf, now
        boxes = np.asarray(detections.xyxy, float).reshape(-1, 4)
        labels = [str(x) for x in detections.data.get("label", np.array([], dtype=object))]
        class_ids = np.asarray(detections.class_id).reshape(-1)
        confidence = (
            np.ones(len(boxes)) if detections.confidence is None
            else np.asarray(detections.confidence, float).reshape(-1)
        )
        region = np.asarray(detections.data.get(REGION_SCORE, confidence), float).reshape(-1)
        keep = inner_duplicates(boxes, labels, self.strip_ratio)
        if not keep.all():
            boxes, class_ids, confidence, region = boxes[keep], class_ids[keep], confidence[keep], region[keep]
            labels = [lab for lab, k in zip(labels, keep, strict=True) if k]
        matched, moving, over_a_card = self._match(boxes, labels)
        unmatched = sorted(set(range(len(boxes))) - {d for _, d in matched})
        # a box taken for the next card of a column laid over a card lying still is no card
        # moved there from elsewhere either (three-player field film seed 302: as Ann's hand
        # laid her egg nigiri on her first wasabi, her second wasabi, beside it, was boxed 14-20
        # px wider on the side of the hand; that box went to the first wasabi, under the hand,
        # as if moved there, and the first one's strip, seen again, was read as a third wasabi
        # laid that turn)
        found_again = self._reidentify(boxes, labels, [d for d in unmatched if not over_a_card[d]], matched)
        matched += found_again
        moving |= set(found_again)
        # a card still being confirmed whose box is now a piece of a same-named card boxed
        # whole was that piece from the start (its first boxes lay less within the whole one)
        pieces = self._pieces(boxes, labels)
        matched = [(t, d) for t, d in matched if self._tracks[t].confirmed or not pieces[d]]
        seen = set()
        for t, d in matched:
            track = self._tracks[t]
            track.last_seen = now
            track.hits += 1
            track.vote(labels[d], int(class_ids[d]), float(confidence[d]), now, float(region[d]))
            iou, inside = box_overlaps(track.box[None], boxes[d][None])
            # it lies where it lay: the box holds more than the card (see the method); a box
            # that large for ``lain_s`` is the card after all (it lay half hidden till now)
            grown_since = None
            if self._boxed_with_more(track, boxes[d]):
                track.covered_at = now
                grown_since = now if track.grown_since is None else track.grown_since
            track.grown_since = grown_since
            held = grown_since is not None and now - grown_since < self.lain_s
            # a misread frame, or a stray box that barely overlaps, does not move the card
            if not held and labels[d] == track.label and (iou[0, 0] >= 0.4 or inside[0, 0] >= 0.6
                                                          or (t, d) in moving):
                track.box = boxes[d].copy()
                track.full_area = max(track.full_area, _box_area(track.box))
                if _box_area(track.box) >= 0.85 * track.full_area:
                    if track.full_box is None or box_overlaps(track.full_box[None], track.box[None])[0][0, 0] < self.whole_iou:
                        track.whole_since = now
                    if iou[0, 0] >= self.whole_iou:
                        track.rest_box = track.box.copy()
                    track.full_box = track.box.copy()
                else:
                    track.covered_at = now
            if not track.confirmed and track.hits >= self.confirm_hits:
                track.confirmed = True
            seen.add(track.track_id)
        self._drop_doubles(seen)
        self._merge_twins(seen)
        for d in sorted(set(range(len(boxes))) - {d for _, d in matched}):
            if pieces[d]:
                continue
            track = _Track(self._next_id, boxes[d].copy(), now, now, deque(maxlen=self.vote_window))
            track.full_area = _box_area(track.box)
            track.full_box = track.box.copy()
            track.whole_since = now
            track.vote(labels[d], int(class_ids[d]), float(confidence[d]), now, float(region[d]))
            track.label_since = now
            track.confirmed = self.confirm_hits <= 1
            self._next_id += 1
            self._tracks.append(track)
            seen.add(track.track_id)
        for track in self._tracks:
            if track.track_id not in seen:
                track.covered_at = now
        self._forget(now, seen)
        return self._output(seen)

    # --- stages of one update -------------------------------------------------------------

    def _match(self, boxes: np.ndarray, labels: Sequence[str]) -> tuple[list[tuple[int, int]], set, np.ndarray]:
        """Pairs (track, detection), those of them that are a card on the move, and the mask of
        detections taken for the next card of a column laid over a card lying still
        (:meth:`_grown`)."""
        if not self._tracks or not len(boxes):
            return [], set(), np.zeros(len(boxes), bool)
        track_boxes = np.stack([t.box for t in self._tracks])
        iou, inside = box_overlaps(track_boxes, boxes)
        same = np.array([[t.label == lab for lab in labels] for t in self._tracks])
        # another name is the same card only while it is in sight (a misread frame) or when
        # one side is a card back (a card revealed, or turned face down by a take-out box);
        # a different card laid where one went out of sight is a new card
        unseen = np.array([self._now - t.last_seen for t in self._tracks])[:, None]
        backs = np.array([[CARD_BACK in (t.label, lab) for lab in labels] for t in self._tracks])
        # a face-down card turned up is the common case; a card turned face down (a take-out
        # box) lies exactly where it was, so it needs the overlap of a misread
        reveals = np.array([[t.label == CARD_BACK and lab != CARD_BACK for lab in labels]
                            for t in self._tracks])
        may_differ = (unseen <= self.misread_s) | (backs & (unseen <= self.flip_s))
        # another name: plain overlap, less the penalty
        penalty = np.where(reveals, self.back_penalty, self.label_penalty)
        # same name: a box that shrank to a strip (covered, or a corner under a hand) or grew
        # back matches by how much of the smaller lies in the larger. But a card lying in full
        # view keeps its box to a few pixels: a box of the same full size that only partly
        # overlaps it is the next card of its column, laid on it (its strip may go unseen)
        full = np.array([t.full_area for t in self._tracks])[:, None]
        areas_t = _box_areas(track_boxes)[:, None]
        areas_d = _box_areas(boxes)[None, :]
        both_full = (areas_t >= 0.75 * full) & (areas_d >= 0.75 * full)
        lenient = np.where(inside >= self.contain_min, np.maximum(iou, inside - 0.1), iou)
        kept = (iou >= self.still_iou) | (inside >= self.contain_min)
        # a card in full view where only a strip of this one showed (a hand laying it) is
        # this card grown back only where this card lay in full view: else it is the next
        # card of its column, laid over it
        full_boxes = np.stack([t.full_box if t.full_box is not None else t.box for t in self._tracks])
        where_it_lay, _ = box_overlaps(full_boxes, boxes)
        lay_area = ((full_boxes[:, 2] - full_boxes[:, 0]) * (full_boxes[:, 3] - full_boxes[:, 1]))[:, None]
        elsewhere = (areas_d >= 0.75 * full) & (areas_t < 0.85 * lay_area) & (where_it_lay < self.still_iou)
        same_score = np.where((both_full & ~kept) | elsewhere, -1.0, lenient)
        # a card that showed a piece of itself (a hand over part of it), seen whole again where
        # it lay whole, is that card, however little of the box of the piece it fills
        same_score = np.where(where_it_lay >= self.whole_iou, np.maximum(same_score, where_it_lay), same_score)
        lain = np.array([self._lain(t) for t in self._tracks])[:, None]
        on_where_it_lay = box_coverage(boxes, full_boxes).T  # (track, detection)
        rest_boxes = np.stack([t.rest_box if t.rest_box is not None else b
                               for t, b in zip(self._tracks, full_boxes, strict=True)])
        # but not, a hand just over it, while a piece of it shows beside that box in the same
        # frame: a card shows itself whole or in part, not both, so the whole box is the next
        # card of its column on its way in over it (a column running sideways, the new card
        # still almost where the one below lies) and the piece sticking out from under it is
        # this card
        # (a card seen in the frame before, its box there now to a few pixels, lies still: a
        # piece of it beside is the detector boxing it twice, a few pixels past its box, as on
        # dev seed 5 with a hand just over it)
        just_there = np.array([t.last_seen >= self._previous for t in self._tracks])[:, None] & (iou >= 0.9)
        # (where it lay whole, or where it rested before a box of one frame moved that: the
        # next card of a sideways column boxed almost where it lies, five-player film seed 92)
        on_where_it_rests = box_coverage(boxes, rest_boxes).T
        on_where_it_rested = np.maximum(on_where_it_lay, on_where_it_rests)
        beside_piece = self._beside_piece(same, full, areas_d, on_where_it_rested, on_where_it_rests, boxes)
        same_score = np.where(beside_piece & lain & ~just_there, -1.0, same_score)
        # but not a box reaching a strip past where it lay: the card laid over it. Larger than
        # any box the card showed by more than a still card's box varies (a few pixels a side):
        # a card boxed a little short for a while, then at the size it first showed, is itself
        # (three-player field film seed 203: Ann's sashimi became a second one, a turn of its own)
        larger = areas_d > (1.0 + self.grown_share / 2) * full
        grown = self._grown(full_boxes, boxes, larger, lain) & same
        same_score = np.where(grown, -1.0, same_score)
        # a card that has lain whole, a hand just over it, prefers the box lying where it lay
        # (a piece of it left in sight) to one partly off it (the next card of its column on
        # its way in over it, boxed mostly where it lies)
        off_it = 1.0 - on_where_it_lay
        same_score = np.where(lain & (same_score > 0), same_score - off_it, same_score)
        # a box of the card's full size where its box is now, to a few pixels, is the card seen
        # whole, before any piece of it in the same frame: a piece lying within its box scores
        # as well as a whole box a few pixels off (field film seed 3: a hand over Eve's salmon
        # nigiri, the edge of her next one boxed within it; the lying card took that edge and
        # followed the hand away)
        whole_here = (areas_d >= 0.75 * full) & (iou >= self.whole_iou) & (same_score > 0)
        same_score = np.where(whole_here, 1.0 + iou, same_score)
        score = np.where(same, same_score, np.where(may_differ, iou - penalty, -1.0))
        # a card seen for a moment only (``glimpse_s``: a card misread for a few frames, one
        # in a hand on its way in) and out of sight since for longer than a card takes to be
        # laid is no card lying there: a box in its place seconds later is a new one
        # (three-player field film seed 24: a wasabi under a hand read as a squid nigiri for
        # four frames; the squid laid there four seconds later revived that reading, which
        # then made a turn of its own)
        glimpse = np.array([self._glimpsed(t, self.glimpse_s) for t in self._tracks])[:, None]
        score = np.where(glimpse, -1.0, score)
        # a card slid in by hand moves from frame to frame: the same name, about the same size,
        # a short way from where it was in the frame just before
        centres_t = (track_boxes[:, :2] + track_boxes[:, 2:]) / 2
        centres_d = (boxes[:, :2] + boxes[:, 2:]) / 2
        size = np.sqrt(np.maximum(areas_t, 1.0))
        shift = np.linalg.norm(centres_t[:, None, :] - centres_d[None, :, :], axis=2) / size
        # (only a card that just came: one lying still on the table is not dragged along by
        # the next card of its column laid over it)
        just_seen = np.array([t.last_seen >= self._previous and self._now - t.first_seen <= self.arriving_s
                              for t in self._tracks])[:, None]
        ratio = areas_d / np.maximum(areas_t, 1.0)
        moving = same & just_seen & (shift <= self.move_step) & (ratio >= 0.6) & (ratio <= 1.6)
        moving &= score < self.match_threshold
        score = np.where(moving, self.match_threshold + 0.01, score)
        # cards already on the table choose first; new cards still being confirmed get the rest
        confirmed = np.array([t.confirmed for t in self._tracks])
        first = greedy_assignment(np.where(confirmed[:, None], score, -1.0), self.match_threshold)
        taken = {d for _, d in first}
        score[:, sorted(taken)] = -1.0
        pairs = first + greedy_assignment(np.where(confirmed[:, None], -1.0, score), self.match_threshold)
        return pairs, {(t, d) for t, d in pairs if moving[t, d]}, grown.any(axis=0)

    def _grown(self, full_boxes: np.ndarray, boxes: np.ndarray, larger: np.ndarray, lain: np.ndarray) -> np.ndarray:
        """(track, detection): the detection is the next card of the track's column laid over
        it, boxed together with the strip of the track it leaves.

        Seen with the real models on five-player films: a pudding laid over the lower part of
        a far player's pudding leaves a strip of it a few pixels tall; the detector boxes both
        cards as one, a box a strip longer than the card below. A card lying still does not
        grow: a box holding all of where it has lain whole, longer than that by a strip and
        larger than the card ever showed (``larger``, (track, detection)), just after a hand was
        over it (``lain``, a column of ``_lain`` per track), is the card laid on it. Past one
        edge only: a box past two holds the hand over the card."""
        holds = box_coverage(full_boxes, boxes) >= 0.9
        # how far past each edge of where the card lay the box reaches, in the card's lengths
        # (a box of a card lying still shifts by a few pixels on every side, not by a strip)
        sides = np.maximum(np.tile(full_boxes[:, 2:] - full_boxes[:, :2], 2), 1.0)[:, None, :]
        past = np.concatenate([full_boxes[:, None, :2] - boxes[None, :, :2],
                               boxes[None, :, 2:] - full_boxes[:, None, 2:]], axis=2) / sides
        longer = past.max(axis=2) >= self.grown_share
        # on one side only: a card laid over part of another reaches past it where its column
        # runs; a box past the card on two sides holds the hand over it (five-player field film
        # seed 235: a hand over Cid's salmon nigiri, boxed with it, became a second one)
        longer &= np.sort(past, axis=2)[:, :, -2] < self.grown_share
        # and larger than the card has ever shown: a box of it reaching past where it lay
        # only because that place was boxed with a hand over part of it holds the card alone
        return holds & longer & larger & lain

    def _glimpsed(self, track: _Track, span: float, longest: bool = False) -> bool:
        """Whether ``track`` was in sight for less than ``span`` seconds (at most, ``longest``)
        and has been out of sight for more than ``arriving_s``: a glimpse, not a card lying
        there (a misread for a few frames, a card seen in the hand carrying it)."""
        shown = track.last_seen - track.first_seen
        return (shown <= span if longest else shown < span) and self._now - track.last_seen > self.arriving_s

    def _boxed_with_more(self, track: _Track, box: np.ndarray) -> bool:
        """Whether ``box``, matched to ``track``, holds all of where the card has lain whole
        ``lain_s`` or more and is ``1 + 2 * grown_share`` times the largest box the card
        showed: the card boxed together with what a hand brings over it (the next card of
        its column on its way in, the hand's edge). The card keeps its box, size and place.

        Seen with the real models on a five-player field film (dev seed 6): as Eve's second
        squid nigiri came in over her first, the two were boxed as one for a frame; the first
        card took that box as where it lay whole, and a frame later took the new card's box
        (lying 0.9 within it) while its own strip became a card of its own: the new squid was
        never counted. And on dev seed 8: a hand passing over Dan's far squid nigiri (38 x 51
        px) was boxed with it, a few pixels past it on one side, for half a second; taken as
        the card, such boxes made it a card a third larger, and the card seen again at its
        own size was a second squid."""
        return bool(self._holding(track, box[None]).any()
                    and _box_area(box) > (1 + 2 * self.grown_share) * track.full_area)

    def _holding(self, track: _Track, boxes: np.ndarray) -> np.ndarray:
        """Mask of ``boxes`` that hold all of where ``track`` has lain whole ``lain_s`` or more
        (0.9 of that place); none where it has not lain so long."""
        if track.full_box is None or not len(boxes) or self._now - track.whole_since < self.lain_s:
            return np.zeros(len(boxes), bool)
        return box_coverage(track.full_box[None], boxes)[0] >= 0.9

    @staticmethod
    def _beside_piece(same: np.ndarray, full: np.ndarray, areas_d: np.ndarray, on_where_it_lay: np.ndarray,
                      on_where_it_rests: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(track, detection): the detection, a box of the track's card in full size, is seen
        together with a piece of the track's card lying where the track lay whole, sticking
        out from under it: the detection is another card of the same name over the track.

        Seen with the real models on a five-player film (dev seed 13): a tempura slid over a
        tempura of a column running sideways is boxed, on its way in, almost exactly where the
        one below lies (a few pixels off), in the same frame as the strip of the one below it
        leaves. ``areas_d`` (1, detection) are the boxes' areas, ``on_where_it_lay``
        (track, detection) how much of each box lies where each track lay whole,
        ``on_where_it_rests`` how much where it last lay still (its ``rest_box``).

        The card laid over it lies partly off it, or no piece of the one below could show
        beside it: a box wholly within where the track rests is the track's card, a hand over
        part of it (five-player field film seed 256: a hand over Ben's second wasabi left it
        boxed 0.8 of its size, within where it lay, and its corner boxed apart; the corner
        kept the card, the box went to his first wasabi under the hand, whose strip, seen
        again, was read as a wasabi laid in turn 4). A card slid over another is boxed a
        tenth or more off it (about 0.87 and 0.92 within, dev seeds 13 and 9)."""
        whole = same & (areas_d >= 0.75 * full) & (on_where_it_rests < 0.95)
        # a piece lying where this track lay, and not more where another card of its name lay
        # (the strip of the card below a card just laid reaches under that card's box)
        lay = np.where(same, on_where_it_lay, 0.0)
        piece = same & (areas_d < 0.75 * full) & (lay >= 0.75) & (lay >= lay.max(axis=0, keepdims=True))
        sticks_out = box_coverage(boxes, boxes) < 0.9  # (piece, whole): how little the whole box covers it
        return (piece.astype(int) @ sticks_out.astype(int) > 0) & whole

    def _pieces(self, boxes: np.ndarray, labels: Sequence[str]) -> np.ndarray:
        """Mask of the boxes that are a piece of a card boxed whole in the same frame: lying
        ``piece_inside`` of their area within a box of the same name ``piece_larger`` times
        theirs. Such a box matching no card, or only one still being confirmed, is no new
        card (:meth:`update` starts no track for it, and confirms none).

        Seen with a detector trained on cameras held at any angle (five-player field film,
        seed 42): a wasabi lying diagonally was boxed whole and, from two frames after it was
        laid, its corner with the icon boxed again, 0.56-0.8 within the whole box; that piece
        became a second wasabi, given to a neighbour. A true strip of a column lying in such
        a box is the card beneath, which lay there first: its track takes the strip."""
        return piece_mask(boxes, labels, self.piece_inside, self.piece_larger)

    def _lain(self, track: _Track) -> bool:
        """Whether ``track`` has lain whole ``lain_s`` in one place, and a hand was over it in
        the last ``arriving_s`` (as one is when a card is laid on it)."""
        return (self._now - track.whole_since >= self.lain_s and track.whole_since <= track.covered_at
                and self._now - track.covered_at <= self.arriving_s)

    def _drop_doubles(self, seen: set[int]) -> None:
        """A second track for one card: a new track lying on a card seen in the same frame, or
        a card that just came, lost on its way in (slid by hand) and found again as a new
        track, whose old track now lies unseen on the new one."""
        shown = [t for t in self._tracks if t.confirmed and t.track_id in seen]
        if not shown:
            return
        shown_boxes = np.stack([t.box for t in shown])
        doubles = set()
        for track in self._tracks:
            iou, _ = box_overlaps(track.box[None], shown_boxes)
            if not track.confirmed and track.track_id in seen:
                if (iou >= self.double_iou).any():
                    doubles.add(track.track_id)
            elif (track.track_id not in seen and self._now - track.first_seen <= self.arriving_s + 1.0
                  and any(iou[0, k] >= self.double_iou and other.label == track.label
                          and other.track_id != track.track_id for k, other in enumerate(shown))):
                doubles.add(track.track_id)
        if doubles:
            self._tracks = [t for t in self._tracks if t.track_id not in doubles]
            seen -= doubles

    def _merge_twins(self, seen: set[int]) -> None:
        """Two cards seen in one place (boxes overlapping by ``twin_iou``), both this frame: the
        recogniser boxed one card twice, under two names; the card is the one first seen, its
        name voted over both readings. (The next card of a column, laid a strip off the last,
        and a nigiri on a wasabi, never overlap theirs that much.)"""
        shown = sorted((t for t in self._tracks if t.confirmed and t.track_id in seen), key=lambda t: t.first_seen)
        if len(shown) < 2:
            return
        iou, _ = box_overlaps(np.stack([t.box for t in shown]), np.stack([t.box for t in shown]))
        merged: set[int] = set()
        for k, first in enumerate(shown):
            if first.track_id in merged:
                continue
            for j in range(k + 1, len(shown)):
                later = shown[j]
                if later.track_id in merged:
                    continue
                if iou[k, j] >= self.twin_iou:
                    for label, class_id, confidence, region in later.votes:
                        first.vote(label, class_id, confidence, self._now, region)
                    merged.add(later.track_id)
        if merged:
            self._tracks = [t for t in self._tracks if t.track_id not in merged]
            seen -= merged

    def _reidentify(self, boxes, labels, unmatched, matched) -> list[tuple[int, int]]:
        """A detection near where a same-named card went out of sight is that card, moved.

        Only a card moved off its place, or seen again as the strip a newer card left of it: a
        same-named box of its size partly over the old one is the next card of its column, laid
        on it while the strip it leaves goes unseen; and a card that showed only its strip is
        not found again as a whole card lying elsewhere than it lay whole (the next card of its
        column, laid over it, while its strip goes unseen for a frame), nor a track that only
        ever showed a piece of a card as a box much larger (``_outgrown``). A box the size of a
        strip is the card's strip only where the card lay: seen with the real models on a
        five-player field film (dev seed 40, after the classifier's wide stage), a sliver boxed
        below Ben's wasabi as the hand laid his second one was read as a wasabi, and the first
        one, under the hand, was found again there. The card found again takes the new box: it
        lies there now.
        """
        if not unmatched:
            return []
        taken = {t for t, _ in matched}
        # (a card seen only on its way in, under the hand carrying it, is found again only soon
        # after: found seconds later, it was a glimpse of the card now lying elsewhere; and a
        # card lying still under a box that holds all of it has not moved: ``_boxed_over``)
        hidden = [i for i, t in enumerate(self._tracks) if i not in taken and t.confirmed
                  and not self._glimpsed(t, self.arriving_s, longest=True) and not self._boxed_over(t, boxes)]
        pairs: list[tuple[float, int, int]] = []
        for d in unmatched:
            centre = (boxes[d, :2] + boxes[d, 2:]) / 2
            for t in hidden:
                track = self._tracks[t]
                if track.label != labels[d]:
                    continue
                size = max(track.box[2] - track.box[0], track.box[3] - track.box[1], 1.0)
                dist = float(np.linalg.norm(centre - (track.box[:2] + track.box[2:]) / 2))
                overlap, _ = box_overlaps(track.box[None], boxes[d][None])
                area = _box_area(boxes[d])
                strip = area <= self.strip_ratio * track.full_area
                if self._covering_it(track, boxes[d]) or self._outgrown(track, area):
                    continue
                if (not strip and area > self.moved_larger * track.full_area
                        and track.last_seen - track.whole_since >= self.lain_s):
                    # a card that lay still, moved, keeps its size (one on its way in turns and
                    # grows as it comes): a box this much larger than the card ever showed is
                    # another card held nearer the camera (three-player field film
                    # seed 325: Cid's salmon nigiri in his hand, read as an egg nigiri, took the
                    # track of his egg nigiri lying under the hand, 80 px off and 1.3 times its
                    # size; the egg's strip, once the salmon lay on it, was read as his card)
                    continue
                if dist > self.reid_distance * size:
                    continue
                # moved, it keeps its size; a strip of it lies where it lay (a sliver boxed
                # beside it, a hand's edge, is neither)
                if (overlap[0, 0] < 0.1 and not strip) or (strip and self._in_its_place(track, boxes[d])):
                    pairs.append((dist / size, t, d))
        out: list[tuple[int, int]] = []
        used_t: set[int] = set()
        used_d: set[int] = set()
        for _, t, d in sorted(pairs):
            if t not in used_t and d not in used_d:
                used_t.add(t)
                used_d.add(d)
                out.append((t, d))
        return out

    def _boxed_over(self, track: _Track, boxes: np.ndarray) -> bool:
        """Whether ``track`` has lain whole ``lain_s`` in one place and a box of this frame
        holds all of that place (0.9 of it): the card lies there still, boxed together with
        what is over it (a hand, the next card of its column on its way in), and is not a card
        of its name boxed elsewhere in the same frame.

        Seen with the real models on a five-player field film (dev seed 8): as Dan slid his
        second tempura in over his first, beside his squid nigiri, the detector boxed the
        squid together with the hand and, for one frame, read the tempura on its way in as a
        squid nigiri. Found again there, the squid followed the tempura's box for a second and
        a half while its own place made a second squid, read as Dan's card of that turn."""
        return bool(self._holding(track, boxes).any())

    @staticmethod
    def _in_its_place(track: _Track, box: np.ndarray) -> bool:
        """Whether half of ``box`` or more lies where ``track`` lay whole (where it lies, if
        it never showed whole): a strip of it, not a sliver boxed beside it."""
        lay = track.full_box if track.full_box is not None else track.box
        return bool(box_coverage(box[None], lay[None])[0, 0] >= 0.5)

    def _outgrown(self, track: _Track, area: float) -> bool:
        """Whether a box of ``area`` is too large to be ``track`` moved: a card keeps its size
        when moved, while a track that never showed more than a piece of a card (the detector
        boxing a corner of it apart) is no card that can come back as a whole one elsewhere."""
        return area * self.strip_ratio > track.full_area

    def _covering_it(self, track: _Track, box: np.ndarray) -> bool:
        """Whether ``box`` is a whole card laid over ``track``, a card showing only its strip:
        the size of ``track`` in full view, and not where ``track`` lay whole."""
        if track.full_box is None or _box_area(track.box) > self.strip_ratio * track.full_area:
            return False
        where_it_lay, _ = box_overlaps(track.full_box[None], box[None])
        return _box_area(box) >= 0.75 * track.full_area and where_it_lay[0, 0] < self.still_iou

    def _forget(self, now: float, seen: set[int]) -> None:
        keep: list[_Track] = []
        for track in self._tracks:
            if track.track_id in seen:
                keep.append(track)
            elif not track.confirmed:
                if now - track.first_seen <= self.tentative_s:
                    keep.append(track)
            elif now - track.last_seen <= self.keep_hidden_s:
                keep.append(track)
        self._tracks = keep

    def _output(self, seen: set[int]) -> Detections:
        tracks = sorted((t for t in self._tracks if t.confirmed), key=lambda t: t.track_id)
        return Detections(
            xyxy=np.array([t.box for t in tracks], float).reshape(-1, 4),
            class_id=np.array([t.class_id for t in tracks], int),
            confidence=np.array([t.share for t in tracks], float),
            data={
                "label": np.array([t.label for t in tracks], dtype=object),
                "track_id": np.array([t.track_id for t in tracks], int),
                "visible": np.array([t.track_id in seen for t in tracks], bool),
                "first_seen": np.array([t.first_seen for t in tracks], float),
                "label_since": np.array([t.label_since for t in tracks], float),
                "score": np.array([t.score for t in tracks], float),
                REGION_SCORE: np.array([t.region for t in tracks], float),
            },
        )


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
    its player: ``TurnDetector.reseat``). Seat points given fix the seats for good.

    >>> import numpy as np
    >>> from vision.detections import Detections
    >>> seats = SeatMemory(2, anchors=[(50, 400), (50, 0)])
    >>> cards = Detections(xyxy=np.array([[0, 0, 100, 150], [0, 300, 100, 450]], float),
    ...                    class_id=np.zeros(2, int), confidence=np.ones(2),
    ...                    data={"track_id": np.array([7, 8])})
    >>> seats.update(cards).data["seat"].tolist()
    [1, 0]
    """

    n_seats: int
    anchors: Sequence[tuple[float, float]] | None = None
    settle_s: float = 1.0
    near: float = 1.0
    along: float = 3.0
    crossing: float = 2.0
    turn_s: float = 3.0
    one_each: float = 3.0
    revise: bool = True
    wave_s: float = 2.0
    recall: int = 10
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
        """``tracked`` with ``data["seat"]``: -1 for cards that came before the seats are known.

        The seats are learned from cards that have lain in sight ``settle_s`` by ``now`` (a card
        still on its way in shows where its player's hand passes, not where it lies)."""
        ids = [int(i) for i in tracked.data["track_id"]]
        self.revised = {}
        fresh = [k for k, i in enumerate(ids) if i not in self._seat_of]
        settling = self._settling(tracked, ids, now)
        if not fresh and not settling:  # every card seated already (most frames): nothing to measure
            if len(self._seat_of) > len(ids):
                alive = set(ids)
                self._seat_of = {i: s for i, s in self._seat_of.items() if i in alive}
            return tracked.with_data(seat=np.array([self._seat_of[i] for i in ids], int))
        boxes = np.asarray(tracked.xyxy, float).reshape(-1, 4)
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        axes = card_axes(boxes)
        first_seen = tracked.data.get("first_seen")
        cards = [_Seated(centres[k], int(axes[k]), float(np.max(boxes[k, 2:] - boxes[k, :2])), _tilt(boxes[k]),
                         float(first_seen[k]) if first_seen is not None else (now or 0.0), boxes[k])
                 for k in range(len(ids))]
        if fresh and not self.learned:
            lying = fresh
            if now is not None and "first_seen" in tracked.data:
                visible = tracked.data.get("visible", np.ones(len(ids), bool))
                lying = [k for k in fresh if now - float(tracked.data["first_seen"][k]) >= self.settle_s
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
        return tracked.with_data(seat=seats)

    def _settling(self, tracked: Detections, ids: list[int], now: float | None) -> list[int]:
        """Cards seated, lying in sight ``settle_s`` and not yet remembered where they lie:
        what a revision of the seats reads."""
        if not self.learned or self.anchors is not None or not self.revise:
            return []
        if now is None or "first_seen" not in tracked.data:
            return [k for k, i in enumerate(ids) if i not in self._settled_seat]
        visible = tracked.data.get("visible", np.ones(len(ids), bool))
        first_seen = tracked.data["first_seen"]
        return [k for k, i in enumerate(ids) if i not in self._settled_seat and bool(visible[k])
                and now - float(first_seen[k]) >= self.settle_s]

    def _settle(self, track_id: int, card: _Seated) -> None:
        """Remember where a card lies. A track where an earlier card lies (about the same box, or
        a piece of it: a strip a newer card left of it, found again as a new track) is that
        card seen again, not one more card laid: it keeps that card's seat."""
        for earlier_id, earlier in self._settled.items():
            if card.box is None or earlier.box is None:  # a card seated without its box
                continue
            iou, inside = box_overlaps(card.box[None], earlier.box[None])
            if iou[0, 0] >= 0.8 or (inside[0, 0] >= 0.8 and _box_area(card.box) <= 0.6 * _box_area(earlier.box)):
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
            if self._settled[track_id].laid - self._settled[before].laid > self.wave_s:
                waves.append([])
            waves[-1].append(track_id)
        # the last ``recall`` turns are a round's worth: enough to tell the seats, and a long
        # game costs no more to read again than one round (older cards keep their seats)
        ids = [i for wave in waves[-self.recall:] for i in wave]
        at = {track_id: k for k, track_id in enumerate(ids)}
        waves = [[at[i] for i in wave] for wave in waves[-self.recall:]]
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
                cost = np.concatenate([base * self.one_each ** c + c * unit for c in range(copies)], axis=1)
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
            distance = float(np.hypot(offset @ row / self.along, offset @ np.array([-row[1], row[0]])))
        if card.axis >= 0 and axis is not None and axis != card.axis:
            distance *= self.crossing
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
                return now - self._laid.get(seat, -math.inf) <= self.turn_s
            if busy(best) and not busy(second) and costs[second] <= self.one_each * costs[best]:
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
            distance = float(np.hypot(along / self.along, across).min())
        axis = _majority_axis(members)
        if card.axis >= 0 and axis is not None and axis != card.axis:
            distance *= self.crossing  # it faces another way: another player's
        return distance

    def _learn(self, lying: list[tuple[int, _Seated]]) -> None:
        """Cards lying still found the seats: each joins the group of a card within ``near``
        card lengths of it, or starts a new one; ``n_seats`` groups are the seats."""
        placed = {i for group in self._groups for i, _ in group}
        for track_id, card in lying:
            if track_id in placed:
                continue
            home = next((g for g in self._groups if any(
                np.linalg.norm(card.centre - m.centre) <= self.near * min(card.size, m.size) for _, m in g)), None)
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
        unseen, such a card was taken for that player's seat and the seats were learned wrong
        (four-player field film seed 61: Ann's pudding taken for Ben's seat). Read again as
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
                        abs(c.laid - m.laid) <= self.wave_s for c in cards for m in members):
                    continue
                cost = max(self._cost(c, members, middle) / c.size for c in cards)
                if cost <= self.along / 2 and cost < least:
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
    angles = [math.radians(turn_towards(h - middle)) for h in homes]
    bottom = min(range(len(homes)), key=lambda k: _turn_between(angles[k], 0.0) + tilts[k])
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


def _turn_between(a: float, b: float) -> float:
    """The smaller angle between two directions (radians)."""
    d = abs(a - b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)
