"""The teach page's words for what teaching decided, in the player's language.

Vision returns typed values: a retraining's :class:`~vision.teach.decision.RetrainDecision` and
a round learning's :class:`~vision.teach.decision.LearnDecision` (a cause and the figures behind
it), a model version's :class:`~vision.teach.models.Origin`, and the retraining status file's
stage or ``failure``. They are worded here, every sentence a gettext message, figures through
Babel for the page's locale (``0,912`` in French) and cards by the names the page's language
prints. A status or version written before decisions were stored holds an English sentence
instead, shown as it is.

"Card score" is the card F1 the retraining measures (a card counts when it is found at its place
with its name), "named right" the share of the cards found that got their name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from babel.lists import format_list
from babel.numbers import format_percent
from flask_babel import format_decimal, get_locale, ngettext, pgettext
from flask_babel import gettext as _

from scorer.cards import CARDS
from vision.teach.decision import (
    DecisionFormatError,
    DetectorNote,
    LearnDecision,
    Notes,
    RetrainDecision,
)
from vision.teach.find import TeachError
from vision.teach.models import BUNDLED, FAILURES, ModelVersion
from web.catalogue import card_label


def _score(value: float) -> str:
    """A card score (F1, 0-1) to three places, as the page's locale writes decimals."""
    return str(format_decimal(value, format="0.000"))


def _fine_score(value: float) -> str:
    """Four places: a card of a few held-out photos moves the detector's score by ten-thousandths."""
    return str(format_decimal(value, format="0.0000"))


def _share(value: float) -> str:
    """A share as the page's locale writes a percentage, to a tenth of a percent (94.3%, 94,3 %)."""
    return str(format_percent(round(value, 3), locale=_locale(), decimal_quantization=False))


def _locale() -> str:
    return str(get_locale() or "en")


def joined(parts: Sequence[str]) -> str:
    """The parts of one reason in a row, as the language separates them (French: " ; ")."""
    return pgettext("between the parts of one reason", "; ").join(parts)


def _limit(value: float) -> str:
    return str(format_decimal(value, format="0.0##"))


def _count(value: int) -> str:
    return str(format_decimal(value))


def _cards(slugs: Sequence[str], edition: str | None) -> str:
    names = [card_label(s, edition) if s in CARDS else s for s in slugs]
    return str(format_list(names, locale=_locale()))


def model_name(name: str | None) -> str:
    """A version's name; the bundled model by the page's word for it."""
    if name is None or name == BUNDLED:
        return pgettext("the model shipped with sushicam", "bundled")
    return name


# --- a retraining -------------------------------------------------------------------------


def _refused(decision: RetrainDecision) -> str:
    figures, limits = decision.measured, decision.limits
    if decision.cause == "does-not-run":
        return _("the new model could not read a photo")
    if decision.cause == "worse-tables":
        return _("the new model read the held-out test tables worse: card score %(after)s against %(before)s, "
                 "more than %(limit)s lower", after=_score(figures.tables.after),
                 before=_score(figures.tables.before), limit=_limit(limits.tables))
    if decision.cause == "worse-known":
        return _("the new model named the cards it already knew worse: %(after)s named right against "
                 "%(before)s, more than %(limit)s lower", after=_share(figures.known.after),
                 before=_share(figures.known.before), limit=_share(limits.known))
    confirmed = figures.confirmed
    if confirmed is None:  # the cause says they were measured; a hand-edited file may not
        return _("the new model read your confirmed photos worse")
    return ngettext("the new model read your confirmed photos worse: card score %(after)s against %(before)s "
                    "on %(num)d photo, more than %(limit)s lower",
                    "the new model read your confirmed photos worse: card score %(after)s against %(before)s "
                    "on %(num)d photos, more than %(limit)s lower", figures.confirmed_photos,
                    after=_score(confirmed.after), before=_score(confirmed.before), limit=_limit(limits.confirmed))


def _kept(decision: RetrainDecision, edition: str | None) -> list[str]:
    figures = decision.measured
    said = [_("card score on the held-out test tables %(before)s → %(after)s", before=_score(figures.tables.before),
              after=_score(figures.tables.after)),
            _("known cards named right %(before)s → %(after)s", before=_share(figures.known.before),
              after=_share(figures.known.after))]
    if figures.confirmed is not None:
        said.append(_("your confirmed photos %(before)s → %(after)s", before=_score(figures.confirmed.before),
                      after=_score(figures.confirmed.after)))
    if figures.new_cards is not None:
        said.append(_("new cards' score %(score)s", score=_score(figures.new_cards)))
    if decision.notes.weak:
        said.append(_("not read well yet (teach more photos): %(cards)s",
                      cards=_cards(decision.notes.weak, edition)))
    return said


