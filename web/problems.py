"""Scoring a round under review, card by card: what cannot be scored is named, the rest scores.

The scorer refuses a whole record at its first fault and names the place in record syntax
(``rounds[0].tableaux.Cid[1]: a special order lies on the card it copies...``). At the table that
stopped every live score over one misread card. Here each fault is traced back to the review's
cards it is about, said in the player's words ("This special order copies nothing: set what it
copies."), those cards are left out, and the round is scored again, until what is left scores.

More cards of a kind than the edition's deck holds is no fault but a warning: two decks mixed, a
house rule or a misprint are the players' to say, and a round confirmed anyway carries the
kinds it exceeds in its ``over_deck``. Every sentence a player reads is in ``MESSAGES`` (whole
sentences with named placeholders, to be translated), chosen by the scorer's ``cause`` and
error class, never by parsing the scorer's one-line message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext, ngettext

from scorer import (
    DeckCountError,
    DessertError,
    EditionError,
    MenuError,
    PlayerCountError,
    RecordError,
    ScoreJSON,
    StackError,
    score_record,
)
from scorer.cards import CARDS, KINDS, SPECIAL_ORDER, display_name, is_nigiri
from scorer.errors import DuringRoundError
from scorer.i18n import render
from scorer.names import card_name, kind_name
from scorer.scoring import EDITION_NAMES
from web.i18n import page_language, variant_name
from web.store import Game

MAX_PROBLEMS = 40

# Every sentence shown to the players, by key; {placeholders} are filled by say(). Each is
# translated (the "messages" catalog) when said, in the language of the request; a sentence whose
# words follow a count is a function of that count (ngettext: Polish has three forms).
MESSAGES: dict[str, Any] = {
    "special-order-alone": lazy_gettext("This special order copies nothing: set what it copies."),
    "special-order-copy": lazy_gettext("A special order cannot copy {below}: set what it copies."),
    "stack-below": lazy_gettext("{card} cannot be scored as it lies: check the cards below it."),
    "nigiri-on": lazy_gettext("{card} lies on {below}, but a nigiri lies only on a wasabi: take it off."),
    "cannot-lie-on": lazy_gettext("{card} cannot lie on {below}: only a nigiri (on a wasabi) or a special order "
                                  "does. Take it off."),
    "off-menu": lazy_gettext("{card} is not on this game's menu: pick the card it really is."),
    "player-count": lambda n: ngettext("{card} is not played with {players} player: pick the card it really is.",
                                       "{card} is not played with {players} players: pick the card it really is.",
                                       n),
    "second-dessert": lazy_gettext("One kind of dessert per game, and {card} is a second one: pick the card it "
                                   "really is."),
    "off-edition": lazy_gettext("{card} is not a card of {edition}: pick the card it really is."),
    "card-other": lazy_gettext("{card}: {detail}."),
    "deck-count": lambda n: ngettext(
        "{extra} of these {count} {card} cards is more than the {edition} deck's {limit}: {then}.",
        "{extra} of these {count} {card} cards are more than the {edition} deck's {limit}: {then}.", n),
    "desserts-added": lambda n: ngettext(
        "{count} desserts are on the table by round {round}, but with {players} players only {limit} is "
        "shuffled in by then: {then}.",
        "{count} desserts are on the table by round {round}, but with {players} players only {limit} are "
        "shuffled in by then: {then}.", n),
    "deck-then-anyway": lazy_gettext("check them, or confirm anyway if your deck is like this"),
    "deck-then-check": lazy_gettext("check them"),
    "uramaki-left": lambda n: ngettext(
        "{player}'s uramaki show {icons} icon, but reaching 10 scores at once and the cards leave the table: "
        "enter {player}'s uramaki points under \u201cScored during the round\u201d and take these cards off, "
        "or check them.",
        "{player}'s uramaki show {icons} icons, but reaching 10 scores at once and the cards leave the table: "
        "enter {player}'s uramaki points under \u201cScored during the round\u201d and take these cards off, "
        "or check them.", n),
    "uramaki-fix": lazy_gettext("Enter: {player} scored {points} for uramaki"),
    "uramaki-place": lazy_gettext("Scored during the round: uramaki place {place} scores {points} (or the points "
                                  "of a tie with the place before): correct its points."),
    "uramaki-place-none": lazy_gettext("Scored during the round: the uramaki race has 3 places, and this is a "
                                       "fourth: remove it."),
    "strawberry-points": lazy_gettext("Scored during the round: taking the strawberry pudding lead scores 2: "
                                      "correct its points."),
    "strawberry-none": lazy_gettext("Scored during the round: {player} has no strawberry pudding to lead with."),
    "strawberry-held": lazy_gettext("Scored during the round: {player} already holds the strawberry pudding "
                                    "lead, so it scores nothing again."),
    "unread-kinds": lambda n: ngettext(
        "Photos cannot name {count} kind of {edition} yet: {kinds}. The bundled model was never shown it: "
        "teach it first (a few photos of each card), and until then add those cards by hand on the review "
        "page.",
        "Photos cannot name {count} kinds of {edition} yet: {kinds}. The bundled model was never shown them: "
        "teach them first (a few photos of each card), and until then add those cards by hand on the review "
        "page.", n),
    "in-round": lazy_gettext("Round {round}: {detail}."),
    "in-round-player": lazy_gettext("Round {round}, {player}'s cards: {detail}."),
    "too-many-faults": lazy_gettext("More than {limit} cards cannot be scored: check this round's cards."),
    "confirm-refused": lazy_gettext("Round {round} cannot be confirmed yet. {first}"),
    "confirm-more": lambda n: ngettext("({count} more card to check.)", "({count} more cards to check.)", n),
    "confirm-over-deck": lazy_gettext("Round {round} has more cards than your deck holds. {first} Press "
                                      "\u201cConfirm anyway\u201d if your deck is like this."),
    # a record's setup and format, by the scorer's cause (its facts fill the placeholders)
    "not-an-object": lazy_gettext("This is not a game record: a record is one JSON object."),
    "unexpected-key": lazy_gettext("The record holds \u201c{key}\u201d, which no game record has: remove it."),
    "menu-not-party": lazy_gettext("Only Sushi Go Party! is played with a menu: remove the menu, or play Sushi Go "
                                   "Party!."),
    "edition-missing": lazy_gettext("The record does not say which edition was played."),
    "edition-unknown": lazy_gettext("\u201c{edition}\u201d is no edition of the game: pick the original Sushi Go!, "
                                    "the anniversary edition or Sushi Go Party!."),
    "players-not-list": lazy_gettext("The record does not list its players."),
    "setup-player-count": lambda n: ngettext(
        "{players} player cannot play {edition}: it is played by {low} to {high}.",
        "{players} players cannot play {edition}: it is played by {low} to {high}.", n),
    "name-empty": lazy_gettext("Player {seat} has no name: type one."),
    "name-unprintable": lazy_gettext("The name of player {seat} holds characters no page can show: type it "
                                     "again."),
    "name-twice": lazy_gettext("{name} is named twice among the players: every player needs a different name."),
    "variant-unknown": lazy_gettext("\u201c{variant}\u201d is no variant of {edition}."),
    "variant-players": lambda n: ngettext("{variant} is played by {count} players, not by {players}.",
                                          "{variant} is played by {count} players, not by {players}.", n),
    "variants-combine": lazy_gettext("These variants cannot be played together: {variants}. Pick one."),
    "too-many-rounds": lazy_gettext("The record has {rounds} rounds, but a game has {limit}."),
    "unknown-card": lazy_gettext("\u201c{text}\u201d is no card of the game."),
    "unknown-card-near": lazy_gettext("\u201c{text}\u201d is no card of the game: did you mean {nearest}?"),
    "unknown-player": lazy_gettext("{player} is not one of this game's players."),
    "no-tableau": lazy_gettext("The record has no cards for {player}: an empty list if they played none."),
    "tableau-too-big": lambda n: ngettext(
        "{count} card for one player, but no round deals anyone more than {limit}.",
        "{count} cards for one player, but no round deals anyone more than {limit}.", n),
    "off-edition-record": lazy_gettext("{card} is not a card of {edition}."),
    "menu-unknown-card": lazy_gettext("The menu names \u201c{text}\u201d, which is no card of the game."),
    "menu-players": lambda n: ngettext("{kind} is played by {low} to {high} players, not by {players}.",
                                       "{kind} is played by {low} to {high} players, not by {players}.", n),
    "menu-not-party-kind": lazy_gettext("{kind} is not a card of Sushi Go Party!: it cannot be on a menu."),
    "menu-shape": lambda n: ngettext(
        "A menu has exactly {wanted} kind of {family}, and this one has {count}.",
        "A menu has exactly {wanted} kinds of {family}, and this one has {count}.", n),
    "menu-unknown": lazy_gettext("\u201c{menu}\u201d is no menu of Sushi Go Party!."),
    # a fault the scorer gives no cause for, by its class
    "FormatError": lazy_gettext("The record is not laid out as a game record."),
    "UnknownCardError": lazy_gettext("The record names a card that is not in the game."),
    "UnknownPlayerError": lazy_gettext("The record names someone who is not one of its players."),
    "PlayerCountError": lazy_gettext("This game is not played with this many players."),
    "DeckCountError": lazy_gettext("More cards are on the table than the deck holds."),
    "StackError": lazy_gettext("Cards lie on each other as no game lets them."),
    "EditionError": lazy_gettext("A card or rule of another edition is in this game."),
    "MenuError": lazy_gettext("The menu breaks the rulebook's rules for a menu."),
    "VariantError": lazy_gettext("A variant does not apply to this game."),
    "DuringRoundError": lazy_gettext("The points scored during the round cannot be true."),
    "TurnLogError": lazy_gettext("The turn log cannot be played through."),
    "DessertError": lazy_gettext("The desserts of this game cannot be true."),
    "RecordError": lazy_gettext("This record cannot be scored."),
}

#: a Party menu's families of cards, as a menu fault names them
FAMILIES: dict[str, Any] = {
    "nigiri": lazy_gettext("nigiri"), "rolls": lazy_gettext("rolls"), "appetizers": lazy_gettext("appetizers"),
    "specials": lazy_gettext("specials"), "desserts": lazy_gettext("desserts"),
}

#: which placeholder counts, for the sentences whose words follow a count
COUNTS = {"player-count": "players", "deck-count": "extra", "desserts-added": "limit", "uramaki-left": "icons",
          "unread-kinds": "count", "confirm-more": "count", "setup-player-count": "players",
          "variant-players": "count", "tableau-too-big": "count", "menu-players": "high", "menu-shape": "wanted"}


def say(key: str, **values: Any) -> str:
    """The player's sentence ``key`` in the request's language, its placeholders filled."""
    message = MESSAGES[key]
    text = message(int(values[COUNTS[key]])) if callable(message) else str(message)
    return text.format(**values)


@dataclass
class Problem:
    """Cards of the review that cannot be scored as they are, and why, for the player."""

    cards: list[str]
    message: str
    left_out: list[str] = field(default_factory=list)  # the ones the live scores do without
    # one action that mends it: {"label": ..., "during": an entry to add, "remove": card ids}
    fix: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cards": self.cards, "message": self.message, "left_out": self.left_out}
        if self.fix is not None:
            out["fix"] = self.fix
        return out


@dataclass
class DeckWarning:
    """More cards of a kind than the deck holds: scored as they are, confirmed if the players say."""

    cards: list[str]  # the review's cards of that kind in this round
    message: str
    slugs: list[str]  # what the round's ``over_deck`` lists when confirmed anyway

    def as_json(self) -> dict[str, Any]:
        return {"cards": self.cards, "message": self.message, "slugs": self.slugs}


@dataclass
class ScoredReview:
    """The scorer's answer for the game with this round as reviewed, less what cannot score."""

    result: ScoreJSON | None
    index: int  # the round's place in the record's rounds
    problems: list[Problem]
    error: str | None = None  # a fault no card of this round explains (another round, the setup)
    warnings: list[DeckWarning] = field(default_factory=list)

    @property
    def over_deck(self) -> list[str]:
        """The slugs this round exceeds its deck in: its ``over_deck`` when confirmed anyway."""
        return sorted({s for w in self.warnings for s in w.slugs})

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "index": self.index,
            "problems": [p.as_json() for p in self.problems],
            "error": self.error,
            "warnings": [w.as_json() for w in self.warnings],
            "over_deck": self.over_deck,
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
    """A card's name as the rulebook of the page's language prints it (the edition's name)."""
    lang = page_language()
    if slug not in CARDS:
        return slug
    return display_name(slug, edition) if lang == "en" else card_name(slug, lang, edition)


