"""Desserts: counted at the end of the game (and the strawberry-pudding lead during rounds).

>>> bubble_tea_points([2, 3, 4, 4]), fruit_points({"watermelon": 0, "orange": 1, "pineapple": 4})
(9, 4)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache

from scorer.cards import ANNIVERSARY, display_name
from scorer.errors import DessertError
from scorer.families import Category, Line, RoundView, cards_count
from scorer.game import Game
from scorer.i18n import N_, NP_, Text, joined
from scorer.ranking import most_and_fewest
from scorer.tableau import Played

FRUIT_POINTS = (-2, 0, 1, 3, 6, 10)
FRUITS = ("watermelon", "pineapple", "orange")
BUBBLE_TEA_RUN_POINTS = (0, 1, 4, 8, 13, 20)
ICE_CREAM_SET, ICE_CREAM_POINTS = 4, 12


def fruit_points(symbols: dict[str, int]) -> int:
    return sum(FRUIT_POINTS[min(symbols.get(f, 0), len(FRUIT_POINTS) - 1)] for f in FRUITS)


def bubble_tea_points(balls: Iterable[int]) -> int:
    """The best split of the cards into runs of consecutive ball counts (1, 4, 8, 13, 20)."""
    counts = Counter(balls)
    return _best_runs(tuple(counts.get(n, 0) for n in range(1, 6)))


@cache
def _best_runs(counts: tuple[int, ...]) -> int:
    best = 0
    for start in range(len(counts)):
        for end in range(start, len(counts)):
            if counts[end] == 0:
                break
            rest = tuple(c - 1 if start <= i <= end else c for i, c in enumerate(counts))
            best = max(best, BUBBLE_TEA_RUN_POINTS[end - start + 1] + _best_runs(rest))
    return best


def score_round(view: RoundView) -> dict[str, list[Line]]:
    """The 2 points for taking the strawberry-pudding lead, as scored during the round."""
    out: dict[str, list[Line]] = {}
    for score in view.during:
        if score.reason == "strawberry-pudding":
            out.setdefault(score.player, []).append(Line(
                Category("Strawberry Pudding", "strawberry-pudding", view.rules.key), score.points,
                N_("took the lead")))
    return out


def dessert_kinds(game: Game) -> list[str]:
    """The game's desserts: the menu's, else those played (anniversary: strawberry by default)."""
    seen = list(dict.fromkeys(
        p.card.kind for r in game.rounds for _, t in r.tableaux for p in t.cards
        if p.card.family == "desserts"
    ))
    if game.menu is not None:
        return [k for k in game.menu.kinds if k in game.rules.desserts]
    if game.edition == ANNIVERSARY and not seen:
        return ["strawberry-pudding"]
    return seen


def score_game_end(game: Game) -> dict[str, list[Line]]:
    """Each player's dessert lines at the end of the game."""
    players = game.players
    desserts: dict[str, list[Played]] = {p: [] for p in players}
    for rnd in game.rounds:
        for player, tableau in rnd.tableaux:
            desserts[player].extend(c for c in tableau.cards if c.card.family == "desserts")
    out: dict[str, list[Line]] = {p: [] for p in players}
    split = game.rules.ties == "split"

    def of_kind(player: str, kind: str) -> list[Played]:
        return [c for c in desserts[player] if c.card.kind == kind]

    for kind in dessert_kinds(game):
        english = display_name("pudding", game.edition) if kind == "pudding" else kind.replace("-", " ").title()
        name = Category(english, kind, game.edition)
        if kind in ("pudding", "frozen-yogurt", "mochi", "strawberry-pudding"):
            if kind == "pudding":
                values = {p: len(of_kind(p, kind)) for p in players}
            elif kind in ("frozen-yogurt", "strawberry-pudding"):
                values = {p: sum(c.card.icons for c in of_kind(p, kind)) for p in players}
            else:
                values = _mochi_dice(game, {p: len(of_kind(p, kind)) for p in players})
            if kind == "strawberry-pudding":
                awards = most_and_fewest(values, most=0, fewest=-6, split=split,
                                         fewest_two_players=-3, all_tied_scores=True)
            else:
                awards = most_and_fewest(values, most=6, fewest=-6, split=split)
            for player in players:
                if player in awards:
                    points, detail = awards[player]
                    out[player].append(Line(name, points, joined([_unit(kind, values[player]), detail])))
                elif values[player]:
                    out[player].append(Line(name, 0, _unit(kind, values[player])))
        elif kind == "green-tea-ice-cream":
            for player in players:
                n = len(of_kind(player, kind))
                if n:
                    sets = n // ICE_CREAM_SET
                    out[player].append(Line(name, ICE_CREAM_POINTS * sets, joined(
                        [cards_count(n), NP_("{n} set of 4", "{n} sets of 4", sets)])))
        elif kind == "fruit":
            for player in players:
                symbols = Counter(f for c in of_kind(player, kind) for f in c.card.fruits)
                detail = N_("{watermelon} watermelon, {pineapple} pineapple, {orange} orange",
                            **{f: symbols.get(f, 0) for f in FRUITS})
                out[player].append(Line(name, fruit_points(symbols), detail))
        elif kind == "bubble-tea":
            for player in players:
                balls = [c.card.icons for c in of_kind(player, kind)]
                if balls:
                    out[player].append(Line(name, bubble_tea_points(balls), N_(
                        "runs of {balls}", balls=", ".join(map(str, sorted(balls))))))
    return out


def _unit(kind: str, n: int) -> Text:
    """What a dessert that scores by most and fewest counts: cards, points, symbols, pips."""
    if kind == "frozen-yogurt":
        return NP_("{n} point", "{n} points", n)
    if kind == "strawberry-pudding":
        return NP_("{n} symbol", "{n} symbols", n)
    if kind == "mochi":
        return NP_("{n} pip", "{n} pips", n)
    return cards_count(n)


def _mochi_dice(game: Game, mochi_cards: dict[str, int]) -> dict[str, int]:
    """Every die starts on 1 and is rolled at each mochi card taken."""
    dice = dict(game.mochi)
    for player, n in mochi_cards.items():
        if n and player not in dice:
            raise DessertError(f"mochi.{player}", f"{player} took mochi: record their die's number in 'mochi'")
    return {p: dice.get(p, 1) for p in game.players}