def _detector(note: DetectorNote) -> str:
    if not note.runs:
        return _("the retrained card finder could not run: the one before stays")
    figures = _("card score %(before)s → %(after)s", before=_fine_score(note.tables.before),
                after=_fine_score(note.tables.after))
    if note.confirmed is not None:
        figures = _("%(tables)s, your confirmed photos %(before)s → %(after)s", tables=figures,
                    before=_fine_score(note.confirmed.before), after=_fine_score(note.confirmed.after))
    if note.kept:
        return _("card finder retrained (%(figures)s)", figures=figures)
    return _("the retrained card finder read worse (%(figures)s): the one before stays", figures=figures)


def _notes(notes: Notes, edition: str | None) -> list[str]:
    said = []
    if notes.counter is not None:
        said.append(_("maki and uramaki are counted by the card classifier alone: it counts your %(cards)s better "
                      "than the count classifier (card score %(alone)s against %(counter)s)",
                      cards=_cards(notes.counter.faces, edition), alone=_score(notes.counter.alone),
                      counter=_score(notes.counter.with_counter)))
    if notes.detector is not None:
        said.append(_detector(notes.detector))
    if notes.doubts:
        said.append(ngettext("left out %(num)d correction the model reads otherwise (confirm it on this page to "
                             "learn it)",
                             "left out %(num)d corrections the model reads otherwise (confirm them on this page "
                             "to learn them)", notes.doubts))
    return said


def retrain_reason(decision: RetrainDecision, edition: str | None = None) -> str:
    """Why a retraining kept its new model or not, and what else it tells, in one sentence."""
    first = _kept(decision, edition) if decision.kept else [_refused(decision)]
    return joined([*first, *_notes(decision.notes, edition)])


def retrain_outcome(decision: RetrainDecision, version: str | None, edition: str | None = None) -> str:
    """What a finished retraining did: the new model in use, or the one in use kept, and why."""
    why = retrain_reason(decision, edition)
    if decision.kept:
        return _("the new model %(version)s is in use: %(why)s", version=model_name(version), why=why)
    return _("the model in use stays: %(why)s", why=why)


# --- a round learning ---------------------------------------------------------------------


def learn_reason(decision: LearnDecision) -> str:
    """Why the cards of newly confirmed rounds were learnt or not."""
    rounds_before, rounds_after = decision.rounds_before, decision.rounds_after
    sample_before, sample_after = decision.sample_before, decision.sample_after
    if decision.cause == "nothing-to-learn":
        return _("no card to learn in those photos")
    if decision.cause == "worse-rounds":
        return ngettext("your other confirmed rounds are read worse with them: %(right)s of %(num)d card right, "
                        "%(without)s without",
                        "your other confirmed rounds are read worse with them: %(right)s of %(num)d cards right, "
                        "%(without)s without", rounds_after.total, right=_count(rounds_after.right),
                        without=_count(rounds_before.right))
    if decision.cause == "worse-sample" and sample_before is not None and sample_after is not None:
        return ngettext("the check sample is read worse with them: %(right)s of %(num)d card right, "
                        "%(without)s without",
                        "the check sample is read worse with them: %(right)s of %(num)d cards right, "
                        "%(without)s without", sample_after.total, right=_count(sample_after.right),
                        without=_count(sample_before.right))
    said = [ngettext("your other confirmed rounds: %(before)s → %(after)s of %(num)d card right",
                     "your other confirmed rounds: %(before)s → %(after)s of %(num)d cards right",
                     rounds_after.total, before=_count(rounds_before.right), after=_count(rounds_after.right))]
    if sample_before is not None and sample_after is not None:
        said.append(ngettext("the check sample: %(before)s → %(after)s of %(num)d card right",
                             "the check sample: %(before)s → %(after)s of %(num)d cards right",
                             sample_after.total, before=_count(sample_before.right),
                             after=_count(sample_after.right)))
    return joined(said)


def learnt_reason(learnt: dict[str, Any]) -> str:
    """The reason of the last round learning (``vision.teach.learn.last_learnt``): worded from
    its decision, or the English sentence a file written before decisions holds."""
    try:
        return learn_reason(LearnDecision.from_json(learnt.get("decision")))
    except DecisionFormatError:
        return str(learnt.get("reason", ""))


# --- the retraining status ----------------------------------------------------------------


def _stage(stage: object) -> str:
    stages = {
        "start": _("starting"),
        "prepare": _("getting ready"),
        "compose": _("composing practice photos"),
        "train": _("training"),
        "export": _("saving the new model"),
        "detector": _("training the card finder"),
        "evaluate": _("comparing with the model in use"),
        "exemplars": _("learning from your confirmed rounds"),
        "done": _("finishing"),
    }
    return stages.get(str(stage), _("working"))


def _failure(status: dict[str, Any]) -> str:
    failure = status.get("failure")
    if failure not in FAILURES:
        return str(status.get("message", ""))
    return {
        "nothing-to-learn": _("nothing new to learn: every confirmed round is learnt from already (teach some "
                              "cards or confirm more rounds)"),
        "busy": _("a retraining is already running; wait for it to finish"),
        "no-base": _("the model in use cannot be retrained: it has no weights to fine-tune"),
        "crashed": _("it stopped on an error; the model in use did not change"),
        "stopped": _("the retraining stopped before it finished; the model in use did not change"),
    }[failure]