def edition_name(edition: str) -> str:
    return render(EDITION_NAMES[edition], page_language()) if edition in EDITION_NAMES else edition


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
            return say("special-order-alone")
        return say("special-order-copy", below=name(below["label"], edition))
    if below is None:
        return say("stack-below", card=what)
    under = name(below["label"], edition)
    if is_nigiri(card["label"]):
        return say("nigiri-on", card=what, below=under)
    return say("cannot-lie-on", card=what, below=under)


def _of_round(review: dict[str, Any], slugs: Sequence[str]) -> list[dict]:
    wanted = set(slugs)
    return [c for c in review["cards"] if c["label"] in wanted]


def deck_words(exc: DeckCountError, edition: str, players: int, anyway: bool = True) -> str:
    """A deck count exceeded, counting cards: "7 of these 10 Wasabi cards are more than..."."""
    facts = exc.facts
    count, limit = int(facts.get("count", 0)), int(facts.get("limit", 0))
    then = say("deck-then-anyway" if anyway else "deck-then-check")
    if facts.get("cause") == "desserts-added":
        return say("desserts-added", count=count, limit=limit, round=facts.get("round", 1),
                   players=players, then=then)
    card = facts.get("family") or (name(exc.cards[0], edition) if exc.cards else "")
    extra = count - limit
    return say("deck-count", extra=extra, count=count, card=card,
               limit=limit, edition=edition_name(edition), then=then)


