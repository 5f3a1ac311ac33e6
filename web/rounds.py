"""A round: photographing the table, reviewing what was read, confirming it.

Capture stores the photos and what the recogniser read in them as the round's review; the review
page edits that in the browser and sends it back to confirm, which checks it with the scorer and
commits it in one transaction. Confirmed photos are also written out as training examples.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.exceptions import BadRequest
from werkzeug.utils import secure_filename

from scorer.cards import CARDS, NEVER_COPIED
from web import catalogue, pictures, recognition, scoring
from web.db import get_db
from web.errors import is_full_disk, json_body, json_view, upload_words
from web.problems import confirm_refusal, over_deck_refusal, score_review
from web.review import (
    ReviewError,
    check_review,
    review_from_detections,
    round_from_review,
    training_boxes,
)
from web.store import (
    Game,
    NewPhoto,
    check_fresh,
    check_round_number,
    confirm_round,
    get_game,
    get_photo,
    photos_of_round,
    review_version,
    start_review,
)
from web.training import learn_in_background, save_example
from web.uploads import (
    NoImageError,
    UploadError,
    http_status,
    photos_dir,
    read_image,
    remove_photos,
    save_photo,
)

bp = Blueprint("rounds", __name__)

MODES = ("table", "players")


def _game_and_round(game_id: int, number: int) -> Game:
    game = get_game(get_db(), game_id)
    check_round_number(game, number)
    return game


def _capture_page(game: Game, number: int, error: str | None = None, status: int = 200):
    mode = request.form.get("mode") if request.method == "POST" else None
    if mode not in MODES:
        mode = "table"
    current = game.round(number)
    cards_read = len(current.review.get("cards", [])) if current else 0
    return (
        render_template(
            "capture.html", game=game, number=number, mode=mode, error=error, cards_read=cards_read
        ),
        status,
    )


@bp.get("/games/<int:game_id>/rounds/<int:number>/capture")
def capture(game_id: int, number: int):
    return _capture_page(_game_and_round(game_id, number), number)


def _uploads(game: Game, mode: str) -> list[tuple[int | None, str, Any]]:
    """(seat, display name, file) for each photo sent in the chosen mode."""
    sent: list[tuple[int | None, str, Any]]
    def sent_as(name: str) -> Any:
        # each photo has two inputs, ``name`` (take one: the camera) and ``name-chosen`` (choose
        # one already taken): the one filled in
        files = request.files.getlist(name) + request.files.getlist(f"{name}-chosen")
        return next((f for f in files if f.filename), None)

    if mode == "table":
        sent = [(None, "table photo", sent_as("table"))]
    else:
        sent = [(seat, f"{player}'s photo", sent_as(f"seat-{seat}"))
                for seat, player in enumerate(game.players)]
    sent = [(seat, name, f) for seat, name, f in sent if f is not None and f.filename]
    if not sent:
        raise NoImageError(_("choose a photo first") if mode == "table" else _("choose at least one player's photo"),
                           fault="no-file")
    return sent


@bp.post("/games/<int:game_id>/rounds/<int:number>/capture")
def upload(game_id: int, number: int):
    """Read the photos, keep them, recognise their cards, and open the review."""
    game = _game_and_round(game_id, number)
    mode = request.form.get("mode", "table")
    if mode not in MODES:
        return _capture_page(game, number, f"unknown capture mode {mode!r}", 400)
    config = current_app.config
    try:
        images = [
            (seat, file.filename, read_image(file.read(), config["MAX_IMAGE_PIXELS"], name))
            for seat, name, file in _uploads(game, mode)
        ]
    except UploadError as exc:
        return _capture_page(game, number, upload_words(exc), http_status(exc))
    db = get_db()
    # a re-taken photo of some players replaces their cards only; the others' cards stay as
    # the player last saw them, corrections included
    seats = None if mode == "table" else sorted({seat for seat, _, _ in images if seat is not None})
    if seats is not None and len(seats) == len(game.players):
        seats = None  # everyone photographed again: a fresh round
    previous = _previous_review(game, number) if seats is not None else None
    saved: list[NewPhoto] = []
    warnings: list[str] = []
    try:
        for seat, original_name, image in images:
            filename = save_photo(image, config["DATA_DIR"])
            split = None if seat is not None else (game.seat_areas or len(game.players))
            try:
                line = recognition.describe(image.pixels, secure_filename(original_name) or filename, split,
                                            game.edition, game.menu)
            except recognition.RecognizerUnavailable as exc:
                warnings = [_("%(problem)s. Draw the cards on the photo yourself.", problem=exc)]
                line = {"image": filename, "cards": [], "tableau": [], "seats": []}
            saved.append(NewPhoto(filename, seat, image.width, image.height, line))
        new_files = {p.filename for p in saved}

        def review_for(photos):
            fresh = review_from_detections(
                [(p.id, p.seat, p.detection) for p in photos if p.filename in new_files]
            )
            if previous is None:
                return fresh
            return replace_seats(previous, fresh, set(seats), {p.id for p in photos})

        replaced = start_review(db, game.id, number, saved, review_for, seats)
    except BaseException:
        remove_photos(config["DATA_DIR"], [p.filename for p in saved])
        raise
    remove_photos(config["DATA_DIR"], replaced)
    if not warnings:
        warnings = _photo_warnings(game, number)
    for warning in warnings:
        flash(warning, "warning")
    return redirect(url_for("rounds.review", game_id=game.id, number=number))


def _previous_review(game: Game, number: int) -> dict[str, Any]:
    """The round's review as the player last saw it: the browser's draft (the corrections not
    confirmed yet, sent by the capture form) where it grew from the stored review, else that."""
    current = game.round(number)
    stored = current.review if current else {"cards": [], "scored_during_round": []}
    try:
        draft = json.loads(request.form.get("draft") or "null")
        if isinstance(draft, dict) and draft.get("from") == review_version(stored):
            photos = photos_of_round(get_db(), game.id, number)
            return check_review(
                draft.get("review"), game.players, {p.id: (p.width, p.height) for p in photos},
                CARDS.__contains__,
            )
    except (ValueError, RecursionError):
        pass  # a draft that cannot be read is dropped, as the review page drops it
    return stored


def replace_seats(
    previous: dict[str, Any], fresh: dict[str, Any], seats: set[int], photo_ids: set[int]
) -> dict[str, Any]:
    """``previous`` with the cards of ``seats`` replaced by those read in ``fresh``.

    A kept card on a photo that is gone (moved to its seat from a re-taken photo) stays as a
    card entered by hand; new cards get ids no kept card uses.

    >>> old = {"cards": [{"id": "c1", "label": "eel", "seat": 0, "photo": 1, "box": [0, 0, 5, 5],
    ...                   "confidence": None, "on": None},
    ...                  {"id": "c2", "label": "tofu", "seat": 1, "photo": 2, "box": [0, 0, 5, 5],
    ...                   "confidence": 0.9, "on": None}], "scored_during_round": []}
    >>> new = {"cards": [{"id": "c1", "label": "wasabi", "seat": 1, "photo": 3, "box": [1, 1, 6, 6],
    ...                   "confidence": 0.8, "on": None},
    ...                  {"id": "c2", "label": "egg-nigiri", "seat": 1, "photo": 3, "box": [1, 2, 6, 7],
    ...                   "confidence": 0.7, "on": "c1"}]}
    >>> cards = replace_seats(old, new, {1}, {1, 3})["cards"]
    >>> [(c["id"], c["label"], c["seat"], c["on"]) for c in cards]
    [('c1', 'eel', 0, None), ('c2', 'wasabi', 1, None), ('c3', 'egg-nigiri', 1, 'c2')]
    """
    kept = []
    for card in previous["cards"]:
        if card["seat"] in seats:
            continue
        if card.get("photo") is not None and card["photo"] not in photo_ids:
            card = {**card, "photo": None, "box": None}
        kept.append(card)
    taken = {c["id"] for c in kept}
    renamed: dict[str, str] = {}
    number = 0
    for card in fresh["cards"]:
        number += 1
        while f"c{number}" in taken:
            number += 1
        renamed[card["id"]] = f"c{number}"
        taken.add(f"c{number}")
    added = [{**c, "id": renamed[c["id"]], "on": c["on"] and renamed.get(c["on"])} for c in fresh["cards"]]
    return {"cards": kept + added, "scored_during_round": list(previous.get("scored_during_round", []))}


def _photo_warnings(game: Game, number: int) -> list[str]:
    """What the player should know before checking: a photo where no card was found, a player
    whose cards have neither a photo nor a card yet."""
    db = get_db()
    photos = photos_of_round(db, game.id, number)
    this_round = get_game(db, game.id).round(number)
    review = this_round.review if this_round is not None and this_round.review else {"cards": []}
    warnings = []
    for photo in photos:
        if not any(c["photo"] == photo.id for c in review["cards"]):
            warnings.append(
                _("No card was found on the table photo: draw the cards on it, or take it again.")
                if photo.seat is None else
                _("No card was found on %(player)s's photo: draw the cards on it, or take it again.",
                  player=game.players[photo.seat]))
    if photos and all(p.seat is not None for p in photos):
        for seat, player in enumerate(game.players):
            if not any(p.seat == seat for p in photos) and not any(c["seat"] == seat for c in review["cards"]):
                warnings.append(_("No photo of %(player)s's cards: photograph them or add them by hand.", player=player))
    return warnings


def _review_state(game: Game, number: int) -> dict[str, Any]:
    """Everything the review page's script works from, as one JSON value."""
    photos = photos_of_round(get_db(), game.id, number)
    current = game.round(number)
    review = current.review if current else {"cards": [], "scored_during_round": []}
    cards = catalogue.game_cards(game.edition, game.menu, len(game.players))
    return {
        "game": {
            "id": game.id,
            "edition": game.edition,
            "players": list(game.players),
            "menu": game.menu,
            "variants": game.variants,
            "seatAreas": game.seat_areas and [list(a) for a in game.seat_areas],
        },
        "round": number,
        "confirmed": bool(current and current.is_confirmed),
        # the other confirmed rounds, so live scores show totals and desserts as they will be
        "rounds": [
            {"number": r.number, "record": r.record}
            for r in game.confirmed_rounds
            if r.number != number
        ],
        "photos": [
            {**p.as_json(), "url": url_for("rounds.photo", photo_id=p.id)} for p in photos
        ],
        "review": review,
        "version": review_version(review),
        "cards": cards,
        "names": catalogue.names_elsewhere(cards, game.edition),
        # the scorer's rule, not restated in the script: these cards leave the table, so a
        # special order is never offered one of them to copy
        "neverCopied": sorted(NEVER_COPIED),
        # the picker shows each card as the players' own photos show it, where they have one
        "pictures": pictures.picture_urls(),
        "urls": {
            "score": url_for("rounds.score", game_id=game.id, number=number),
            "confirm": url_for("rounds.confirm", game_id=game.id, number=number),
            "seats": url_for("games.seats", game_id=game.id),
            "game": url_for("games.show", game_id=game.id),
        },
    }


