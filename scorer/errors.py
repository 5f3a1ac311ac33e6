"""Why a game record cannot be scored, split by cause.

Every error names the place in the record it is about (``.path``, e.g.
``rounds[1].tableaux.Ann[3]``) and reads as one line, because the CLI prints
it as one line on stderr and the web page returns it as ``{"error": msg}``.

>>> err = UnknownCardError("rounds[0].tableaux.Ann[3]", "unknown card 'tempora'")
>>> str(err)
"rounds[0].tableaux.Ann[3]: unknown card 'tempora'"
>>> isinstance(err, ValueError), err.path
(True, 'rounds[0].tableaux.Ann[3]')
"""

from __future__ import annotations


class RecordError(ValueError):
    """A game record that cannot be true; ``path`` names the place.

    ``cards`` names the card slugs at fault where the path alone cannot (a deck count is about
    every copy of a card in a round; a menu error about every card of a kind), so a program can
    point at them; the message stays the one line the CLI prints.

    ``facts`` holds the numbers and names the message is made of, under a ``cause`` that tells
    one fault from another of the same class (``{"cause": "uramaki-left", "player": "Ann",
    "icons": 15, "points": 8}``), so a program can say it in other words without parsing it.
    """

    def __init__(
        self, path: str, message: str, *, cards: tuple[str, ...] = (), facts: dict | None = None
    ) -> None:
        self.path = path
        self.message = message
        self.cards = tuple(cards)
        self.facts = dict(facts or {})
        super().__init__(f"{path}: {message}" if path else message)


class FormatError(RecordError):
    """The record is not shaped as game-record.md says (wrong type, missing key)."""


class UnknownCardError(RecordError):
    """A slug that is not in the card catalogue (cards.md)."""


class UnknownPlayerError(RecordError):
    """A name that is not one of the record's ``players`` (or a player left out)."""


class PlayerCountError(RecordError):
    """Too few or too many players for the edition, or for a card that limits them."""


class DeckCountError(RecordError):
    """More copies of a card (or of a card family) than the edition's deck holds."""


class StackError(RecordError):
    """A stack that cannot lie on the table (a nigiri on something that is not wasabi...)."""


class EditionError(RecordError):
    """An unknown edition, or a card or rule that belongs to another edition."""


class MenuError(RecordError):
    """A Party menu that breaks the rulebook's constraints, or a card outside the menu."""


class VariantError(RecordError):
    """An unknown variant, or one that does not apply to this game."""


class DuringRoundError(RecordError):
    """``scored_during_round`` entries that no game could produce."""


class TurnLogError(RecordError):
    """A per-turn log that cannot be replayed, or disagrees with the tableaux."""


class DessertError(RecordError):
    """Dessert data that cannot be true (mixed anniversary desserts, a missing mochi die)."""


__all__ = [
    "DeckCountError",
    "DessertError",
    "DuringRoundError",
    "EditionError",
    "FormatError",
    "MenuError",
    "PlayerCountError",
    "RecordError",
    "StackError",
    "TurnLogError",
    "UnknownCardError",
    "UnknownPlayerError",
    "VariantError",
]