def _kind(kind: object, edition: str | None) -> str:
    lang = page_language()
    if not isinstance(kind, str) or kind not in KINDS or lang == "en":
        return str(kind)
    return kind_name(kind, lang, edition)


def _variant(key: object) -> str:
    return variant_name(key) if isinstance(key, str) else str(key)


def setup_words(exc: RecordError, edition: str | None) -> str:
    """A fault of the record's setup or format (or any the scorer gives a cause for that the
    review does not say otherwise), by the scorer's ``cause`` and ``facts``; a fault without a
    cause, by its class. Used where the page is not English: English pages show the scorer's
    own line, which names the record's fields."""
    facts = exc.facts
    cause = facts.get("cause")
    values = dict(facts)
    if cause == "player-count":
        cause = "setup-player-count"
        values["edition"] = edition_name(str(facts.get("edition")))
    elif cause == "unknown-card":
        if facts.get("nearest"):
            cause = "unknown-card-near"
            values["nearest"] = name(str(facts["nearest"]), edition)
    elif cause == "off-edition":
        cause = "off-edition-record"
        values["card"] = name(str(facts.get("card")), edition)
        values["edition"] = edition_name(str(facts.get("edition")))
    elif cause == "variant-unknown":
        values["edition"] = edition_name(edition) if edition else ""
    elif cause == "variant-players":
        values["variant"] = _variant(facts.get("variant"))
    elif cause == "variants-combine":
        values["variants"] = ", ".join(_variant(v) for v in str(facts.get("variants", "")).split(", "))
    elif cause in ("menu-players", "menu-not-party-kind"):
        values["kind"] = _kind(facts.get("kind"), edition)
    elif cause == "menu-shape":
        values["family"] = FAMILIES.get(str(facts.get("family")), facts.get("family"))
    if isinstance(cause, str) and cause in MESSAGES:
        try:
            return say(cause, **values)
        except (KeyError, IndexError, ValueError):
            pass
    for cls in type(exc).__mro__:
        if cls.__name__ in MESSAGES:
            return say(cls.__name__)
    return say("RecordError")


