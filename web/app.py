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

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from vision.paths import MODELS_DIR
from web import db, errors, recognition

BLUEPRINT_MODULES = (
    "web.history",
    "web.games",
    "web.rounds",
    "web.api",
    "web.live",
    "web.teach",
)

# The API is stateless and called by scripts, which have no session to hold a CSRF token; it
# changes nothing on the server, so it needs none.
CSRF_EXEMPT_BLUEPRINTS = ("api",)


csrf = CSRFProtect()


def _secret_key(data_dir: Path) -> str:
    """A random key kept in the data folder, so sessions (and CSRF tokens) survive restarts."""
    path = data_dir / "secret_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` replaces the instance folder's config.py when given.

    Config keys: ``DATA_DIR`` (database, photos, training labels; default the instance folder),
    ``MODEL_DIR`` (the trained recogniser), ``RECOGNIZER_FACTORY`` (a callable returning a
    recogniser, instead of loading MODEL_DIR), ``MAX_CONTENT_LENGTH`` (upload size cap, bytes),
    ``MAX_IMAGE_PIXELS`` (largest photo decoded).
    """
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATA_DIR=app.instance_path,
        MODEL_DIR=str(MODELS_DIR),
        RECOGNIZER_FACTORY=None,
        MAX_CONTENT_LENGTH=40 * 1000 * 1000,  # a few phone photos in one form
        MAX_FORM_MEMORY_SIZE=2 * 1000 * 1000,  # text fields (an imported record) stay small
        MAX_IMAGE_PIXELS=50_000_000,  # 8160x6120, a 50 MP phone camera
        WTF_CSRF_TIME_LIMIT=None,  # a game lasts longer than an hour; the session bounds it
        JSON_SORT_KEYS=False,
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
    recognition.init_app(app)
    errors.init_app(app)
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
