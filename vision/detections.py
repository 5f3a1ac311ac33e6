"""``Detections``: the cards found in one photo, as parallel numpy arrays (supervision-style).

>>> d = Detections(xyxy=np.array([[0, 0, 10, 20], [5, 5, 8, 8]]), confidence=np.array([0.9, 0.4]),
...                data={"label": np.array(["tempura", "eel"])})
>>> len(d), d[d.confidence > 0.5].data["label"].tolist()
(2, ['tempura'])
>>> Detections.merge([d, Detections.empty()]).xyxy.shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from vision.boxes import areas


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Detections:
    """N boxes ``xyxy`` (float32, pixels), ``class_id``, ``confidence`` and named ``data`` arrays.

    Index it with a boolean mask, an index array or a slice to get a filtered copy.
    ``data["label"]`` holds the card slugs once a recogniser has named the regions.
    """

    xyxy: np.ndarray
    class_id: np.ndarray | None = None
    confidence: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, np.float32).reshape(-1, 4)
        n = len(xyxy)
        class_id = np.zeros(n, np.int64) if self.class_id is None else np.asarray(self.class_id, np.int64)
        confidence = (np.ones(n, np.float32) if self.confidence is None
                      else np.asarray(self.confidence, np.float32))
        if class_id.shape != (n,) or confidence.shape != (n,):
            raise ValueError(f"class_id and confidence need {n} values, like xyxy")
        data = {}
        for key, values in self.data.items():
            values = np.asarray(values)
            if len(values) != n:
                raise ValueError(f"data[{key!r}] has {len(values)} values, xyxy has {n}")
            data[key] = _frozen(values)
        object.__setattr__(self, "xyxy", _frozen(xyxy))
        object.__setattr__(self, "class_id", _frozen(class_id))
        object.__setattr__(self, "confidence", _frozen(confidence))
        object.__setattr__(self, "data", data)

    @classmethod
    def empty(cls) -> Detections:
        return cls(xyxy=np.zeros((0, 4), np.float32), data={"label": np.zeros(0, dtype="<U32")})

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

    def __getitem__(self, index) -> Detections:
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(self.xyxy[index], self.class_id[index], self.confidence[index],
                          {k: v[index] for k, v in self.data.items()})

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i]

    def with_data(self, **arrays) -> Detections:
        """A copy with ``data`` entries added or replaced."""
        return Detections(self.xyxy, self.class_id, self.confidence, {**self.data, **arrays})

    @property
    def labels(self) -> list[str]:
        return [str(v) for v in self.data.get("label", [""] * len(self))]

    @property
    def centres(self) -> np.ndarray:
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2

    def area(self) -> np.ndarray:
        return areas(self.xyxy)

