"""The three editions as data: player counts, tie rule, decks, desserts, variants.

>>> EDITIONS["party"].players, EDITIONS["original"].ties
((2, 8), 'split')
>>> EDITIONS["party"].maki_prizes(7)
(6, 4, 2)
>>> EDITIONS["party"].dessert_cards_added(5, round_count=2)
8
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.cards import ANNIVERSARY, ORIGINAL, PARTY, slugs_of_kind


@dataclass(frozen=True)
class Pool:
    """A family total the rulebook prints (e.g. Party: 12 nigiri of three toppings)."""

    name: str
    slugs: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class Variant:
    """An optional rule from the rulebook; ``players`` limits who may use it."""

    key: str
    name: str
    scoring: bool  # whether it changes any score or the winner
    players: tuple[int, int] | None = None
    combines: bool = False  # may be added to another variant (anniversary: variants do not combine)


@dataclass(frozen=True)
class Edition:
    key: str
    name: str
    players: tuple[int, int]
    ties: str  # "split": tied players share the points, rounded down; "full": each gets them all
    pools: tuple[Pool, ...]
    desserts: tuple[str, ...]  # dessert kinds of the edition
    variants: tuple[Variant, ...]
    hand_sizes: tuple[tuple[int, int], ...]  # (players, cards dealt)
    # Party: dessert cards shuffled in per round, for 2-5 and for 6-8 players
    dessert_schedule: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    def maki_prizes(self, players: int) -> tuple[int, ...]:
        """Points for most, second (and third) maki icons."""
        if self.key == PARTY and players >= 6:
            return (6, 4, 2)
        return (6, 3)

    def variant(self, key: str) -> Variant | None:
        return next((v for v in self.variants if v.key == key), None)

    def hand_size(self, players: int) -> int:
        return dict(self.hand_sizes)[players]

    def dessert_cards_added(self, players: int, round_count: int) -> int | None:
        """Party: dessert cards in play after ``round_count`` rounds (5+3+2 or 7+5+3)."""
        if self.dessert_schedule is None:
            return None
        schedule = self.dessert_schedule[0 if players <= 5 else 1]
        return sum(schedule[:round_count])


_LEFT_RIGHT = Variant("left-right-left", "Pass left, right, left", scoring=False)

EDITIONS: dict[str, Edition] = {
    ORIGINAL: Edition(
        key=ORIGINAL,
        name="Sushi Go!",
        players=(2, 5),
        ties="split",
        pools=(),
        desserts=("pudding",),
        variants=(
            _LEFT_RIGHT,
            Variant("dummy-player", "2-player variant with a dummy third player", scoring=False,
                    players=(3, 3)),
        ),
        hand_sizes=((2, 10), (3, 9), (4, 8), (5, 7)),
    ),
    ANNIVERSARY: Edition(
        key=ANNIVERSARY,
        name="Sushi Go! 10th Anniversary Edition",
        players=(2, 5),
        ties="split",
        pools=(
            Pool("strawberry pudding", slugs_of_kind("strawberry-pudding"), 10),
            # "the beloved dessert of the original game": its 10 cards
            Pool("old-fashioned pudding", ("pudding",), 10),
        ),
        desserts=("strawberry-pudding", "frozen-yogurt", "bubble-tea", "pudding", "mochi"),
        variants=(
            Variant("two-way", "Two-way street (pass left, right, left)", scoring=False),
            Variant("sushi-golf", "Sushi golf: the lowest score wins", scoring=True),
            Variant("personal-draw-piles", "2 players: personal draw piles", scoring=False,
                    players=(2, 2)),
            Variant("sushi-battle", "2 players: sushi battle", scoring=False, players=(2, 2)),
            Variant("puppet-player", "2 players: puppet player", scoring=False, players=(3, 3)),
            Variant("must-have-futomaki", "2 players: you must have futomaki", scoring=True,
                    players=(2, 2), combines=True),
        ),
        hand_sizes=((2, 10), (3, 9), (4, 8), (5, 7)),
    ),
    PARTY: Edition(
        key=PARTY,
        name="Sushi Go Party!",
        players=(2, 8),
        ties="full",
        pools=(
            Pool("nigiri", slugs_of_kind("nigiri"), 12),
            Pool("maki", slugs_of_kind("maki"), 12),
            Pool("uramaki", slugs_of_kind("uramaki"), 12),
            Pool("onigiri", slugs_of_kind("onigiri"), 8),
            Pool("fruit", slugs_of_kind("fruit"), 15),
        ),
        desserts=("pudding", "green-tea-ice-cream", "fruit"),
        variants=(),
        hand_sizes=((2, 10), (3, 10), (4, 9), (5, 9), (6, 8), (7, 8), (8, 7)),
        dessert_schedule=((5, 3, 2), (7, 5, 3)),
    ),
}

def edition(key: str) -> Edition:
    try:
        return EDITIONS[key]
    except (KeyError, TypeError):
        raise KeyError(f"unknown edition {key!r} (expected {', '.join(EDITIONS)})") from None
