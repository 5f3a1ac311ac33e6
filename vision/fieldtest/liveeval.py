"""Read the film sets (``sets.FILM_SETS``) with the live reader and say how each turn was read.

What ``sushicam eval-live`` runs. Each film is followed as a camera would be: every frame
through :class:`~vision.live.pipeline.LivePipeline` at its own time, the game told its
players and Party menu, the seats learned from the cards (or given the film's seat points),
and the turn in play closed when the film ends (:meth:`LivePipeline.finish`). A turn is exact
when every player's cards read are the film's; a turn read past the film's last is wrong too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from vision.fieldtest.sets import FILM_SETS, FilmSpec


@dataclass(frozen=True)
class WrongTurn:
    turn: int  # 1 for the film's first turn
    read: dict | None  # the reveals read (None: the turn was never read)
    truth: dict | None  # the film's reveals (None: a turn read that the film has not)


@dataclass(frozen=True)
class FilmReading:
    set: str
    film: FilmSpec
    exact: int
    turns: int
    turns_read: int
    frames: int
    seconds: float  # spent following the frames (rendering them not counted)
    wrong: tuple[WrongTurn, ...] = field(default=())

    @property
    def fps(self) -> float:
        return self.frames / max(self.seconds, 1e-9)

    def to_json(self) -> dict:
        return {"set": self.set, "film": self.film.describe(), "players": self.film.players,
                "seed": self.film.seed, "style": self.film.style.name,
                "print": self.film.style.print_style, "exact": self.exact, "turns": self.turns,
                "turns_read": self.turns_read, "frames": self.frames, "fps": round(self.fps, 2),
                "wrong": [{"turn": w.turn, "read": w.read, "truth": w.truth} for w in self.wrong]}


def compare(read: list[dict], truth: list[dict]) -> tuple[int, tuple[WrongTurn, ...]]:
    """Turns read exactly, and each turn read wrong, missed or read past the film's end.

    >>> compare([{"A": ["eel"]}, {"A": ["tofu"]}], [{"A": ["eel"]}, {"A": ["tea"]}])
    (1, (WrongTurn(turn=2, read={'A': ['tofu']}, truth={'A': ['tea']}),))
    """
    exact = sum(a == b for a, b in zip(read, truth, strict=False))
    wrong = [WrongTurn(k + 1, read[k] if k < len(read) else None, want)
             for k, want in enumerate(truth) if k >= len(read) or read[k] != want]
    wrong += [WrongTurn(k + 1, got, None) for k, got in enumerate(read) if k >= len(truth)]
    return exact, tuple(wrong)


def read_film(detect, spec: FilmSpec, set_name: str = "", anchors: bool = False) -> FilmReading:
    """Follow the film of ``spec`` with ``detect`` (``vision.live.pipeline.live_detector``'s)."""
    from vision.live.pipeline import LiveGame, LivePipeline

    film = spec.render()
    game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None,
                    seat_anchors=film.seat_anchors if anchors else None)
    pipeline = LivePipeline(detect, game)
    seconds = 0.0
    frames = 0
    for timestamp, frame in film.timed_frames():
        started = time.perf_counter()
        pipeline.process(frame, timestamp)
        seconds += time.perf_counter() - started
        frames += 1
    started = time.perf_counter()
    pipeline.finish()
    seconds += time.perf_counter() - started
    rounds = game.record()["rounds"]
    read = [t.get("reveals") for t in rounds[0]["turns"]] if rounds else []
    truth = [t["reveals"] for t in film.log]
    exact, wrong = compare(read, truth)
    return FilmReading(set_name, spec, exact, len(truth), len(read), frames, seconds, wrong)


def read_sets(names: Iterable[str], new_detector: Callable[[], object], anchors: bool = False,
              on_film: Callable[[FilmReading], None] | None = None,
              on_skip: Callable[[str, FilmSpec, str], None] | None = None) -> list[FilmReading]:
    """Read every film of the sets ``names``, each with a fresh ``new_detector()`` (a detector
    keeps what it saw of the last frames). A seed that draws no film is skipped and told to
    ``on_skip``."""
    names = list(names)
    unknown = [n for n in names if n not in FILM_SETS]
    if unknown:
        raise ValueError(f"unknown film set {unknown[0]!r} (expected one of {', '.join(FILM_SETS)})")
    readings = []
    for name in names:
        for spec in FILM_SETS[name].films:
            try:
                reading = read_film(new_detector(), spec, name, anchors)
            except ValueError as exc:  # e.g. a special order with nothing free to copy
                if on_skip is not None:
                    on_skip(name, spec, str(exc))
                continue
            readings.append(reading)
            if on_film is not None:
                on_film(reading)
    return readings
