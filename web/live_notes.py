"""The live reader's notes (``vision.live.notes.LiveNote``) said in the page's language.

The reader notes a cause and its facts (a round, players, a card); each cause has one sentence
here, with named placeholders, translated in the ``messages`` catalog when said. Cards are named
as the page's language prints them, players as the game was told them.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext

from scorer.cards import CARD_BACK, CARDS
from vision.live.notes import LiveNote, NoteCause, NoteJSON
from vision.live.state import LiveStateJSON
from web.catalogue import card_label

#: One sentence per cause: a lazy string, or a function of the note for a count.
SENTENCES: dict[NoteCause, Any] = {
    NoteCause.BACKGROUND: lambda n: ngettext(
        "{count} thing seen before the game started is taken for the table, not a card in play.",
        "{count} things seen before the game started are taken for the table, not cards in play.", n.count),
    NoteCause.LEFT_AT_ROUND_END: lambda n: ngettext(
        "Round {round}: {count} card laid in no whole turn when the round was ended is left out.",
        "Round {round}: {count} cards laid in no whole turn when the round was ended are left out.", n.count),
    NoteCause.CLEAR_UP: lambda n: ngettext(
        "Round {round}: {count} card seen only as the table was cleared, in no whole turn, is left out.",
        "Round {round}: {count} cards seen only as the table was cleared, in no whole turn, are left out.",
        n.count),
    NoteCause.REREAD: lazy_gettext("Round {round}, turn {turn}: {player}'s {card} is read again as {other}."),
    NoteCause.EVENT_FITS_NO_TURN: lazy_gettext("Round {round}: {player}'s {event} fits no turn and is left out."),
    NoteCause.TURN_WITHOUT: lazy_gettext("Round {round}, turn {turn}: no card seen from {players}."),
    NoteCause.STRAY: lazy_gettext("Round {round}, turn {turn}: a box at {player}'s place, seen with their card, is "
                                  "taken for no card."),
    NoteCause.LAID_OVER_ALIKE: lazy_gettext("Round {round}: {player}'s {card} seemed to move: a card of its name "
                                            "was laid over it."),
    NoteCause.UNCOVERED_STRIP: lazy_gettext("Round {round}: {player}'s {card} seemed to move: a card was laid over "
                                            "it, and its edge shows."),
    NoteCause.BOXED_AGAIN: lazy_gettext("Round {round}: {player}'s {card} was found again where it lay; the card "
                                        "taken for it is {other}."),
    NoteCause.FIRST_OF_NEXT: lazy_gettext("Round {round}: {player}'s card read late into turn {turn} is their first "
                                          "card of turn {next}."),
    NoteCause.JOINS_LATE: lazy_gettext("Round {round}: the card of {players}, seen late, joins turn {turn}."),
}

#: The in-turn events a note may name, as players say them.
EVENTS: dict[str, Any] = {
    "chopsticks-used": lazy_gettext("chopsticks going back to the hand"),
    "spoon-used": lazy_gettext("spoon going back to the hand"),
    "takeout-flip": lazy_gettext("take-out box flip"),
}


def card_words(text: str, edition: str | None) -> str:
    """A card of the log (a slug, ``special-order:<slug>``, ``card-back``) as the page names it."""
    slug, _, copied = text.partition(":")
    if slug == CARD_BACK:
        return gettext("a face-down card")
    if slug not in CARDS:
        return text
    name = card_label(slug, edition)
    return gettext("%(card)s (copying %(copied)s)", card=name, copied=card_words(copied, edition)) if copied else name


def note_words(note: LiveNote, edition: str | None) -> str:
    """One note as a sentence in the page's language."""
    sentence = SENTENCES[note.cause]
    text = str(sentence(note) if callable(sentence) else sentence)
    facts = {
        "count": note.count, "round": (note.round or 0) + 1, "turn": (note.turn or 0) + 1, "next": (note.turn or 0) + 2,
        "player": note.players[0] if note.players else "",
        "players": ", ".join(note.players),
        "card": card_words(note.card, edition) if note.card else "",
        "other": card_words(note.other, edition) if note.other else "",
        "event": str(EVENTS.get(note.event, note.event)),
    }
    return text.format(**facts)


def with_note_words(state: LiveStateJSON | dict[str, Any], edition: str | None) -> LiveStateJSON | dict[str, Any]:
    """The live state with its ``notes`` said in the page's language, from its typed
    ``reader_notes`` (kept as they are)."""
    typed: list[NoteJSON] = state.get("reader_notes") or []
    if not typed:
        return state
    return {**state, "notes": [note_words(LiveNote.from_json(n), edition) for n in typed]}
