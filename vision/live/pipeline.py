"""Follow a game live: frames from a camera, a video file or a browser, turns and scores out.

One path for every source: ``frame → Recognizer.detect → CardTracker.update →
SeatMemory.update → CardHistory.update → TurnReader.update`` (:class:`LivePipeline` over
:class:`LiveGame`): the tracker, the seats and the card history read boxes; the turn reader
reads none: it takes the history's events, and at each step of reading a turn tells the
history which cards it is about to count and takes what it settled (``CardHistory.settle``:
which boxes are a card already there), as events too. Each frame gives a
:class:`LiveState`: the cards on the table now (box, name, seat, what the game made of them),
the events of this frame, the per-turn log so far and the scores.

:func:`open_source` reads a camera (``--camera N``) or a video file (``--video FILE``) with
OpenCV; :func:`follow` runs the pipeline over it; :func:`annotate` draws the read-out on a
frame (for the MJPEG stream and ``--show``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorer.results import ScoreJSON
from vision.boxes import iou_matrix as box_iou
from vision.detections import (
    FIRST_SEEN,
    LABEL,
    REGION_SCORE,
    SCORE,
    SEAT,
    TRACK_ID,
    VISIBLE,
    Detections,
)
from vision.live.events import CardEvent, Snapshot, snapshot, step
from vision.live.history import CardHistory
from vision.live.notes import LiveNote, NoteCause
from vision.live.state import LiveCardJSON, LiveStateJSON
from vision.live.tracker import CardTracker, SeatMemory
from vision.live.tuning import Tuning
from vision.live.turns import LiveEvent, TurnReader

#: Seat colours (BGR) for the overlay; the page uses the same hues.
SEAT_COLOURS = ((46, 87, 228), (143, 157, 42), (0, 168, 233), (147, 76, 106), (200, 134, 58),
                (50, 168, 118), (123, 69, 214), (51, 90, 138))


@dataclass(frozen=True)
class LiveState:
    """What the live view knows after one frame (``to_json`` is what the page receives)."""

    frame: int
    timestamp: float
    cards: tuple[LiveCardJSON, ...]
    events: tuple[LiveEvent, ...]
    record: dict
    pending: dict[str, list[str]]
    scores: ScoreJSON | None
    score_error: str | None
    notes: tuple[LiveNote, ...]  # what the reader made of the table (``vision.live.notes``)
    seconds: dict[str, float] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # slug -> the name players know

    def to_json(self) -> LiveStateJSON:
        return {
            "frame": self.frame,
            "timestamp": round(self.timestamp, 3),
            "cards": list(self.cards),
            "events": [
                {"kind": e.kind, "round": e.round, "turn": e.index,
                 "log": e.turn.to_json() if e.turn else None, "text": str(e)}
                for e in self.events
            ],
            "record": self.record,
            "pending": self.pending,
            "scores": self.scores,
            "score_error": self.score_error,
            "notes": [str(n) for n in self.notes],  # in English, for the command line
            "reader_notes": [n.to_json() for n in self.notes],  # cause and facts, for a page to word
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
            "names": self.names,
        }


class LiveGame:
    """One game followed from its detections: tracking, seats, turns, scores.

    ``players`` are the names in seat order: seat 0 is the player nearest the bottom of the
    picture, then clockwise as the picture shows the table. ``seat_anchors`` (one point per
    player, in pixels) fix the seats; left out, they are learned from where each player's cards lie
    and which way they face (:class:`~vision.live.tracker.SeatMemory`), and read again as more
    cards are laid: a card the seats then give another player is that player's in the turns
    already read too.

    Whatever is found in the first ``background_s`` seconds is the table before the game (a
    pattern on the cloth read as a card, cards of another game): it is shown, not played; so
    is a new card until the recogniser's mean confidence in it reaches ``min_score``: the
    strip of a card and the edge of the card laid on it, boxed together, are read as a third
    card at a lower confidence than any card laid. A card the detector is sure of (mean score
    ``card_region``) is in play however unsure its name: a print that reads half as one nigiri
    and half as another is still a card laid. Thresholds: ``tuning`` (:class:`Tuning`).
    """

    def __init__(self, players: Sequence[str], edition: str = "party", *,
                 menu: object = None, variants: object = None,
                 seat_anchors: Sequence[tuple[float, float]] | None = None,
                 tuning: Tuning | None = None) -> None:
        from scorer.editions import EDITIONS

        if edition not in EDITIONS:
            raise ValueError(f"unknown edition {edition!r} (expected {', '.join(EDITIONS)})")
        players = tuple(p.strip() for p in players)
        if len(players) < 2 or any(not p for p in players):
            raise ValueError("a live game needs at least two player names, in seat order")
        low, high = EDITIONS[edition].players
        if not low <= len(players) <= high:
            raise ValueError(f"{len(players)} players, but {EDITIONS[edition].name} is for {low}-{high}")
        self.players = players
        self.edition = edition
        # the game's setup as the app holds it (a Party menu, variants), kept in the record
        self.setup = {k: v for k, v in (("menu", menu), ("variants", variants)) if v is not None}
        self.faces = _deck_faces(edition, menu)
        self._names: dict[str, str] = {}
        self.tuning = tuning or Tuning()
        self.tracker = CardTracker(self.tuning.tracker)
        self.seats = SeatMemory(len(players), anchors=seat_anchors, tuning=self.tuning.seats)
        #: the one history of the cards, from the seated tracks; the turn reader reads its events
        self.history = CardHistory(self.tuning.history, self.tuning.turns)
        self.turns = TurnReader(players, edition, tuning=self.tuning.turns, cards=self.history)
        self.frames = 0
        self._start: float | None = None
        #: what happened to each card in play in the last frame (``vision.live.events``)
        self.card_events: list[CardEvent] = []
        self._snapshot: dict[int, Snapshot] = {}
        self._background: set[int] = set()
        self._background_boxes: list[np.ndarray] = []
        self._known: set[int] = set()
        self._scores: tuple[ScoreJSON | None, str | None] = (None, None)
        self._scored_version = -1
        self._version = 0
        # the last frame's cards in play, the others, its time
        self._last: tuple[Detections, Detections, float] = (Detections.empty(), Detections.empty(), 0.0)
        self.score_fault: Exception | None = None  # the scorer's RecordError behind score_error

    def update(self, detections: Detections, timestamp: float) -> LiveState:
        started = time.perf_counter()
        if self._start is None:
            self._start = float(timestamp)
        everything = self.tracker.update(detections, timestamp)
        ids = everything.data[TRACK_ID]
        early = everything.data[FIRST_SEEN] < self._start + self.tuning.game.background_s
        fresh = {int(i) for i in ids[early]} - self._background
        if fresh:
            self._background |= fresh
            self._background_boxes.extend(everything.xyxy[early])
            self.turns.notes.append(LiveNote(NoteCause.BACKGROUND, count=len(fresh)))
        elif self._background_boxes and len(ids):
            # the same thing seen again later (it flickers in and out) is still the table
            unknown = ~np.isin(ids, list(self._known | self._background))
            if unknown.any():
                overlap = box_iou(everything.xyxy[unknown], np.stack(self._background_boxes)).max(1)
                self._background |= {int(i) for i in ids[unknown][overlap >= 0.5]}
        # a new card counts once the recogniser is sure enough of it, and is the size of a card
        # (a stretch of cloth boxed as one card is many times a card's size); a card in play stays
        region = everything.data[REGION_SCORE]
        game = self.tuning.game
        sure = (((everything.data[SCORE] >= game.min_score) | (region >= game.card_region))
                & ~_oversized(everything.xyxy, game.oversized))
        self._known |= {int(i) for i in ids[sure]} - self._background
        in_play = np.isin(ids, list(self._known))
        tracked = self.seats.update(everything[in_play], timestamp)
        if self.seats.revised:
            # the seats read again from more cards: the turns read so far follow them
            self.turns.reseat(self.history.reseat(self.seats.revised))
            self._version += 1
        now = snapshot(tracked)
        self.card_events = step(self._snapshot, now, float(timestamp))
        self._snapshot = now
        events = self.turns.update(self.history.update(tracked, float(timestamp), self.turns.facts()), timestamp)
        self._last = (tracked, everything[~in_play], float(timestamp))
        tracking = time.perf_counter() - started
        self.frames += 1
        return self._state(events, {"track": tracking})

    def finish(self) -> LiveState:
        """The picture has ended (the film, the camera): the turn in play closes as the table
        lay in the last frame (:meth:`TurnReader.finish`)."""
        return self._state(self.turns.finish())

    def end_round(self) -> LiveState:
        """The players end the round: the turn in play closes, then the round
        (:meth:`TurnReader.end_round`); the next card laid is the next round's."""
        return self._state(self.turns.end_round())

    def _state(self, events: list[LiveEvent], seconds: dict[str, float] | None = None) -> LiveState:
        """What the game knows now, with the cards of the last frame seen."""
        if events:
            self._version += 1
        tracked, others, timestamp = self._last
        scores, error = self.scores()
        cards = (tuple(self._cards(tracked)) + tuple(self._background_cards(others, self._background))
                 if self.frames else ())
        record, pending = self.record(), self.turns.pending()
        return LiveState(
            frame=self.frames, timestamp=timestamp,
            cards=cards, events=tuple(events), record=record, pending=pending,
            scores=scores, score_error=error, notes=tuple(self.turns.notes),
            seconds=seconds or {}, names=self.names(cards, record, pending),
        )

    def record(self) -> dict:
        """The game record so far: what ``sushicam score`` and the web app store and score."""
        return self.turns.record(**self.setup)

    def fix_turn(self, round_index: int, index: int, value: object) -> None:
        """A player's correction of a turn read (see :meth:`TurnReader.fix_turn`)."""
        self.turns.fix_turn(round_index, index, value)
        self._version += 1

    def names(self, cards=(), record: dict | None = None, pending: dict | None = None) -> dict[str, str]:
        """Every card text shown (on the cards, in the log, in the pending turn) by the name
        printed on the card in this edition: ``special-order:eel`` is "Special Order (Eel)"."""
        texts = {c["text"] for c in cards} | {c["label"] for c in cards}
        for rnd in (record or {}).get("rounds", []):
            for turn in rnd["turns"]:
                texts.update(t for cards_ in turn["reveals"].values() for t in cards_)
                texts.update(t for e in turn.get("events", []) for t in e.get("cards", []))
        for cards_ in (pending or {}).values():
            texts.update(cards_)
        for text in texts - self._names.keys():
            self._names[text] = card_text(text, self.edition)
        return {t: self._names[t] for t in texts}

    def scores(self) -> tuple[ScoreJSON | None, str | None]:
        """``(scores, None)`` from the scorer, or ``(None, why)`` while the log is not scorable."""
        if self._scored_version != self._version:
            from scorer import RecordError, score_record

            self.score_fault = None
            try:
                self._scores = (score_record(self.record()), None)
            except RecordError as exc:
                self._scores = (None, str(exc))
                self.score_fault = exc  # its cause and facts, for a page to word it for players
            self._scored_version = self._version
        return self._scores

    @staticmethod
    def _background_cards(found: Detections, background: set[int]) -> list[LiveCardJSON]:
        """Boxes not in play: the table before the game, or a reading still too unsure."""
        return [{"id": int(i), "box": [round(float(v), 1) for v in found.xyxy[k]],
                 "label": str(found.data[LABEL][k]), "seat": -1, "player": None,
                 "visible": bool(found.data[VISIBLE][k]),
                 "status": "background" if int(i) in background else "unsure", "turn": -1,
                 "text": str(found.data[LABEL][k])} for k, i in enumerate(found.data[TRACK_ID])]

    def _cards(self, tracked: Detections) -> list[LiveCardJSON]:
        states = self.turns.card_states()
        out: list[LiveCardJSON] = []
        for k in range(len(tracked)):
            track_id = int(tracked.data[TRACK_ID][k])
            game = states.get(track_id, {})
            # a stray (a box that came with a player's card, no card of theirs) is of no seat
            seat = -1 if game.get("status") == "stray" else int(tracked.data[SEAT][k])
            out.append({
                "id": track_id,
                "box": [round(float(v), 1) for v in tracked.xyxy[k]],
                "label": str(tracked.data[LABEL][k]),
                "seat": seat,
                "player": self.players[seat] if 0 <= seat < len(self.players) else None,
                "visible": bool(tracked.data[VISIBLE][k]),
                "status": game.get("status", "new"),
                "turn": game.get("turn", -1),
                "text": game.get("text", str(tracked.data[LABEL][k])),
            })
        return out


