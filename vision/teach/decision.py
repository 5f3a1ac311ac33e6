"""What a retraining or a round learning decided, and why: a cause and the figures behind it.

Vision does not word these. The teach page says them in the player's language
(``web/verdicts.py``), the command line in English (``vision.teach.wording``). They are kept in
a version's ``version.json`` and in the status files the teach page reads, as JSON that parses
back (``to_json`` / ``from_json``); a file written before these existed holds an English
``reason`` sentence instead, which is shown as it is.

>>> limits = Limits(tables=0.01, known=0.03, confirmed=0.01)
>>> measured = Measured(True, Change(0.90, 0.95), Change(0.93, 0.94), None, 0, 1.0)
>>> decision = decide(measured, limits)
>>> decision.cause, decision.kept
('kept', True)
>>> RetrainDecision.from_json(decision.to_json()) == decision
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, get_args

#: why a retrained model became the one in use or not, in the order :func:`decide` asks
RetrainCause = Literal["does-not-run", "worse-tables", "worse-known", "worse-confirmed", "kept"]
RETRAIN_CAUSES: tuple[RetrainCause, ...] = get_args(RetrainCause)
#: why the cards of newly confirmed rounds were kept as exemplars or not
LearnCause = Literal["nothing-to-learn", "worse-rounds", "worse-sample", "kept"]
LEARN_CAUSES: tuple[LearnCause, ...] = get_args(LearnCause)


class DecisionFormatError(ValueError):
    """A stored decision that is not in the shape ``to_json`` writes."""


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DecisionFormatError(f"{what} is not a number: {value!r}")
    return float(value)


def _whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DecisionFormatError(f"{what} is not a whole number: {value!r}")
    return value


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DecisionFormatError(f"{what} is not an object: {value!r}")
    return value


def _names(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DecisionFormatError(f"{what} is not a list of names: {value!r}")
    return tuple(value)


def _is_retrain_cause(value: object) -> TypeGuard[RetrainCause]:
    return value in RETRAIN_CAUSES


def _is_learn_cause(value: object) -> TypeGuard[LearnCause]:
    return value in LEARN_CAUSES


# --- retraining ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One figure measured with the model in use (``before``) and with the new one (``after``)."""

    before: float
    after: float

    def to_json(self) -> dict[str, float]:
        return {"before": self.before, "after": self.after}

    @classmethod
    def from_json(cls, value: object, what: str = "a change") -> Change:
        found = _object(value, what)
        return cls(_number(found.get("before"), f"{what}'s before"), _number(found.get("after"), f"{what}'s after"))

    @classmethod
    def maybe(cls, value: object, what: str) -> Change | None:
        return None if value is None else cls.from_json(value, what)


@dataclass(frozen=True)
class Limits:
    """How much worse than the model in use a new one may read and still be kept (noise)."""

    #: card F1 on the held-out composed tables
    tables: float
    #: the share of the cards the model in use knew that are named right
    known: float
    #: card F1 on the player's held-out confirmed photos
    confirmed: float

    def to_json(self) -> dict[str, float]:
        return {"tables": self.tables, "known": self.known, "confirmed": self.confirmed}

    @classmethod
    def from_json(cls, value: object) -> Limits:
        found = _object(value, "the limits")
        return cls(*(_number(found.get(k), f"the {k} limit") for k in ("tables", "known", "confirmed")))


@dataclass(frozen=True)
class Measured:
    """The figures a retraining is decided on, each before and after."""

    #: whether the new model loads and reads a photo as the app would
    runs: bool
    #: card F1 on the held-out composed tables
    tables: Change
    #: the share of the cards the model in use knew that are named right (on those tables)
    known: Change
    #: card F1 on the player's held-out confirmed photos (None: no confirmed photo)
    confirmed: Change | None
    confirmed_photos: int
    #: card F1 of the cards new to the model, after (None: no new card)
    new_cards: float | None
    #: why the new model does not run: the loader's own words, for the log only
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "tables": self.tables.to_json(), "known": self.known.to_json(),
                "confirmed": self.confirmed.to_json() if self.confirmed else None,
                "confirmed_photos": self.confirmed_photos, "new_cards": self.new_cards, "error": self.error}

    @classmethod
    def from_json(cls, value: object) -> Measured:
        found = _object(value, "the figures")
        runs, error = found.get("runs"), found.get("error", "")
        if not isinstance(runs, bool) or not isinstance(error, str):
            raise DecisionFormatError(f"the figures' runs or error is malformed: {found!r}")
        new = found.get("new_cards")
        return cls(runs, Change.from_json(found.get("tables"), "the tables' F1"),
                   Change.from_json(found.get("known"), "the known cards' share"),
                   Change.maybe(found.get("confirmed"), "the confirmed photos' F1"),
                   _whole(found.get("confirmed_photos", 0), "confirmed_photos"),
                   None if new is None else _number(new, "new_cards"), error)


