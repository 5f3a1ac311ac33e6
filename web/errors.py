"""Every error a request can meet, answered as JSON ``{"error": ...}`` or as a page.

Scripts and the page's fetch calls get JSON (paths under /api/, JSON bodies, or an Accept header
that prefers JSON); a browser navigating gets the error page. Bad input is always a 4xx naming
the problem: the handlers below map each error class to its status.
"""

from __future__ import annotations

import errno
import json
import shutil
import sqlite3
from typing import Any

from babel.units import format_unit
from flask import Flask, current_app, jsonify, render_template, request
from flask_babel import format_number, get_locale, lazy_gettext
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import BadRequest, HTTPException, RequestEntityTooLarge

from web.recognition import RecognizerUnavailable
from web.review import ReviewError
from web.store import (
    ROUNDS_PER_GAME,
    GameNotFound,
    PhotoNotFound,
    RoundOrderError,
    StaleReview,
    review_version,
)
from web.uploads import UploadError, http_status

TITLES = {
    400: lazy_gettext("That did not work"),
    404: lazy_gettext("Nothing here"),
    405: lazy_gettext("Not like that"),
    409: lazy_gettext("Not yet"),
    413: lazy_gettext("Too big"),
    415: lazy_gettext("Not a photo"),
    503: lazy_gettext("The card reader is missing"),
}

#: what an error without words of its own says (werkzeug's default descriptions are English)
DEFAULT_MESSAGES = {
    400: lazy_gettext("the request could not be understood: go back and try again"),
    404: lazy_gettext("there is no page at this address: go back to the games"),
    405: lazy_gettext("this page cannot be used that way: go back and try again"),
    409: lazy_gettext("that cannot be done yet"),
    413: lazy_gettext("the upload is too large"),
    415: lazy_gettext("that file is not a photo sushicam reads"),
    429: lazy_gettext("too many tries: wait a moment and try again"),
    500: lazy_gettext("something went wrong on the game server: try again"),
    503: lazy_gettext("the game server cannot do that now: try again in a moment"),
}


def json_view(view):
    """Mark a view the page calls with fetch: its errors are JSON whatever the request says."""
    view.answers_json = True
    return view


def wants_json() -> bool:
    if request.path.startswith("/api/") or request.is_json:
        return True
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "answers_json", False):
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]


MAX_JSON_BYTES = 2_000_000


def json_body() -> Any:
    """The request body parsed as JSON, whatever its content type; a 400 naming the problem."""
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise RequestEntityTooLarge(f"the JSON body is larger than {MAX_JSON_BYTES // 1_000_000} MB")
    data = request.get_data(cache=True)
    if not data.strip():
        raise BadRequest("the request body is empty: send JSON")
    try:
        return parse_json(data)
    except ValueError as exc:
        raise BadRequest(f"the request body is {exc}") from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"not valid JSON: {name} is not a number JSON allows")


def parse_json(data: bytes | str) -> Any:
    """Strict JSON: ``ValueError`` saying what is wrong for anything a JSON parser would refuse.

    Python's parser takes NaN and Infinity (stored, they would break the page that reads them
    back), and fails with other errors on integers over 4300 digits and on deep nesting.

    >>> parse_json('{"confidence": NaN}')
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: NaN is not a number JSON allows
    """
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ValueError("nested too deeply to be JSON we read") from None
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        if "digits" in str(exc):
            raise ValueError("not a record we read: a number in it has thousands of digits") from None
        raise


def error_response(message: str, status: int, title: str | None = None):
    if wants_json():
        return jsonify(error=message), status
    title = title or str(TITLES.get(status) or _("Something went wrong"))
    return render_template("error.html", message=message, status=status, title=title), status


NO_SPACE = {errno.ENOSPC, errno.EDQUOT}
NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}
NOT_A_FOLDER = {errno.ENOTDIR, errno.EEXIST}


#: below this much free space, SQLite's "disk I/O error" is a full disk (its writes failed for room)
FULL_BELOW_BYTES = 1_000_000


def disk_is_full(data_dir: str) -> bool:
    """Whether the disk holding ``data_dir`` has (next to) no room left for us."""
    try:
        return shutil.disk_usage(data_dir).free < FULL_BELOW_BYTES
    except OSError:
        return False


def is_full_disk(exc: OSError | sqlite3.Error, data_dir: str) -> bool:
    """Whether this storage error comes from a full disk."""
    return storage_problem(exc, data_dir)[1] == 507


def storage_problem(exc: OSError | sqlite3.Error, data_dir: str) -> tuple[str, int]:
    """What to tell the players when the data folder fails: (message, 507 if full else 503)."""
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        # a full disk reaches SQLite as SQLITE_FULL, or as an I/O error where it could not grow
        # its own files (the -shm and -wal beside the database)
        if name.startswith("SQLITE_FULL") or (name.startswith("SQLITE_IOERR") and disk_is_full(data_dir)):
            return _("the disk holding %(folder)s is full: free some space, then try again", folder=data_dir), 507
        if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
            return _("the data folder %(folder)s is read-only: sushicam cannot save games there",
                     folder=data_dir), 503
        if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
            return _("the games database in %(folder)s is damaged: restore it from a backup", folder=data_dir), 503
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return _("the games database is busy: try again in a moment"), 503
        return _("the games database in %(folder)s cannot be used (%(problem)s)", folder=data_dir,
                 problem=exc), 503
    where = exc.filename or data_dir
    if exc.errno in NO_SPACE:
        return _("the disk holding %(folder)s is full: free some space, then try again", folder=data_dir), 507
    if exc.errno in NOT_WRITABLE:
        return _("sushicam may not write %(path)s: the data folder is read-only", path=where), 503
    if exc.errno in NOT_A_FOLDER:
        return _("%(path)s is in the way: sushicam needs a folder there, and it is a file", path=where), 503
    return _("sushicam cannot use its data folder (%(problem)s)", problem=exc.strerror or exc), 503


