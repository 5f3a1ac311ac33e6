"""The home page: every game kept, newest first; and importing a game record."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from scorer import RecordError
from scorer.cards import KINDS
from scorer.names import kind_name
from web import catalogue, scoring
from web.db import get_db
from web.errors import parse_json
from web.i18n import edition_names, page_language
from web.problems import fault_words
from web.review import review_from_round
from web.store import create_game, list_games

bp = Blueprint("history", __name__)

MAX_RECORD_BYTES = 1_000_000


@bp.get("/")
def index():
    games = [(game, scoring.summary(game)) for game in list_games(get_db())]
    return render_template("history.html", games=games, setup_words=setup_words)


def setup_words(game) -> str:
    """What tells a game from another of the same players: its edition, and its menu (a
    custom one by its dishes)."""
    words = edition_names().get(game.edition, str(game.edition))
    menu = catalogue.menu_name(game.menu)
    if menu and isinstance(game.menu, list):
        lang = page_language()
        dishes = [k.replace("-", " ") if lang == "en" else kind_name(k, lang, "party")
                  for k in game.menu if k != "nigiri" and k in KINDS]
        menu = f"{menu}: {', '.join(dishes)}"
    return f"{words} · {menu}" if menu else words


class RecordFileError(ValueError):
    """An import form without a readable record (no file, not UTF-8, not JSON)."""


MAX_SOURCE_LENGTH = 80


def _source() -> str:
    """Where the imported record came from, as the game page says it."""
    upload = request.files.get("record")
    if upload is not None and upload.filename:
        name = upload.filename.replace("\\", "/").rsplit("/", 1)[-1]
        name = name.encode("utf-8", "replace").decode("utf-8")  # no lone surrogate reaches SQLite
        return f"the file {name[:MAX_SOURCE_LENGTH]}"
    return "a pasted record"


@bp.app_template_filter("import_source")
def import_source(source: str) -> str:
    """Where an imported game came from, in the page's language: the record keeps the English
    words ``_source`` wrote (``the file NAME``, ``a pasted record``)."""
    if source == "a pasted record":
        return _("a pasted record")
    if source.startswith("the file "):
        return _("the file %(name)s", name=source[len("the file "):])
    return source


def _record_text() -> str:
    upload = request.files.get("record")
    if upload is not None and upload.filename:
        data = upload.read(MAX_RECORD_BYTES + 1)
        if len(data) > MAX_RECORD_BYTES:
            raise RecordFileError(_("the record file is larger than 1 MB"))
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordFileError(_("the record file is not UTF-8 text")) from exc
    text = request.form.get("record_text", "").strip()
    if not text:
        raise RecordFileError(_("choose a game record file (JSON) or paste one"))
    return text


@bp.post("/games/import")
def import_game():
    """Store a game record (file upload or pasted text) as a new game."""
    text = _record_text()
    try:
        record = parse_json(text)
    except ValueError as exc:
        # the parser's own words are English: other languages say what to do instead
        raise RecordFileError(f"the record is {exc}" if page_language() == "en" else
                              _("the record is not valid JSON: check the file or the pasted text")) from exc
    try:
        record = scoring.check_record(record)
    except RecordError as exc:
        edition = record.get("edition") if isinstance(record, dict) else None
        players = record.get("players") if isinstance(record, dict) else None
        raise RecordFileError(fault_words(exc, edition if isinstance(edition, str) else None,
                                           players if isinstance(players, list) else ())) from exc
    players = record["players"]
    rounds = [(review_from_round(r, players), r) for r in record["rounds"]]
    game_id = create_game(
        get_db(), record["edition"], players, record.get("menu"), record.get("variants"), rounds,
        imported=_source(),
    )
    flash(ngettext("Imported a game of %(players)s with %(num)d round(s).",
                   "Imported a game of %(players)s with %(num)d round(s).", len(rounds), players=", ".join(players)),
          "ok")
    return redirect(url_for("games.show", game_id=game_id))


@bp.errorhandler(RecordFileError)
@bp.errorhandler(RecordError)
def import_failed(exc: ValueError):
    """A refused import: the home page again, with the reason beside the import form."""
    games = [(game, scoring.summary(game)) for game in list_games(get_db())]
    return render_template("history.html", games=games, setup_words=setup_words, import_error=str(exc)), 400