def _done(status: dict[str, Any], edition: str | None) -> str:
    result = status.get("result")
    if isinstance(result, dict):
        try:
            if result.get("kind") == "exemplars":
                decision = LearnDecision.from_json(result.get("decision"))
                if decision.kept:
                    return _("the new model %(version)s is in use: %(why)s",
                             version=model_name(result.get("version")), why=learn_reason(decision))
                return _("the model in use stays: %(why)s", why=learn_reason(decision))
            return retrain_outcome(RetrainDecision.from_json(result.get("decision")), result.get("version"), edition)
        except DecisionFormatError:
            pass
    return str(status.get("message", ""))


def status_words(status: dict[str, Any], edition: str | None = None) -> str:
    """The retraining status line the teach page shows (and its script, polling)."""
    state = status.get("state")
    if state == "running":
        fraction = status.get("fraction")
        percent = _share(float(fraction)) if isinstance(fraction, int | float) else _share(0.0)
        return _("Retraining: %(message)s", message=_("%(stage)s (%(percent)s)", stage=_stage(status.get("stage")),
                                                      percent=percent))
    if state == "done":
        return _("Last retraining: %(message)s", message=_done(status, edition))
    if state == "failed":
        return _("Last retraining failed: %(message)s", message=_failure(status))
    return _("No retraining yet.")


# --- model versions -----------------------------------------------------------------------


def version_summary(version: ModelVersion, edition: str | None = None) -> str:
    """What a model version was made from ("" for the bundled model)."""
    origin = version.origin
    if origin is None:
        return version.summary
    if origin.kind == "exemplars":
        cards = [_("%(count)s × %(card)s", count=_count(n), card=card_label(slug, edition) if slug in CARDS else slug)
                 for slug, n in origin.cards]
        return ngettext("learnt from %(num)d confirmed photo: %(cards)s",
                        "learnt from %(num)d confirmed photos: %(cards)s", origin.photos,
                        cards=str(format_list(cards, locale=_locale())))
    if origin.kind == "held-out":
        return _("the bundled model without %(cards)s", cards=_cards(origin.held_out, edition))
    if origin.parent in (None, BUNDLED):
        said = (ngettext("%(num)d new card, from the bundled model", "%(num)d new cards, from the bundled model",
                         len(origin.added))
                if origin.added else _("retrained from the bundled model"))
    else:
        said = (ngettext("%(num)d new card, from %(parent)s", "%(num)d new cards, from %(parent)s", len(origin.added),
                         parent=origin.parent)
                if origin.added else _("retrained from %(parent)s", parent=origin.parent))
    return said if origin.accepted else _("refused, kept to look at: %(summary)s", summary=said)


# --- a photo that cannot be taught --------------------------------------------------------


def teach_words(error: TeachError, edition: str | None = None) -> str:
    """Why a photo (or a card name) cannot be taught, and what to do."""
    if error.photos:  # no photo of the batch could be taught: each one and why
        return joined([_("%(photo)s: %(reason)s", photo=name, reason=teach_words(why, edition))
                        for name, why in error.photos])
    sharpness = dict(sharpness=str(format_decimal(error.sharpness, format="0.0")),
                     needed=str(format_decimal(error.needed, format="0.#")))
    if error.fault == "unknown-card":
        if error.near:
            near = [card_label(s, edition) for s in error.near if s in CARDS]
            return _("unknown card %(card)s (did you mean %(near)s?)", card=error.slug,
                     near=str(format_list(near, style="or", locale=_locale())))
        return _("unknown card %(card)s: choose one from the list", card=error.slug)
    if error.fault == "no-photo":
        return _("choose 1 to %(count)s photos of the card", count=3)
    if error.fault == "several-cards":
        return ngettext("this photo shows %(num)d card; photograph one card at a time",
                        "this photo shows %(num)d cards; photograph one card at a time", error.cards)
    if error.fault == "blurry-photo":
        return _("the photo is too blurry to find the card in it (sharpness %(sharpness)s, needs %(needed)s): "
                 "hold the phone still, in good light", **sharpness)
    if error.fault == "blurry-card":
        return _("the card is too blurry to learn from (sharpness %(sharpness)s, needs %(needed)s): hold the "
                 "phone still, closer to the card, in good light", **sharpness)
    if error.fault == "not-kept":
        return ngettext("not kept: the %(num)d sharpest photo of this batch is enough",
                        "not kept: the %(num)d sharpest photos of this batch are enough", error.kept)
    if error.fault == "not-saved":
        return _("the card's face could not be saved: try again")
    return _("no card found in the photo: lay one card on a plain table that differs from its colour, with the "
             "whole card in the picture")
