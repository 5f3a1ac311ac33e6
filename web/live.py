"""The live view: follow a game from a webcam, turn by turn, with the scoreboard updating.

Frames come from the browser (getUserMedia; each frame POSTed as a JPEG to
``/live/<id>/frame``, answered with the read-out) or from a camera or video file on the server
(``sushicam live --camera 0 --serve``: the capture runs in a thread, the page shows
``/live/<id>/stream.mjpg`` and polls ``/live/<id>/state``). Both go through
``vision.live.LivePipeline``. A followed game is kept in memory while it is played; "Save"
stores it with its per-turn log as a game of the history.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import HTTPException

from scorer.editions import EDITIONS
from scorer.game import unprintable
from web.errors import error_response, json_body, wants_json
from web.recognition import RecognizerUnavailable

bp = Blueprint("live", __name__, url_prefix="/live")

_EXTENSION = "sushicam.live"
MAX_SESSIONS = 8
MAX_FRAME_BYTES = 4_000_000


class LiveSetupError(ValueError):
    """A live game that cannot start (names, edition, seat points)."""


@dataclass
class LiveSession:
    """One game followed live; ``lock`` keeps its frames in order."""

    id: str
    game: Any  # vision.live.LiveGame
    source: str  # "browser" or "server"
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: dict | None = None
    jpeg: bytes | None = None  # the last annotated frame (server sources)
    frames: int = 0
    created: float = field(default_factory=time.monotonic)
    touched: float = field(default_factory=time.monotonic)
    stopped: bool = False
    game_id: int | None = None  # the game of the app this one was started from
    pipeline: Any = None  # vision.live.LivePipeline: the recogniser (names cached per card), then the game

    def publish(self, state, frame: np.ndarray | None = None) -> None:
        """Keep the newest read-out (and, for the MJPEG stream, the annotated frame)."""
        import cv2

        from vision.live.pipeline import annotate

        self.state = with_score_words(state.to_json(), self.game)
        self.frames += 1
        self.touched = time.monotonic()
        if frame is not None:
            ok, encoded = cv2.imencode(".jpg", annotate(frame, state), [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                self.jpeg = encoded.tobytes()


def with_score_words(state: dict, game: Any) -> dict:
    """The state with its ``score_error`` said in the players' words (no record syntax), from
    the scorer's fault the game kept; ``sushicam live`` prints the scorer's own line."""
    from web.problems import record_words

    fault = getattr(game, "score_fault", None)
    if state.get("score_error") and fault is not None and hasattr(fault, "facts"):
        state = {**state, "score_error": record_words(fault, getattr(game, "edition", None),
                                                        list(getattr(game, "players", ())), anyway=False)}
    return state


class LiveSessions:
    """The games followed now, by id (in memory: a live game lasts one sitting)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, LiveSession] = {}

    def create(self, players, edition: str, source: str = "browser", seat_points=None, *,
               menu=None, variants=None) -> LiveSession:
        from vision.live.pipeline import LiveGame

        try:
            game = LiveGame(players, edition, menu=menu, variants=variants, seat_anchors=seat_points)
        except ValueError as exc:
            raise LiveSetupError(str(exc)) from exc
        return self.add(LiveSession(secrets.token_urlsafe(8), game, source))

    def add(self, session: LiveSession) -> LiveSession:
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:  # forget the longest unused one
                oldest = min(self._sessions.values(), key=lambda s: s.touched)
                oldest.stopped = True
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> LiveSession:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            abort(404, description=f"no live game {session_id!r} (it ended, or the server restarted)")
        return session


def init_app(app: Flask) -> LiveSessions:
    return app.extensions.setdefault(_EXTENSION, LiveSessions())


def sessions() -> LiveSessions:
    return init_app(current_app)


#: the most players any edition seats (Sushi Go Party!: 8)
MAX_PLAYERS = max(edition.players[1] for edition in EDITIONS.values())


def parse_players(text: Any) -> list[str]:
    """Names in seat order from a list or a comma-separated text.

    >>> parse_players(" Ann, Ben ,Cid ")
    ['Ann', 'Ben', 'Cid']
    """
    if isinstance(text, str):
        names = [n.strip() for n in text.split(",")]
    elif isinstance(text, list) and all(isinstance(n, str) for n in text):
        names = [n.strip() for n in text]
    else:
        raise LiveSetupError("players: give the names in seat order, separated by commas")
    names = [n for n in names if n]
    if len(names) < 2:
        raise LiveSetupError("players: give at least two names, in seat order")
    if len(names) > MAX_PLAYERS:
        raise LiveSetupError(f"players: at most {MAX_PLAYERS} play at one table")
    bad = next((n for n in names if unprintable(n)), None)
    if bad is not None:
        raise LiveSetupError(f"players: the name {ascii(bad)} holds control characters: type it again")
    if len(set(names)) != len(names):
        raise LiveSetupError("players: every player needs a different name")
    return names


