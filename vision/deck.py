"""What the game says about the cards a photo can show: its edition's deck and, in a Party
game, its menu.

``Deck.of(edition, menu)`` gives the faces that can lie on the table (``allowed``) and how
many copies of each the deck holds (``limits``: a face's own count, or a family total the
Party rulebook prints, e.g. 12 nigiri of three toppings). The recogniser names a region only
as an allowed face; ``flag_cards`` marks each card the player should look at: one whose
most likely face is outside the menu, and the least sure cards beyond a deck count.

>>> deck = Deck.of("party", "sushi-go")
>>> sorted(deck.allowed)[:4]
['chopsticks', 'dumpling', 'egg-nigiri', 'maki-1']
>>> "card-back" in deck.allowed, "card-back" in Deck.of("party", "master-menu").allowed
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from scorer.cards import CARD_BACK, CARDS
from scorer.editions import EDITIONS
from scorer.errors import MenuError
from scorer.menus import MENUS, kind_of, validate_menu
from vision.detections import FLAG, SEEN_AS, Detections

#: ``data["flag"]`` values (the player's words)
NOT_IN_MENU = "not in this menu"
NOT_IN_EDITION = "not in this edition"
BEYOND_DECK = "more than the deck holds"


class DeckError(ValueError):
    """An unknown edition or menu, or a menu given for an edition that has none."""


@dataclass(frozen=True)
class Deck:
    """The faces a game's deck holds (``allowed``) and count limits on groups of them."""

    edition: str
    allowed: frozenset[str]
    #: (faces, copies): at most ``copies`` cards of these faces together in the deck
    limits: tuple[tuple[frozenset[str], int], ...]
    #: the word a card outside ``allowed`` is flagged with
    outside: str = NOT_IN_MENU

    @classmethod
    def of(cls, edition: str, menu: str | Iterable[str] | None = None) -> Deck:
        """The deck of ``edition`` (``original``, ``anniversary``, ``party``) with ``menu``
        (a Party menu's key, or the slugs or kinds of a custom menu)."""
        if edition not in EDITIONS:
            raise DeckError(f"unknown edition {edition!r} (expected {', '.join(EDITIONS)})")
        if menu is not None and edition != "party":
            raise DeckError(f"only Sushi Go Party! has menus; the {edition} edition has one deck")
        if edition == "party" and menu is not None:
            kinds = _menu_kinds(menu)
            faces = {s for s, c in CARDS.items() if c.kind in kinds and "party" in c.editions}
            if "takeout-box" in kinds:  # take-out turns cards face down: their backs lie there
                faces.add(CARD_BACK)
            outside = NOT_IN_MENU
        else:
            faces = {s for s, c in CARDS.items() if edition in c.editions and s != CARD_BACK}
            if edition == "party":
                faces.add(CARD_BACK)
            outside = NOT_IN_EDITION if menu is None else NOT_IN_MENU
        counts = {s: CARDS[s].deck_count(edition) for s in sorted(faces)}
        limits = [(frozenset({s}), n) for s, n in counts.items() if n is not None]
        limits += [(frozenset(p.slugs) & faces, p.count) for p in EDITIONS[edition].pools
                   if frozenset(p.slugs) & faces]
        return cls(edition, frozenset(faces), tuple(limits), outside)


def _menu_kinds(menu: str | Iterable[str]) -> frozenset[str]:
    if isinstance(menu, str):
        if menu not in MENUS:
            raise DeckError(f"unknown menu {menu!r} (expected one of {', '.join(MENUS)})")
        return frozenset(MENUS[menu].kinds)
    try:
        kinds = [kind_of(v) for v in menu]
        validate_menu(kinds)
    except MenuError as exc:
        raise DeckError(str(exc)) from exc
    return frozenset(kinds)


def flag_cards(detections: Detections, deck: Deck) -> Detections:
    """``detections`` with ``data["flag"]`` set ("" where the card is fine).

    A card whose label lies outside the deck, or that ``data["seen_as"]`` says the classifier
    took for a face outside it, is flagged ``deck.outside``; where a group of faces is seen
    more often than the deck holds, its least confident cards beyond the count are flagged
    ``BEYOND_DECK``. Pass every card of the photo (all seats): the deck is shared.
    """
    n = len(detections)
    labels = detections.labels
    seen_as = [str(v) for v in detections.data.get(SEEN_AS, [""] * n)]
    flags = np.array([""] * n, dtype="<U32")
    for i, (label, seen) in enumerate(zip(labels, seen_as, strict=True)):
        if label not in deck.allowed or (seen and seen not in deck.allowed):
            flags[i] = deck.outside
    order = np.argsort(-detections.confidence, kind="stable")
    for faces, copies in deck.limits:
        members = [int(i) for i in order if labels[i] in faces and not flags[i]]
        for i in members[copies:]:
            flags[i] = BEYOND_DECK
    return detections.with_data(**{FLAG: flags})