@bp.get("/games/<int:game_id>/rounds/<int:number>/review")
def review(game_id: int, number: int):
    game = _game_and_round(game_id, number)
    return render_template(
        "review.html", game=game, number=number, state=_review_state(game, number)
    )


def _complete_photos(review: dict[str, Any], photos: list) -> list:
    """Photos whose every card has a box: only those make truthful training labels.

    A card entered by hand (no box) in a photo's seat would be a card the labels miss.
    """
    boxless = {c["seat"] for c in review["cards"] if c["box"] is None}
    return [p for p in photos if not boxless or (p.seat is not None and p.seat not in boxless)]


def _posted_review(game_id: int, number: int):
    """The game, the round's photos and the review in the request body, checked against both."""
    game = _game_and_round(game_id, number)
    photos = photos_of_round(get_db(), game.id, number)
    review = check_review(
        json_body(), game.players, {p.id: (p.width, p.height) for p in photos}, CARDS.__contains__
    )
    return game, photos, review


def _confirmed_from() -> str | None:
    """The version of the stored review the confirmed one was edited from (the body's
    ``version``, which the review page always sends); None when a script sends none."""
    body = json_body()
    version = body.get("version") if isinstance(body, dict) else None
    if version is not None and not isinstance(version, str):
        raise BadRequest("'version' is the review's version as the review page got it (a string)")
    return version