@dataclass(frozen=True)
class CounterNote:
    """The count classifier left out of a new version: the retrained classifier alone counts
    the maki or uramaki the player taught or confirmed better (card F1 on those faces)."""

    faces: tuple[str, ...]
    with_counter: float
    alone: float

    def to_json(self) -> dict[str, Any]:
        return {"faces": list(self.faces), "with_counter": self.with_counter, "alone": self.alone}

    @classmethod
    def from_json(cls, value: object) -> CounterNote:
        found = _object(value, "the counter note")
        return cls(_names(found.get("faces"), "the counted faces"), _number(found.get("with_counter"), "with_counter"),
                   _number(found.get("alone"), "alone"))


@dataclass(frozen=True)
class DetectorNote:
    """What became of a retrained detector: kept, or the one before kept (it did not run, or
    read worse). ``tables``: card F1 on the held-out tables with the base's detector (before)
    and the retrained one (after); ``confirmed`` the same on the held-out confirmed photos."""

    kept: bool
    runs: bool
    tables: Change
    confirmed: Change | None

    def to_json(self) -> dict[str, Any]:
        return {"kept": self.kept, "runs": self.runs, "tables": self.tables.to_json(),
                "confirmed": self.confirmed.to_json() if self.confirmed else None}

    @classmethod
    def from_json(cls, value: object) -> DetectorNote:
        found = _object(value, "the detector note")
        kept, runs = found.get("kept"), found.get("runs")
        if not isinstance(kept, bool) or not isinstance(runs, bool):
            raise DecisionFormatError(f"the detector note is malformed: {found!r}")
        return cls(kept, runs, Change.from_json(found.get("tables"), "the detector's F1"),
                   Change.maybe(found.get("confirmed"), "the detector's confirmed F1"))


@dataclass(frozen=True)
class Notes:
    """What a kept or refused retraining also tells the player, beside its cause."""

    #: taught or new cards the new model still reads badly: more photos needed
    weak: tuple[str, ...] = ()
    counter: CounterNote | None = None
    detector: DetectorNote | None = None
    #: corrections left out because the model in use reads them otherwise (to confirm first)
    doubts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"weak": list(self.weak), "counter": self.counter.to_json() if self.counter else None,
                "detector": self.detector.to_json() if self.detector else None, "doubts": self.doubts}

    @classmethod
    def from_json(cls, value: object) -> Notes:
        found = _object(value, "the notes")
        counter, detector = found.get("counter"), found.get("detector")
        return cls(_names(found.get("weak", []), "the weak cards"),
                   None if counter is None else CounterNote.from_json(counter),
                   None if detector is None else DetectorNote.from_json(detector),
                   _whole(found.get("doubts", 0), "doubts"))


@dataclass(frozen=True)
class RetrainDecision:
    """Whether a retrained model is kept, the cause, and the figures and limits behind it."""

    cause: RetrainCause
    measured: Measured
    limits: Limits
    notes: Notes = field(default_factory=Notes)

    @property
    def kept(self) -> bool:
        return self.cause == "kept"

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause, "measured": self.measured.to_json(), "limits": self.limits.to_json(),
                "notes": self.notes.to_json()}

    @classmethod
    def from_json(cls, value: object) -> RetrainDecision:
        found = _object(value, "a retraining's decision")
        cause = found.get("cause")
        if not _is_retrain_cause(cause):
            raise DecisionFormatError(f"unknown retraining cause {cause!r}")
        return cls(cause, Measured.from_json(found.get("measured")), Limits.from_json(found.get("limits")),
                   Notes.from_json(found.get("notes", {})))


