"""The card catalogue: every slug of ``spec/cards.md`` as an immutable :class:`Card`.

Deck counts come from the rulebooks' contents lists. The Party book lists only
family totals for cards printed in variants (12 nigiri, 12 maki, 12 uramaki,
8 onigiri, 15 fruit): those limits live in :data:`scorer.editions.EDITIONS`
as pools, and the single card's ``deck_count`` is ``None`` there.

Colours are the printed background colours, measured (median of the card's side
bands) on the faces in ``../shared/cards/party-digital``; the original edition
shares that art. Anniversary-only cards have no image here: their colour is the
one of the Party card they replace (futomaki as maki, gyoza as dumpling...).

>>> CARDS["salmon-nigiri"].name, CARDS["salmon-nigiri"].family, CARDS["salmon-nigiri"].colour
('Salmon Nigiri', 'nigiri', '#fec53e')
>>> CARDS["maki-3"].icons, CARDS["maki-3"].deck_count("original"), CARDS["maki-3"].deck_count("party")
(3, 8, None)
>>> card("tempora")
Traceback (most recent call last):
...
KeyError: "unknown card 'tempora' (did you mean 'tempura'?)"
>>> [slug for slug in CARDS if is_nigiri(slug)]
['egg-nigiri', 'salmon-nigiri', 'squid-nigiri']
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ORIGINAL, ANNIVERSARY, PARTY = "original", "anniversary", "party"
ALL_EDITIONS = frozenset({ORIGINAL, ANNIVERSARY, PARTY})
FAMILIES = ("nigiri", "rolls", "appetizers", "specials", "desserts", "other")


@dataclass(frozen=True)
class Card:
    """One printed card face.

    ``kind`` groups the faces a Party menu picks together (all nigiri are the kind
    ``nigiri``, every maki face the kind ``maki``); ``icons`` is the number printed
    on the face where it scores (maki/uramaki/futomaki icons, strawberry-pudding
    symbols, frozen-yogurt value, bubble-tea balls); ``fruits`` the fruit symbols.
    """

    slug: str
    name: str
    family: str
    kind: str
    colour: str
    editions: frozenset[str]
    decks: tuple[tuple[str, int], ...] = ()
    icons: int = 0
    fruits: tuple[str, ...] = ()
    nigiri_points: int = 0

    def deck_count(self, edition: str) -> int | None:
        """Copies of this face in ``edition``'s deck; ``None`` where only a family total is printed."""
        return dict(self.decks).get(edition)

    def in_edition(self, edition: str) -> bool:
        return edition in self.editions

    def __str__(self) -> str:
        return self.slug


def _card(slug: str, name: str, family: str, kind: str, colour: str, editions: Iterable[str],
          decks: Iterable[tuple[str, int]] = (), **extra: Any) -> Card:
    return Card(slug, name, family, kind, colour, frozenset(editions), tuple(decks), **extra)


_OA = (ORIGINAL, ANNIVERSARY)
_OP = (ORIGINAL, PARTY)
_ALL = (ORIGINAL, ANNIVERSARY, PARTY)

YELLOW, RED = "#fec53e", "#d32831"

