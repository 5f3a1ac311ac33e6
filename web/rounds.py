"""A round: photographing the table, reviewing what was read, confirming it.

Capture stores the photos and what the recogniser read in them as the round's review; the review
page edits that in the browser and sends it back to confirm, which checks it with the scorer and
commits it in one transaction. Confirmed photos are also written out as training examples.
"""

from __future__ import annotations

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
from werkzeug.utils import secure_filename

from scorer.cards import CARDS
from web import catalogue, recognition, scoring
from web.db import get_db
from web.errors import json_body, json_view
from web.review import check_review, review_from_detections, round_from_review, training_boxes
from web.store import (
    Game,
    NewPhoto,
    check_round_number,
    confirm_round,
    get_game,
    get_photo,
    photos_of_round,
    start_review,
)
from web.training import save_example
from web.uploads import NoImageError, UploadError, photos_dir, read_image, remove_photos, save_photo

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
    return (
        render_template("capture.html", game=game, number=number, mode=mode, error=error),
        status,
    )


@bp.get("/games/<int:game_id>/rounds/<int:number>/capture")
def capture(game_id: int, number: int):
    return _capture_page(_game_and_round(game_id, number), number)


def _uploads(game: Game, mode: str) -> list[tuple[int | None, str, Any]]:
    """(seat, display name, file) for each photo sent in the chosen mode."""
    if mode == "table":
        sent = [(None, "table photo", request.files.get("table"))]
    else:
        sent = [(seat, f"{player}'s photo", request.files.get(f"seat-{seat}"))
                for seat, player in enumerate(game.players)]
    sent = [(seat, name, f) for seat, name, f in sent if f is not None and f.filename]
    if not sent:
        raise NoImageError("choose a photo first" if mode == "table" else "choose at least one player's photo")
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
        return _capture_page(game, number, str(exc), exc.status)
    saved: list[NewPhoto] = []
    warning = None
    try:
        for seat, original_name, image in images:
            filename = save_photo(image, config["DATA_DIR"])
            seats = None if seat is not None else (game.seat_areas or len(game.players))
            try:
                line = recognition.describe(image.pixels, secure_filename(original_name) or filename, seats,
                                            game.edition, game.menu)
            except recognition.RecognizerUnavailable as exc:
                warning = f"{exc}. Draw the cards on the photo yourself."
                line = {"image": filename, "cards": [], "tableau": [], "seats": []}
            saved.append(NewPhoto(filename, seat, image.width, image.height, line))
        replaced = start_review(
            get_db(), game.id, number, saved,
            lambda photos: review_from_detections([(p.id, p.seat, p.detection) for p in photos]),
        )
    except BaseException:
        remove_photos(config["DATA_DIR"], [p.filename for p in saved])
        raise
    remove_photos(config["DATA_DIR"], replaced)
    if warning:
        flash(warning, "warning")
    return redirect(url_for("rounds.review", game_id=game.id, number=number))


def _review_state(game: Game, number: int) -> dict[str, Any]:
    """Everything the review page's script works from, as one JSON value."""
    photos = photos_of_round(get_db(), game.id, number)
    current = game.round(number)
    review = current.review if current else {"cards": [], "scored_during_round": []}
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
        "cards": catalogue.game_cards(game.edition, game.menu, len(game.players)),
        "urls": {
            "score": url_for("api.score"),
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


@bp.post("/games/<int:game_id>/rounds/<int:number>/confirm")
@json_view
def confirm(game_id: int, number: int):
    """Check the reviewed round with the scorer and commit it; answers where to go next."""
    db = get_db()
    game = _game_and_round(game_id, number)
    photos = photos_of_round(db, game.id, number)
    review = check_review(
        json_body(), game.players, {p.id: (p.width, p.height) for p in photos}, CARDS.__contains__
    )
    round_record = round_from_review(review, game.players)
    previous = game.round(number)
    if previous and previous.record and previous.record.get("tableaux") == round_record["tableaux"]:
        # keep what the page cannot edit (a per-turn log) while the cards stay the same
        round_record = {**previous.record, **round_record}
    scoring.check_record(game.record(replace={number: round_record}))
    confirm_round(db, game.id, number, review, round_record)

    data_dir = current_app.config["DATA_DIR"]
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
        except OSError as exc:  # the round is safe; only its copy for retraining is missing
            current_app.logger.warning("training example of photo %s not saved: %s", photo.id, exc)
    flash(f"Round {number} confirmed.", "ok")
    return jsonify(
        redirect=url_for("games.show", game_id=game.id, _anchor=f"round-{number}"),
        training_examples=kept,
    )


@bp.get("/photos/<int:photo_id>")
def photo(photo_id: int):
    """A stored photo (by id: the file name on disk is never taken from the URL)."""
    stored = get_photo(get_db(), photo_id)
    folder = Path(photos_dir(current_app.config["DATA_DIR"]))
    return send_from_directory(folder, stored.filename, mimetype="image/jpeg", max_age=86400)