def decide(measured: Measured, limits: Limits, notes: Notes = Notes()) -> RetrainDecision:
    """Keep a new model only if it runs, reads the held-out tables at least as well (card F1
    within ``limits.tables``), names the cards the old one knew nearly as well (within
    ``limits.known``) and reads the player's held-out confirmed photos at least as well (within
    ``limits.confirmed``); the first of these it fails is the cause.

    >>> limits = Limits(tables=0.01, known=0.03, confirmed=0.01)
    >>> worse = Measured(True, Change(0.90, 0.85), Change(0.93, 0.93), None, 0, None)
    >>> decide(worse, limits).cause
    'worse-tables'
    """
    if not measured.runs:
        cause: RetrainCause = "does-not-run"
    elif measured.tables.after < measured.tables.before - limits.tables:
        cause = "worse-tables"
    elif measured.known.after < measured.known.before - limits.known:
        cause = "worse-known"
    elif measured.confirmed is not None and measured.confirmed.after < measured.confirmed.before - limits.confirmed:
        cause = "worse-confirmed"
    else:
        cause = "kept"
    return RetrainDecision(cause, measured, limits, notes)


# --- round learning -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """How well a set of regions was named: right of total."""

    right: int = 0
    total: int = 0

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 1.0

    def to_json(self) -> dict[str, int]:
        return {"right": self.right, "total": self.total}

    @classmethod
    def from_json(cls, value: object, what: str = "a reading") -> Reading:
        found = _object(value, what)
        return cls(_whole(found.get("right"), f"{what}'s right"), _whole(found.get("total"), f"{what}'s total"))

    @classmethod
    def maybe(cls, value: object, what: str) -> Reading | None:
        return None if value is None else cls.from_json(value, what)


@dataclass(frozen=True)
class LearnDecision:
    """Whether the cards of newly confirmed rounds were kept as exemplars, the cause, and the
    readings behind it: the players' other confirmed rounds and the bundled check sample,
    without the new exemplars (``before``) and with them (``after``; None: no such sample)."""

    cause: LearnCause
    rounds_before: Reading = Reading()
    rounds_after: Reading = Reading()
    sample_before: Reading | None = None
    sample_after: Reading | None = None

    @property
    def kept(self) -> bool:
        return self.cause == "kept"

    def to_json(self) -> dict[str, Any]:
        def maybe(reading: Reading | None) -> dict[str, int] | None:
            return reading.to_json() if reading else None

        return {"cause": self.cause, "rounds_before": self.rounds_before.to_json(),
                "rounds_after": self.rounds_after.to_json(), "sample_before": maybe(self.sample_before),
                "sample_after": maybe(self.sample_after)}

    @classmethod
    def from_json(cls, value: object) -> LearnDecision:
        found = _object(value, "a round learning's decision")
        cause = found.get("cause")
        if not _is_learn_cause(cause):
            raise DecisionFormatError(f"unknown learning cause {cause!r}")
        return cls(cause, Reading.from_json(found.get("rounds_before"), "rounds_before"),
                   Reading.from_json(found.get("rounds_after"), "rounds_after"),
                   Reading.maybe(found.get("sample_before"), "sample_before"),
                   Reading.maybe(found.get("sample_after"), "sample_after"))


def decide_learning(rounds_before: Reading, rounds_after: Reading, sample_before: Reading | None,
                    sample_after: Reading | None) -> LearnDecision:
    """Keep a candidate set only when the players' other confirmed rounds and the bundled
    check sample are named at least as well with it as without it.

    >>> decide_learning(Reading(9, 10), Reading(10, 10), Reading(50, 60), Reading(50, 60)).cause
    'kept'
    >>> decide_learning(Reading(9, 10), Reading(10, 10), Reading(50, 60), Reading(49, 60)).cause
    'worse-sample'
    >>> decide_learning(Reading(9, 10), Reading(8, 10), None, None).cause
    'worse-rounds'
    """
    if rounds_after.right < rounds_before.right:
        cause: LearnCause = "worse-rounds"
    elif sample_before is not None and sample_after is not None and sample_after.right < sample_before.right:
        cause = "worse-sample"
    else:
        cause = "kept"
    return LearnDecision(cause, rounds_before, rounds_after, sample_before, sample_after)


NOTHING_TO_LEARN = LearnDecision("nothing-to-learn")