def _deck_faces(edition: str, menu: object) -> frozenset[str] | None:
    """The faces the game's deck holds (its edition's, narrowed by a Party menu), or None where
    a stored menu cannot be read (then every face the recogniser knows)."""
    from vision.deck import Deck, DeckError

    try:
        names = menu if edition == "party" and isinstance(menu, (str, list, tuple)) else None
        if edition == "party" and menu is not None and names is None:
            return None  # a stored menu of no form a menu has
        return Deck.of(edition, names).allowed
    except (DeckError, TypeError):
        return None


def _oversized(xyxy: np.ndarray, times: float = 3.0) -> np.ndarray:
    """Boxes whose long side is more than ``times`` the middle box's of the table (three or
    more boxes): no card lies that much nearer the camera than the others.

    Long sides, not areas: where cards lie in columns most boxes are the strips the cards
    laid over them leave, each as long as a card is wide but a fifth of its area: a whole
    card there is several times the area of the table's middle box and must still come
    into play. A card's long side is about 1.5 times its
    width, and a near card of a tilted camera half as long again as a far one: three times
    the middle long side is no card, a stretch of cloth boxed as one is many cards wide.

    >>> _oversized(np.array([[0, 0, 60, 20], [0, 30, 60, 50], [0, 60, 60, 152], [0, 200, 400, 500]], float)).tolist()
    [False, False, False, True]
    """
    xyxy = np.asarray(xyxy, float).reshape(-1, 4)
    if len(xyxy) < 3:
        return np.zeros(len(xyxy), bool)
    sides = np.max(xyxy[:, 2:] - xyxy[:, :2], axis=1)
    return sides > times * float(np.median(sides))


