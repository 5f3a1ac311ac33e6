"""Scoring a round under review, card by card: what cannot be scored is named, the rest scores.

The scorer refuses a whole record at its first fault and names the place in record syntax
(``rounds[0].tableaux.Cid[1]: a special order lies on the card it copies...``). At the table that
stopped every live score over one misread card. Here each fault is traced back to the review's
cards it is about, said in the player's words ("This special order copies nothing: set what it
copies."), those cards are left out, and the round is scored again, until what is left scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer import (
    DeckCountError,
    DessertError,
    EditionError,
    MenuError,
    PlayerCountError,
    RecordError,
    StackError,
    score_record,
)
from scorer.cards import CARDS, SPECIAL_ORDER, display_name, is_nigiri
from scorer.editions import EDITIONS
from web.store import Game

MAX_PROBLEMS = 40


@dataclass
class Problem:
    """Cards of the review that cannot be scored as they are, and why, for the player."""

    cards: list[str]
    message: str
    left_out: list[str] = field(default_factory=list)  # the ones the live scores do without

    def as_json(self) -> dict[str, Any]:
        return {"cards": self.cards, "message": self.message, "left_out": self.left_out}


@dataclass
class ScoredReview:
    """The scorer's answer for the game with this round as reviewed, less what cannot score."""

    result: dict[str, Any] | None
    index: int  # the round's place in the record's rounds
    problems: list[Problem]
    error: str | None = None  # a fault no card of this round explains (another round, the setup)

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "index": self.index,
            "problems": [p.as_json() for p in self.problems],
            "error": self.error,
        }


def stacks_by_player(review: dict[str, Any], players: Sequence[str]) -> dict[str, list[list[dict]]]:
    """Each player's stacks of review cards, bottom first, in the order of their tableau entries
    (the order ``web.review.round_from_review`` writes them), so a record path finds its card."""
    above = {c["on"]: c for c in review["cards"] if c["on"] is not None}
    stacks: dict[str, list[list[dict]]] = {p: [] for p in players}
    for card in review["cards"]:
        if card["on"] is not None:
            continue
        chain, cursor = [card], card
        while cursor["id"] in above and above[cursor["id"]] not in chain:
            cursor = above[cursor["id"]]
            chain.append(cursor)
        stacks[players[card["seat"]]].append(chain)
    return stacks


def _round(review: dict[str, Any], players: Sequence[str]) -> dict[str, Any]:
    tableaux = {
        player: [[c["label"] for c in s] if len(s) > 1 else s[0]["label"] for s in stacks]
        for player, stacks in stacks_by_player(review, players).items()
    }
    round_record: dict[str, Any] = {"tableaux": tableaux}
    if review.get("scored_during_round"):
        round_record["scored_during_round"] = review["scored_during_round"]
    return round_record


def name(slug: str, edition: str | None = None) -> str:
    return display_name(slug, edition) if slug in CARDS else slug


def in_words(message: str, edition: str | None = None) -> str:
    """A scorer message with its quoted slugs written as the cards' names.

    >>> in_words("15 'tempura' cards on the table, but the original deck holds 14")
    '15 Tempura cards on the table, but the original deck holds 14'
    """
    return re.sub(r"'([a-z0-9-]+)'", lambda m: name(m.group(1), edition), message)


def _card_at(path: str, index: int, stacks: dict[str, list[list[dict]]]) -> tuple[dict, dict | None] | None:
    """The review card a record path names (and the card below it), if it is in this round."""
    prefix = f"rounds[{index}].tableaux."
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix):]
    for player in sorted(stacks, key=len, reverse=True):  # "Ann[1]" must not match "An"
        if not rest.startswith(player):
            continue
        places = re.fullmatch(r"\[(\d+)\](?:\[(\d+)\])?", rest[len(player):])
        if not places:
            continue
        entry, position = int(places.group(1)), int(places.group(2) or 0)
        if entry < len(stacks[player]) and position < len(stacks[player][entry]):
            chain = stacks[player][entry]
            return chain[position], (chain[position - 1] if position else None)
    return None


