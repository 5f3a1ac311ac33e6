"""Cards on the table: :class:`Played` cards, :class:`Stack` of them, a player's :class:`Tableau`.

A tableau entry in a record is a slug or a stack (a list of slugs, bottom card
first). In a stack a nigiri lies on a wasabi and a special order lies on the card
it copies. ``"special-order:<slug>"`` names a special order's copy where the
copy does not lie on the card it copies (a copied nigiri placed on a free wasabi,
a copy whose original was later flipped by a take-out box).

>>> s = Stack.from_json(["wasabi", "squid-nigiri", "special-order"], "party")
>>> [(p.slug, p.printed, p.on_wasabi) for p in s.cards]
[('wasabi', 'wasabi', False), ('squid-nigiri', 'squid-nigiri', True), ('squid-nigiri', 'special-order', False)]
>>> s.to_json()
['wasabi', 'squid-nigiri', 'special-order']
>>> Stack.from_json(["tempura", "salmon-nigiri"], "party")
Traceback (most recent call last):
...
scorer.errors.StackError: [1]: a nigiri lies only on a wasabi, not on 'tempura'
>>> Tableau.from_json(["tempura", ["wasabi", "egg-nigiri"]], "original").slugs()
('tempura', 'wasabi', 'egg-nigiri')
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.cards import (
    CARD_BACK,
    CARDS,
    NEVER_COPIED,
    SPECIAL_ORDER,
    Card,
    is_nigiri,
    unknown_card,
    unknown_card_facts,
)
from scorer.errors import EditionError, FormatError, StackError, UnknownCardError

# Copies that no game can hold: these cards leave the table the moment they are played.


@dataclass(frozen=True)
class Played:
    """One card on the table as it scores.

    ``slug`` is what it scores as; ``printed`` is the face lying there (a special
    order copying tempura has ``slug="tempura"``, ``printed="special-order"``).
    """

    slug: str
    printed: str
    on_wasabi: bool = False

    @property
    def card(self) -> Card:
        return CARDS[self.slug]

    @property
    def is_copy(self) -> bool:
        return self.printed == SPECIAL_ORDER

    def to_text(self) -> str:
        """``"tempura"`` or ``"special-order:tempura"``.

        >>> Played.from_text("special-order:eel", "party").to_text()
        'special-order:eel'
        """
        return f"{SPECIAL_ORDER}:{self.slug}" if self.is_copy else self.slug

    @classmethod
    def from_text(cls, text: object, edition: str, path: str = "") -> Played:
        """A single card: a slug or ``special-order:<slug>`` (no wasabi placement)."""
        if not isinstance(text, str):
            raise FormatError(path, f"expected a card slug, got {type(text).__name__}")
        if text.startswith(f"{SPECIAL_ORDER}:"):
            _check_card(SPECIAL_ORDER, edition, path)
            copied = text.split(":", 1)[1]
            _check_card(copied, edition, path)
            if copied in NEVER_COPIED:
                raise StackError(path, f"a special order cannot copy {copied!r}: it leaves the table when played")
            return cls(copied, SPECIAL_ORDER)
        _check_card(text, edition, path)
        return cls(text, text)


def _check_card(slug: str, edition: str, path: str) -> None:
    if slug not in CARDS:
        raise UnknownCardError(path, unknown_card(slug), facts=unknown_card_facts(slug))
    if edition not in CARDS[slug].editions:
        hint = ""
        if slug == "dumpling" and edition == "anniversary":
            hint = " (it is called 'gyoza' there)"
        elif slug == "gyoza":
            hint = " (it is called 'dumpling' there)"
        raise EditionError(path, f"{slug!r} is not a card of the {edition} edition{hint}",
                           facts={"cause": "off-edition", "card": slug, "edition": edition})


@dataclass(frozen=True)
class Stack:
    """Cards lying on each other, bottom first."""

    cards: tuple[Played, ...]

    @classmethod
    def from_json(cls, value: object, edition: str, path: str = "") -> Stack:
        items = value if isinstance(value, list) else [value]
        if not items:
            raise StackError(path, "an empty stack")
        cards: list[Played] = []
        for i, text in enumerate(items):
            where = f"{path}[{i}]" if isinstance(value, list) else path
            if text == SPECIAL_ORDER:
                _check_card(SPECIAL_ORDER, edition, where)
                if not cards:
                    raise StackError(
                        where, "a special order lies on the card it copies: write [card, "
                        "'special-order'] or 'special-order:<card>'"
                    )
                below = cards[-1]
                if below.slug in NEVER_COPIED:
                    raise StackError(where, f"a special order cannot copy {below.slug!r}")
                cards.append(Played(below.slug, SPECIAL_ORDER))
                continue
            played = Played.from_text(text, edition, where)
            if cards:
                below = cards[-1]
                # a copied nigiri may lie on a free wasabi, or on the card it copied
                if is_nigiri(played.slug) and (not played.is_copy or below.slug == "wasabi"):
                    if below.slug != "wasabi":
                        raise StackError(where, f"a nigiri lies only on a wasabi, not on {below.slug!r}")
                    played = Played(played.slug, played.printed, on_wasabi=True)
                elif not played.is_copy:
                    raise StackError(
                        where, f"{played.slug!r} cannot lie on {below.slug!r}: only a nigiri (on "
                        "wasabi) or a special order lies on another card"
                    )
            cards.append(played)
        return cls(tuple(cards))

    def to_json(self) -> str | list[str]:
        out: list[str] = []
        for i, played in enumerate(self.cards):
            below = self.cards[i - 1] if i else None
            if played.is_copy and below is not None and below.slug == played.slug and not played.on_wasabi:
                out.append(SPECIAL_ORDER)
            else:
                out.append(played.to_text())
        return out[0] if len(out) == 1 else out


@dataclass(frozen=True)
class Tableau:
    """A player's cards at the end of a round."""

    stacks: tuple[Stack, ...] = ()

    @classmethod
    def from_json(cls, value: object, edition: str, path: str = "") -> Tableau:
        if not isinstance(value, list):
            raise FormatError(path, "expected a list of cards")
        return cls(tuple(Stack.from_json(v, edition, f"{path}[{i}]") for i, v in enumerate(value)))

    def to_json(self) -> list[str | list[str]]:
        return [s.to_json() for s in self.stacks]

    @property
    def cards(self) -> tuple[Played, ...]:
        return tuple(p for s in self.stacks for p in s.cards)

    def slugs(self) -> tuple[str, ...]:
        """What each card scores as."""
        return tuple(p.slug for p in self.cards)

    def signature(self) -> tuple[tuple[str, str, bool], ...]:
        """The cards as a sorted multiset, to compare two tableaux whatever their order."""
        return tuple(sorted((p.slug, p.printed, p.on_wasabi) for p in self.cards))

    def count(self, kind: str) -> int:
        return sum(1 for p in self.cards if p.card.kind == kind)

    def face_down(self) -> int:
        return sum(1 for p in self.cards if p.slug == CARD_BACK)
