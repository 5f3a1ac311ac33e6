"""The card catalogue and Party menus, shaped for the pages (no card art: names and colours)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import lazy_gettext

from scorer.cards import CARD_BACK, CARDS, FAMILIES, display_name
from scorer.editions import EDITIONS
from scorer.menus import MENU_SHAPE, MENUS, resolve_menu
from scorer.names import card_name, kind_name
from web.i18n import edition_names, page_language, variant_name

# The families' names, as the Party rulebook heads its menu columns.
FAMILY_NAMES = {
    "nigiri": lazy_gettext("Nigiri"),
    "rolls": lazy_gettext("Rolls"),
    "appetizers": lazy_gettext("Appetizers"),
    "specials": lazy_gettext("Specials"),
    "desserts": lazy_gettext("Desserts"),
    "other": lazy_gettext("Other"),
}

# The Party rulebook's menus, by key, and the notes beside them.
MENU_NAMES = {
    "my-first-meal": lazy_gettext("My First Meal"),
    "sushi-go": lazy_gettext("Sushi Go!"),
    "party-sampler": lazy_gettext("Party Sampler"),
    "master-menu": lazy_gettext("Master Menu"),
    "points-platter": lazy_gettext("Points Platter"),
    "cutthroat-combo": lazy_gettext("Cutthroat Combo"),
    "big-banquet": lazy_gettext("Big Banquet"),
    "dinner-for-two": lazy_gettext("Dinner for Two"),
}
MENU_NOTES = {
    "ideal for 6-8 players": lazy_gettext("ideal for 6-8 players"),
    "for 2 players": lazy_gettext("for 2 players"),
}


def card_label(slug: str, edition: str | None) -> str:
    """A card's name as the page's language prints it, for ``edition``."""
    lang = page_language()
    return display_name(slug, edition) if lang == "en" else card_name(slug, lang, edition)


def _kind_label(kind: Kind) -> str:
    lang = page_language()
    return kind.name if lang == "en" else kind_name(kind.key, lang, "party")


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
        (str(FAMILY_NAMES[f]), MENU_SHAPE[f],
         [Kind(k.key, _kind_label(k), k.family, k.colour) for k in PARTY_KINDS if k.family == f])
        for f in FAMILIES
        if f in MENU_SHAPE
    ]


def editions() -> list[dict[str, Any]]:
    names = edition_names()
    return [
        {
            "key": e.key,
            "name": names.get(e.key, e.name),
            "players": e.players,
            "variants": [{"key": v.key, "name": variant_name(v.key), "players": v.players} for v in e.variants],
        }
        for e in EDITIONS.values()
    ]


def menus() -> list[dict[str, Any]]:
    names = {k.key: _kind_label(k) for k in PARTY_KINDS}
    return [
        {"key": m.key, "name": str(MENU_NAMES.get(m.key, m.name)), "note": str(MENU_NOTES.get(m.note, m.note)),
         "kinds": [names[k] for k in m.kinds]}
        for m in MENUS.values()
    ]


def menu_name(menu: Any) -> str | None:
    """How a game's menu reads on its page."""
    if menu is None:
        return None
    if isinstance(menu, str) and menu in MENUS:
        return str(MENU_NAMES.get(menu, MENUS[menu].name))
    return str(lazy_gettext("Custom menu"))


def menu_dishes(menu: Any, players: int) -> list[Kind]:
    """The kinds of card a Party menu puts in the deck, in the rulebook's family order."""
    if menu is None:
        return []
    try:
        kinds = set(resolve_menu(menu, players).kinds)
    except ValueError:
        return []
    return [Kind(k.key, _kind_label(k), k.family, k.colour) for k in PARTY_KINDS if k.key in kinds]


def game_cards(edition: str, menu: Any, players: int) -> list[dict[str, Any]]:
    """Every card the picker offers for a game, the game's own first.

    ``in_game`` is False for cards of the edition that the game's menu leaves out (still
    offered: a misread card is easier to fix than to explain); a card back only comes with a
    take-out box, so a menu without one does not offer it at all. ``hotkey`` is the card's number
    in the picker's list, read left to right: each card has one, and its number key picks it.
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
        if card.slug == CARD_BACK and in_menu is not None and "takeout-box" not in in_menu:
            continue
        playable = in_menu is None or card.slug in in_menu or card.slug == CARD_BACK
        cards.append(
            {
                "slug": card.slug,
                "name": card_label(card.slug, edition),
                "family": card.family,
                "kind": card.kind,
                "colour": card.colour,
                "in_game": playable,
            }
        )
    cards.sort(key=lambda c: (not c["in_game"], FAMILIES.index(c["family"])))
    for number, entry in enumerate(cards, start=1):
        entry["hotkey"] = number
    return cards


def names_elsewhere(offered: list[dict[str, Any]], edition: str) -> dict[str, dict[str, str]]:
    """Names and colours of the cards the picker does not offer (another edition's, a card
    back without take-out): a misread one still shows its printed name on the review page."""
    slugs = {c["slug"] for c in offered}
    return {
        card.slug: {"name": card_label(card.slug, edition), "colour": card.colour}
        for card in CARDS.values()
        if card.slug not in slugs
    }
