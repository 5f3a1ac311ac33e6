"""The card history and the turn reader wired as ``LiveGame.update`` wires them, for tests that
hand them the tracker's seated cards frame by frame (no tracker, no seats learned)."""

from __future__ import annotations

from collections.abc import Sequence

from vision.detections import Detections
from vision.live.history import CardHistory
from vision.live.tuning import TurnTuning
from vision.live.turns import LiveEvent, TurnReader


class TrackedReader:
    """``update(tracked, t)``: the frame's tracked, seated cards to :class:`CardHistory`, its
    events to :class:`TurnReader`; the turn reader's log, notes and trace as its own."""

    def __init__(self, players: Sequence[str], edition: str = "party", tuning: TurnTuning | None = None) -> None:
        tuning = tuning or TurnTuning()
        self.history = CardHistory(times=tuning)
        self.turns = TurnReader(players, edition, tuning=tuning, cards=self.history)

    def update(self, tracked: Detections, timestamp: float) -> list[LiveEvent]:
        return self.turns.update(self.history.update(tracked, timestamp, self.turns.facts()), timestamp)

    def reseat(self, seats: dict[int, int]) -> None:
        self.turns.reseat(self.history.reseat(seats))

    def __getattr__(self, name: str):
        return getattr(self.turns, name)