_CATALOGUE: list[Card] = [
    # nigiri (Party prints 12 nigiri without a per-topping count: see editions pools)
    _card("egg-nigiri", "Egg Nigiri", "nigiri", "nigiri", YELLOW, _ALL,
          [(ORIGINAL, 5), (ANNIVERSARY, 5)], nigiri_points=1),
    _card("salmon-nigiri", "Salmon Nigiri", "nigiri", "nigiri", YELLOW, _ALL,
          [(ORIGINAL, 10), (ANNIVERSARY, 10)], nigiri_points=2),
    _card("squid-nigiri", "Squid Nigiri", "nigiri", "nigiri", YELLOW, _ALL,
          [(ORIGINAL, 5), (ANNIVERSARY, 5)], nigiri_points=3),
    # rolls
    _card("maki-1", "Maki Roll (1)", "rolls", "maki", RED, _OP, [(ORIGINAL, 6)], icons=1),
    _card("maki-2", "Maki Roll (2)", "rolls", "maki", RED, _OP, [(ORIGINAL, 12)], icons=2),
    _card("maki-3", "Maki Roll (3)", "rolls", "maki", RED, _OP, [(ORIGINAL, 8)], icons=3),
    # futomaki counts: the anniversary contents list repeats the original's 12/8/6 pattern
    _card("futomaki-1", "Futomaki (1)", "rolls", "futomaki", RED, [ANNIVERSARY],
          [(ANNIVERSARY, 6)], icons=1),
    _card("futomaki-2", "Futomaki (2)", "rolls", "futomaki", RED, [ANNIVERSARY],
          [(ANNIVERSARY, 12)], icons=2),
    _card("futomaki-3", "Futomaki (3)", "rolls", "futomaki", RED, [ANNIVERSARY],
          [(ANNIVERSARY, 8)], icons=3),
    _card("temaki", "Temaki", "rolls", "temaki", "#7c1367", [PARTY], [(PARTY, 12)]),
    _card("uramaki-3", "Uramaki (3)", "rolls", "uramaki", "#e8e848", [PARTY], icons=3),
    _card("uramaki-4", "Uramaki (4)", "rolls", "uramaki", "#e8e848", [PARTY], icons=4),
    _card("uramaki-5", "Uramaki (5)", "rolls", "uramaki", "#e8e848", [PARTY], icons=5),
    # appetizers
    _card("tempura", "Tempura", "appetizers", "tempura", "#bc9ac6", _ALL,
          [(ORIGINAL, 14), (ANNIVERSARY, 14), (PARTY, 8)]),
    _card("sashimi", "Sashimi", "appetizers", "sashimi", "#bfd83e", _ALL,
          [(ORIGINAL, 14), (ANNIVERSARY, 14), (PARTY, 8)]),
    _card("dumpling", "Dumpling", "appetizers", "dumpling", "#7098ca", _OP,
          [(ORIGINAL, 14), (PARTY, 8)]),
    _card("gyoza", "Gyoza", "appetizers", "dumpling", "#7098ca", [ANNIVERSARY],
          [(ANNIVERSARY, 14)]),
    _card("eel", "Eel", "appetizers", "eel", "#403290", [PARTY], [(PARTY, 8)]),
    _card("tofu", "Tofu", "appetizers", "tofu", "#76ab3f", [PARTY], [(PARTY, 8)]),
    _card("edamame", "Edamame", "appetizers", "edamame", "#8f3081", [PARTY], [(PARTY, 8)]),
    _card("miso-soup", "Miso Soup", "appetizers", "miso-soup", "#11897f", [PARTY], [(PARTY, 8)]),
    *(
        _card(f"onigiri-{shape}", f"Onigiri ({shape})", "appetizers", "onigiri", "#da3996", [PARTY])
        for shape in ("circle", "triangle", "square", "rectangle")
    ),
    # specials
    _card("wasabi", "Wasabi", "specials", "wasabi", YELLOW, _ALL,
          [(ORIGINAL, 6), (ANNIVERSARY, 6), (PARTY, 3)]),
    _card("chopsticks", "Chopsticks", "specials", "chopsticks", "#a5d8cf", _ALL,
          [(ORIGINAL, 4), (ANNIVERSARY, 4), (PARTY, 3)]),
    _card("soy-sauce", "Soy Sauce", "specials", "soy-sauce", "#f39754", [PARTY], [(PARTY, 3)]),
    _card("tea", "Tea", "specials", "tea", "#9b181d", [PARTY], [(PARTY, 3)]),
    _card("menu", "Menu", "specials", "menu", "#f9e783", [PARTY], [(PARTY, 3)]),
    _card("spoon", "Spoon", "specials", "spoon", "#525451", [PARTY], [(PARTY, 3)]),
    # the special order is printed on a rainbow: this is its blue band
    _card("special-order", "Special Order", "specials", "special-order", "#669bb1", [PARTY],
          [(PARTY, 3)]),
    _card("takeout-box", "Take-out Box", "specials", "takeout-box", "#cca27a", [PARTY],
          [(PARTY, 3)]),
    # desserts
    _card("pudding", "Pudding", "desserts", "pudding", "#fcafb5", _ALL,
          [(ORIGINAL, 10), (ANNIVERSARY, 10), (PARTY, 15)]),
    _card("green-tea-ice-cream", "Green Tea Ice Cream", "desserts", "green-tea-ice-cream",
          "#46a5bb", [PARTY], [(PARTY, 15)]),
    *(
        _card(f"fruit-{a}-{b}", f"Fruit ({a}, {b})", "desserts", "fruit", "#f28076", [PARTY],
              fruits=(a, b))
        for a, b in (
            ("watermelon", "watermelon"), ("pineapple", "pineapple"), ("orange", "orange"),
            ("watermelon", "pineapple"), ("pineapple", "orange"), ("watermelon", "orange"),
        )
    ),
    # anniversary desserts: the book gives bubble tea 1-5 balls but names strawberry
    # symbols (2 and 4) and yogurt values (a total of 7) only in examples, so the
    # ranges below are deliberately wide rather than guessed tight.
    *(
        _card(f"strawberry-pudding-{n}", f"Strawberry Pudding ({n})", "desserts",
              "strawberry-pudding", "#fcafb5", [ANNIVERSARY], icons=n)
        for n in range(1, 6)
    ),
    *(
        _card(f"frozen-yogurt-{n}", f"Frozen Yogurt ({n})", "desserts", "frozen-yogurt",
              "#46a5bb", [ANNIVERSARY], icons=n)
        for n in range(0, 10)
    ),
    *(
        _card(f"bubble-tea-{n}", f"Bubble Tea ({n})", "desserts", "bubble-tea", "#f28076",
              [ANNIVERSARY], icons=n)
        for n in range(1, 6)
    ),
    _card("mochi", "Mochi", "desserts", "mochi", "#fcafb5", [ANNIVERSARY]),
    # other
    _card("card-back", "Card Back (take-out)", "other", "card-back", "#9d1822", [PARTY]),
]

