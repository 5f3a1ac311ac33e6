"""Follow the cards on a table across the frames of a live camera.

Two one-verb stages over :class:`~vision.detections.Detections`:

- :class:`CardTracker` ``.update(detections, timestamp) -> Detections``: every card keeps one
  ``data[TRACK_ID]`` for as long as it lies on the table; its name is settled by a
  confidence-weighted vote over its recent sightings (``data[LABEL]``); a card hidden for a
  few seconds (a hand over the table, a column being straightened) is kept, with
  ``data[VISIBLE]`` False, at the place it was last seen.
- :class:`SeatMemory` ``.update(tracked) -> Detections``: each card gets the seat
  (``data[SEAT]``) whose remembered area it lies in, once, when it first appears.

Why not ultralytics' ByteTrack: its Kalman motion model is made for things that move, and it
drops a lost track after a fixed number of frames. Cards do not move; they get covered (by a
hand, or by the next card of a column, which shrinks the visible box to a strip), so matching
here compares boxes by overlap *and* containment and prefers the same name; a card seen again
near where a same-named card vanished is the same card (a column straightened). A card that
has lain whole in one place stays there: a same-named box reaching a strip past it after a hand
was over it is the next card of its column, even when the detector boxes the thin strip it
leaves together with it (far cards of a table that seats five).

>>> import numpy as np
>>> from vision.detections import FIRST_SEEN, LABEL, LABEL_SINCE, REGION_SCORE, SCORE, TRACK_ID, VISIBLE, Detections
>>> def frame(*cards):
...     return Detections(xyxy=np.array([c[1] for c in cards], float).reshape(-1, 4),
...                       class_id=np.zeros(len(cards), int), confidence=np.full(len(cards), 0.9),
...                       data={"label": np.array([c[0] for c in cards], dtype=object)})
>>> tracker = CardTracker(TrackerTuning(confirm_hits=2))
>>> _ = tracker.update(frame(("tempura", (0, 0, 100, 150))), timestamp=0.0)
>>> tracked = tracker.update(frame(("tempura", (2, 1, 101, 152))), timestamp=0.1)
>>> tracked.data[TRACK_ID].tolist(), tracked.data[LABEL].tolist()
([1], ['tempura'])
>>> tracked = tracker.update(frame(), timestamp=2.0)   # a hand over the card: kept
>>> tracked.data[TRACK_ID].tolist(), tracked.data[VISIBLE].tolist()
([1], [False])
>>> len(tracker.update(frame(), timestamp=10.0))        # gone for good
0
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from vision.boxes import area as _box_area
from vision.boxes import areas as _box_areas
from vision.boxes import coverage_matrix as box_coverage
from vision.boxes import overlaps as box_overlaps
from vision.boxes import piece_mask
from vision.detections import (
    FIRST_SEEN,
    LABEL,
    LABEL_SINCE,
    MOVED_AT,
    REGION_SCORE,
    REST_BOX,
    SCORE,
    STATE,
    TRACK_ID,
    VISIBLE,
    Detections,
)
from vision.live.matching import Cards, pair
from vision.live.seating import SeatMemory
from vision.live.tuning import TrackerTuning


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


class CardState(StrEnum):
    """What a tracked card is doing, frame by frame (``data[STATE]``)."""

    ARRIVING = "arriving"  # in sight, first seen within ``arriving_s`` and not yet lain still ``lain_s``
    LYING = "lying"  # in sight, whole, where it lies
    COVERED = "covered"  # in sight only in part (a strip under the next card, a hand over it)
    HIDDEN = "hidden"  # out of sight, kept where it was last seen
    GONE = "gone"  # out of sight too long: no longer tracked (``CardTracker.gone`` this frame)


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

    ``update(detections, timestamp)`` takes one frame's detections (``data[LABEL]`` holds
    slugs) and returns the cards on the table now: ``xyxy`` where each was last seen,
    ``class_id``/``data[LABEL]`` by vote, ``confidence`` the share of the vote,
    ``data[SCORE]`` the mean recogniser confidence of the recent sightings,
    ``data[REGION_SCORE]`` their mean detector score, ``data[TRACK_ID]``, ``data[VISIBLE]`` (seen in this frame), ``data[FIRST_SEEN]``
    and ``data[LABEL_SINCE]`` (timestamps). Timestamps are seconds; left out, frames are
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
      whole (its box of then this much the same), is that card, not a second one; and its box
      goes back there, wherever it was last (found for a frame in a card laid beside it).
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

    tuning: TrackerTuning = field(default_factory=TrackerTuning)
    _tracks: list[_Track] = field(default_factory=list, init=False, repr=False)
    _next_id: int = field(default=1, init=False, repr=False)
    _frames: int = field(default=0, init=False, repr=False)
    _now: float = field(default=0.0, init=False, repr=False)
    _previous: float = field(default=-math.inf, init=False, repr=False)
    #: per (track id, detection index) paired in the last frame, the matching rule that decided it
    decided: dict[tuple[int, int], str] = field(default_factory=dict, init=False, repr=False)

    #: the track ids the last update stopped following (out of sight ``keep_hidden_s``)
    gone: list[int] = field(default_factory=list, init=False, repr=False)

    def reset(self) -> None:
        """Forget every card (a new game)."""
        self._tracks.clear()
        self._next_id, self._frames, self._now = 1, 0, 0.0

    def update(self, detections: Detections, timestamp: float | None = None) -> Detections:
        now = self._frames / self.tuning.frame_rate if timestamp is None else float(timestamp)
        self._frames += 1
        self._previous, self._now = self._now if self._frames > 1 else -math.inf, now
        boxes = np.asarray(detections.xyxy, float).reshape(-1, 4)
        labels = [str(x) for x in detections.data.get(LABEL, np.array([], dtype=object))]
        class_ids = np.asarray(detections.class_id).reshape(-1)
        confidence = (
            np.ones(len(boxes)) if detections.confidence is None
            else np.asarray(detections.confidence, float).reshape(-1)
        )
        region = np.asarray(detections.data.get(REGION_SCORE, confidence), float).reshape(-1)
        keep = inner_duplicates(boxes, labels, self.tuning.strip_ratio)
        if not keep.all():
            boxes, class_ids, confidence, region = boxes[keep], class_ids[keep], confidence[keep], region[keep]
            labels = [lab for lab, k in zip(labels, keep, strict=True) if k]
        matched, moving, over_a_card = self._match(boxes, labels)
        unmatched = sorted(set(range(len(boxes))) - {d for _, d in matched})
        # a box taken for the next card of a column laid over a card lying still is no card
        # moved there from elsewhere either: a card beside it, boxed wider on the side of the
        # hand, would otherwise go to the card under the hand as if moved there, and the strip
        # of that card, seen again, would be read as one more card laid
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
            held = grown_since is not None and now - grown_since < self.tuning.lain_s
            # a misread frame, or a stray box that barely overlaps, does not move the card
            if not held and labels[d] == track.label and (iou[0, 0] >= self.tuning.moved_iou or inside[0, 0] >= self.tuning.moved_inside
                                                          or (t, d) in moving or self._back_where_it_lay(track, boxes[d])):
                track.box = boxes[d].copy()
                track.full_area = max(track.full_area, _box_area(track.box))
                if _box_area(track.box) >= self.tuning.whole_share * track.full_area:
                    if track.full_box is None or box_overlaps(track.full_box[None], track.box[None])[0][0, 0] < self.tuning.whole_iou:
                        track.whole_since = now
                    if iou[0, 0] >= self.tuning.whole_iou:
                        track.rest_box = track.box.copy()
                    track.full_box = track.box.copy()
                else:
                    track.covered_at = now
            if not track.confirmed and track.hits >= self.tuning.confirm_hits:
                track.confirmed = True
            seen.add(track.track_id)
        self._drop_doubles(seen)
        self._merge_twins(seen)
        for d in sorted(set(range(len(boxes))) - {d for _, d in matched}):
            if pieces[d]:
                continue
            track = _Track(self._next_id, boxes[d].copy(), now, now, deque(maxlen=self.tuning.vote_window))
            track.full_area = _box_area(track.box)
            track.full_box = track.box.copy()
            track.whole_since = now
            track.vote(labels[d], int(class_ids[d]), float(confidence[d]), now, float(region[d]))
            track.label_since = now
            track.confirmed = self.tuning.confirm_hits <= 1
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
        (``vision.live.matching``: its named rules, in order; :attr:`decided` keeps which rule
        decided each pair, by track id)."""
        if not self._tracks:
            self.decided = {}
            return [], set(), np.zeros(len(boxes), bool)
        result = pair(self._cards(), boxes, labels, self.tuning)
        self.decided = {(self._tracks[t].track_id, d): rule for (t, d), rule in result.decided.items()}
        return result.pairs, result.moving, result.over_a_card

    def _cards(self) -> Cards:
        """The tracks as ``vision.live.matching`` reads them."""
        tracks = self._tracks
        box = np.stack([t.box for t in tracks])
        full = np.stack([t.full_box if t.full_box is not None else t.box for t in tracks])
        return Cards(
            boxes=box, full=full,
            rest=np.stack([t.rest_box if t.rest_box is not None else f for t, f in zip(tracks, full, strict=True)]),
            full_area=np.array([t.full_area for t in tracks], float),
            labels=[t.label for t in tracks],
            unseen=np.array([self._now - t.last_seen for t in tracks], float),
            just_seen=np.array([t.last_seen >= self._previous for t in tracks], bool),
            arriving=np.array([t.last_seen >= self._previous and self._now - t.first_seen <= self.tuning.arriving_s
                               for t in tracks], bool),
            lain=np.array([self._lain(t) for t in tracks], bool),
            glimpse=np.array([self._glimpsed(t, self.tuning.glimpse_s) for t in tracks], bool),
            confirmed=np.array([t.confirmed for t in tracks], bool),
        )

    def _glimpsed(self, track: _Track, span: float, longest: bool = False) -> bool:
        """Whether ``track`` was in sight for less than ``span`` seconds (at most, ``longest``)
        and has been out of sight for more than ``arriving_s``: a glimpse, not a card lying
        there (a misread for a few frames, a card seen in the hand carrying it)."""
        shown = track.last_seen - track.first_seen
        return (shown <= span if longest else shown < span) and self._now - track.last_seen > self.tuning.arriving_s

    def _boxed_with_more(self, track: _Track, box: np.ndarray) -> bool:
        """Whether ``box``, matched to ``track``, holds all of where the card has lain whole
        ``lain_s`` or more and is ``1 + 2 * grown_share`` times the largest box the card
        showed: the card boxed together with what a hand brings over it (the next card of
        its column on its way in, the hand's edge). The card keeps its box, size and place.

        Why: a card coming in over one of its kind is boxed together with it for a frame or
        two; taken as where the card lies, that box would let the card below follow the new
        card while its own strip became a card of its own. A hand passing over a far card is
        boxed with it the same way: taken as the card, such boxes would make it larger than
        it is, and the card seen again at its own size would be a second card."""
        return bool(self._holding(track, box[None]).any()
                    and _box_area(box) > (1 + 2 * self.tuning.grown_share) * track.full_area)

    def _holding(self, track: _Track, boxes: np.ndarray) -> np.ndarray:
        """Mask of ``boxes`` that hold all of where ``track`` has lain whole ``lain_s`` or more
        (0.9 of that place); none where it has not lain so long."""
        if track.full_box is None or not len(boxes) or self._now - track.whole_since < self.tuning.lain_s:
            return np.zeros(len(boxes), bool)
        return box_coverage(track.full_box[None], boxes)[0] >= 0.9

    def _pieces(self, boxes: np.ndarray, labels: Sequence[str]) -> np.ndarray:
        """Mask of the boxes that are a piece of a card boxed whole in the same frame: lying
        ``piece_inside`` of their area within a box of the same name ``piece_larger`` times
        theirs. Such a box matching no card, or only one still being confirmed, is no new
        card (:meth:`update` starts no track for it, and confirms none).

        Why: a card lying diagonally is boxed whole and its corner with the icon boxed again,
        mostly within the whole box; that piece is no second card. A true strip of a column
        lying in such a box is the card beneath, which lay there first: its track takes the
        strip."""
        return piece_mask(boxes, labels, self.tuning.piece_inside, self.tuning.piece_larger)

    def _lain(self, track: _Track) -> bool:
        """Whether ``track`` has lain whole ``lain_s`` in one place, and a hand was over it in
        the last ``arriving_s`` (as one is when a card is laid on it)."""
        return (self._now - track.whole_since >= self.tuning.lain_s and track.whole_since <= track.covered_at
                and self._now - track.covered_at <= self.tuning.arriving_s)

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
                if (iou >= self.tuning.double_iou).any():
                    doubles.add(track.track_id)
            elif (track.track_id not in seen and self._now - track.first_seen <= self.tuning.arriving_s + 1.0
                  and any(iou[0, k] >= self.tuning.double_iou and other.label == track.label
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
                if iou[k, j] >= self.tuning.twin_iou:
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
        strip is the card's strip only where the card lay: a sliver boxed beside a card as the
        hand lays the next one may be read under the card's name, and is not the card. The card
        found again takes the new box: it lies there now.
        """
        if not unmatched:
            return []
        taken = {t for t, _ in matched}
        # (a card seen only on its way in, under the hand carrying it, is found again only soon
        # after: found seconds later, it was a glimpse of the card now lying elsewhere; and a
        # card lying still under a box that holds all of it has not moved: ``_boxed_over``)
        hidden = [i for i, t in enumerate(self._tracks) if i not in taken and t.confirmed
                  and not self._glimpsed(t, self.tuning.arriving_s, longest=True) and not self._boxed_over(t, boxes)]
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
                strip = area <= self.tuning.strip_ratio * track.full_area
                if self._covering_it(track, boxes[d]) or self._outgrown(track, area):
                    continue
                if (not strip and area > self.tuning.moved_larger * track.full_area
                        and track.last_seen - track.whole_since >= self.tuning.lain_s):
                    # a card that lay still, moved, keeps its size (one on its way in turns and
                    # grows as it comes): a box this much larger than the card ever showed is
                    # another card held nearer the camera (a card in a hand, misread as the
                    # card lying under the hand, must not take that card's track)
                    continue
                if dist > self.tuning.reid_distance * size:
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

    def _back_where_it_lay(self, track: _Track, box: np.ndarray) -> bool:
        """Whether ``box`` shows ``track`` whole again where it last lay whole (overlapping
        that place ``whole_iou``) while its box is elsewhere: the card lies there, and its box
        goes back to it (the box it left is another card's, or a piece of one).

        Why: a card lying beside where the next card comes in may be found for a frame in that
        card's box (a hand hid it, the new card boxed in part); matched again where it lay, it
        must not keep the new card's box, or that card, lying under it, is never a card."""
        if track.full_box is None:
            return False
        where_it_lay = box_overlaps(track.full_box[None], box[None])[0][0, 0]
        where_it_is = box_overlaps(track.box[None], box[None])[0][0, 0]
        return bool(where_it_lay >= self.tuning.whole_iou and where_it_is < self.tuning.moved_iou)

    def _boxed_over(self, track: _Track, boxes: np.ndarray) -> bool:
        """Whether ``track`` has lain whole ``lain_s`` in one place and a box of this frame
        holds all of that place (0.9 of it): the card lies there still, boxed together with
        what is over it (a hand, the next card of its column on its way in), and is not a card
        of its name boxed elsewhere in the same frame.

        Why: a card slid in beside another may be read for a frame under the other's name,
        while the other is boxed together with the hand; found again there, the card lying
        still would follow the new card's box while its own place made a second card."""
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
        return area * self.tuning.strip_ratio > track.full_area

    def _covering_it(self, track: _Track, box: np.ndarray) -> bool:
        """Whether ``box`` is a whole card laid over ``track``, a card showing only its strip:
        the size of ``track`` in full view, and not where ``track`` lay whole."""
        if track.full_box is None or _box_area(track.box) > self.tuning.strip_ratio * track.full_area:
            return False
        where_it_lay, _ = box_overlaps(track.full_box[None], box[None])
        return _box_area(box) >= 0.75 * track.full_area and where_it_lay[0, 0] < self.tuning.still_iou

    def _forget(self, now: float, seen: set[int]) -> None:
        """Drop the tracks no longer on the table; the confirmed ones go to :attr:`gone`."""
        keep: list[_Track] = []
        for track in self._tracks:
            if track.track_id in seen:
                keep.append(track)
            elif not track.confirmed:
                if now - track.first_seen <= self.tuning.tentative_s:
                    keep.append(track)
            elif now - track.last_seen <= self.tuning.keep_hidden_s:
                keep.append(track)
        kept = {t.track_id for t in keep}
        self.gone = [t.track_id for t in self._tracks if t.confirmed and t.track_id not in kept]
        self._tracks = keep

    def _state(self, track: _Track, seen: set[int]) -> CardState:
        if track.track_id not in seen:
            return CardState.HIDDEN
        if track.covered_at >= self._now:
            return CardState.COVERED
        if (self._now - track.first_seen <= self.tuning.arriving_s
                and self._now - track.whole_since < self.tuning.lain_s):
            return CardState.ARRIVING
        return CardState.LYING

    def _output(self, seen: set[int]) -> Detections:
        tracks = sorted((t for t in self._tracks if t.confirmed), key=lambda t: t.track_id)
        return Detections(
            xyxy=np.array([t.box for t in tracks], float).reshape(-1, 4),
            class_id=np.array([t.class_id for t in tracks], int),
            confidence=np.array([t.share for t in tracks], float),
            data={
                LABEL: np.array([t.label for t in tracks], dtype=object),
                TRACK_ID: np.array([t.track_id for t in tracks], int),
                VISIBLE: np.array([t.track_id in seen for t in tracks], bool),
                FIRST_SEEN: np.array([t.first_seen for t in tracks], float),
                LABEL_SINCE: np.array([t.label_since for t in tracks], float),
                SCORE: np.array([t.score for t in tracks], float),
                REGION_SCORE: np.array([t.region for t in tracks], float),
                STATE: np.array([self._state(t, seen) for t in tracks], dtype=object),
                REST_BOX: np.array([t.rest_box if t.rest_box is not None else
                                    t.full_box if t.full_box is not None else t.box for t in tracks],
                                   float).reshape(-1, 4),
                MOVED_AT: np.array([t.whole_since for t in tracks], float),
            },
        )


__all__ = ["CardTracker", "SeatMemory", "inner_duplicates"]
