"""The command line's English for what teaching decided: a retraining's or a round learning's
decision and a model version's origin (``vision.teach.decision``, ``vision.teach.models``).

The one place these typed values become English sentences, for ``sushicam retrain``, ``models``
and ``eval-teach``; the teach page words the same values in the player's language
(``web/verdicts.py``).

>>> from vision.teach.decision import Change, Limits, Measured, decide
>>> limits = Limits(tables=0.01, known=0.03, confirmed=0.01)
>>> retrain_words(decide(Measured(True, Change(0.9, 0.85), Change(0.93, 0.93), None, 0, None), limits))
'worse on the held-out tables: card F1 0.850 < 0.900 - 0.01'
"""

from __future__ import annotations

from vision.teach.decision import LearnDecision, Notes, RetrainDecision
from vision.teach.models import ModelVersion


def _refused(decision: RetrainDecision) -> str:
    figures, limits = decision.measured, decision.limits
    if decision.cause == "does-not-run":
        return f"the new model does not run: {figures.error}"
    if decision.cause == "worse-tables":
        return (f"worse on the held-out tables: card F1 {figures.tables.after:.3f} < "
                f"{figures.tables.before:.3f} - {limits.tables:g}")
    if decision.cause == "worse-known":
        return (f"worse on the known cards: named right {figures.known.after:.3f} < "
                f"{figures.known.before:.3f} - {limits.known:g}")
    confirmed = figures.confirmed
    assert confirmed is not None  # the cause says it was measured
    return (f"worse on your confirmed photos: card F1 {confirmed.after:.3f} < {confirmed.before:.3f} - "
            f"{limits.confirmed:g} ({figures.confirmed_photos} photos)")


def _kept(decision: RetrainDecision) -> str:
    figures = decision.measured
    said = (f"card F1 {figures.tables.before:.3f} -> {figures.tables.after:.3f}; known cards named right "
            f"{figures.known.before:.3f} -> {figures.known.after:.3f}")
    if figures.confirmed is not None:
        said += f"; your confirmed photos {figures.confirmed.before:.3f} -> {figures.confirmed.after:.3f}"
    if figures.new_cards is not None:
        said += f"; new cards F1 {figures.new_cards:.3f}"
    if decision.notes.weak:
        said += f"; not read yet (teach more photos): {', '.join(decision.notes.weak)}"
    return said


def _notes(notes: Notes) -> list[str]:
    said = []
    if notes.counter is not None:
        said.append(f"maki and uramaki counted by the classifier alone (it counts your "
                    f"{', '.join(notes.counter.faces)} better than the count classifier: card F1 "
                    f"{notes.counter.alone:.3f} against {notes.counter.with_counter:.3f})")
    if notes.detector is not None:
        detector = notes.detector
        # four places: a card of a few held-out photos is a few ten-thousandths
        figures = f"card F1 {detector.tables.before:.4f} -> {detector.tables.after:.4f}"
        if detector.confirmed is not None:
            figures += f", your confirmed photos {detector.confirmed.before:.4f} -> {detector.confirmed.after:.4f}"
        said.append("the retrained detector does not run: the one before kept" if not detector.runs
                    else f"detector retrained ({figures})" if detector.kept
                    else f"the retrained detector read worse ({figures}): the one before kept")
    if notes.doubts:
        said.append(f"left out {notes.doubts} correction(s) the model reads otherwise "
                    "(confirm them on the teach page to learn them)")
    return said


def retrain_words(decision: RetrainDecision) -> str:
    """A retraining's decision in one English line: the cause, its figures, then the notes."""
    first = _kept(decision) if decision.kept else _refused(decision)
    return "; ".join([first, *_notes(decision.notes)])


def learn_words(decision: LearnDecision) -> str:
    """A round learning's decision in one English line.

    >>> from vision.teach.decision import Reading, decide_learning
    >>> learn_words(decide_learning(Reading(9, 10), Reading(8, 10), None, None))
    'your other confirmed rounds are read worse with them: 8 of 10 cards right, 9 without'
    """
    rounds_before, rounds_after = decision.rounds_before, decision.rounds_after
    sample_before, sample_after = decision.sample_before, decision.sample_after
    if decision.cause == "nothing-to-learn":
        return "no card to learn in those photos"
    if decision.cause == "worse-rounds":
        return (f"your other confirmed rounds are read worse with them: {rounds_after.right} of "
                f"{rounds_after.total} cards right, {rounds_before.right} without")
    if decision.cause == "worse-sample" and sample_before is not None and sample_after is not None:
        return (f"the check sample is read worse with them: {sample_after.right} of {sample_after.total} "
                f"right, {sample_before.right} without")
    said = f"your other confirmed rounds {rounds_before.right} -> {rounds_after.right} of {rounds_after.total} cards"
    if sample_before is not None and sample_after is not None:
        said += f"; check sample {sample_before.right} -> {sample_after.right} of {sample_after.total}"
    return said


def version_summary(version: ModelVersion) -> str:
    """What a version was made from, in a few English words ("" for the bundled model)."""
    origin = version.origin
    if origin is None:
        return version.summary
    if origin.kind == "exemplars":
        learnt = ", ".join(f"{n} {slug}" for slug, n in origin.cards)
        return f"learnt from {origin.photos} confirmed photo(s): {learnt}"
    if origin.kind == "held-out":
        return f"bundled without {', '.join(origin.held_out)}"
    said = f"+{len(origin.added)} new, from {origin.parent}" if origin.added else f"from {origin.parent}"
    return said if origin.accepted else f"refused: {said}"


def version_line(version: ModelVersion) -> str:
    """One line of ``sushicam models list``: name, cards, when made, and what from."""
    summary = version_summary(version)
    return f"{version.name:<17} {version.cards:>3} cards  {version.created or '-':<20}" + (f"  {summary}" if summary else "")