def _seat_points(value: Any, players: int) -> list[tuple[float, float]] | None:
    if value in (None, "", []):
        return None
    if (not isinstance(value, list) or len(value) != players
            or not all(isinstance(p, list) and len(p) == 2 and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in p) for p in value)):
        raise LiveSetupError(f"seat_points: give one [x, y] point (pixels) per player, {players} in all")
    return [(float(x), float(y)) for x, y in value]


# --- pages -----------------------------------------------------------------------------


def _from_game(value: Any):
    """The game of the app a live game continues (its players, edition, menu), or None."""
    from web.db import get_db
    from web.store import GameNotFound, get_game

    if value in (None, ""):
        return None
    try:
        return get_game(get_db(), int(value))
    except (TypeError, ValueError):
        raise LiveSetupError("game: the number of a game of the app") from None
    except GameNotFound:
        raise LiveSetupError(f"game {value}: no such game (was it deleted?)") from None


@bp.get("/")
def start():
    from scorer.editions import EDITIONS

    game = _from_game(request.args.get("game"))
    form = {"players": request.args.get("players", ""), "edition": request.args.get("edition", "party"), "game": ""}
    if game is not None:
        form = {"players": ", ".join(game.players), "edition": game.edition, "game": game.id}
    return render_template("live.html", session=None, editions=EDITIONS, error=None, form=form, game=game)


@bp.post("/")
def create():
    """Start following a game: a form from the page, or JSON ``{players, edition, seat_points}``."""
    from scorer.editions import EDITIONS

    data = json_body() if request.is_json else request.form
    if not hasattr(data, "get"):
        return jsonify(error='expected a JSON object: {"players": [...], "edition": "..."}'), 400
    try:
        game = _from_game(data.get("game"))
        if game is not None:  # the game's own players, edition and menu
            players, edition, setup = list(game.players), game.edition, {"menu": game.menu, "variants": game.variants}
        else:
            players, edition, setup = parse_players(data.get("players", "")), str(data.get("edition", "party")), {}
        points = _seat_points(data.get("seat_points"), len(players)) if request.is_json else None
        session = sessions().create(players, edition, "browser", points, **setup)
        session.game_id = game.id if game is not None else None
    except LiveSetupError as exc:
        if request.is_json:
            return jsonify(error=str(exc)), 400
        return render_template("live.html", session=None, editions=EDITIONS, error=str(exc), game=None,
                               form={"players": data.get("players", ""), "edition": data.get("edition", ""),
                                     "game": ""}), 400
    url = url_for("live.show", session_id=session.id)
    if request.is_json:
        return jsonify(id=session.id, url=url), 201
    return redirect(url)


@bp.get("/<session_id>")
def show(session_id: str):
    session = sessions().get(session_id)
    return render_template("live.html", session=session, players=session.game.players,
                           edition=session.game.edition, editions=None, error=None, form=None)


# --- frames and read-out ---------------------------------------------------------------


def _frame_time() -> float | None:
    raw = request.headers.get("X-Frame-Time")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not np.isfinite(value) or value < 0:
        abort(400, description="X-Frame-Time: the frame's time in seconds (a number >= 0)")
    return value


def _decode_jpeg() -> np.ndarray:
    from vision.photo import PhotoError, decode_photo
    from web.uploads import http_status

    if (request.content_length or 0) > MAX_FRAME_BYTES:
        abort(413, description=f"a frame is at most {MAX_FRAME_BYTES // 1_000_000} MB")
    data = request.get_data(cache=False)
    if not data:
        abort(400, description="the request body is empty: send one JPEG frame")
    limit = current_app.config.get("MAX_IMAGE_PIXELS") or 50_000_000
    try:
        return decode_photo(data, limit, "the frame", formats=("JPEG",)).pixels
    except PhotoError as exc:
        abort(http_status(exc), description=str(exc))


@bp.post("/<session_id>/frame")
def frame(session_id: str):
    """One camera frame (JPEG body) in; the read-out after it out."""
    from vision.live.pipeline import LivePipeline, live_detector
    from web.recognition import _slot, get_recognizer

    session = sessions().get(session_id)
    if session.source != "browser":
        abort(409, description="this live game reads a camera on the server; it takes no frames")
    timestamp = _frame_time()
    image = _decode_jpeg()
    recognizer = get_recognizer()
    with session.lock:
        if timestamp is None:  # no clock from the page: the server's
            timestamp = time.monotonic() - session.created
        last = (session.state or {}).get("timestamp")
        if last is not None and timestamp < last:
            abort(409, description=f"frames must come in time order (got {timestamp:.3f}s after {last:.3f}s)")
        if session.pipeline is None:
            session.pipeline = LivePipeline(_locked(live_detector(recognizer), _slot().lock), session.game)
        state = session.pipeline.process(image, timestamp)
        session.publish(state)
        return jsonify(session.state)


