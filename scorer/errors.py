"""Why a game record cannot be scored, split by cause.

Every error names the place in the record it is about (``.path``, e.g.
``rounds[1].tableaux.Ann[3]``) and reads as one line, because the CLI prints
it as one line on stderr and the web page returns it as ``{"error": msg}``.

>>> err = UnknownCardError("rounds[0].tableaux.Ann[3]", "unknown card 'tempora'")
>>> str(err)
"rounds[0].tableaux.Ann[3]: unknown card 'tempora'"
>>> isinstance(err, ValueError), err.path
(True, 'rounds[0].tableaux.Ann[3]')

A value the record holds is shown cut to its first :data:`SHOWN_CHARS` characters and its
length, so an error about a 10 MB player name is still a line a terminal shows:

>>> str(FormatError("players[1]", f"{'Ann' * 1000!r} is listed twice"))
"players[1]: 'AnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnnAnn…' (3000 characters) is listed twice"
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: The most characters of one value (a quoted text, a name in a path) an error message shows.
SHOWN_CHARS = 60
# a quoted value as repr() writes it (an apostrophe inside a word, as in "Ann's", starts none),
# or a run without spaces (a player's name inside a path such as rounds[0].tableaux.NAME)
_LONG_VALUE = re.compile(
    rf"(?<!\w)'(?:[^'\\]|\\.)*'|(?<!\w)\"(?:[^\"\\]|\\.)*\"|\S{{{SHOWN_CHARS + 1},}}")


def shorten(text: str) -> str:
    """``text`` with each value longer than :data:`SHOWN_CHARS` cut to its start and its length.

    >>> shorten("unknown card 'tempora'")
    "unknown card 'tempora'"
    >>> shorten("rounds[0].tableaux." + "x" * 100)
    'rounds[0].tableaux.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (119 characters)'
    """
    def cut(match: re.Match[str]) -> str:
        value = match.group(0)
        if len(value) <= SHOWN_CHARS:
            return value
        quote = value[0] if value[0] in "'\"" and value[-1] == value[0] else ""
        inner = value[1:-1] if quote else value
        return f"{quote}{inner[:SHOWN_CHARS]}…{quote} ({len(inner)} characters)"

    return _LONG_VALUE.sub(cut, text)


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
        self, path: str, message: str, *, cards: tuple[str, ...] = (), facts: Mapping[str, Any] | None = None
    ) -> None:
        self.path = path  # whole: a program finds the place by it
        self.message = shorten(message)
        self.cards = tuple(cards)
        self.facts = dict(facts or {})
        super().__init__(shorten(f"{path}: {message}") if path else self.message)


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
