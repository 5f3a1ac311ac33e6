"""The per-turn log of a round, and the turn-order rules computed from it.

Three rules depend on the order cards were played, which the table at the end of a
round no longer shows: miso soup (discarded when two are played in one turn), the
uramaki race (8/5/2 for the first players to reach 10 icons) and the strawberry
pudding lead (2 points for taking it). When a round carries ``turns`` they are
replayed here; otherwise the scorer trusts ``scored_during_round`` and the tableau.
The form is documented in ``docs/turn-log.md``.

>>> log = TurnLog.from_json([
...     {"reveals": {"Ann": ["miso-soup"], "Ben": ["miso-soup"]}},
...     {"reveals": {"Ann": ["uramaki-5"], "Ben": ["uramaki-5"]}},
...     {"reveals": {"Ann": ["uramaki-5"], "Ben": ["tempura"]}},
... ], ("Ann", "Ben"), "party")
>>> result = replay(log, ("Ann", "Ben"), "party")
>>> result.tableaux["Ann"].slugs(), result.tableaux["Ben"].slugs()
((), ('uramaki-5', 'tempura'))
>>> [(s.player, s.reason, s.points) for s in result.during]
[('Ann', 'uramaki', 8)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import CARD_BACK, DISCARDED_ON_PLAY, SPECIAL_ORDER, is_nigiri
from scorer.errors import FormatError, TurnLogError, UnknownPlayerError
from scorer.i18n import N_, NP_, Text
from scorer.tableau import Played, Stack, Tableau

URAMAKI_PLACES = (8, 5, 2)
URAMAKI_GOAL = 10
STRAWBERRY_LEAD_POINTS = 2

EVENTS = ("chopsticks-used", "spoon-used", "takeout-flip", "mochi-roll")


@dataclass(frozen=True)
class DuringRoundScore:
    """Points scored while the round was played (``for`` in the record)."""

    player: str
    reason: str  # "uramaki" or "strawberry-pudding"
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "for": self.reason, "points": self.points}

    @classmethod
    def from_json(cls, value: object, players: Sequence[str], path: str) -> DuringRoundScore:
        if not isinstance(value, dict):
            raise FormatError(path, "expected an object with player, for and points")
        for key in ("player", "for", "points"):
            if key not in value:
                raise FormatError(path, f"missing {key!r}")
        player, reason, points = value["player"], value["for"], value["points"]
        if player not in players:
            raise UnknownPlayerError(f"{path}.player", f"unknown player {player!r}")
        if reason not in ("uramaki", "strawberry-pudding"):
            raise FormatError(f"{path}.for", f"expected 'uramaki' or 'strawberry-pudding', got {reason!r}")
        if not isinstance(points, int) or isinstance(points, bool):
            raise FormatError(f"{path}.points", "expected a whole number")
        return cls(player, reason, points)


@dataclass(frozen=True)
class TurnEvent:
    player: str
    event: str
    cards: tuple[str, ...] = ()
    value: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "event": self.event}
        if self.cards:
            out["cards"] = list(self.cards)
        if self.value is not None:
            out["value"] = self.value
        return out


@dataclass(frozen=True)
class Turn:
    """What each player revealed in one turn (seat order), then what happened."""

    reveals: tuple[tuple[str, tuple[str, ...]], ...]
    events: tuple[TurnEvent, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reveals": {p: list(cards) for p, cards in self.reveals}}
        if self.events:
            out["events"] = [e.to_json() for e in self.events]
        return out


@dataclass(frozen=True)
class TurnLog:
    turns: tuple[Turn, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [t.to_json() for t in self.turns]

    @classmethod
    def from_json(cls, value: object, players: Sequence[str], edition: str, path: str = "turns") -> TurnLog:
        if not isinstance(value, list):
            raise FormatError(path, "expected a list of turns")
        turns = []
        for t, turn in enumerate(value):
            where = f"{path}[{t}]"
            if not isinstance(turn, dict) or not isinstance(turn.get("reveals", {}), dict):
                raise FormatError(where, "expected an object with 'reveals' (player → cards)")
            unknown = set(turn) - {"reveals", "events"}
            if unknown:
                raise FormatError(where, f"unexpected key {sorted(unknown)[0]!r}")
            reveals = turn.get("reveals", {})
            for name, cards in reveals.items():
                if name not in players:
                    raise UnknownPlayerError(f"{where}.reveals.{name}", f"unknown player {name!r}")
                if not isinstance(cards, list):
                    raise FormatError(f"{where}.reveals.{name}", "expected a list of cards")
                for i, text in enumerate(cards):
                    if text != SPECIAL_ORDER:
                        Played.from_text(text, edition, f"{where}.reveals.{name}[{i}]")
            events = []
            raw_events = turn.get("events", [])
            if not isinstance(raw_events, list):
                raise FormatError(f"{where}.events", "expected a list of events")
            for e, event in enumerate(raw_events):
                events.append(_event(event, players, edition, f"{where}.events[{e}]"))
            ordered = tuple((p, tuple(reveals[p])) for p in players if p in reveals)
            turns.append(Turn(ordered, tuple(events)))
        return cls(tuple(turns))


def _event(value: object, players: Sequence[str], edition: str, path: str) -> TurnEvent:
    if not isinstance(value, dict) or "player" not in value or "event" not in value:
        raise FormatError(path, "expected an object with 'player' and 'event'")
    player, kind = value["player"], value["event"]
    if player not in players:
        raise UnknownPlayerError(f"{path}.player", f"unknown player {player!r}")
    if kind not in EVENTS:
        raise TurnLogError(f"{path}.event", f"unknown event {kind!r} (expected {', '.join(EVENTS)})")
    cards: tuple[str, ...] = ()
    value_: int | None = None
    if kind == "takeout-flip":
        raw = value.get("cards")
        if not isinstance(raw, list) or not raw:
            raise FormatError(f"{path}.cards", "a take-out flip names the cards it turns face down")
        for i, text in enumerate(raw):
            Played.from_text(text, edition, f"{path}.cards[{i}]")
        cards = tuple(raw)
    if kind == "mochi-roll":
        value_ = value.get("value")
        if not isinstance(value_, int) or isinstance(value_, bool) or not 1 <= value_ <= 6:
            raise FormatError(f"{path}.value", "a mochi die shows 1 to 6")
    return TurnEvent(player, kind, cards, value_)


@dataclass
class ReplayResult:
    tableaux: dict[str, Tableau]
    during: list[DuringRoundScore]
    strawberry_holder: str | None
    mochi: dict[str, int] = field(default_factory=dict)
    notes: list[Text] = field(default_factory=list)


def _strawberry(played: Played) -> int:
    return played.card.icons if played.card.kind == "strawberry-pudding" else 0


def replay(
    log: TurnLog,
    players: Sequence[str],
    edition: str,
    *,
    strawberry_before: Mapping[str, int] | None = None,
    strawberry_holder: str | None = None,
    path: str = "turns",
) -> ReplayResult:
    """Play the log turn by turn; return the end-of-round tableaux and the points scored on the way."""
    stacks: dict[str, list[list[Played]]] = {p: [] for p in players}
    during: list[DuringRoundScore] = []
    notes: list[Text] = []
    mochi: dict[str, int] = {}
    places_taken = 0
    before = dict(strawberry_before or {})
    holder = strawberry_holder

    for t, turn in enumerate(log.turns):
        where = f"{path}[{t}]"
        revealed = _reveal(turn, stacks, players, edition, t, where, notes)
        _discard_miso_soups(stacks, revealed, players, t, notes)
        places_taken = _race_uramaki(stacks, players, places_taken, during)
        holder = _lead_strawberry(stacks, revealed, players, before, holder, during)
        _apply_events(turn, stacks, revealed, edition, where, mochi)

    tableaux = {p: Tableau(tuple(Stack(tuple(s)) for s in stacks[p] if s)) for p in players}
    return ReplayResult(tableaux, during, holder, mochi, notes)


def _reveal(
    turn: Turn,
    stacks: dict[str, list[list[Played]]],
    players: Sequence[str],
    edition: str,
    t: int,
    where: str,
    notes: list[Text],
) -> dict[str, list[Played]]:
    """Lay one turn's revealed cards on the table and return them per player.

    A nigiri goes on its player's free wasabi (the order of play decides which wasabi is
    free), cards discarded on play never reach the table, and a special order laid on an
    empty table is noted, since it had nothing to copy.
    """
    revealed: dict[str, list[Played]] = {p: [] for p in players}
    for player, texts in turn.reveals:
        for i, text in enumerate(texts):
            here = f"{where}.reveals.{player}[{i}]"
            if text == SPECIAL_ORDER:
                if any(stacks[player]):
                    raise TurnLogError(here, "name the card a special order copies: 'special-order:<slug>'")
                notes.append(N_("turn {turn}: {player}'s special order had nothing to copy",
                                turn=t + 1, player=player))
                continue
            played = Played.from_text(text, edition, here)
            if played.slug in DISCARDED_ON_PLAY:
                continue  # both go to the discard as soon as they are played
            free_wasabi = next(
                (s for s in stacks[player] if s and s[-1].slug == "wasabi"), None
            ) if is_nigiri(played.slug) else None
            if free_wasabi is not None:
                played = Played(played.slug, played.printed, on_wasabi=True)
                free_wasabi.append(played)
            else:
                stacks[player].append([played])
            revealed[player].append(played)
    return revealed


def _discard_miso_soups(
    stacks: dict[str, list[list[Played]]],
    revealed: Mapping[str, list[Played]],
    players: Sequence[str],
    t: int,
    notes: list[Text],
) -> None:
    """Miso soup: two or more in one turn (whoever played them) are all discarded."""
    misos = [(p, c) for p in players for c in revealed[p] if c.slug == "miso-soup"]
    if len(misos) >= 2:
        for player, soup in misos:
            _remove(stacks[player], soup)
        notes.append(NP_("turn {turn}: {n} miso soup played together, all discarded",
                         "turn {turn}: {n} miso soups played together, all discarded",
                         len(misos), turn=t + 1))


def _race_uramaki(
    stacks: dict[str, list[list[Played]]],
    players: Sequence[str],
    places_taken: int,
    during: list[DuringRoundScore],
) -> int:
    """The uramaki race: reaching 10 icons scores the next place at once, and the cards go.

    Players who reach the goal in the same turn with the same icons share a place; the
    places taken so far are returned, so the next turn scores the places left.
    """
    reached = {
        p: icons for p in players
        if (icons := sum(c.card.icons for s in stacks[p] for c in s if c.card.kind == "uramaki"))
        >= URAMAKI_GOAL
    }
    for icons in sorted(set(reached.values()), reverse=True):
        if places_taken >= len(URAMAKI_PLACES):
            break
        group = [p for p in players if reached.get(p) == icons]
        for player in group:
            during.append(DuringRoundScore(player, "uramaki", URAMAKI_PLACES[places_taken]))
            stacks[player] = [
                kept for s in stacks[player]
                if (kept := [c for c in s if c.card.kind != "uramaki"])
            ]
        places_taken += len(group)
    return places_taken


def _lead_strawberry(
    stacks: Mapping[str, list[list[Played]]],
    revealed: Mapping[str, list[Played]],
    players: Sequence[str],
    before: Mapping[str, int],
    holder: str | None,
    during: list[DuringRoundScore],
) -> str | None:
    """Strawberry pudding: the lead goes to the one who played one and now has the most symbols.

    Taking the lead scores at once; a tie for the most keeps it where it was. Returns who
    holds the lead after this turn.
    """
    pudding_players = {p for p in players if any(_strawberry(c) for c in revealed[p])}
    if pudding_players:
        totals = {p: before.get(p, 0) + sum(_strawberry(c) for s in stacks[p] for c in s) for p in players}
        top = max(totals.values())
        contenders = [p for p in players if totals[p] == top and p in pudding_players]
        if len(contenders) == 1 and contenders[0] != holder:
            holder = contenders[0]
            during.append(DuringRoundScore(holder, "strawberry-pudding", STRAWBERRY_LEAD_POINTS))
    return holder


def _apply_events(
    turn: Turn,
    stacks: dict[str, list[list[Played]]],
    revealed: Mapping[str, list[Played]],
    edition: str,
    where: str,
    mochi: dict[str, int],
) -> None:
    """Carry out what happened after the reveals: a tool used, a take-out flip, a mochi roll."""
    for e, event in enumerate(turn.events):
        here = f"{where}.events[{e}]"
        own = stacks[event.player]
        if event.event in ("chopsticks-used", "spoon-used"):
            _use_tool(event, own, here)
        elif event.event == "takeout-flip":
            _flip_takeout(event, own, revealed[event.player], edition, here)
        elif event.event == "mochi-roll":
            mochi[event.player] = event.value  # type: ignore[assignment]


def _use_tool(event: TurnEvent, own: list[list[Played]], here: str) -> None:
    """Chopsticks or a spoon used: the player's latest one leaves the table (it returns to a hand)."""
    tool = event.event.removesuffix("-used")
    def is_tool(c: Played, tool: str = tool) -> bool:
        return c.slug == tool

    found = _find(own, is_tool)
    if found is None:
        raise TurnLogError(here, f"{event.player} has no {tool} on the table to use")
    _remove(own, found)