def _stack_words(card: dict, below: dict | None, edition: str) -> str:
    what = name(card["label"], edition)
    if card["label"] == SPECIAL_ORDER:
        if below is None:
            return "This special order copies nothing: set what it copies."
        return f"A special order cannot copy {name(below['label'], edition)}: set what it copies."
    if below is None:
        return f"{what} cannot be scored as it lies: check the cards below it."
    under = name(below["label"], edition)
    if is_nigiri(card["label"]):
        return f"{what} lies on {under}, but a nigiri lies only on a wasabi: take it off."
    return f"{what} cannot lie on {under}: only a nigiri (on a wasabi) or a special order does. Take it off."


def _of_round(review: dict[str, Any], slugs: Sequence[str]) -> list[dict]:
    wanted = set(slugs)
    return [c for c in review["cards"] if c["label"] in wanted]


def explain(exc: RecordError, review: dict[str, Any], game: Game, index: int) -> Problem | None:
    """The cards of this round a scorer error is about, in the player's words; None when it is
    about none of them (another round, the setup, the points scored during the round)."""
    edition = game.edition
    stacks = stacks_by_player(review, game.players)
    found = _card_at(exc.path, index, stacks)
    if isinstance(exc, DeckCountError):
        if exc.path != f"rounds[{index}]":
            return None
        cards = _of_round(review, exc.cards)
        if not cards:
            return None
        numbers = [int(n) for n in re.findall(r"\d+", exc.message)]
        extra = numbers[0] - numbers[-1] if len(numbers) >= 2 else len(cards)
        left_out = cards[-extra:] if 0 < extra < len(cards) else cards
        return Problem(
            [c["id"] for c in cards],
            f"{in_words(exc.message, edition)}: one of these is misread. Check them.",
            [c["id"] for c in left_out],
        )
    if isinstance(exc, MenuError | PlayerCountError | DessertError) and exc.cards:
        cards = _of_round(review, exc.cards)
        if not cards:
            return None
        what = name(cards[0]["label"], edition)
        if isinstance(exc, MenuError):
            words = f"{what} is not on this game's menu: pick the card it really is."
        elif isinstance(exc, PlayerCountError):
            words = f"{what} is not played with {len(game.players)} players: pick the card it really is."
        else:
            words = f"One kind of dessert per game, and {what} is a second one: pick the card it really is."
        ids = [c["id"] for c in cards]
        return Problem(ids, words, ids)
    if found is None:
        return None
    card, below = found
    if isinstance(exc, StackError):
        words = _stack_words(card, below, edition)
    elif isinstance(exc, EditionError):
        words = (f"{name(card['label'], edition)} is not a card of {EDITIONS[edition].name}: "
                 "pick the card it really is.")
    else:
        words = f"{name(card['label'], edition)}: {in_words(exc.message, edition)}."
    return Problem([card["id"]], words, [card["id"]])


def _without(review: dict[str, Any], ids: set[str]) -> dict[str, Any]:
    """The review less some cards; a card that lay on one of them lies where it lay."""
    by_id = {c["id"]: c for c in review["cards"]}
    cards = []
    for card in review["cards"]:
        if card["id"] in ids:
            continue
        below = card["on"]
        while below is not None and below in ids:
            below = by_id[below]["on"]
        cards.append({**card, "on": below})
    return {**review, "cards": cards}


def score_review(game: Game, number: int, review: dict[str, Any]) -> ScoredReview:
    """The game's scores with round ``number`` as ``review`` says (a checked review), leaving
    out, one fault at a time, the cards the scorer cannot take."""
    index = sum(1 for r in game.confirmed_rounds if r.number < number)
    problems: list[Problem] = []
    current = review
    # each fault costs one scoring of the game: a page of nonsense stops after a few dozen
    for _ in range(min(len(review["cards"]), MAX_PROBLEMS) + 1):
        try:
            result = score_record(game.record(replace={number: _round(current, game.players)}))
        except RecordError as exc:
            problem = explain(exc, current, game, index)
            if problem is None or not problem.left_out:
                return ScoredReview(None, index, problems, in_words(str(exc), game.edition))
            if len(problems) == MAX_PROBLEMS:
                break
            problems.append(problem)
            current = _without(current, set(problem.left_out))
            continue
        return ScoredReview(result, index, problems)
    return ScoredReview(
        None, index, problems, f"more than {MAX_PROBLEMS} cards cannot be scored: check this round's cards"
    )