def _detail(exc: RecordError, edition: str | None) -> str:
    """The scorer's own line (its slugs as names) on English pages, else :func:`setup_words`."""
    return in_words(exc.message, edition) if page_language() == "en" else setup_words(exc, edition)


def _round_number(path: str) -> int | None:
    found = re.match(r"rounds\[(\d+)\]", path)
    return int(found.group(1)) + 1 if found else None


def record_words(
    exc: RecordError, edition: str | None, players: Sequence[str] = (), anyway: bool = True
) -> str:
    """Any scorer fault in the players' words: the round and player it is about named, cards by
    their names, no record syntax (``rounds[1].tableaux.Ann[2]``); ``anyway``: the page offers
    to confirm a round over its deck counts.

    >>> from scorer import score_record
    >>> try:
    ...     score_record({"edition": "party", "players": ["Ann", "Ben"], "rounds": [
    ...         {"tableaux": {"Ann": ["soy-sauce"] * 4, "Ben": []}}]})
    ... except RecordError as exc:
    ...     print(record_words(exc, "party", ["Ann", "Ben"], anyway=False))
    Round 1: 1 of these 4 Soy Sauce cards is more than the Sushi Go Party! deck's 3: check them.
    """
    facts = exc.facts
    cause = facts.get("cause")
    if isinstance(exc, DeckCountError) and cause in ("deck-count", "desserts-added") and edition:
        detail = deck_words(exc, edition, len(players), anyway)
    elif cause == "uramaki-left":
        detail = say("uramaki-left", player=facts["player"], icons=facts["icons"])
    elif cause in ("uramaki-place", "uramaki-place-none", "strawberry-points", "strawberry-none",
                   "strawberry-held"):
        detail = say(cause, **facts)
    else:
        detail = _detail(exc, edition)
    detail = detail.rstrip(".")
    number = _round_number(exc.path)
    if number is None:
        return f"{detail[:1].upper()}{detail[1:]}."
    player = re.match(r"rounds\[\d+\]\.tableaux\.(.+?)(\[\d+\])*$", exc.path)
    if player and player.group(1) in players and cause != "uramaki-left":
        return say("in-round-player", round=number, player=player.group(1), detail=detail)
    return say("in-round", round=number, detail=detail)


