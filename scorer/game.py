"""A whole game record as immutable values: :class:`Round` and :class:`Game`.

:meth:`Game.from_record` validates everything a record claims (see game-record.md)
and raises a :class:`~scorer.errors.RecordError` naming the place; :meth:`Game.to_record`
writes it back, and reading that back gives the same value.

>>> game = Game.from_record({"edition": "original", "players": ["Ann", "Ben"],
...     "rounds": [{"tableaux": {"Ann": [["wasabi", "squid-nigiri"]], "Ben": ["pudding"]}}]})
>>> game.rounds[0].tableau("Ann").slugs()
('wasabi', 'squid-nigiri')
>>> Game.from_record(game.to_record()) == game
True
>>> Game.from_record({"edition": "original", "players": ["Ann", "Ben"],
...     "rounds": [{"tableaux": {"Ann": ["tempora"], "Ben": []}}]})
Traceback (most recent call last):
...
scorer.errors.UnknownCardError: rounds[0].tableaux.Ann[0]: unknown card 'tempora' (did you mean 'tempura'?)
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.cards import (
    ANNIVERSARY,
    CARDS,
    PARTY,
    SPECIAL_ORDER,
    slugs_of_kind,
    unknown_card,
    unknown_card_facts,
)
from scorer.editions import EDITIONS, Edition, Variant
from scorer.errors import (
    DeckCountError,
    DessertError,
    DuringRoundError,
    EditionError,
    FormatError,
    MenuError,
    PlayerCountError,
    TurnLogError,
    UnknownCardError,
    UnknownPlayerError,
    VariantError,
)
from scorer.i18n import Text
from scorer.menus import CARD_PLAYERS, Menu, resolve_menu, validate_partial_menu
from scorer.tableau import Tableau
from scorer.turns import URAMAKI_GOAL, URAMAKI_PLACES, DuringRoundScore, TurnLog, replay

MAX_ROUNDS = 3
# A round deals each player at most 10 cards (editions.py hand_sizes); this
# bound only stops absurd records early, the deck counts judge the rest.
MAX_TABLEAU_ENTRIES = 100
_RECORD_KEYS = {"edition", "players", "rounds", "menu", "variants", "mochi"}


@dataclass(frozen=True)
class Round:
    """One round: each player's tableau at its end, and what was scored during it.

    With a turn log, ``tableaux`` and ``scored_during_round`` are what the log's
    replay gives (checked against the record's own when it has them too).
    """

    tableaux: tuple[tuple[str, Tableau], ...]
    scored_during_round: tuple[DuringRoundScore, ...] = ()
    turns: TurnLog | None = None
    notes: tuple[Text, ...] = ()
    # cards the players confirmed beyond their edition's deck count ("our deck is like this":
    # two decks mixed, a house rule, a misprint): their deck counts are not checked this round
    over_deck: tuple[str, ...] = ()

    def tableau(self, player: str) -> Tableau:
        return dict(self.tableaux)[player]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tableaux": {p: t.to_json() for p, t in self.tableaux}}
        if self.scored_during_round:
            out["scored_during_round"] = [s.to_json() for s in self.scored_during_round]
        if self.turns is not None:
            out["turns"] = self.turns.to_json()
        if self.over_deck:
            out["over_deck"] = list(self.over_deck)
        return out


@dataclass(frozen=True)
class Game:
    edition: str
    players: tuple[str, ...]
    rounds: tuple[Round, ...]
    menu: Menu | None = None
    variants: tuple[str, ...] = ()
    mochi: tuple[tuple[str, int], ...] = ()  # end-of-game die values (anniversary mochi)

    @property
    def rules(self) -> Edition:
        return EDITIONS[self.edition]

    @property
    def complete(self) -> bool:
        return len(self.rounds) == MAX_ROUNDS

    def has_variant(self, key: str) -> bool:
        return key in self.variants

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "edition": self.edition,
            "players": list(self.players),
            "rounds": [r.to_json() for r in self.rounds],
        }
        if self.menu is not None:
            out["menu"] = self.menu.key if self.menu.key != "custom" else list(self.menu.kinds)
        if self.variants:
            out["variants"] = list(self.variants)
        if self.mochi:
            out["mochi"] = dict(self.mochi)
        return out

    @classmethod
    def from_record(cls, record: object) -> Game:
        if not isinstance(record, dict):
            raise FormatError("record", "expected a JSON object", facts={"cause": "not-an-object"})
        unknown = sorted(set(record) - _RECORD_KEYS)
        if unknown:
            raise FormatError(unknown[0], f"unexpected key (expected {', '.join(sorted(_RECORD_KEYS))})",
                              facts={"cause": "unexpected-key", "key": unknown[0]})
        edition = _edition(record)
        players = _players(record, edition)
        variants = _variants(record, edition, len(players))
        menu = None
        if "menu" in record:
            if edition.key != PARTY:
                raise EditionError("menu", "menus are a Sushi Go Party! rule", facts={"cause": "menu-not-party"})
            menu = resolve_menu(record["menu"], len(players))
        rounds = _rounds(record, edition, players)
        game = cls(edition.key, players, rounds, menu, variants, _mochi(record, edition, players, rounds))
        _check_cards(game)
        return game


def _edition(record: Mapping[str, Any]) -> Edition:
    if "edition" not in record:
        raise FormatError("edition", "missing (original, anniversary or party)",
                          facts={"cause": "edition-missing"})
    key = record["edition"]
    if not isinstance(key, str) or key not in EDITIONS:
        raise EditionError("edition", f"unknown edition {key!r} (expected {', '.join(EDITIONS)})",
                           facts={"cause": "edition-unknown", "edition": str(key)})
    return EDITIONS[key]


def _players(record: Mapping[str, Any], edition: Edition) -> tuple[str, ...]:
    players = record.get("players")
    if not isinstance(players, list):
        raise FormatError("players", "expected a list of names", facts={"cause": "players-not-list"})
    # the count first: a record naming thousands of players is refused before any name is read
    low, high = edition.players
    if not low <= len(players) <= high:
        raise PlayerCountError(
            "players", f"{len(players)} player{'s' if len(players) != 1 else ''}, "
            f"but {edition.name} is for {low}-{high}",
            facts={"cause": "player-count", "players": len(players), "low": low, "high": high,
                   "edition": edition.key},
        )
    seen: set[str] = set()
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise FormatError(f"players[{i}]", "a player's name is a non-empty text",
                              facts={"cause": "name-empty", "seat": i + 1})
        if unprintable(name):
            raise FormatError(
                f"players[{i}]", f"the name {ascii(name)} holds control characters or broken text",
                facts={"cause": "name-unprintable", "seat": i + 1},
            )
        if name in seen:
            raise FormatError(f"players[{i}]", f"{name!r} is listed twice",
                              facts={"cause": "name-twice", "name": name})
        seen.add(name)
    return tuple(players)


def unprintable(name: str) -> bool:
    """Control characters (Cc) or lone surrogates (Cs): text no page or file can show.

    >>> unprintable("Zoë 🍣"), unprintable("Ann\\n"), unprintable("\\ud800")
    (False, True, True)
    """
    return any(unicodedata.category(c) in ("Cc", "Cs") for c in name)


def _variants(record: Mapping[str, Any], edition: Edition, players: int) -> tuple[str, ...]:
    variants = record.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise FormatError("variants", "expected a list of variant names")
    chosen: list[Variant] = []
    for i, key in enumerate(variants):
        variant = edition.variant(key)
        if variant is None:
            known = ", ".join(v.key for v in edition.variants) or "none"
            raise VariantError(f"variants[{i}]", f"unknown {edition.key} variant {key!r} (known: {known})",
                               facts={"cause": "variant-unknown", "variant": key})
        if variant.players and not variant.players[0] <= players <= variant.players[1]:
            low, high = variant.players
            count = f"{low}" if low == high else f"{low}-{high}"
            raise VariantError(f"variants[{i}]", f"{key} is played with {count} players, not {players}",
                               facts={"cause": "variant-players", "variant": key, "count": count,
                                      "players": players})
        chosen.append(variant)
    if edition.key == ANNIVERSARY:
        # "Variants cannot be combined"; the futomaki rule may join any 2-player game
        alone = [v.key for v in chosen if not v.combines]
        if len(alone) > 1:
            raise VariantError("variants", f"anniversary variants do not combine ({', '.join(alone)})",
                               facts={"cause": "variants-combine", "variants": ", ".join(alone)})
    return tuple(dict.fromkeys(variants))


def _rounds(record: Mapping[str, Any], edition: Edition, players: tuple[str, ...]) -> tuple[Round, ...]:
    raw_rounds = record.get("rounds")
    if not isinstance(raw_rounds, list):
        raise FormatError("rounds", "expected a list of rounds")
    if len(raw_rounds) > MAX_ROUNDS:
        raise FormatError("rounds", f"{len(raw_rounds)} rounds, but a game has {MAX_ROUNDS}",
                          facts={"cause": "too-many-rounds", "rounds": len(raw_rounds), "limit": MAX_ROUNDS})
    rounds: list[Round] = []
    strawberry: Counter[str] = Counter()
    holder: str | None = None
    for r, raw in enumerate(raw_rounds):
        path = f"rounds[{r}]"
        if not isinstance(raw, dict):
            raise FormatError(path, "expected an object with tableaux")
        unknown = sorted(set(raw) - {"tableaux", "scored_during_round", "turns", "over_deck"})
        if unknown:
            raise FormatError(f"{path}.{unknown[0]}", "unexpected key")
        tableaux = _tableaux(raw, edition, players, path) if "tableaux" in raw or "turns" not in raw else None
        during = _during(raw, edition, players, path)
        turns = None
        notes: tuple[Text, ...] = ()
        if "turns" in raw:
            turns = TurnLog.from_json(raw["turns"], players, edition.key, f"{path}.turns")
            result = replay(turns, players, edition.key, strawberry_before=strawberry,
                            strawberry_holder=holder, path=f"{path}.turns")
            if tableaux is not None:
                _agree(result.tableaux, tableaux, path)
            if "scored_during_round" in raw and tuple(result.during) != during:
                raise TurnLogError(
                    f"{path}.scored_during_round",
                    f"the turn log scores {[s.to_json() for s in result.during]} instead",
                )
            tableaux = tuple((p, result.tableaux[p]) for p in players)
            during = tuple(result.during)
            holder = result.strawberry_holder
            notes = tuple(result.notes)
        else:
            assert tableaux is not None  # read above whenever the round has no turn log
            holder = _check_during(during, tableaux, strawberry, holder, path)
        for player, tableau in tableaux:
            strawberry[player] += sum(c.card.icons for c in tableau.cards if c.card.kind == "strawberry-pudding")
        rounds.append(Round(tableaux, during, turns, notes, _over_deck(raw, path)))
    return tuple(rounds)


def _over_deck(raw: Mapping[str, Any], path: str) -> tuple[str, ...]:
    """The round's ``over_deck``: card slugs whose deck count the players overruled."""
    value = raw.get("over_deck", [])
    where = f"{path}.over_deck"
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise FormatError(where, "expected a list of card slugs")
    for i, slug in enumerate(value):
        if slug not in CARDS:
            raise UnknownCardError(f"{where}[{i}]", unknown_card(slug), facts=unknown_card_facts(slug))
    return tuple(sorted(set(value)))


def _tableaux(raw: Mapping[str, Any], edition: Edition, players: tuple[str, ...],
              path: str) -> tuple[tuple[str, Tableau], ...]:
    tableaux = raw.get("tableaux")
    if not isinstance(tableaux, dict):
        raise FormatError(f"{path}.tableaux", "expected an object: player → cards")
    for name in tableaux:
        if name not in players:
            raise UnknownPlayerError(f"{path}.tableaux.{name}", f"unknown player {name!r}",
                                     facts={"cause": "unknown-player", "player": name})
    for name in players:
        if name not in tableaux:
            raise UnknownPlayerError(f"{path}.tableaux", f"no tableau for player {name!r} (use [] for none)",
                                     facts={"cause": "no-tableau", "player": name})
    for name in players:  # before any card is read: a record of 100 000 cards took seconds
        cards = tableaux[name]
        if isinstance(cards, list) and len(cards) > MAX_TABLEAU_ENTRIES:
            raise DeckCountError(
                f"{path}.tableaux.{name}",
                f"{len(cards)} cards: no round deals one player more than {MAX_TABLEAU_ENTRIES}",
                facts={"cause": "tableau-too-big", "count": len(cards), "limit": MAX_TABLEAU_ENTRIES},
            )
    return tuple(
        (p, Tableau.from_json(tableaux[p], edition.key, f"{path}.tableaux.{p}")) for p in players
    )


def _during(raw: Mapping[str, Any], edition: Edition, players: Sequence[str], path: str) -> tuple[DuringRoundScore, ...]:
    entries = raw.get("scored_during_round", [])
    where = f"{path}.scored_during_round"
    if not isinstance(entries, list):
        raise FormatError(where, "expected a list")
    out = tuple(DuringRoundScore.from_json(e, players, f"{where}[{i}]") for i, e in enumerate(entries))
    for i, score in enumerate(out):
        if score.reason == "uramaki" and edition.key != PARTY:
            raise EditionError(f"{where}[{i}]", "uramaki is a Sushi Go Party! card")
        if score.reason == "strawberry-pudding" and edition.key != ANNIVERSARY:
            raise EditionError(f"{where}[{i}]", "strawberry pudding is an anniversary-edition card")
    return out


def _check_during(during: Sequence[DuringRoundScore], tableaux: Sequence[tuple[str, Tableau]],
                  strawberry_before: Mapping[str, int], holder: str | None, path: str) -> str | None:
    """Check what no game could score during a round; return who holds the strawberry lead."""
    where = f"{path}.scored_during_round"
    race = [(i, s) for i, s in enumerate(during) if s.reason == "uramaki"]
    for place, (i, score) in enumerate(race):
        tied = place > 0 and score.points == race[place - 1][1].points
        expected = URAMAKI_PLACES[place] if place < len(URAMAKI_PLACES) else None
        if not tied and score.points != expected:
            wanted = f"{expected}" if expected is not None else "nothing (the race has 3 places)"
            raise DuringRoundError(
                f"{where}[{i}].points",
                f"uramaki place {place + 1} scores {wanted}, or the points of a tie with the place before",
                facts={"cause": "uramaki-place", "place": place + 1, "points": expected}
                if expected is not None else {"cause": "uramaki-place-none"},
            )
    if len(race) < len(URAMAKI_PLACES):
        for player, tableau in tableaux:
            icons = sum(c.card.icons for c in tableau.cards if c.card.kind == "uramaki")
            if icons >= URAMAKI_GOAL:
                raise DuringRoundError(
                    f"{path}.tableaux.{player}",
                    f"{icons} uramaki icons left on the table, but reaching {URAMAKI_GOAL} scores "
                    "and discards them at once (list it in scored_during_round)",
                    cards=slugs_of_kind("uramaki"),
                    facts={"cause": "uramaki-left", "player": player, "icons": icons,
                           "points": URAMAKI_PLACES[len(race)]},
                )
    have = Counter(strawberry_before)
    for player, tableau in tableaux:
        have[player] += sum(1 for c in tableau.cards if c.card.kind == "strawberry-pudding")
    for i, score in enumerate(during):
        if score.reason != "strawberry-pudding":
            continue
        if score.points != 2:
            raise DuringRoundError(f"{where}[{i}].points", "taking the strawberry pudding lead scores 2",
                                  facts={"cause": "strawberry-points"})
        if not have[score.player]:
            raise DuringRoundError(f"{where}[{i}]", f"{score.player} has no strawberry pudding to lead with",
                                  facts={"cause": "strawberry-none", "player": score.player})
        if score.player == holder:
            raise DuringRoundError(
                f"{where}[{i}]", f"{score.player} already holds the strawberry pudding lead: no 2 points",
                facts={"cause": "strawberry-held", "player": score.player},
            )
        holder = score.player
    return holder


def _agree(replayed: Mapping[str, Tableau], given: Sequence[tuple[str, Tableau]], path: str) -> None:
    for player, tableau in given:
        want, got = Counter(replayed[player].signature()), Counter(tableau.signature())
        if want != got:
            missing = sorted(_text(c) for c in (want - got).elements())
            extra = sorted(_text(c) for c in (got - want).elements())
            raise TurnLogError(
                f"{path}.tableaux.{player}",
                f"differs from the turn log (log has {missing or 'nothing more'}, "
                f"table has {extra or 'nothing more'})",
            )


def _text(signature: tuple[str, str, bool]) -> str:
    slug, printed, on_wasabi = signature
    text = f"{SPECIAL_ORDER}:{slug}" if printed == SPECIAL_ORDER else slug
    return f"{text} on wasabi" if on_wasabi else text


def _mochi(record: Mapping[str, Any], edition: Edition, players: Sequence[str], rounds: Sequence[Round]) -> tuple[tuple[str, int], ...]:
    if "mochi" in record and edition.key != ANNIVERSARY:
        raise EditionError("mochi", "mochi is an anniversary-edition dessert")
    if not isinstance(record.get("mochi", {}), dict):
        raise FormatError("mochi", "expected an object: player → the number on their mochi die")
    dice = dict(record.get("mochi", {}))
    for rnd in rounds:
        for turn in rnd.turns.turns if rnd.turns else ():
            for event in turn.events:
                if event.event == "mochi-roll":
                    dice.setdefault(event.player, event.value)
    for name, value in dice.items():
        if name not in players:
            raise UnknownPlayerError(f"mochi.{name}", f"unknown player {name!r}",
                                     facts={"cause": "unknown-player", "player": name})
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
            raise FormatError(f"mochi.{name}", "a mochi die shows 1 to 6")
    return tuple((p, dice[p]) for p in players if p in dice)


def deck_faults(game: Game) -> list[DeckCountError]:
    """Every deck count the game's rounds exceed, round by round, including those the players
    confirmed anyway (a round's ``over_deck``): each error's ``cards`` are the slugs it counts
    and its ``facts`` the numbers (``count``, ``limit``)."""
    return _deck_counts(game, strict=False)


def _deck_counts(game: Game, strict: bool) -> list[DeckCountError]:
    """The deck counts exceeded; with ``strict``, the first not confirmed anyway is raised."""
    rules = game.rules
    players = len(game.players)
    desserts_so_far: Counter[str] = Counter()
    faults: list[DeckCountError] = []

    def fault(rnd: Round, error: DeckCountError) -> None:
        if strict and not set(error.cards) <= set(rnd.over_deck):
            raise error
        faults.append(error)

    for r, rnd in enumerate(game.rounds):
        path = f"rounds[{r}]"
        printed: Counter[str] = Counter()
        for _, tableau in rnd.tableaux:
            for stack in tableau.stacks:
                for played in stack.cards:
                    printed[played.printed] += 1
        round_desserts = Counter({s: n for s, n in printed.items() if CARDS[s].family == "desserts"})
        desserts_so_far += round_desserts
        in_play = printed - round_desserts + desserts_so_far
        for slug, count in sorted(in_play.items()):
            limit = CARDS[slug].deck_count(game.edition)
            if limit is not None and count > limit:
                fault(rnd, DeckCountError(
                    path, f"{count} {slug!r} cards on the table, but the {game.edition} deck holds {limit}",
                    cards=(slug,), facts={"cause": "deck-count", "count": count, "limit": limit},
                ))
        for pool in rules.pools:
            count = sum(in_play[s] for s in pool.slugs)
            if count > pool.count:
                fault(rnd, DeckCountError(
                    path, f"{count} {pool.name} cards on the table, but the {game.edition} deck holds {pool.count}",
                    cards=tuple(pool.slugs),
                    facts={"cause": "deck-count", "count": count, "limit": pool.count, "family": pool.name},
                ))
        allowed = rules.dessert_cards_added(players, r + 1)
        total = sum(desserts_so_far.values())
        if allowed is not None and total > allowed:
            fault(rnd, DeckCountError(
                path, f"{total} dessert cards played by round {r + 1}, but only {allowed} are "
                f"shuffled in by then with {players} players",
                cards=tuple(desserts_so_far),
                facts={"cause": "desserts-added", "count": total, "limit": allowed, "round": r + 1},
            ))
    return faults


def _check_cards(game: Game) -> None:
    """Deck counts, desserts and menus: what the edition's box can hold."""
    rules = game.rules
    players = len(game.players)
    _deck_counts(game, strict=True)
    kinds_seen: dict[str, str] = {}
    for r, rnd in enumerate(game.rounds):
        path = f"rounds[{r}]"
        for player, tableau in rnd.tableaux:
            for s, stack in enumerate(tableau.stacks):
                for played in stack.cards:
                    kinds_seen.setdefault(played.card.kind, f"{path}.tableaux.{player}[{s}]")
                    if played.is_copy:
                        kinds_seen.setdefault(CARDS[SPECIAL_ORDER].kind, f"{path}.tableaux.{player}[{s}]")
    dessert_kinds = [k for k in kinds_seen if k in rules.desserts]  # in the order first seen
    if game.edition == ANNIVERSARY and len(dessert_kinds) > 1:
        raise DessertError(
            kinds_seen[dessert_kinds[1]], f"one dessert per game, but this one has {', '.join(dessert_kinds)}",
            cards=slugs_of_kind(dessert_kinds[1]),
        )
    if game.edition == ANNIVERSARY and "mochi" not in dessert_kinds and game.mochi:
        raise DessertError("mochi", "mochi dice are rolled only in a game with mochi cards")
    if game.edition == PARTY:
        for kind, where in kinds_seen.items():
            low, high = CARD_PLAYERS.get(kind, (2, 8))
            if not low <= players <= high:
                raise PlayerCountError(
                    where, f"{kind} is played with {low}-{high} players, not {players}", cards=slugs_of_kind(kind)
                )
        kinds_seen.pop("card-back", None)  # any take-out box makes them
        if game.menu is not None:
            for kind, where in kinds_seen.items():
                if kind not in game.menu.kinds:
                    raise MenuError(
                        where, f"{kind} is not on the menu ({game.menu.name})", cards=slugs_of_kind(kind)
                    )
        else:
            validate_partial_menu(kinds_seen, players)
