"""The review of a round: the cards seen in its photos, as the page edits them.

A review is JSON the page and the server share::

    {"cards": [{"id": "c1", "label": "wasabi", "seat": 0, "photo": 7,
                "box": [x1, y1, x2, y2], "confidence": 0.93, "on": null},
               {"id": "c2", "label": "squid-nigiri", "seat": 0, "photo": 7,
                "box": [...], "confidence": 0.88, "on": "c1"}],
     "scored_during_round": []}

``seat`` is the player's index in seating order; ``on`` names the card directly below (a nigiri
on a wasabi, a special order on the card it copies), so stacks are chains; ``photo`` and ``box``
are null for a card entered by hand. This module builds a review from the recogniser's output or
from a record's round, checks one sent by the page, and turns it into the round of a game record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask_babel import gettext as _

from scorer.cards import CARDS, unknown_card_facts
from scorer.names import card_name
from web.i18n import page_language

MAX_CARDS = 400  # 8 players x 3 rounds' worth of cards is far below this
MAX_ID_LENGTH = 40
DURING_ROUND_KEYS = ("player", "for", "points")


class ReviewError(ValueError):
    """A review the page sent that cannot be a round (the message names the place, in the
    request's language)."""


def _label(label: str) -> str:
    """A card as an error names it: its slug on English pages, its name in the others."""
    lang = page_language()
    return label if lang == "en" or label not in CARDS else card_name(label, lang)


def _unknown(number: int, label: object) -> str:
    facts = unknown_card_facts(label)
    if facts["nearest"]:
        return _("card %(number)s: unknown card %(label)s (did you mean %(nearest)s?)", number=number,
                 label=repr(label), nearest=repr(facts["nearest"]) if page_language() == "en"
                 else _label(facts["nearest"]))
    return _("card %(number)s: unknown card %(label)s", number=number, label=repr(label))


def _card(
    card_id: str, found: dict[str, Any], seat: int, photo_id: int | None
) -> dict[str, Any]:
    confidence = found.get("confidence")
    return {
        "id": card_id,
        "label": str(found["label"]),
        "seat": seat,
        "photo": photo_id,
        "box": [round(float(v), 1) for v in found["box"]] if found.get("box") else None,
        "confidence": None if confidence is None else round(float(confidence), 3),
        # the recogniser's own "check this card" mark (vision.unsure.is_unsure)
        "unsure": found["unsure"] if isinstance(found.get("unsure"), bool) else None,
        "on": None,
    }


def review_from_detections(photos: Sequence[tuple[int, int | None, dict[str, Any]]]) -> dict:
    """The first review of a round: what the recogniser saw in each photo.

    ``photos`` holds (photo id, seat or None for the whole table, detect line) triples. A photo
    of one player gives all its cards to that seat; a photo of the table uses the seats the
    recogniser split it into (cards outside every seat area go to the first seat, to be moved).
    Stacks are the links the tableau reader made: a found card's ``on`` names the ``id`` of the
    card it lies on, within its photo.

    >>> line = {"cards": [{"id": 0, "label": "wasabi", "box": [0, 0, 10, 14], "confidence": 0.9, "on": None},
    ...                   {"id": 1, "label": "egg-nigiri", "box": [2, 3, 12, 17], "confidence": 0.4, "on": 0}],
    ...         "tableau": [["wasabi", "egg-nigiri"]]}
    >>> cards = review_from_detections([(5, 1, line)])["cards"]
    >>> [(c["id"], c["label"], c["seat"], c["on"]) for c in cards]
    [('c1', 'wasabi', 1, None), ('c2', 'egg-nigiri', 1, 'c1')]
    """
    cards: list[dict[str, Any]] = []

    def identity(found: dict[str, Any]) -> Any:
        # a line stored before cards had ids: the label and box name the card
        return found["id"] if "id" in found else (found["label"], tuple(found["box"]))

    def take(found: list[dict[str, Any]], seat: int, photo: int) -> None:
        group = [(f, _card(f"c{len(cards) + i + 1}", f, seat, photo)) for i, f in enumerate(found)]
        review_id = {identity(f): card["id"] for f, card in group}
        for f, card in group:
            if f.get("on") is not None:
                card["on"] = review_id.get(f["on"])
        cards.extend(card for _, card in group)

    for photo_id, seat, line in photos:
        if seat is not None or not line.get("seats"):
            take(list(line.get("cards", [])), seat or 0, photo_id)
            continue
        seated: set[Any] = set()
        for entry in line["seats"]:
            found = list(entry.get("cards", []))
            seated.update(identity(f) for f in found)
            take(found, int(entry["seat"]), photo_id)
        take([f for f in line.get("cards", []) if identity(f) not in seated], 0, photo_id)
    return {"cards": cards, "scored_during_round": []}


def review_from_round(round_record: dict[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """A review of cards entered by hand (no photo) from a record's round, e.g. an import.

    >>> review = review_from_round({"tableaux": {"Ann": [["wasabi", "squid-nigiri"], "tofu"],
    ...                                          "Ben": []}}, ["Ann", "Ben"])
    >>> [(c["id"], c["label"], c["seat"], c["on"]) for c in review["cards"]]
    [('c1', 'wasabi', 0, None), ('c2', 'squid-nigiri', 0, 'c1'), ('c3', 'tofu', 0, None)]
    """
    cards: list[dict[str, Any]] = []
    tableaux = round_record.get("tableaux", {})
    for seat, player in enumerate(players):
        for entry in tableaux.get(player, []):
            below = None
            for label in entry if isinstance(entry, list) else [entry]:
                card_id = f"c{len(cards) + 1}"
                cards.append(
                    {"id": card_id, "label": label, "seat": seat, "photo": None, "box": None,
                     "confidence": None, "unsure": None, "on": below}
                )
                below = card_id
    during = round_record.get("scored_during_round", [])
    review: dict[str, Any] = {"cards": cards, "scored_during_round": list(during)}
    if round_record.get("over_deck"):
        review["over_deck"] = list(round_record["over_deck"])
    return review


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_review(
    review: Any,
    players: Sequence[str],
    photos: dict[int, tuple[int, int]],
    is_card: Callable[[str], bool],
) -> dict[str, Any]:
    """Check a review sent by the page; returns it normalised, or raises ReviewError.

    ``photos`` maps the round's photo ids to their (width, height); ``is_card`` says whether a
    slug is in the catalogue. Game rules (a nigiri on a tofu...) are the scorer's to check.
    """
    cards = _cards_list(review)
    clean: list[dict[str, Any]] = []
    ids: dict[str, dict[str, Any]] = {}
    for index, card in enumerate(cards):
        checked_card = _check_card(card, index + 1, ids, players, photos, is_card)
        ids[checked_card["id"]] = checked_card
        clean.append(checked_card)
    _check_stacks(clean, ids)
    during = _check_during_round(review, players)
    checked: dict[str, Any] = {
        "cards": clean,
        "scored_during_round": [{k: d[k] for k in DURING_ROUND_KEYS if k in d} for d in during],
    }
    over_deck = _check_over_deck(review, is_card)
    if over_deck:
        checked["over_deck"] = sorted(set(over_deck))
    return checked


def _cards_list(review: Any) -> list[Any]:
    """The review's ``cards`` list, refused before any card is read when the review is not an
    object, has no such list, or holds more cards than any game could."""
    if not isinstance(review, dict):
        raise ReviewError(_("the review must be a JSON object with a %(key)s list", key="'cards'"))
    cards = review.get("cards")
    if not isinstance(cards, list):
        raise ReviewError(_("the review has no %(key)s list", key="'cards'"))
    if len(cards) > MAX_CARDS:
        raise ReviewError(_("the review has %(count)s cards, more than %(limit)s", count=len(cards), limit=MAX_CARDS))
    return cards


def _check_card(
    card: Any,
    number: int,
    ids: dict[str, dict[str, Any]],
    players: Sequence[str],
    photos: dict[int, tuple[int, int]],
    is_card: Callable[[str], bool],
) -> dict[str, Any]:
    """One card of the review (``number`` counts from 1, as the player reads the list), checked
    field by field in the order the errors name them, and normalised. ``ids`` holds the cards
    already checked, so an id used twice is refused."""
    if not isinstance(card, dict):
        raise ReviewError(_("card %(number)s: not an object", number=number))
    card_id = card.get("id")
    if not isinstance(card_id, str) or not 0 < len(card_id) <= MAX_ID_LENGTH:
        raise ReviewError(_("card %(number)s: %(key)s must be a short string", key="'id'", number=number))
    if card_id in ids:
        raise ReviewError(_("card %(number)s: id %(id)s is used twice", number=number, id=repr(card_id)))
    label = card.get("label")
    if not isinstance(label, str) or not is_card(label):
        raise ReviewError(_unknown(number, label))
    seat = card.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(players):
        raise ReviewError(_("card %(number)s (%(card)s): seat %(seat)s is not a player of this game",
                            number=number, card=_label(label), seat=repr(seat)))
    photo = card.get("photo")
    box = _check_box(photo, card.get("box"), number, label, photos)
    confidence = card.get("confidence")
    if confidence is not None and not _number(confidence):
        raise ReviewError(_("card %(number)s (%(card)s): %(key)s must be a number or null", key="'confidence'",
                            number=number, card=_label(label)))
    on = card.get("on")
    if on is not None and not isinstance(on, str):
        raise ReviewError(_("card %(number)s (%(card)s): %(key)s must name a card id or be null", key="'on'",
                            number=number, card=_label(label)))
    return {
        "id": card_id, "label": label, "seat": seat, "photo": photo, "box": box,
        "confidence": confidence, "on": on,
        "unsure": card["unsure"] if isinstance(card.get("unsure"), bool) and confidence is not None else None,
    }


def _check_box(
    photo: Any, box: Any, number: int, label: str, photos: dict[int, tuple[int, int]]
) -> list[float] | None:
    """A card's box within its photo, clamped to the photo and rounded; None for a card entered
    by hand (no photo), whatever box it was sent with. A box that is empty once clamped is refused,
    since it shows no card."""
    if photo is None:
        return None
    if not isinstance(photo, int) or isinstance(photo, bool) or photo not in photos:
        raise ReviewError(_("card %(number)s (%(card)s): photo %(photo)s is not a photo of this round",
                            number=number, card=_label(label), photo=repr(photo)))
    if not (isinstance(box, list) and len(box) == 4 and all(_number(v) for v in box)):
        raise ReviewError(_("card %(number)s (%(card)s): %(key)s must be [x1, y1, x2, y2]", key="'box'", number=number,
                            card=_label(label)))
    width, height = photos[photo]
    x1, y1, x2, y2 = (float(v) for v in box)
    x1, x2 = sorted((max(0.0, min(x1, width)), max(0.0, min(x2, width))))
    y1, y2 = sorted((max(0.0, min(y1, height)), max(0.0, min(y2, height))))
    if x2 - x1 < 2 or y2 - y1 < 2:
        raise ReviewError(_("card %(number)s (%(card)s): its box is empty or outside the photo",
                            number=number, card=_label(label)))
    return [round(v, 1) for v in (x1, y1, x2, y2)]


def _check_stacks(clean: list[dict[str, Any]], ids: dict[str, dict[str, Any]]) -> None:
    """The ``on`` links make stacks: each names a card of the review at the same seat, no card
    holds two, and no chain comes back to itself (it would have no bottom card)."""
    holders: dict[str, str] = {}
    for card in clean:
        below_id = card["on"]
        if below_id is None:
            continue
        below = ids.get(below_id)
        what = f"{_label(card['label'])} ({card['id']})"
        if below is None:
            raise ReviewError(_("%(card)s lies on card %(below)s, which is not in the review", card=what,
                                below=repr(below_id)))
        if below["seat"] != card["seat"]:
            raise ReviewError(_("%(card)s lies on %(below)s of another seat", card=what,
                                below=_label(below["label"])))
        if below_id in holders:
            raise ReviewError(_("%(card)s (%(id)s) has two cards on it", card=_label(below["label"]), id=below_id))
        holders[below_id] = card["id"]
    for card in clean:  # a chain that comes back to itself has no bottom card
        seen, cursor = set(), card
        while cursor["on"] is not None:
            if cursor["id"] in seen:
                raise ReviewError(_("the stack holding %(card)s (%(id)s) is a loop", card=_label(card["label"]),
                                    id=card["id"]))
            seen.add(cursor["id"])
            cursor = ids[cursor["on"]]


def _check_during_round(review: dict[str, Any], players: Sequence[str]) -> list[dict[str, Any]]:
    """The points scored during the round: a list of objects, each naming a player of the game
    and a number of points."""
    during = review.get("scored_during_round", [])
    if not isinstance(during, list) or not all(isinstance(d, dict) for d in during):
        raise ReviewError(_("%(key)s must be a list of objects", key="'scored_during_round'"))
    for index, entry in enumerate(during):
        if entry.get("player") not in players:
            raise ReviewError(_("scored during round, entry %(number)s: unknown player %(player)s", number=index + 1,
                                player=repr(entry.get("player"))))
        if not _number(entry.get("points")):
            raise ReviewError(_("scored during round, entry %(number)s: %(key)s must be a number", key="'points'",
                                number=index + 1))
    return during


def _check_over_deck(review: dict[str, Any], is_card: Callable[[str], bool]) -> list[str]:
    """The kinds the players confirmed beyond the deck's count ("our deck is like this"): a list
    of catalogue slugs."""
    over_deck = review.get("over_deck", [])
    if not isinstance(over_deck, list) or not all(isinstance(s, str) and is_card(s) for s in over_deck):
        raise ReviewError(_("%(key)s must be a list of card slugs", key="'over_deck'"))
    return over_deck


def round_from_review(review: dict[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """The round of a game record that a checked review describes.

    Each seat's tableau lists its cards in review order; a stack is listed where its bottom
    card is, bottom first.

    >>> review = {"cards": [
    ...     {"id": "a", "label": "tofu", "seat": 1, "on": None},
    ...     {"id": "b", "label": "squid-nigiri", "seat": 0, "on": "c"},
    ...     {"id": "c", "label": "wasabi", "seat": 0, "on": None}],
    ...     "scored_during_round": []}
    >>> round_from_review(review, ["Ann", "Ben"])
    {'tableaux': {'Ann': [['wasabi', 'squid-nigiri']], 'Ben': ['tofu']}}
    """
    above = {c["on"]: c for c in review["cards"] if c["on"] is not None}
    tableaux: dict[str, list[Any]] = {p: [] for p in players}
    for card in review["cards"]:
        if card["on"] is not None:
            continue
        stack = [card["label"]]
        cursor = card
        while cursor["id"] in above:
            cursor = above[cursor["id"]]
            stack.append(cursor["label"])
        tableaux[players[card["seat"]]].append(stack if len(stack) > 1 else stack[0])
    round_record: dict[str, Any] = {"tableaux": tableaux}
    if review.get("scored_during_round"):
        round_record["scored_during_round"] = review["scored_during_round"]
    if review.get("over_deck"):
        round_record["over_deck"] = list(review["over_deck"])
    return round_record


def training_boxes(review: dict[str, Any], photo_id: int) -> list[tuple[str, list[float]]]:
    """The labelled boxes of one photo, as confirmed: material for retraining."""
    return [(c["label"], c["box"]) for c in review["cards"] if c["photo"] == photo_id and c["box"]]