def _flip_takeout(
    event: TurnEvent, own: list[list[Played]], fresh: list[Played], edition: str, here: str
) -> None:
    """A take-out box flips cards played in earlier turns face down, each becoming a card back.

    A card revealed this very turn (``fresh``) cannot be flipped, so a card of the same kind
    played earlier is looked for instead.
    """
    for i, text in enumerate(event.cards):
        target = Played.from_text(text, edition)
        def is_target(c: Played, target: Played = target, fresh: list[Played] = fresh) -> bool:
            return ((c.slug, c.printed) == (target.slug, target.printed)
                    and all(c is not r for r in fresh))

        found = _find(own, is_target)
        if found is None:
            raise TurnLogError(
                f"{here}.cards[{i}]",
                f"{event.player} has no {text!r} played in an earlier turn to flip",
            )
        _remove(own, found)
        own.append([Played(CARD_BACK, CARD_BACK)])


def _find(stacks: list[list[Played]], wanted: Callable[[Played], bool]) -> Played | None:
    for stack in reversed(stacks):
        for played in reversed(stack):
            if wanted(played):
                return played
    return None


def _remove(stacks: list[list[Played]], played: Played) -> None:
    """Take ``played`` (this very object) off the table; what lay on it stays as its own pile."""
    for i, stack in enumerate(stacks):
        for j, card in enumerate(stack):
            if card is played:
                # a nigiri stays dipped (and keeps its points) when its wasabi is flipped
                stacks[i] = stack[:j] + stack[j + 1:]
                if not stacks[i]:
                    del stacks[i]
                return
