"""``Detections``: the cards found in one photo, as parallel numpy arrays (supervision-style).

>>> d = Detections(xyxy=np.array([[0, 0, 10, 20], [5, 5, 8, 8]]), confidence=np.array([0.9, 0.4]),
...                data={"label": np.array(["tempura", "eel"])})
>>> len(d), d[d.confidence > 0.5].data["label"].tolist()
(2, ['tempura'])
>>> Detections.merge([d, Detections.empty()]).xyxy.shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from vision.boxes import areas

# The reserved ``Detections.data`` keys: what each stage of reading writes, named once here.
# A stage reads another's key through these names, never through a string of its own.

#: the card's slug (``scorer.cards``), or ``"card-back"``; set by the recogniser
LABEL = "label"
#: the region detector's score for the box, 0-1 (recogniser)
REGION_SCORE = "region_score"
#: the classifier's probability for ``label``, 0-1 (recogniser); ``confidence`` is their product
LABEL_SCORE = "label_score"
#: how far ``label_score`` leads the classifier's second-best name, 0-1 (recogniser): a small
#: lead is a guess between two cards (``vision.unsure``)
LABEL_MARGIN = "label_margin"
#: the face outside the game's deck the classifier took the card for ("" when inside it), set
#: when the recogniser was given the deck's faces (``Recognizer.detect(allowed=...)``)
SEEN_AS = "seen_as"
#: why the player should look at the card against the game's deck ("not in this menu", "more
#: than the deck holds"; "" when fine): ``vision.deck.flag_cards``
FLAG = "flag"
#: the card's number in its photo (0, 1, ... in the order of ``sushicam detect``'s ``cards``),
#: kept when the detections are split into seats (``describe_image``)
CARD_ID = "card_id"
#: the ``card_id`` of the card this one lies on in a stack (a nigiri on its wasabi, a special
#: order on the card it copies), -1 for none (``vision.stacks.link_stacks``)
ON = "on"
#: the player's index in seating order: 0 at the bottom of the photo, then clockwise
#: (``vision.seats.split_seats``)
SEAT = "seat"
#: the seat's turn in degrees (0: the player sits at the bottom of the photo), how its tableau
#: is read (``split_seats``)
SEAT_ANGLE = "seat_angle"
#: the card's tilt in the photo in degrees, modulo 90 with its sign, read from its outline's
#: edges (``vision.tilts.card_tilts``; NaN: unknown): what tells a card turned by t from one
#: turned by -t, as its box cannot (``vision.seats``)
TILT = "tilt"
#: the id a card keeps from frame to frame (live tracker)
TRACK_ID = "track_id"
#: whether the tracked card is in sight in this frame (live tracker; False: last seen there)
VISIBLE = "visible"
#: the mean recogniser confidence of a tracked card's recent sightings (live tracker)
SCORE = "score"
#: seconds: when the tracker first saw the card, and since when it has held its ``label``
FIRST_SEEN = "first_seen"
LABEL_SINCE = "label_since"
#: what the tracked card is doing (live tracker, ``vision.live.tracker.CardState``): arriving,
#: lying, covered, hidden
STATE = "state"
#: where the tracked card last rested whole, [x1, y1, x2, y2] per card (live tracker)
REST_BOX = "rest_box"
#: seconds: since when the tracked card has lain whole where it lies (when it last moved; live tracker)
MOVED_AT = "moved_at"

DATA_KEYS = (LABEL, REGION_SCORE, LABEL_SCORE, LABEL_MARGIN, SEEN_AS, FLAG, CARD_ID, ON, SEAT, SEAT_ANGLE, TILT, TRACK_ID,
             VISIBLE, SCORE, FIRST_SEEN, LABEL_SINCE, STATE, REST_BOX, MOVED_AT)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, init=False)
class Detections:
    """N boxes ``xyxy`` (float32, pixels), ``class_id``, ``confidence`` and named ``data`` arrays.

    Index it with a boolean mask, an index array or a slice to get a filtered copy.
    ``data`` holds one array of N values per key; the keys the project uses are the constants
    above (:data:`DATA_KEYS`), e.g. ``data[LABEL]`` holds the card slugs once a recogniser has
    named the regions. ``class_id`` is the index of the label in the recogniser's own
    ``classes`` (the classifier's outputs), 0 when no recogniser set it.
    """

    xyxy: np.ndarray
    class_id: np.ndarray
    confidence: np.ndarray
    data: dict[str, np.ndarray]

    def __init__(self, xyxy: ArrayLike, class_id: ArrayLike | None = None,
                 confidence: ArrayLike | None = None,
                 data: Mapping[str, ArrayLike] | None = None) -> None:
        boxes = np.asarray(xyxy, np.float32).reshape(-1, 4)
        n = len(boxes)
        ids = np.zeros(n, np.int64) if class_id is None else np.asarray(class_id, np.int64)
        scores = np.ones(n, np.float32) if confidence is None else np.asarray(confidence, np.float32)
        if ids.shape != (n,) or scores.shape != (n,):
            raise ValueError(f"class_id and confidence need {n} values, like xyxy")
        arrays = {}
        for key, values in (data or {}).items():
            values = np.asarray(values)
            if len(values) != n:
                raise ValueError(f"data[{key!r}] has {len(values)} values, xyxy has {n}")
            arrays[key] = _frozen(values)
        object.__setattr__(self, "xyxy", _frozen(boxes))
        object.__setattr__(self, "class_id", _frozen(ids))
        object.__setattr__(self, "confidence", _frozen(scores))
        object.__setattr__(self, "data", arrays)

    @classmethod
    def empty(cls) -> Detections:
        return cls(xyxy=np.zeros((0, 4), np.float32), data={LABEL: np.zeros(0, dtype="<U32")})

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        """All detections of ``parts`` in order; data keys are those every non-empty part has."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(
            xyxy=np.concatenate([p.xyxy for p in parts]),
            class_id=np.concatenate([p.class_id for p in parts]),
            confidence=np.concatenate([p.confidence for p in parts]),
            data={k: np.concatenate([p.data[k] for p in parts]) for k in sorted(keys)},
        )

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: int | np.integer[Any] | slice | Sequence[int] | np.ndarray) -> Detections:
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(self.xyxy[index], self.class_id[index], self.confidence[index],
                          {k: v[index] for k, v in self.data.items()})

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i]

    def with_data(self, **arrays: np.ndarray) -> Detections:
        """A copy with ``data`` entries added or replaced."""
        return Detections(self.xyxy, self.class_id, self.confidence, {**self.data, **arrays})

    @property
    def labels(self) -> list[str]:
        return [str(v) for v in self.data.get(LABEL, [""] * len(self))]

    @property
    def centres(self) -> np.ndarray:
        return np.asarray((self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2)

    def area(self) -> np.ndarray:
        return areas(self.xyxy)

