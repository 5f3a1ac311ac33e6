"""The scorer as the pages use it: checking records and setups, scoreboards, summaries.

The scorer is the single judge of what a record may hold (player counts, menus, variants,
stacks); these helpers only shape its answers for the templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer import RecordError, ScoreJSON, score_record
from scorer.game import Game as ScoredGame
from scorer.scoring import score_lines
from web.store import Game, setup_record


def _empty_round(players: list[str]) -> dict[str, Any]:
    return {"tableaux": {p: [] for p in players}}


def check_setup(edition: str, players: list[str], menu: Any, variants: Any) -> None:
    """Raise RecordError if a new game with this setup could never be scored.

    The scorer checks setups as part of a record, so this scores one empty round.
    """
    score_record(setup_record(edition, players, menu, variants, [_empty_round(players)]))


def check_record(record: Any) -> dict[str, Any]:
    """Raise RecordError unless ``record`` is a game record the scorer accepts.

    The scorer checks the setup (edition, players, menu, variants) before any round, so a
    record of a game not started yet (no rounds) is checked as its setup.
    """
    score_record(record)
    return record


def scores(game: Game) -> ScoreJSON | None:
    """The scorer's answer for the confirmed rounds, or None before any is confirmed."""
    if not game.confirmed_rounds:
        return None
    return score_record(game.record())


@dataclass(frozen=True)
class Lines:
    """The scorer's lines of a game (category, detail, points), to render in the page's language."""

    rounds: list[dict[str, list[Any]]]
    desserts: dict[str, list[Any]]


def lines(game: Game) -> Lines | None:
    """Each player's scored lines per round and for desserts (what the breakdown JSON says in
    English, as :mod:`scorer.i18n` texts); None before any round is confirmed or if unscorable."""
    if not game.confirmed_rounds:
        return None
    try:
        rounds, desserts = score_lines(ScoredGame.from_record(game.record()))
    except RecordError:
        return None
    return Lines(rounds, desserts)


@dataclass(frozen=True)
class Summary:
    """A game in one line of the history page."""

    totals: dict[str, int]
    winners: tuple[str, ...]
    complete: bool
    error: str | None = None


def summary(game: Game) -> Summary:
    try:
        result = scores(game)
    except RecordError as exc:  # stored before a scorer change: show it, don't break the page
        from web.problems import record_words

        return Summary({}, (), False, record_words(exc, game.edition, game.players))
    if result is None:
        return Summary({p: 0 for p in game.players}, (), False)
    totals = {p: result["players"][p]["total"] for p in game.players}
    complete = bool(result.get("complete", game.is_finished))
    return Summary(totals, tuple(result.get("winners", ())) if complete else (), complete)