def card_text(text: str, edition: str) -> str:
    """A card of the log (a slug, ``special-order:<slug>``, ``card-back``) as players name it.

    >>> card_text("special-order:salmon-nigiri", "party"), card_text("card-back", "party")
    ('Special Order (Salmon Nigiri)', 'face down')
    """
    from scorer.cards import CARD_BACK, CARDS, display_name

    slug, _, copied = text.partition(":")
    if slug == CARD_BACK:
        return "face down"
    if slug not in CARDS:
        return text
    name = display_name(slug, edition)
    return f"{name} ({card_text(copied, edition)})" if copied else name


Detector = Callable[[np.ndarray], Detections]


class LabelCache:
    """A recogniser that names again only the regions that changed.

    On a table most cards lie still from frame to frame: the region detector runs on every
    frame, but a region whose box matches (IoU >= ``same_iou``) one named in the last
    ``refresh`` frames keeps that name instead of going through the classifier again. Every
    region is still re-read every ``refresh`` frames, so a card turned over or a misread
    settles within a fraction of a second (the tracker votes over the readings anyway).

    Regions are found, named and kept as the recogniser's own ``detect`` does (its
    ``detector`` at ``region_threshold``, ``name``, ``named_regions``): only the reuse of a
    name is this class's.
    """

    def __init__(self, recognizer, refresh: int = 4, same_iou: float = 0.9) -> None:
        self.recognizer = recognizer
        self.refresh = max(int(refresh), 1)
        self.same_iou = same_iou
        self._boxes = np.zeros((0, 4), np.float32)
        self._labels = np.array([], dtype=object)
        self._scores = np.zeros(0, np.float32)
        self._ages = np.zeros(0, int)
        self.classified = 0  # regions sent to the classifier so far (for the benchmark)
        self.allowed: frozenset[str] | None = None

    def allow(self, faces: frozenset[str] | None) -> None:
        """Name regions only as ``faces`` (a game's deck, ``vision.deck.Deck.allowed``); every
        region is read again under them."""
        self.allowed = faces
        self._boxes = np.zeros((0, 4), np.float32)

    def __call__(self, image_bgr: np.ndarray) -> Detections:
        return self.detect(image_bgr)

    def detect(self, image_bgr: np.ndarray) -> Detections:
        from vision.boxes import greedy_matching as greedy_assignment

        rec = self.recognizer
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected a colour image (H, W, 3) in BGR order")
        boxes, scores = rec.detector(image_bgr, conf=rec.region_threshold)
        n = len(boxes)
        labels = np.empty(n, dtype=object)
        label_scores = np.zeros(n, np.float32)
        ages = np.zeros(n, int)
        fresh = np.ones(n, bool)
        if n and len(self._boxes):
            iou = box_iou(boxes, self._boxes)
            for d, c in greedy_assignment(iou, self.same_iou):
                if self._ages[c] + 1 < self.refresh:
                    labels[d], label_scores[d], ages[d] = self._labels[c], self._scores[c], self._ages[c] + 1
                    fresh[d] = False
        todo = np.flatnonzero(fresh)
        if len(todo):
            naming = rec.name(image_bgr, boxes[todo], self.allowed)
            # a region is as sure a card as its likeliest face, in the deck or not (as the
            # recogniser's own detect keeps it)
            labels[todo], label_scores[todo] = naming.labels, naming.sureness
            self.classified += len(todo)
        self._boxes, self._labels, self._scores, self._ages = boxes, labels, label_scores, ages
        # regions named "not a card" stay cached (not re-read every frame) but are not cards
        return rec.named_regions(boxes, scores, labels.astype(str), label_scores)