def upload_words(exc: Exception) -> str:
    """An unreadable photo in the player's words, in every language alike: a sentence chosen by
    the decoder's fault (``vision.photo.PhotoFault``) with its facts (the photo's size, the
    limit it passed), never the decoder's own message (the command line's English)."""
    from vision.photo import PhotoError

    if not isinstance(exc, PhotoError):
        return str(exc)
    frames = exc.accepted == ("JPEG",)  # the live page's frames
    size = (_("%(width)s × %(height)s pixels", width=format_number(exc.size[0]), height=format_number(exc.size[1]))
            if exc.size else "")
    limit = format_number(exc.limit or 0)
    if exc.fault == "no-file":  # the app's own words: nothing was sent
        return str(exc)
    if exc.fault == "empty":
        return _("the frame is empty") if frames else _("the photo file is empty")
    if exc.fault in ("not-an-image", "not-accepted"):
        if frames:
            return _("that frame is not a JPEG image: the live page sends JPEG frames")
        if exc.fault == "not-accepted" and exc.found:
            return _("%(format)s images are not accepted: send a JPEG, PNG, WebP or HEIC photo", format=exc.found)
        return _("that file is not a photo sushicam reads: send a JPEG, PNG, WebP or HEIC photo")
    if exc.fault == "too-small":
        return _("the photo is too small to show any card (%(size)s): take it closer, whole", size=size)
    if frames and exc.fault == "too-many-pixels":
        return _("the frame has too many pixels (%(size)s, more than %(limit)s megapixels)", size=size, limit=limit)
    if frames and exc.fault == "damaged":
        return _("the frame is damaged and could not be decoded")
    if exc.fault == "progressive-too-large":
        return _("the photo has too many pixels for a progressive JPEG (%(size)s, more than %(limit)s megapixels): "
                 "send a smaller one, or a baseline JPEG", size=size, limit=limit)
    if exc.fault == "whole-too-large":
        return _("the photo has too many pixels for its format (%(size)s, more than %(limit)s megapixels): "
                 "send a smaller one, or a JPEG", size=size, limit=limit)
    if exc.fault == "too-many-pixels":
        if size:
            return _("the photo has too many pixels (%(size)s, more than %(limit)s megapixels): send a smaller one",
                     size=size, limit=limit)
        return _("the photo has too many pixels: send a smaller one")
    return _("the photo is damaged and could not be read: take it again")


def init_app(app: Flask) -> None:
    from scorer import RecordError  # the scorer's validation error: bad records are a 400

    def max_mb() -> str:
        limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        # Babel's unit names: "3 MB", French "3 Mo"
        return format_unit(float(f"{limit / 1_000_000:g}"), "digital-megabyte", length="short",
                           locale=str(get_locale() or "en"))

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc: RequestEntityTooLarge):
        if exc.description and exc.description != RequestEntityTooLarge.description:
            return error_response(exc.description, 413)
        return error_response(_("the upload is larger than the %(limit)s limit", limit=max_mb()), 413)

    @app.errorhandler(CSRFError)
    def csrf_failed(exc):
        return error_response(
            _("the page's security token is missing or expired (%(problem)s); reload the page and try again",
              problem=exc.description),
            400,
        )

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 400
        described = exc.description and exc.description != type(exc).description
        message = exc.description if described else DEFAULT_MESSAGES.get(status, exc.description or exc.name)
        return error_response(str(message), status)

    @app.errorhandler(UploadError)
    def bad_upload(exc: UploadError):
        return error_response(upload_words(exc), http_status(exc))

    @app.errorhandler(ReviewError)
    @app.errorhandler(RecordError)
    def bad_record(exc: ValueError):
        return error_response(str(exc), 400)

    @app.errorhandler(RoundOrderError)
    def out_of_order(exc: RoundOrderError):
        if exc.next is None:
            return error_response(_("a game has rounds 1 to %(last)s, not %(number)s", last=ROUNDS_PER_GAME,
                                    number=exc.number), 409)
        return error_response(_("round %(number)s comes after round %(next)s, which is not confirmed yet",
                                number=exc.number, next=exc.next), 409)

    @app.errorhandler(StaleReview)
    def stale_review(exc: StaleReview):
        # the other edit goes with the answer, so the review page can show it
        current = {"review": exc.current, "version": review_version(exc.current)}
        return jsonify(error=f"{exc}.", current=current), 409

    @app.errorhandler(GameNotFound)
    def no_game(exc: GameNotFound):
        return error_response(_("no game %(number)s", number=exc.number), 404)

    @app.errorhandler(PhotoNotFound)
    def no_photo(exc: PhotoNotFound):
        return error_response(_("no photo %(number)s", number=exc.number), 404)

    @app.errorhandler(OSError)
    @app.errorhandler(sqlite3.Error)
    def storage_failed(exc: OSError | sqlite3.Error):
        message, status = storage_problem(exc, app.config["DATA_DIR"])
        app.logger.error("%s %s: %s (%r)", request.method, request.path, message, exc)
        return error_response(message, status, _("The data folder is not usable"))

    @app.errorhandler(RecognizerUnavailable)
    def no_model(exc: RecognizerUnavailable):
        return error_response(str(exc), 503)
