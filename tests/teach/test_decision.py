"""The keep-or-refuse decisions of a retraining and a round learning, on hand-worked figures.

Each cause of :func:`vision.teach.decision.decide` is reached with figures worked by hand
against the plan's default limits (card F1 may drop 0.01 on the held-out tables, the known
cards' share named right 0.03, card F1 on the confirmed photos 0.01); the first cause a model
fails is the one given. Decisions are stored as JSON and must read back as they were.
"""

from __future__ import annotations

import json

import pytest

from vision.teach.decision import (
    Change,
    CounterNote,
    DecisionFormatError,
    DetectorNote,
    LearnDecision,
    Limits,
    Measured,
    Notes,
    Reading,
    RetrainDecision,
    decide,
    decide_learning,
)
from vision.teach.models import ModelStore, Origin

LIMITS = Limits(tables=0.01, known=0.03, confirmed=0.01)


def figures(tables=(0.90, 0.91), known=(0.95, 0.95), confirmed=(0.80, 0.80), runs=True) -> Measured:
    return Measured(runs, Change(*tables), Change(*known), Change(*confirmed) if confirmed else None,
                    12 if confirmed else 0, None, "" if runs else "no such file: classifier.onnx")


@pytest.mark.parametrize(("measured", "cause"), [
    # better on every count, but it does not load: nothing else matters
    (figures(tables=(0.90, 0.99), runs=False), "does-not-run"),
    # 0.885 < 0.900 - 0.01 = 0.890
    (figures(tables=(0.900, 0.885)), "worse-tables"),
    # the tables within the tolerance (0.893 >= 0.890), the known cards 0.91 < 0.95 - 0.03 = 0.92
    (figures(tables=(0.900, 0.893), known=(0.95, 0.91)), "worse-known"),
    # both worse: the tables are asked first
    (figures(tables=(0.900, 0.700), known=(0.95, 0.50)), "worse-tables"),
    # tables and known cards as good; the confirmed photos 0.780 < 0.800 - 0.01 = 0.790
    (figures(confirmed=(0.800, 0.780)), "worse-confirmed"),
    # each within its tolerance: 0.893 >= 0.890, 0.93 >= 0.92, 0.795 >= 0.790
    (figures(tables=(0.900, 0.893), known=(0.95, 0.93), confirmed=(0.800, 0.795)), "kept"),
    # no confirmed photo: nothing to be worse on there
    (figures(confirmed=None), "kept"),
])
def test_each_cause_on_hand_worked_figures(measured, cause):
    decision = decide(measured, LIMITS)
    assert decision.cause == cause
    assert decision.kept == (cause == "kept")
    assert decision.measured == measured and decision.limits == LIMITS


def test_a_looser_limit_keeps_what_a_tighter_one_refuses():
    measured = figures(tables=(0.900, 0.880))  # 0.02 worse
    assert decide(measured, LIMITS).cause == "worse-tables"
    assert decide(measured, Limits(tables=0.05, known=0.03, confirmed=0.01)).cause == "kept"


def test_a_decision_reads_back_from_its_json():
    notes = Notes(weak=("gyoza",), counter=CounterNote(("maki-2", "maki-3"), 0.61, 0.72),
                  detector=DetectorNote(False, True, Change(0.9131, 0.9012), None), doubts=3)
    decision = decide(figures(confirmed=(0.8, 0.7)), LIMITS, notes)
    stored = json.loads(json.dumps(decision.to_json()))
    assert RetrainDecision.from_json(stored) == decision
    learnt = decide_learning(Reading(9, 10), Reading(10, 10), None, None)
    assert LearnDecision.from_json(json.loads(json.dumps(learnt.to_json()))) == learnt


@pytest.mark.parametrize("stored", [
    None, "worse on the held-out tables: card F1 0.850 < 0.900 - 0.01",
    {"cause": "better", "measured": {}, "limits": {}},
    {"cause": "kept", "measured": {"runs": True, "tables": {"before": "0.9", "after": 0.9}}, "limits": {}},
])
def test_a_stored_decision_in_another_shape_is_refused(stored):
    with pytest.raises(DecisionFormatError):
        RetrainDecision.from_json(stored)


@pytest.mark.parametrize(("rounds", "sample", "cause"), [
    # 8 of 10 right with the new exemplars, 9 without
    ((Reading(9, 10), Reading(8, 10)), (Reading(50, 60), Reading(55, 60)), "worse-rounds"),
    # the rounds as well (9 = 9), the check sample 49 < 50
    ((Reading(9, 10), Reading(9, 10)), (Reading(50, 60), Reading(49, 60)), "worse-sample"),
    ((Reading(9, 10), Reading(10, 10)), (Reading(50, 60), Reading(50, 60)), "kept"),
    # no check sample for this classifier: the rounds decide
    ((Reading(9, 10), Reading(9, 10)), (None, None), "kept"),
])
def test_each_cause_of_a_round_learning(rounds, sample, cause):
    assert decide_learning(*rounds, *sample).cause == cause


def test_a_version_written_before_decisions_shows_its_english_summary_as_it_is(tmp_path):
    folder = tmp_path / "data" / "models" / "20250101-000000"
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"classes": ["tofu", "not-a-card"]}))
    for name in ("detector.onnx", "classifier.onnx"):
        (folder / name).write_bytes(b"onnx")
    (folder / "version.json").write_text(json.dumps(
        {"parent": "bundled", "accepted": True, "reason": "card F1 0.900 -> 0.910", "summary": "+1 new, from bundled"}))
    version = ModelStore(tmp_path / "data", tmp_path / "none").get("20250101-000000")
    assert version.origin is None and version.summary == "+1 new, from bundled"
    assert version.cards == 1


def test_a_new_version_says_its_origin():
    info = {"kind": "exemplars", "parent": "bundled", "photos": ["a", "b", "c"], "cards": {"tofu": 2, "eel": 1}}
    assert Origin.from_info(info) == Origin("exemplars", "bundled", True, (), 3, (("eel", 1), ("tofu", 2)))
    refused = {"parent": "bundled", "accepted": False, "added": ["gyoza"], "decision": {}}
    assert Origin.from_info(refused) == Origin("retrained", "bundled", False, ("gyoza",))
