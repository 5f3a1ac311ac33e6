"""Read the film sets (``sets.FILM_SETS``) with the live reader and say how each turn was read.

What ``sushicam eval-live`` runs. Each film is followed as a camera would be: every frame
through :class:`~vision.live.pipeline.LivePipeline` at its own time, the game told its
players and Party menu, the seats learned from the cards (or given the film's seat points),
and the turn in play closed when the film ends (:meth:`LivePipeline.finish`). A turn is exact
when every player's cards read are the film's; a turn read past the film's last is wrong too.

A set's films can be recorded once with the models (``record=DIR``: each film's detections
as a :class:`~vision.live.trace.Trace`, at :func:`trace_path`) and replayed without them
(``replay=DIR``): the live reader alone, the same detections in, in seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

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


def trace_path(folder: Path, set_name: str, spec: FilmSpec) -> Path:
    """Where the film ``spec`` of ``set_name`` is recorded under ``folder``: one file a film,
    named by everything that draws it."""
    style = spec.style.print_style or "drawn"
    menu = "menu" if spec.menu else "no-menu"
    return (Path(folder) / set_name
            / f"{spec.players}p-{spec.turns}t-{spec.seed}-{spec.style.name}-{style}-{menu}.json")


def _reading(game, truth: list[dict], spec: FilmSpec, set_name: str, frames: int,
             seconds: float) -> FilmReading:
    from vision.live.trace import reveals_read

    read = reveals_read(game)
    exact, wrong = compare(read, truth)
    return FilmReading(set_name, spec, exact, len(truth), len(read), frames, seconds, wrong)


def read_film(detect, spec: FilmSpec, set_name: str = "", anchors: bool = False,
              record: Path | None = None) -> FilmReading:
    """Follow the film of ``spec`` with ``detect`` (``vision.live.pipeline.live_detector``'s);
    ``record``: also write its detections at :func:`trace_path` under that folder."""
    from vision.live.pipeline import LiveGame, LivePipeline
    from vision.live.trace import Trace

    film = spec.render()
    game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None,
                    seat_anchors=film.seat_anchors if anchors else None)
    pipeline = LivePipeline(detect, game)  # tells the detector the game's deck
    seen = []
    seconds = 0.0
    for timestamp, frame in film.timed_frames():
        started = time.perf_counter()
        detections = pipeline.detect(frame)
        game.update(detections, timestamp)
        seconds += time.perf_counter() - started
        seen.append((timestamp, detections))
    started = time.perf_counter()
    game.finish()
    seconds += time.perf_counter() - started
    truth = [t["reveals"] for t in film.log]
    if record is not None:
        source = {"set": set_name, "film": spec.describe(), "seat_anchors": _anchors_json(film.seat_anchors)}
        trace = Trace(tuple(film.players), "party", list(film.menu) if film.menu else None, list(film.log),
                      seen, source)
        path = trace_path(record, set_name, spec)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(trace.to_json_text())
    return _reading(game, truth, spec, set_name, len(seen), seconds)


def _anchors_json(anchors) -> list[list[float]] | None:
    return None if anchors is None else [[float(x), float(y)] for x, y in anchors]


def replay_film(path: Path, spec: FilmSpec, set_name: str = "", anchors: bool = False) -> FilmReading:
    """Read the film recorded at ``path`` (:func:`read_film`'s ``record``) without the models,
    as :func:`read_film` reads it (:func:`vision.live.trace.replay`)."""
    from vision.live.trace import Trace, replay

    trace = Trace.from_json_text(Path(path).read_text())
    started = time.perf_counter()
    game = replay(trace, anchors=anchors)
    seconds = time.perf_counter() - started
    return _reading(game, [t["reveals"] for t in trace.log], spec, set_name, len(trace.frames), seconds)


def read_sets(names: Iterable[str], new_detector: Callable[[], object], anchors: bool = False,
              on_film: Callable[[FilmReading], None] | None = None,
              on_skip: Callable[[str, FilmSpec, str], None] | None = None, *,
              record: Path | None = None, replay: Path | None = None) -> list[FilmReading]:
    """Read every film of the sets ``names``, each with a fresh ``new_detector()`` (a detector
    keeps what it saw of the last frames). A seed that draws no film is skipped and told to
    ``on_skip``. ``record``: write each film's detections under that folder as it is read;
    ``replay``: read the films recorded there instead (no films drawn, no models); a film not
    recorded there is skipped and told to ``on_skip``."""
    names = list(names)
    unknown = [n for n in names if n not in FILM_SETS]
    if unknown:
        raise ValueError(f"unknown film set {unknown[0]!r} (expected one of {', '.join(FILM_SETS)})")
    readings = []
    for name in names:
        for spec in FILM_SETS[name].films:
            try:
                if replay is not None:
                    path = trace_path(replay, name, spec)
                    if not path.exists():
                        raise ValueError(f"no recorded film at {path}")
                    reading = replay_film(path, spec, name, anchors)
                else:
                    reading = read_film(new_detector(), spec, name, anchors, record)
            except ValueError as exc:  # e.g. a special order with nothing free to copy
                if on_skip is not None:
                    on_skip(name, spec, str(exc))
                continue
            readings.append(reading)
            if on_film is not None:
                on_film(reading)
    return readings