CARDS: dict[str, Card] = {c.slug: c for c in _CATALOGUE}

# The physical card whose copy is written "special-order:<slug>" in a record.
SPECIAL_ORDER = "special-order"
CARD_BACK = "card-back"

#: Cards that go back to their player's hand when used, and the turn-log event that says so.
RETURNS_TO_HAND: dict[str, str] = {"chopsticks": "chopsticks-used", "spoon": "spoon-used"}
#: Cards that go to the discard as soon as they are played (what they do is done by then).
DISCARDED_ON_PLAY: frozenset[str] = frozenset({"menu", "takeout-box"})
#: Cards a special order cannot copy.
NEVER_COPIED: frozenset[str] = frozenset({"menu", "takeout-box", SPECIAL_ORDER})
#: Kinds the rules may take off the table during a round: miso soups played together, uramaki
#: that reached the goal.
_LEAVE_DURING_ROUND = ("miso-soup", "uramaki")


def leaves_by_rule(slug: str) -> bool:
    """Whether the rules themselves may take a card of this face off the table before the
    round ends (so its going needs no event in the log).

    >>> leaves_by_rule("miso-soup"), leaves_by_rule("uramaki-4"), leaves_by_rule("menu"), leaves_by_rule("tempura")
    (True, True, True, False)
    """
    return slug in DISCARDED_ON_PLAY or (slug in CARDS and CARDS[slug].kind in _LEAVE_DURING_ROUND)


def stays_all_round(slug: str) -> bool:
    """Whether a card of this face, once played, lies on the table till the round ends: it
    goes back to no hand and the rules take it off the table at no time before.

    >>> stays_all_round("tempura"), stays_all_round("chopsticks"), stays_all_round("miso-soup")
    (True, False, False)
    """
    return slug not in RETURNS_TO_HAND and not leaves_by_rule(slug)


def card(slug: str) -> Card:
    """The card named ``slug``; ``KeyError("unknown card 'x'")`` otherwise."""
    try:
        return CARDS[slug]
    except (KeyError, TypeError):
        raise KeyError(unknown_card(slug)) from None


def unknown_card(slug: object) -> str:
    """The message for a slug not in the catalogue, with the nearest slug where one is close.

    >>> unknown_card("tempra")
    "unknown card 'tempra' (did you mean 'tempura'?)"
    >>> unknown_card("pizza")
    "unknown card 'pizza'"
    """
    message = f"unknown card {slug!r}"
    if isinstance(slug, str):
        close = difflib.get_close_matches(slug.strip().lower(), list(CARDS), n=1, cutoff=0.75)
        if close:
            message += f" (did you mean {close[0]!r}?)"
    return message


def unknown_card_facts(slug: object) -> dict[str, Any]:
    """The facts of :func:`unknown_card`'s message: the text read, and the nearest slug (or None).

    >>> unknown_card_facts("tempra")
    {'cause': 'unknown-card', 'text': 'tempra', 'nearest': 'tempura'}
    """
    close = (difflib.get_close_matches(slug.strip().lower(), list(CARDS), n=1, cutoff=0.75)
             if isinstance(slug, str) else [])
    return {"cause": "unknown-card", "text": str(slug), "nearest": close[0] if close else None}


def is_nigiri(slug: str) -> bool:
    return slug in CARDS and CARDS[slug].kind == "nigiri"


def is_dessert(slug: str) -> bool:
    return slug in CARDS and CARDS[slug].family == "desserts"


def display_name(slug: str, edition: str | None = None) -> str:
    """English name as the edition prints it.

    >>> display_name("pudding", "anniversary"), display_name("pudding", "party")
    ('Old-Fashioned Pudding', 'Pudding')
    """
    if slug == "pudding" and edition == ANNIVERSARY:
        return "Old-Fashioned Pudding"
    return card(slug).name


def slugs_of_kind(kind: str) -> tuple[str, ...]:
    return tuple(c.slug for c in _CATALOGUE if c.kind == kind)


KINDS: tuple[str, ...] = tuple(dict.fromkeys(c.kind for c in _CATALOGUE))
