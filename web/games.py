"""A game: setting it up, its scoreboard, exporting its record, its seat areas, deleting it."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _

from scorer import RecordError
from scorer.cards import CARDS
from scorer.editions import EDITIONS
from scorer.game import unprintable
from scorer.names import kind_name
from web import catalogue, scoring
from web.db import get_db
from web.errors import json_body, json_view
from web.i18n import edition_names, page_language, variant_name
from web.problems import fault_words, record_words
from web.store import create_game, delete_game, get_game, set_seat_areas
from web.uploads import remove_photos

bp = Blueprint("games", __name__, url_prefix="/games")

MAX_NAME_LENGTH = 24
MAX_PLAYERS = 8


class SetupError(ValueError):
    """A new-game form that cannot start a game (the message says which field)."""


def parse_setup(form) -> tuple[str, list[str], Any, list[str] | None]:
    """(edition, players, menu, variants) from the new-game form, or SetupError."""
    edition = form.get("edition", "")
    if edition not in EDITIONS:
        raise SetupError(_("choose an edition (%(editions)s)", editions=", ".join(EDITIONS)))
    players = [name.strip() for name in form.getlist("player") if name.strip()]
    if len(players) < 2:
        raise SetupError(_("a game needs at least 2 players"))
    if len(players) > MAX_PLAYERS:
        raise SetupError(_("a game has at most %(count)s players", count=MAX_PLAYERS))
    for name in players:
        if unprintable(name):
            raise SetupError(_("the name %(name)s holds control characters: type it again", name=ascii(name)))
        if len(name) > MAX_NAME_LENGTH:
            raise SetupError(_("the name %(name)s… is longer than %(count)s letters", name=name[:MAX_NAME_LENGTH],
                                count=MAX_NAME_LENGTH))
    folded = [n.casefold() for n in players]
    for name in players:
        if folded.count(name.casefold()) > 1:
            raise SetupError(_("two players are called %(name)s: give them different names", name=name))
    menu: Any = None
    if edition == "party":
        choice = form.get("menu", "")
        if choice == "custom":
            menu = form.getlist("menu_kind")
            if not menu:
                raise SetupError(_("pick the kinds of card of your custom menu"))
        elif choice:
            menu = choice
        else:
            raise SetupError(_("choose a menu for Sushi Go Party!"))
    variants = [v for v in form.getlist("variant") if v] or None
    return edition, players, menu, variants


def kind_label(kind: str, edition: str, english: str) -> str:
    """A kind's name as the page's language prints it (English: the model's own name)."""
    lang = page_language()
    return english if lang == "en" else kind_name(kind, lang, edition)


def _unread_kinds() -> dict[str, str]:
    """Per edition, the sentence naming its kinds of card the model in use cannot name in a
    photo (none of their faces known: the bundled model was never shown them), if any."""
    from vision.teach.models import edition_status
    from web.problems import say

    out = {}
    for edition in catalogue.editions():
        try:
            rows = edition_status(current_app.config["DATA_DIR"], edition["key"], current_app.config["MODEL_DIR"])
        except (OSError, ValueError, KeyError):
            continue
        known: dict[str, bool] = {}
        names: dict[str, str] = {}
        for row in rows:
            kind = CARDS[row["slug"]].kind
            known[kind] = known.get(kind, False) or row["state"] == "known"
            names.setdefault(kind, kind_label(kind, edition["key"], re.sub(r" \(\d+\)$", "", row["name"])))
        unread = [names[k] for k, is_known in known.items() if not is_known]
        if unread:
            out[edition["key"]] = say("unread-kinds", count=len(unread), kinds=", ".join(unread),
                                      edition=edition["name"])
    return out


def _setup_page(form: dict[str, Any] | None = None, error: str | None = None, status: int = 200):
    return (
        render_template(
            "new_game.html",
            editions=catalogue.editions(),
            menus=catalogue.menus(),
            kinds_by_family=catalogue.kinds_by_family(),
            unread=_unread_kinds(),
            form=form or {},
            error=error,
        ),
        status,
    )


@bp.route("/new", methods=("GET", "POST"))
def new():
    if request.method == "GET":
        return _setup_page()
    form = {
        "edition": request.form.get("edition", ""),
        "players": request.form.getlist("player"),
        "menu": request.form.get("menu", ""),
        "menu_kinds": request.form.getlist("menu_kind"),
        "variants": request.form.getlist("variant"),
    }
    try:
        edition, players, menu, variants = parse_setup(request.form)
        scoring.check_setup(edition, players, menu, variants)
    except SetupError as exc:
        return _setup_page(form, str(exc), 400)
    except RecordError as exc:
        return _setup_page(form, fault_words(exc, edition, players), 400)
    game_id = create_game(get_db(), edition, players, menu, variants)
    return redirect(url_for("games.show", game_id=game_id))


@bp.get("/<int:game_id>")
def show(game_id: int):
    game = get_game(get_db(), game_id)
    try:
        result, error = scoring.scores(game), None
    except RecordError as exc:
        result, error = None, record_words(exc, game.edition, game.players)
    return render_template(
        "game.html",
        game=game,
        result=result,
        score_error=error,
        menu_name=catalogue.menu_name(game.menu),
        dishes=catalogue.menu_dishes(game.menu, len(game.players)),
        edition_name=edition_names().get(game.edition, game.edition),
        variant_names=[variant_name(v) for v in game.variants or ()],
        lines=scoring.lines(game) if result else None,
        names={c["slug"]: c for c in catalogue.game_cards(game.edition, game.menu, len(game.players))},
    )


@bp.get("/<int:game_id>/record.json")
def export(game_id: int):
    """The game record, as a file to keep or to score with ``sushicam score``."""
    game = get_game(get_db(), game_id)
    body = json.dumps(game.record(), indent=2, ensure_ascii=False) + "\n"
    return current_app.response_class(  # the app's: text no encoder takes becomes "?", not a 500
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="sushicam-game-{game.id}.json"'},
    )


@bp.post("/<int:game_id>/delete")
def delete(game_id: int):
    filenames = delete_game(get_db(), game_id)
    remove_photos(current_app.config["DATA_DIR"], filenames)
    flash(_("Game deleted."), "ok")
    return redirect(url_for("history.index"))


def parse_seat_areas(body: Any, players: int) -> list[list[float]] | None:
    """Seat areas sent by the review page: one [x1, y1, x2, y2] (fractions) per player, or null.

    >>> parse_seat_areas({"areas": [[0, 0, 0.5, 1], [0.5, 0, 1, 1]]}, 2)
    [[0.0, 0.0, 0.5, 1.0], [0.5, 0.0, 1.0, 1.0]]
    >>> parse_seat_areas({"areas": [[0, 0, 0.5, 1]]}, 2)
    Traceback (most recent call last):
    ...
    web.games.SetupError: send one seat area per player (2), not 1
    """
    if not isinstance(body, dict) or "areas" not in body:
        raise SetupError('send {"areas": [[x1, y1, x2, y2], ...]} with one area per player')
    areas = body["areas"]
    if areas is None:
        return None
    if not isinstance(areas, list) or len(areas) != players:
        count = len(areas) if isinstance(areas, list) else "none"
        raise SetupError(f"send one seat area per player ({players}), not {count}")
    clean = []
    for seat, area in enumerate(areas):
        if not (
            isinstance(area, list)
            and len(area) == 4
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in area)
        ):
            raise SetupError(f"seat {seat + 1}: an area is [x1, y1, x2, y2]")
        x1, y1, x2, y2 = (float(v) for v in area)
        if not (0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1):
            raise SetupError(f"seat {seat + 1}: the area must lie inside the photo (fractions 0-1)")
        clean.append([x1, y1, x2, y2])
    return clean


@bp.post("/<int:game_id>/seats")
@json_view
def seats(game_id: int):
    """Remember where each player sits in whole-table photos (used from the next photo on)."""
    db = get_db()
    game = get_game(db, game_id)
    try:
        areas = parse_seat_areas(json_body(), len(game.players))
    except SetupError as exc:
        return jsonify(error=str(exc)), 400
    set_seat_areas(db, game_id, areas)
    return jsonify(areas=areas)