def _locked(detect, lock: threading.Lock):
    """``detect`` run under ``lock``: one inference at a time on a small CPU."""

    def run(image_bgr: np.ndarray):
        with lock:
            return detect(image_bgr)

    if hasattr(detect, "allow"):  # the pipeline names cards as the game's deck holds them
        run.allow = detect.allow  # type: ignore[attr-defined]
    return run


@bp.get("/<session_id>/state")
def state(session_id: str):
    session = sessions().get(session_id)
    if session.state is None:
        return jsonify(frame=0, cards=[], events=[], record=session.game.record(), pending={},
                       scores=None, score_error=None, notes=[])
    return jsonify(session.state)


@bp.get("/<session_id>/stream.mjpg")
def stream(session_id: str):
    """The annotated frames of a server-side camera, as an MJPEG stream."""
    session = sessions().get(session_id)
    if session.source != "server":
        abort(404, description="this live game's frames come from the browser: it has no stream")

    def parts():
        last = None
        while not session.stopped:
            jpeg = session.jpeg
            if jpeg is not None and jpeg is not last:
                last = jpeg
                yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
            time.sleep(0.03)

    return Response(parts(), mimetype="multipart/x-mixed-replace; boundary=frame")


@bp.post("/<session_id>/save")
def save(session_id: str):
    """Store the game followed so far (with its per-turn log) as a game of the history."""
    from scorer import Game
    from web.db import get_db
    from web.review import review_from_round
    from web.store import create_game

    session = sessions().get(session_id)
    with session.lock:
        record = session.game.record()
    if not record["rounds"]:
        abort(409, description="no turn has been read yet: nothing to save")
    # the replay fills in each round's tableaux, which the history pages show
    full = Game.from_record(record).to_record()
    players = full["players"]
    rounds = [(review_from_round(r, players), r) for r in full["rounds"]]
    game_id = create_game(get_db(), full["edition"], players, full.get("menu"), full.get("variants"), rounds)
    url = url_for("games.show", game_id=game_id)
    if request.accept_mimetypes.best == "application/json" or request.is_json:
        return jsonify(game_id=game_id, url=url), 201
    return redirect(url)


@bp.post("/<session_id>/rounds/<int:round_number>/turns/<int:turn_number>")
def fix_turn(session_id: str, round_number: int, turn_number: int):
    """A player corrects a turn read (a card misread, a card given to the wrong player):
    ``{"reveals": {player: [cards]}, "events": [...]}``, cards as slugs or as printed names."""
    from scorer.errors import RecordError

    session = sessions().get(session_id)
    value = json_body()
    if not isinstance(value, dict) or not isinstance(value.get("reveals"), dict):
        abort(400, description='expected {"reveals": {"Ann": ["Tempura"], ...}} for the turn')
    value = {**value, "reveals": {p: [_slug(c) for c in cards] if isinstance(cards, list) else cards
                                  for p, cards in value["reveals"].items()}}
    with session.lock:
        try:
            session.game.fix_turn(round_number - 1, turn_number - 1, value)
        except RecordError as exc:
            abort(400, description=f"round {round_number}, turn {turn_number}: {exc}")
        state = dict(session.state or {})
        state["record"] = session.game.record()
        state["scores"], state["score_error"] = session.game.scores()
        state = with_score_words(state, session.game)
        state["names"] = {**state.get("names", {}), **session.game.names(record=state["record"])}
        session.state = state
    return jsonify(state)


def _slug(text: Any) -> Any:
    """A card as a player writes it ("Salmon Nigiri", "special order (eel)") as its slug."""
    from scorer.cards import CARDS

    if not isinstance(text, str):
        return text
    by_name = {card.name.lower(): slug for slug, card in CARDS.items()}
    words = text.strip()
    head, _, copied = words.partition("(")
    if copied.endswith(")"):
        base = by_name.get(head.strip().lower(), head.strip())
        return f"{base}:{_slug(copied[:-1])}"
    return by_name.get(words.lower(), words)


# the frame and state routes are an API for the page's script: their errors are always JSON
_API = ("live.frame", "live.state", "live.stream", "live.save", "live.fix_turn")


@bp.errorhandler(LiveSetupError)
def bad_setup(exc: LiveSetupError):
    return jsonify(error=str(exc)), 400


@bp.errorhandler(RecognizerUnavailable)
def no_model(exc: RecognizerUnavailable):
    return jsonify(error=str(exc)), 503


@bp.errorhandler(HTTPException)
def http_error(exc: HTTPException):
    message, status = exc.description or exc.name, exc.code or 400
    if request.endpoint in _API or wants_json():
        return jsonify(error=message), status
    return error_response(message, status)


# the app answers some codes with its own handlers (they win over a blueprint's catch-all)
for _code in (400, 404, 405, 409, 413, 415):
    bp.register_error_handler(_code, http_error)