@bp.post("/games/<int:game_id>/rounds/<int:number>/confirm")
@json_view
def confirm(game_id: int, number: int):
    """Check the reviewed round with the scorer and commit it; answers where to go next."""
    db = get_db()
    version = _confirmed_from()
    try:
        game, photos, review = _posted_review(game_id, number)
    except ReviewError:
        if version is not None:  # an edit of photos retaken since on another phone: say that
            check_fresh(db, game_id, number, version)
        raise
    checked = score_review(game, number, review)
    if checked.error or checked.problems:
        return jsonify(
            error=confirm_refusal(number, checked),
            problems=[p.as_json() for p in checked.problems],
            warnings=[w.as_json() for w in checked.warnings],
        ), 400
    # more cards than the deck holds: confirmed only once the players say their deck is like
    # this (the review's "over_deck"), and the round's record keeps what it exceeds
    if not set(checked.over_deck) <= set(review.get("over_deck", [])):
        return jsonify(
            error=over_deck_refusal(number, checked),
            warnings=[w.as_json() for w in checked.warnings],
            confirm_anyway=checked.over_deck,
        ), 400
    review = {k: v for k, v in review.items() if k != "over_deck"}
    if checked.over_deck:
        review["over_deck"] = checked.over_deck
    round_record = round_from_review(review, game.players)
    previous = game.round(number)
    if previous and previous.record and previous.record.get("tableaux") == round_record["tableaux"]:
        # keep what the page cannot edit (a per-turn log) while the cards stay the same
        unjudged = {k: v for k, v in previous.record.items() if k != "over_deck"}  # judged again above
        round_record = {**unjudged, **round_record}
    scoring.check_record(game.record(replace={number: round_record}))
    data_dir = current_app.config["DATA_DIR"]
    try:
        confirm_round(db, game.id, number, review, round_record, version)
    except (OSError, sqlite3.Error) as exc:
        if not is_full_disk(exc, data_dir):
            raise
        return jsonify(error=_("Round %(number)s is not saved: the disk holding %(folder)s is full. "
                               "Free some space and confirm again.", number=number, folder=data_dir)), 507

    kept = 0
    for photo in _complete_photos(review, photos):
        try:
            save_example(
                data_dir,
                photos_dir(data_dir) / photo.filename,
                training_boxes(review, photo.id),
                photo.width,
                photo.height,
                list(CARDS),
            )
            kept += 1
        except OSError as exc:
            if is_full_disk(exc, data_dir):  # a full disk: the player can free space and try again
                return jsonify(error=_("Round %(number)s is saved, but the disk holding %(folder)s is full, "
                                       "so its photos could not be kept for retraining. "
                                       "Free some space and confirm again.", number=number, folder=data_dir)), 507
            # the round is safe; only its copy for retraining is missing
            current_app.logger.warning("training example of photo %s not saved: %s", photo.id, exc)
    learn_in_background()  # the players' deck: this round's cards become exemplars
    flash(_("Round %(number)s confirmed.", number=number), "ok")
    # the last round's Confirm opens on the winner, not on the round's details below it
    anchor = "winner" if get_game(db, game.id).is_finished else f"round-{number}"
    return jsonify(
        redirect=url_for("games.show", game_id=game.id, _anchor=anchor),
        training_examples=kept,
    )


@bp.post("/games/<int:game_id>/rounds/<int:number>/score")
@json_view
def score(game_id: int, number: int):
    """Live scores of the review as it stands; cards that cannot score are named and left out."""
    game, _, review = _posted_review(game_id, number)
    return jsonify(score_review(game, number, review).as_json())


@bp.get("/photos/<int:photo_id>")
def photo(photo_id: int):
    """A stored photo (by id: the file name on disk is never taken from the URL)."""
    stored = get_photo(get_db(), photo_id)
    folder = Path(photos_dir(current_app.config["DATA_DIR"]))
    return send_from_directory(folder, stored.filename, mimetype="image/jpeg", max_age=86400)