class StillTable:
    """``detect`` run again only when the picture changed: a table nobody touches gives the
    cards it gave a moment ago.

    Between turns the table lies still for seconds; a hand reaching in, a card laid or turned
    changes the picture at once. Each frame is shrunk to a grey thumbnail (1/``shrink`` of
    its size, its mean brightness taken off, so a webcam's exposure drifting is no change);
    when no part of it differs by more than ``threshold`` grey levels from the thumbnail of
    the last frame read (its ``share`` most-changed pixels aside: sensor noise), the last
    reading stands. Every ``every``-th frame is read anyway: by ``detect_still`` when given
    (a closer look, at more cost: a still table is what the game is read from, while frames
    that change are mostly hands to follow; its reading stands ``3 * every`` frames while the
    table stays still), else by ``detect``.
    """

    def __init__(self, detect: Detector, every: int = 5, threshold: float = 12.0, shrink: int = 8,
                 share: float = 0.002, detect_still: Detector | None = None) -> None:
        self.detect = detect
        self.detect_still = detect_still
        self.every = max(int(every), 1)
        self.threshold = threshold
        self.shrink = shrink
        self.share = share
        self._thumb: np.ndarray | None = None
        self._last: Detections | None = None
        self._age = 0
        self._closer = False  # whether the last reading was the closer look
        self.skipped = 0  # frames whose reading was the last one (for the benchmark)

    def allow(self, faces: frozenset[str] | None) -> None:
        for detect in (self.detect, self.detect_still):
            allow = getattr(detect, "allow", None)
            if allow is not None:
                allow(faces)
        self._last = None

    @property
    def classified(self) -> float:
        return sum(getattr(d, "classified", float("nan")) for d in {id(d): d for d in (self.detect, self.detect_still)
                                                                    if d is not None}.values())

    def __call__(self, image_bgr: np.ndarray) -> Detections:
        import cv2

        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected a colour image (H, W, 3) in BGR order")
        h, w = image_bgr.shape[:2]
        size = (max(w // self.shrink, 1), max(h // self.shrink, 1))
        thumb = cv2.resize(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), size, interpolation=cv2.INTER_AREA)
        thumb = thumb.astype(np.float32)
        thumb -= thumb.mean()
        still = (self._last is not None and self._thumb is not None and self._thumb.shape == thumb.shape
                 and np.quantile(np.abs(thumb - self._thumb), 1 - self.share) < self.threshold)
        # a closer look, costlier, stands three times as long while nothing changes
        every = self.every * (3 if self._closer else 1)
        if still and self._last is not None and self._age + 1 < every:
            self._age += 1
            self.skipped += 1
            return self._last
        closer = self.detect_still if still else None
        self._closer = closer is not None
        detect = closer if closer is not None else self.detect
        found = detect(image_bgr)
        self._last, self._thumb, self._age = found, thumb, 0
        return found


def live_detector(recognizer, refresh: int = 4, still_every: int = 5, still_full: bool = True) -> Detector:
    """The recogniser's ``detect`` for a live game: with the two stages (regions, then names),
    a :class:`LabelCache` over them run only on frames where the table changed
    (:class:`StillTable`; ``still_every=1``: every frame), its detector fed frames at the
    recogniser's ``live_imgsz``; a still table is read again at the recogniser's own size
    (``still_full``: small cards across a table that seats five go unseen at the live size);
    anything else, its own ``detect``."""
    full = recognizer
    if hasattr(recognizer, "for_live"):
        recognizer = recognizer.for_live()
    if not all(hasattr(recognizer, a) for a in ("detector", "classifier", "classes")):
        return recognizer.detect  # a stand-in reading something else than the picture
    detect = LabelCache(recognizer, refresh) if refresh > 1 else recognizer.detect
    if still_every <= 1:
        return detect
    closer = None
    if still_full and full is not recognizer:
        closer = LabelCache(full, refresh) if refresh > 1 else full.detect
    return StillTable(detect, still_every, detect_still=closer)


class LivePipeline:
    """Frames in, :class:`LiveState` out: ``detect`` (a recogniser's) then the live game."""

    def __init__(self, detect: Detector, game: LiveGame) -> None:
        self.detect = detect
        self.game = game
        if hasattr(detect, "allow"):
            # cards are named only as faces of the game's deck (its menu): a print the model
            # never saw is read as the likeliest face that can lie on this table
            detect.allow(game.faces)
        self._started = time.monotonic()

    def process(self, image_bgr: np.ndarray, timestamp: float | None = None) -> LiveState:
        if timestamp is None:
            timestamp = time.monotonic() - self._started
        started = time.perf_counter()
        detections = self.detect(image_bgr)
        detecting = time.perf_counter() - started
        state = self.game.update(detections, timestamp)
        return LiveState(**{**state.__dict__, "seconds": {"detect": detecting, **state.seconds}})

    def finish(self) -> LiveState:
        """No more frames: the turn in play closes (see :meth:`LiveGame.finish`)."""
        return self.game.finish()


# --- frame sources ---------------------------------------------------------------------


class SourceError(OSError):
    """A camera that does not open or a video file that cannot be read."""


def open_source(camera: int | None = None, video: str | Path | None = None,
                *, fps: float | None = None) -> Iterator[tuple[float, np.ndarray]]:
    """``(timestamp_s, frame_bgr)`` from a camera (wall clock) or a video file (its own clock).

    A video plays as fast as it is processed; its timestamps are the video's, so the game
    reads the same whatever the speed of this machine. ``fps`` overrides a file's frame rate.
    """
    import cv2

    if (camera is None) == (video is None):
        raise ValueError("give a camera number or a video file, not both")
    if video is not None and not Path(video).is_file():
        raise SourceError(f"no video file at {video}")
    # OpenCV reports a missing camera on stderr line after line; the error below says it once
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        capture = cv2.VideoCapture(str(video)) if video is not None else cv2.VideoCapture(int(camera or 0))
    finally:
        cv2.utils.logging.setLogLevel(level)
    if not capture.isOpened():
        what = f"video {video}" if video is not None else f"camera {camera}"
        raise SourceError(f"cannot open {what}")
    rate = fps or capture.get(cv2.CAP_PROP_FPS) or 0.0
    if not math.isfinite(rate) or rate <= 0:
        rate = 10.0
    return _frames(capture, video is not None, rate)


def _frames(capture, is_file: bool, rate: float) -> Iterator[tuple[float, np.ndarray]]:
    started = time.monotonic()
    index = 0
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                if is_file:
                    return
                raise SourceError("the camera stopped giving frames")
            yield (index / rate if is_file else time.monotonic() - started), frame
            index += 1
    finally:
        capture.release()


def follow(pipeline: LivePipeline, frames: Iterator[tuple[float, np.ndarray]], *,
           on_state: Callable[[LiveState, np.ndarray], None] | None = None,
           max_frames: int | None = None, progress: bool = False) -> LiveState | None:
    """Run ``pipeline`` over ``frames``; ``on_state(state, frame)`` after each; the last state.

    When the frames end (the film's end, ``max_frames``) the turn in play closes
    (:meth:`LivePipeline.finish`), and ``on_state`` hears of it with the last frame."""
    from tqdm import tqdm

    state, frame = None, None
    bar = tqdm(total=max_frames, unit="frame", disable=not progress, leave=False)
    try:
        for index, (timestamp, frame) in enumerate(frames):
            if max_frames is not None and index >= max_frames:
                break
            state = pipeline.process(frame, timestamp)
            if on_state is not None:
                on_state(state, frame)
            bar.update(1)
    finally:
        bar.close()
    if state is None:
        return None
    state = pipeline.finish()
    if on_state is not None and frame is not None:
        on_state(state, frame)
    return state


def annotate(image_bgr: np.ndarray, state: LiveState) -> np.ndarray:
    """The frame with every tracked card boxed in its seat's colour, named, and the turn."""
    import cv2

    out = image_bgr.copy()
    for card in state.cards:
        x1, y1, x2, y2 = (int(round(v)) for v in card["box"])
        colour = SEAT_COLOURS[card["seat"] % len(SEAT_COLOURS)] if card["seat"] >= 0 else (200, 200, 200)
        thickness = 2 if card["visible"] else 1
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
        tag = card["text"] + ("" if card["status"] != "pending" else " (new)")
        cv2.putText(out, tag, (x1 + 2, max(y1 + 14, 14)), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, tag, (x1 + 2, max(y1 + 14, 14)), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    colour, 1, cv2.LINE_AA)
    rounds = state.record.get("rounds", [])
    line = f"round {max(len(rounds), 1)}, turns {len(rounds[-1]['turns']) if rounds else 0}"
    if state.scores:
        line += "  |  " + "  ".join(f"{p} {v['total']}" for p, v in state.scores["players"].items())
    cv2.putText(out, line, (10, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, line, (10, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
    return out