def fault_words(exc: RecordError, edition: str | None, players: Sequence[str] = ()) -> str:
    """A refused record or setup: a round's fault in the players' words (:func:`record_words`);
    a fault of the setup itself (edition, players, menu) as the scorer names its field."""
    if exc.path.startswith("rounds["):
        return record_words(exc, edition, players)
    return str(exc) if page_language() == "en" else setup_words(exc, edition)


def explain(exc: RecordError, review: dict[str, Any], game: Game, index: int) -> Problem | None:
    """The cards of this round a scorer error is about, in the player's words; None when it is
    about none of them (another round, the setup, the points scored during the round)."""
    edition = game.edition
    stacks = stacks_by_player(review, game.players)
    found = _card_at(exc.path, index, stacks)
    if isinstance(exc, DuringRoundError) and exc.facts.get("cause") == "uramaki-left":
        player = exc.facts["player"]
        if exc.path != f"rounds[{index}].tableaux.{player}" or player not in game.players:
            return None
        seat = game.players.index(player)
        ids = [c["id"] for c in _of_round(review, exc.cards) if c["seat"] == seat]
        if not ids:
            return None
        points = exc.facts["points"]
        return Problem(
            ids, say("uramaki-left", player=player, icons=exc.facts["icons"]), ids,
            {"label": say("uramaki-fix", player=player, points=points),
             "during": {"player": player, "for": "uramaki", "points": points}, "remove": ids},
        )
    if isinstance(exc, MenuError | PlayerCountError | DessertError) and exc.cards:
        cards = _of_round(review, exc.cards)
        if not cards:
            return None
        what = name(cards[0]["label"], edition)
        if isinstance(exc, MenuError):
            words = say("off-menu", card=what)
        elif isinstance(exc, PlayerCountError):
            words = say("player-count", card=what, players=len(game.players))
        else:
            words = say("second-dessert", card=what)
        ids = [c["id"] for c in cards]
        return Problem(ids, words, ids)
    if found is None:
        return None
    card, below = found
    if isinstance(exc, StackError):
        words = _stack_words(card, below, edition)
    elif isinstance(exc, EditionError):
        words = say("off-edition", card=name(card["label"], edition), edition=edition_name(edition))
    else:
        words = say("card-other", card=name(card["label"], edition), detail=_detail(exc, edition).rstrip("."))
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
    out, one fault at a time, the cards the scorer cannot take; a deck count exceeded in this
    round is a warning, and the round is scored with those cards as they are."""
    index = sum(1 for r in game.confirmed_rounds if r.number < number)
    problems: list[Problem] = []
    warnings: list[DeckWarning] = []
    over_deck: set[str] = set()
    current = review
    # each fault costs one scoring of the game: a page of nonsense stops after a few dozen
    for _ in range(min(len(review["cards"]), MAX_PROBLEMS) + len(CARDS) + 1):
        this_round = _round(current, game.players)
        if over_deck:
            this_round["over_deck"] = sorted(over_deck)
        try:
            result = score_record(game.record(replace={number: this_round}))
        except DeckCountError as exc:
            if exc.path != f"rounds[{index}]" or not exc.cards or set(exc.cards) <= over_deck:
                return ScoredReview(None, index, problems, record_words(exc, game.edition, game.players), warnings)
            over_deck.update(exc.cards)
            ids = [c["id"] for c in _of_round(current, exc.cards)]
            warnings.append(DeckWarning(ids, deck_words(exc, game.edition, len(game.players)), sorted(exc.cards)))
            continue
        except RecordError as exc:
            problem = explain(exc, current, game, index)
            if problem is None or not problem.left_out:
                return ScoredReview(None, index, problems, record_words(exc, game.edition, game.players), warnings)
            if len(problems) == MAX_PROBLEMS:
                break
            problems.append(problem)
            current = _without(current, set(problem.left_out))
            continue
        return ScoredReview(result, index, problems, warnings=warnings)
    return ScoredReview(None, index, problems, say("too-many-faults", limit=MAX_PROBLEMS), warnings)


def confirm_refusal(number: int, checked: ScoredReview) -> str:
    """Why a round is not confirmed, counting the cards still to check (not the problems)."""
    first = checked.error or checked.problems[0].message
    rest = {i for p in checked.problems[0 if checked.error else 1:] for i in p.cards}
    rest -= set() if checked.error else set(checked.problems[0].cards)
    words = say("confirm-refused", round=number, first=first)
    if rest:
        words += " " + say("confirm-more", count=len(rest))
    return words


def over_deck_refusal(number: int, checked: ScoredReview) -> str:
    """A round over its deck counts, not yet confirmed anyway."""
    return say("confirm-over-deck", round=number, first=" ".join(w.message for w in checked.warnings))
