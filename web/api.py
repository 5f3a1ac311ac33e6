"""The stateless JSON API for scripts and other tools (no session, so no CSRF token).

``POST /api/score``: a game record → the same JSON as ``sushicam score``.
``POST /api/detect``: a multipart ``image`` (optional ``seats``: a number of players) → the same
object as one ``sushicam detect`` line.
"""

from __future__ import annotations

import re

from flask import Blueprint, current_app, jsonify, request
from flask_babel import gettext as _
from werkzeug.exceptions import BadRequest
from werkzeug.utils import secure_filename

from scorer import score_record
from web import recognition
from web.errors import json_body
from web.security import refuse_cross_origin
from web.uploads import NoImageError, read_image

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_SEATS = 8


@bp.before_request
def same_origin_only():
    refuse_cross_origin()


@bp.post("/score")
def score():
    return jsonify(score_record(json_body()))


def _seats() -> int | None:
    value = request.form.get("seats", "").strip()
    if not value:
        return None
    # ASCII digits only: "²" and "٣" pass str.isdigit(), and int() refuses the first
    if not re.fullmatch(r"[0-9]{1,2}", value) or not 1 <= int(value) <= MAX_SEATS:
        raise BadRequest(f"'seats' must be a number of players from 1 to {MAX_SEATS}, not {value!r}")
    return int(value)


@bp.post("/detect")
def detect():
    upload = request.files.get("image")
    if upload is None or not upload.filename:
        raise NoImageError(_("send the photo as a multipart form field named %(field)s", field="'image'"),
                           fault="no-file")
    seats = _seats()
    image = read_image(upload.read(), current_app.config["MAX_IMAGE_PIXELS"])
    name = secure_filename(upload.filename) or "image"
    return jsonify(recognition.describe(image.pixels, name, seats))
