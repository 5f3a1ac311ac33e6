"""The Flask application factory (flaskr style).

Pages and APIs are blueprints listed in ``BLUEPRINT_MODULES``: each module defines ``bp``, so
adding a feature is adding a module and its name here.
"""

from __future__ import annotations

import importlib
import os
import secrets
from pathlib import Path
from typing import Any

import flask
from flask import Flask
from flask_wtf.csrf import CSRFProtect
from werkzeug.routing import IntegerConverter

from vision.describe import MAX_IMAGE_PIXELS
from vision.paths import MODELS_DIR
from web import db, errors, i18n, recognition, security

BLUEPRINT_MODULES = (
    "web.i18n",
    "web.history",
    "web.games",
    "web.rounds",
    "web.api",
    "web.live",
    "web.teach",
    "web.pictures",
)

# The API is stateless and called by scripts, which have no session to hold a CSRF token; it
# changes nothing on the server, so it needs none.
CSRF_EXEMPT_BLUEPRINTS = ("api",)


csrf = CSRFProtect()


SECRET_KEY_HEX = 64  # secrets.token_hex(32)


def _secret_key(data_dir: Path) -> str:
    """A random key kept in the data folder, so sessions (and CSRF tokens) survive restarts.

    A file that is empty or damaged (a first start on a full disk) is replaced: with no usable
    key every request would fail. The new key is written beside it and renamed over it, so a
    crash leaves the old file or the new one, never half a key.
    """
    path = data_dir / "secret_key"
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        key = ""
    except (UnicodeDecodeError, IsADirectoryError):
        key = ""
        if path.is_dir():
            raise OSError(f"{path} is a folder; sushicam keeps its secret key in a file there") from None
    if len(key) == SECRET_KEY_HEX and all(c in "0123456789abcdef" for c in key):
        return key
    key = secrets.token_hex(SECRET_KEY_HEX // 2)
    partial = data_dir / f".secret_key.{secrets.token_hex(4)}.part"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return key


class Response(flask.Response):
    """Pages encoded so that a stored text no encoder takes (a lone surrogate in a name
    imported before names were checked) shows as "?" instead of failing the page."""

    def set_data(self, value: bytes | str) -> None:
        if isinstance(value, str):
            value = value.encode("utf-8", "replace")
        super().set_data(value)


class SQLiteIntConverter(IntegerConverter):
    """``<int:...>`` bounded to what SQLite stores: a larger id is no page (404), not an overflow."""

    def __init__(self, map, *args, **kwargs):
        kwargs.setdefault("max", 2**63 - 1)
        super().__init__(map, *args, **kwargs)


def _clean_photo_folder(app: Flask) -> None:
    """At startup: remove the photos a crash left that no round refers to (and ``.part`` files)."""
    from web.store import photo_filenames
    from web.uploads import photos_dir, remove_orphans

    if not photos_dir(app.config["DATA_DIR"]).is_dir():
        return
    connection = db.connect(db.database_path(app))
    try:
        referenced = photo_filenames(connection)
    finally:
        connection.close()
    removed = remove_orphans(app.config["DATA_DIR"], referenced)
    if removed:
        app.logger.warning("removed %d photo file(s) no round refers to", len(removed))


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` replaces the instance folder's config.py when given.

    Config keys: ``DATA_DIR`` (database, photos, training labels; default the instance folder),
    ``MODEL_DIR`` (the trained recogniser), ``RECOGNIZER_FACTORY`` (a callable returning a
    recogniser, instead of loading MODEL_DIR), ``MAX_CONTENT_LENGTH`` (upload size cap, bytes),
    ``MAX_IMAGE_PIXELS`` (largest photo decoded), ``TRUSTED_HOSTS`` (the Host names accepted;
    None: any), ``JOIN_CODE`` (what a browser on another machine must type first; None: no code).
    """
    app = Flask(__name__, instance_relative_config=True)
    app.response_class = Response
    app.url_map.converters["int"] = SQLiteIntConverter
    app.config.from_mapping(
        DATA_DIR=app.instance_path,
        MODEL_DIR=str(MODELS_DIR),
        RECOGNIZER_FACTORY=None,
        MAX_CONTENT_LENGTH=40 * 1000 * 1000,  # a few phone photos in one form
        MAX_FORM_MEMORY_SIZE=2 * 1000 * 1000,  # text fields (an imported record) stay small
        MAX_IMAGE_PIXELS=MAX_IMAGE_PIXELS,  # 8160x6120, a 50 MP phone camera; as sushicam detect
        WTF_CSRF_TIME_LIMIT=None,  # a game lasts longer than an hour; the session bounds it
        JSON_SORT_KEYS=False,
        SESSION_COOKIE_SAMESITE="Lax",  # a link from elsewhere still opens the game; a form post does not carry it
        SESSION_COOKIE_HTTPONLY=True,
        JOIN_CODE=None,  # set by ``serve --lan``: see web.security
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    data_dir = Path(app.config["DATA_DIR"])
    data_dir.mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(data_dir)

    db.init_app(app)
    i18n.init_app(app)
    _clean_photo_folder(app)
    recognition.init_app(app)
    errors.init_app(app)
    security.init_app(app)
    csrf.init_app(app)
    for name in BLUEPRINT_MODULES:
        module = importlib.import_module(name)
        if module.bp.name in CSRF_EXEMPT_BLUEPRINTS:
            csrf.exempt(module.bp)
        app.register_blueprint(module.bp)

    @app.context_processor
    def features():
        # templates link to optional features (live camera, teaching) only when installed
        return {"has_endpoint": lambda name: name in app.view_functions}

    return app
