"""The eight Party menus ("SELECCIÓN DE PLATOS") and the custom-menu constraints.

A menu is a set of card kinds (``nigiri`` covers the three nigiri faces, ``maki``
the three maki faces...). The rulebook's "à la carte" rule: nigiri, 1 kind of
rolls, 3 appetizers, 2 specials and 1 dessert; no menu or special order with 7-8
players, no spoon or edamame with 2.

>>> MENUS["sushi-go"].kinds
('nigiri', 'maki', 'tempura', 'sashimi', 'dumpling', 'chopsticks', 'wasabi', 'pudding')
>>> validate_menu(MENUS["dinner-for-two"].kinds, players=2)
>>> validate_menu(["nigiri", "maki", "temaki", "tempura", "sashimi", "eel", "wasabi", "tea", "pudding"])
Traceback (most recent call last):
...
scorer.errors.MenuError: menu: 2 kinds of rolls (maki, temaki); a menu has exactly 1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer.cards import CARDS, KINDS
from scorer.errors import MenuError

MENU_SHAPE: dict[str, int] = {"nigiri": 1, "rolls": 1, "appetizers": 3, "specials": 2, "desserts": 1}

_KIND_FAMILY: dict[str, str] = {c.kind: c.family for c in CARDS.values()}
_PARTY_KINDS = {c.kind for c in CARDS.values() if "party" in c.editions and c.family != "other"}


@dataclass(frozen=True)
class Menu:
    key: str
    name: str
    spanish_name: str
    kinds: tuple[str, ...]
    note: str = ""

    def slugs(self) -> tuple[str, ...]:
        """Every face this menu puts in the deck (with ``card-back``, which any take-out makes)."""
        return tuple(s for s, c in CARDS.items() if c.kind in self.kinds and "party" in c.editions)


def _menu(key: str, name: str, spanish: str, kinds: str, note: str = "") -> Menu:
    return Menu(key, name, spanish, tuple(kinds.split()), note)


MENUS: dict[str, Menu] = {
    m.key: m
    for m in (
        _menu("my-first-meal", "My First Meal", "Mi primera comida",
              "nigiri maki tempura sashimi miso-soup wasabi tea green-tea-ice-cream"),
        _menu("sushi-go", "Sushi Go!", "Sushi Go!",
              "nigiri maki tempura sashimi dumpling chopsticks wasabi pudding"),
        _menu("party-sampler", "Party Sampler", "Delicatessen party",
              "nigiri temaki tempura dumpling tofu wasabi menu green-tea-ice-cream"),
        _menu("master-menu", "Master Menu", "Menú gourmet",
              "nigiri temaki onigiri tofu sashimi spoon takeout-box fruit"),
        _menu("points-platter", "Points Platter", "Surtido de puntos",
              "nigiri uramaki onigiri dumpling edamame special-order tea green-tea-ice-cream"),
        _menu("cutthroat-combo", "Cutthroat Combo", "Combo salvaje",
              "nigiri temaki eel tofu miso-soup spoon soy-sauce pudding"),
        _menu("big-banquet", "Big Banquet", "Gran banquete",
              "nigiri maki tempura dumpling eel spoon chopsticks green-tea-ice-cream",
              note="ideal for 6-8 players"),
        _menu("dinner-for-two", "Dinner for Two", "Cena para dos",
              "nigiri uramaki onigiri tofu miso-soup menu special-order fruit",
              note="for 2 players"),
    )
}

# Party cards limited by player count (card guide headings, custom-menu note).
CARD_PLAYERS: dict[str, tuple[int, int]] = {
    "menu": (2, 6),
    "special-order": (2, 6),
    "spoon": (3, 8),
    "edamame": (3, 8),
}


def kind_of(name: str) -> str:
    """The menu kind of a slug or kind name (``maki-2`` → ``maki``)."""
    if name in CARDS:
        return CARDS[name].kind
    if name in KINDS:
        return name
    raise MenuError("menu", f"unknown card or kind {name!r}", facts={"cause": "menu-unknown-card", "text": name})


def _check_players(kinds: Iterable[str], players: int, path: str) -> None:
    for kind in kinds:
        low, high = CARD_PLAYERS.get(kind, (2, 8))
        if not low <= players <= high:
            raise MenuError(path, f"{kind} is played with {low}-{high} players, not {players}",
                            facts={"cause": "menu-players", "kind": kind, "low": low, "high": high,
                                   "players": players})


def validate_menu(cards: Iterable[str], players: int | None = None, path: str = "menu") -> None:
    """Raise :class:`MenuError` unless ``cards`` (slugs or kinds) form a complete Party menu."""
    kinds = list(dict.fromkeys(kind_of(c) for c in cards))
    for kind in kinds:
        if kind not in _PARTY_KINDS:
            raise MenuError(path, f"{kind} is not a Sushi Go Party! card", facts={"cause": "menu-not-party-kind", "kind": kind})
    by_family: dict[str, list[str]] = {f: [] for f in MENU_SHAPE}
    for kind in kinds:
        by_family[_KIND_FAMILY[kind]].append(kind)
    for family, wanted in MENU_SHAPE.items():
        got = by_family[family]
        if len(got) != wanted:
            noun = "kind" if len(got) == 1 else "kinds"
            listed = f" ({', '.join(got)})" if got else ""
            raise MenuError(
                path, f"{len(got)} {noun} of {family}{listed}; a menu has exactly {wanted}",
                facts={"cause": "menu-shape", "family": family, "count": len(got), "wanted": wanted},
            )
    if players is not None:
        _check_players(kinds, players, path)


def validate_partial_menu(kinds: Mapping[str, str], players: int) -> None:
    """Raise unless the kinds a game shows still fit some menu (a record without ``menu``).

    ``kinds`` maps each kind seen to the place it was first seen, which the error names.
    """
    by_family: dict[str, list[str]] = {f: [] for f in MENU_SHAPE}
    for kind, path in kinds.items():
        family = _KIND_FAMILY[kind]
        if family not in by_family:
            continue
        by_family[family].append(kind)
        if len(by_family[family]) > MENU_SHAPE[family]:
            most = MENU_SHAPE[family]
            raise MenuError(
                path, f"{kind} makes {len(by_family[family])} kinds of {family} "
                f"({', '.join(by_family[family])}); a Party menu has {most}"
            )
    _check_players(kinds, players, next(iter(kinds.values()), "rounds"))


def resolve_menu(value: object, players: int, path: str = "menu") -> Menu:
    """A record's ``menu``: a key of :data:`MENUS` or a list of slugs/kinds."""
    if isinstance(value, str):
        if value not in MENUS:
            raise MenuError(path, f"unknown menu {value!r} (expected one of {', '.join(MENUS)})",
                            facts={"cause": "menu-unknown", "menu": value})
        menu = MENUS[value]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        kinds = tuple(dict.fromkeys(kind_of(v) for v in value))
        menu = Menu("custom", "Custom menu", "A la carta", kinds)
    else:
        raise MenuError(path, "expected a menu name or a list of card slugs")
    validate_menu(menu.kinds, players=players, path=path)
    return menu
