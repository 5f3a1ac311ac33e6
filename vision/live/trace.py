"""A recorded film: each frame's detections as the recogniser gave them, and the film's own log.

A :class:`Trace` replays the live reader without the models: the same frames in, the same
detections, so a change to the tracker or the turn reader can be told by the turn log it
reads, in seconds: :func:`replay` follows one as the live app follows a film.
``sushicam eval-live --sets ... --record DIR`` writes one per film of a set
from the films and the real models (``--replay DIR`` reads them back);
``tests/live/measure_films.py ... --record DIR`` does the same for films named by seed.

>>> import numpy as np
>>> from vision.detections import LABEL, Detections
>>> d = Detections(xyxy=[[0, 0, 10, 15]], confidence=[0.9], data={LABEL: np.array(["eel"], dtype=object)})
>>> t = Trace(("Ann", "Ben"), "party", None, [], [(0.0, d)])
>>> back = Trace.from_json_text(t.to_json_text())
>>> back.frames[0][1].labels, back.frames[0][1].xyxy.tolist()
(['eel'], [[0.0, 0.0, 10.0, 15.0]])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.detections import Detections
from vision.live.pipeline import LiveGame


def detections_to_json(detections: Detections) -> dict[str, Any]:
    """One frame's detections as JSON values (floats kept exactly: float32 widened to float)."""
    return {
        "xyxy": detections.xyxy.tolist(),
        "class_id": detections.class_id.tolist(),
        "confidence": detections.confidence.tolist(),
        "data": {key: {"dtype": values.dtype.str, "values": values.tolist()}
                 for key, values in detections.data.items()},
    }


def detections_from_json(value: dict[str, Any]) -> Detections:
    """The detections :func:`detections_to_json` wrote, with the same dtypes."""
    data = {key: np.array(entry["values"], dtype=np.dtype(entry["dtype"]))
            for key, entry in value["data"].items()}
    return Detections(np.array(value["xyxy"], np.float32).reshape(-1, 4),
                      np.array(value["class_id"], np.int64), np.array(value["confidence"], np.float32), data)


@dataclass
class Trace:
    """``players`` in seat order, ``edition``, the Party ``menu`` (None: no menu), the film's
    ``log`` (its turns, drawn apart from the live reader: the truth), the ``frames`` as
    ``(timestamp, detections)``, and how the film was made (``source``)."""

    players: tuple[str, ...]
    edition: str
    menu: list[str] | None
    log: list[dict[str, Any]]
    frames: list[tuple[float, Detections]]
    source: dict[str, Any] = field(default_factory=dict)

    def to_json_text(self) -> str:
        head = json.dumps({"players": list(self.players), "edition": self.edition, "menu": self.menu,
                           "log": self.log, "source": self.source})
        frames = ",\n".join(json.dumps({"t": t, **detections_to_json(d)}) for t, d in self.frames)
        # one JSON value, one frame a line: a trace diffs and greps as a list of frames
        return head[:-1] + ', "frames": [\n' + frames + "\n]}\n"

    @classmethod
    def from_json_text(cls, text: str) -> Trace:
        value = json.loads(text)
        frames = [(float(f["t"]), detections_from_json(f)) for f in value["frames"]]
        return cls(tuple(value["players"]), value["edition"], value["menu"], value["log"], frames,
                   value.get("source", {}))


def replay(trace: Trace, *, anchors: bool = False) -> LiveGame:
    """The live game that follows the recorded film as the app follows a film: told the
    trace's players, edition and menu, fed every frame at its time, and the turn in play closed
    when the film ends (:meth:`LiveGame.finish`). The seats are learned from the cards;
    ``anchors``: given the seat points the film was recorded with instead, where its ``source``
    has them (``seat_anchors``)."""
    points = trace.source.get("seat_anchors") if anchors else None
    game = LiveGame(trace.players, trace.edition, menu=trace.menu,
                    seat_anchors=[(float(x), float(y)) for x, y in points] if points else None)
    for timestamp, detections in trace.frames:
        game.update(detections, timestamp)
    game.finish()
    return game


def reveals_read(game: LiveGame) -> list[dict[str, Any]]:
    """The reveals of each turn the game read in its first round (none: no round read), as a
    film's log gives them."""
    rounds = game.record()["rounds"]
    return [turn["reveals"] for turn in rounds[0]["turns"]] if rounds else []
