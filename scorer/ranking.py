"""Places and ties, the two ways the editions pay them.

``split``: tied players share the place's points, rounded down, and use up as many
places as they are (original, anniversary: "a tie for first leaves no second").
``full``: every tied player gets the place's full points and the next smaller value
takes the next place (Party).

>>> award_places({"B": 5, "P": 3, "M": 3, "E": 2}, (6, 3), split=True)
{'B': (6, 0, 1), 'P': (1, 1, 2), 'M': (1, 1, 2)}
>>> award_places({"B": 5, "P": 5, "M": 3}, (6, 3), split=True)
{'B': (3, 0, 2), 'P': (3, 0, 2)}
>>> award_places({"B": 5, "P": 5, "M": 3}, (6, 3), split=False)
{'B': (6, 0, 2), 'P': (6, 0, 2), 'M': (3, 1, 1)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scorer.i18n import N_, NP_, Text

PLACE_NAMES = (N_("most"), N_("second"), N_("third"))
FEWEST = N_("fewest")


def award_places(values: Mapping[str, int], prizes: Sequence[int], *, split: bool) -> dict[str, tuple[int, int, int]]:
    """Who wins which place: ``{player: (points, place index, players tied there)}``.

    Only players in ``values`` compete (leave out those who may not place).
    """
    out: dict[str, tuple[int, int, int]] = {}
    place = 0
    for value in sorted(set(values.values()), reverse=True):
        if place >= len(prizes):
            break
        group = [p for p in values if values[p] == value]
        points = prizes[place] // len(group) if split else prizes[place]
        for player in group:
            out[player] = (points, place, len(group))
        place += len(group) if split else 1
    return out


def place_detail(place: int | Text, tied: int, split: bool) -> Text:
    """How a place reads in a breakdown (``place``: an index, or a name such as :data:`FEWEST`).

    >>> str(place_detail(1, 2, True)), str(place_detail(0, 1, False)), str(place_detail(FEWEST, 3, False))
    ('second, tied 2 ways (split)', 'most', 'fewest, tied 3 ways')
    >>> place_detail(1, 2, True).render("pl"), place_detail(FEWEST, 5, False).render("pl")
    ('drugie miejsce, remis 2 graczy (podział)', 'najmniej, remis 5 graczy')
    """
    if isinstance(place, Text):
        name = place
    else:
        name = PLACE_NAMES[place] if place < len(PLACE_NAMES) else N_("place {place}", place=place + 1)
    if tied > 1:
        if split:
            return NP_("{place}, tied {n} way (split)", "{place}, tied {n} ways (split)", tied, place=name)
        return NP_("{place}, tied {n} way", "{place}, tied {n} ways", tied, place=name)
    return name


def most_and_fewest(
    values: Mapping[str, int],
    *,
    most: int,
    fewest: int,
    split: bool,
    fewest_two_players: int | None = 0,
    all_tied_scores: bool = False,
) -> dict[str, tuple[int, Text]]:
    """Most ``+most``, fewest ``fewest`` (negative): ``{player: (points, detail)}``.

    ``fewest_two_players`` is what the fewest lose with two players (0: nobody loses;
    ``None``: as with more players). When everyone ties, nobody scores unless
    ``all_tied_scores`` (strawberry pudding, whose book has no such clause).

    >>> awards = most_and_fewest({"B": 4, "P": 3, "M": 0, "E": 0}, most=6, fewest=-6, split=True)
    >>> {p: (points, str(detail)) for p, (points, detail) in awards.items()}
    {'B': (6, 'most'), 'M': (-3, 'fewest, tied 2 ways (split)'), 'E': (-3, 'fewest, tied 2 ways (split)')}
    """
    out: dict[str, tuple[int, Text]] = {}
    if not values:
        return out
    high, low = max(values.values()), min(values.values())
    if high == low and not all_tied_scores:
        return {p: (0, N_("all tied: nobody scores")) for p in values}
    if most and high != low:
        top = [p for p in values if values[p] == high]
        points = most // len(top) if split else most
        for p in top:
            out[p] = (points, place_detail(0, len(top), split))
    penalty = fewest
    if len(values) == 2 and fewest_two_players is not None:
        penalty = fewest_two_players
    bottom = [p for p in values if values[p] == low]
    if penalty:
        if len(values) == 2 and len(bottom) > 1:
            return out  # the 2-player strawberry rule: a tie loses nothing
        points = -(abs(penalty) // len(bottom)) if split else penalty
        for p in bottom:
            out[p] = (points, place_detail(FEWEST, len(bottom), split))
    return out
