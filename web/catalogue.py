"""The card catalogue and Party menus, shaped for the pages (no card art: names and colours)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.cards import CARDS, FAMILIES, display_name
from scorer.editions import EDITIONS
from scorer.menus import MENU_SHAPE, MENUS, resolve_menu

FAMILY_NAMES = {
    "nigiri": "Nigiri",
    "rolls": "Rolls",
    "appetizers": "Appetizers",
    "specials": "Specials",
    "desserts": "Desserts",
    "other": "Other",
}
HOTKEYS = 9  # number keys 1-9 pick the most frequent cards in the review's picker


@dataclass(frozen=True)
class Kind:
    """A kind of card a Party menu picks (``maki`` covers the three maki faces)."""

    key: str
    name: str
    family: str
    colour: str


def _kinds() -> list[Kind]:
    kinds: dict[str, list] = {}
    for card in CARDS.values():
        if "party" in card.editions and card.family != "other":
            kinds.setdefault(card.kind, []).append(card)
    return [
        Kind(key, cards[0].name if len(cards) == 1 else key.replace("-", " ").title(),
             cards[0].family, cards[0].colour)
        for key, cards in kinds.items()
    ]


PARTY_KINDS: tuple[Kind, ...] = tuple(_kinds())


def kinds_by_family() -> list[tuple[str, int, list[Kind]]]:
    """For the custom-menu form: (family name, how many to pick, kinds) per family."""
    return [
        (FAMILY_NAMES[f], MENU_SHAPE[f], [k for k in PARTY_KINDS if k.family == f])
        for f in FAMILIES
        if f in MENU_SHAPE
    ]


def editions() -> list[dict[str, Any]]:
    return [
        {
            "key": e.key,
            "name": e.name,
            "players": e.players,
            "variants": [{"key": v.key, "name": v.name, "players": v.players} for v in e.variants],
        }
        for e in EDITIONS.values()
    ]


def menus() -> list[dict[str, Any]]:
    names = {k.key: k.name for k in PARTY_KINDS}
    return [
        {"key": m.key, "name": m.name, "note": m.note, "kinds": [names[k] for k in m.kinds]}
        for m in MENUS.values()
    ]


def menu_name(menu: Any) -> str | None:
    """How a game's menu reads on its page."""
    if menu is None:
        return None
    if isinstance(menu, str) and menu in MENUS:
        return MENUS[menu].name
    return "Custom menu"


def game_cards(edition: str, menu: Any, players: int) -> list[dict[str, Any]]:
    """Every card the picker offers for a game, the game's own first.

    ``in_game`` is False for cards of the edition that the game's menu leaves out (still
    offered: a misread card is easier to fix than to explain). ``hotkey`` numbers the nine
    most frequent cards of the game.
    """
    in_menu: set[str] | None = None
    if edition == "party" and menu is not None:
        try:
            in_menu = set(resolve_menu(menu, players).slugs())
        except ValueError:
            in_menu = None
    cards: list[dict[str, Any]] = []
    for card in CARDS.values():
        if edition not in card.editions:
            continue
        playable = in_menu is None or card.slug in in_menu or card.family == "other"
        cards.append(
            {
                "slug": card.slug,
                "name": display_name(card.slug, edition),
                "family": card.family,
                "kind": card.kind,
                "colour": card.colour,
                "in_game": playable,
                "hotkey": None,
            }
        )
    cards.sort(key=lambda c: (not c["in_game"], FAMILIES.index(c["family"])))
    frequent = sorted(
        (c for c in cards if c["in_game"] and c["family"] != "other"),
        key=lambda c: -_frequency(c["slug"], edition),
    )[:HOTKEYS]
    # numbered in the picker's order, so keys 1-9 read left to right
    for number, entry in enumerate((c for c in cards if c in frequent), start=1):
        entry["hotkey"] = number
    return cards


def _frequency(slug: str, edition: str) -> float:
    """Copies of a card in the deck; a share of its family's total where only that is printed."""
    card = CARDS[slug]
    count = card.deck_count(edition)
    if count is not None:
        return count
    for pool in EDITIONS[edition].pools:
        if slug in pool.slugs:
            return pool.count / len(pool.slugs)
    return 1.0
