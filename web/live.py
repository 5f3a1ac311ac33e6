"""The live view: follow a game from a webcam, turn by turn, with the scoreboard updating.

Frames come from the browser (getUserMedia; each frame POSTed as a JPEG to
``/live/<id>/frame``, answered with the read-out) or from a camera or video file on the server
(``sushicam live --camera 0 --serve``: the capture runs in a thread, the page shows
``/live/<id>/stream.mjpg`` and polls ``/live/<id>/state``). Each stream holds a server thread
while it is watched, so a game takes at most ``LIVE_STREAM_VIEWERS`` of them (the app's config);
a page past that cap is answered 503 and shows ``/live/<id>/snapshot.jpg`` every second instead.
A stream ends when its source does or the game stops. Both go through
``vision.live.LivePipeline``. A followed game is kept in memory while it is played; "Save"
stores it with its per-turn log as a game of the history.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from scorer.editions import EDITIONS
from scorer.game import unprintable
from web.errors import error_response, json_body, wants_json
from web.i18n import page_language
from web.recognition import RecognizerUnavailable

if TYPE_CHECKING:
    from vision.live.state import LiveStateJSON

bp = Blueprint("live", __name__, url_prefix="/live")

_EXTENSION = "sushicam.live"
MAX_SESSIONS = 8
MAX_FRAME_BYTES = 4_000_000
STREAM_VIEWERS = 3  # default LIVE_STREAM_VIEWERS: MJPEG streams one game serves at once
STREAM_RESEND = 5.0  # seconds: the last frame is sent again, so a viewer who left is noticed
#: a game with no frame, correction or page view for this long is no longer being played: it
#: may make room for a new one when all MAX_SESSIONS places are taken
IDLE_S = 30 * 60
#: how far a frame's time (X-Frame-Time) may run ahead of the server's clock since the frame
#: before (a film sent faster than it plays gains a little each frame; a clock gone wrong, more)
MAX_FRAME_LEAD_S = 60.0
#: the header that carries a frame's time (seconds since the camera started), named as the errors name it
FRAME_TIME = "X-Frame-Time"


class LiveSetupError(ValueError):
    """A live game that cannot start (names, edition, seat points)."""

    status = 400


class LiveFull(LiveSetupError):
    """Every place for a live game is taken by a game being played."""

    status = 503


@dataclass
class LiveSession:
    """One game followed live; ``lock`` keeps its frames in order."""

    id: str
    game: Any  # vision.live.LiveGame
    source: str  # "browser" or "server"
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: LiveStateJSON | None = None
    jpeg: bytes | None = None  # the last annotated frame (server sources)
    frames: int = 0
    created: float = field(default_factory=lambda: time.monotonic())
    touched: float = field(default_factory=lambda: time.monotonic())
    stopped: bool = False
    ended: bool = False  # the camera or video has no more frames (server sources)
    viewers: int = 0  # MJPEG streams open now
    frame_at: float | None = None  # when the last frame came (the server's clock)
    game_id: int | None = None  # the game of the app this one was started from
    pipeline: Any = None  # vision.live.LivePipeline: the recogniser (names cached per card), then the game

    def touch(self) -> None:
        """Someone is playing it (a frame, a correction, the page opened)."""
        self.touched = time.monotonic()

    def idle(self, now: float) -> bool:
        """Finished (its camera stopped) or left alone long enough to make room for another."""
        return self.stopped or now - self.touched > IDLE_S

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


def _empty_state(game: Any) -> LiveStateJSON:
    """The state of a live game no frame has reached yet."""
    return {"frame": 0, "timestamp": 0.0, "cards": [], "events": [], "record": game.record(), "pending": {},
            "scores": None, "score_error": None, "notes": [], "reader_notes": [], "seconds": {}, "names": {}}


def with_score_words(state: LiveStateJSON, game: Any) -> LiveStateJSON:
    """The state with its ``score_error`` said in the players' words (no record syntax), from
    the scorer's fault the game kept; ``sushicam live`` prints the scorer's own line."""
    from web.problems import record_words

    fault = getattr(game, "score_fault", None)
    if state.get("score_error") and fault is not None and hasattr(fault, "facts"):
        state = state.copy()
        state["score_error"] = record_words(fault, getattr(game, "edition", None),
                                            list(getattr(game, "players", ())), anyway=False)
    return state


def said(state: LiveStateJSON | dict[str, Any], game: Any) -> LiveStateJSON | dict[str, Any]:
    """The state as this request's page reads it: the reader's notes in its language."""
    from web.live_notes import with_note_words

    return with_note_words(state, getattr(game, "edition", None))


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
            if len(self._sessions) >= MAX_SESSIONS:
                # room is made only by a game no one plays now, the longest unused first
                now = time.monotonic()
                idle = [s for s in self._sessions.values() if s.idle(now)]
                if not idle:
                    raise LiveFull(
                        f"{MAX_SESSIONS} live games are being played on this server already: save one "
                        f"and close its page, or wait, a game left alone for {IDLE_S // 60} minutes makes room"
                    )
                oldest = min(idle, key=lambda s: s.touched)
                oldest.stopped = True
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> LiveSession:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            abort(404, description=_("no live game %(name)s (it ended, or the server restarted)", name=repr(session_id)))
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
        raise LiveSetupError(_("players: give the names in seat order, separated by commas"))
    names = [n for n in names if n]
    if len(names) < 2:
        raise LiveSetupError(_("players: give at least two names, in seat order"))
    if len(names) > MAX_PLAYERS:
        raise LiveSetupError(_("players: at most %(count)s play at one table", count=MAX_PLAYERS))
    bad = next((n for n in names if unprintable(n)), None)
    if bad is not None:
        raise LiveSetupError(_("players: the name %(name)s holds control characters: type it again",
                               name=ascii(bad)))
    if len(set(names)) != len(names):
        raise LiveSetupError(_("players: every player needs a different name"))
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
        raise LiveSetupError(_("game: the number of a game of the app")) from None
    except GameNotFound:
        raise LiveSetupError(_("game %(number)s: no such game (was it deleted?)", number=value)) from None


def _menu(data: Any, edition: str, players: list[str]) -> Any:
    """The Party menu chosen for a live game: a menu's key, ``"custom"`` with its kinds
    (``menu_kind``), a list of kinds (JSON), or None (no menu: every Party card). The scorer
    checks it as it checks a new game's (a menu for 2 players without a spoon...)."""
    from scorer.errors import RecordError
    from web import scoring

    if edition != "party":
        return None
    menu = data.get("menu") or None
    if menu == "custom":
        menu = data.getlist("menu_kind") if hasattr(data, "getlist") else data.get("menu_kind")
        if not menu:
            raise LiveSetupError(_("menu: pick the kinds of card of your custom menu"))
    if menu is not None and not isinstance(menu, str | list):
        raise LiveSetupError(_("menu: a menu's name, or the kinds of card of a custom menu"))
    try:
        scoring.check_setup(edition, players, menu, None)
    except RecordError as exc:
        from web.problems import record_words

        raise LiveSetupError(_("menu: %(problem)s", problem=record_words(exc, edition, players))) from None
    return menu


def _setup_page(form: dict, game=None, error: str | None = None, status: int = 200):
    from web import catalogue

    return render_template("live.html", session=None, editions=EDITIONS, error=error, form=form, game=game,
                           menus=catalogue.menus(), kinds_by_family=catalogue.kinds_by_family()), status


@bp.get("/")
def start():
    game = _from_game(request.args.get("game"))
    form = {"players": request.args.get("players", ""), "edition": request.args.get("edition", "party"), "game": "",
            "menu": request.args.get("menu", ""), "menu_kinds": []}
    if game is not None:
        form = {"players": ", ".join(game.players), "edition": game.edition, "game": game.id, "menu": "",
                "menu_kinds": []}
    return _setup_page(form, game)


@bp.post("/")
def create():
    """Start following a game: a form from the page, or JSON ``{players, edition, menu, seat_points}``."""
    data = json_body() if request.is_json else request.form
    if not hasattr(data, "get"):
        return jsonify(error=_("expected a JSON object: %(example)s", example='{"players": [...], "edition": "..."}')), 400
    try:
        game = _from_game(data.get("game"))
        if game is not None:  # the game's own players, edition and menu
            players, edition, setup = list(game.players), game.edition, {"menu": game.menu, "variants": game.variants}
        else:
            players, edition = parse_players(data.get("players", "")), str(data.get("edition", "party"))
            setup = {"menu": _menu(data, edition, players)} if edition in EDITIONS else {}
        points = _seat_points(data.get("seat_points"), len(players)) if request.is_json else None
        session = sessions().create(players, edition, "browser", points, **setup)
        session.game_id = game.id if game is not None else None
    except LiveSetupError as exc:
        if request.is_json:
            return jsonify(error=str(exc)), exc.status
        return _setup_page({"players": data.get("players", ""), "edition": data.get("edition", ""), "game": "",
                            "menu": data.get("menu", ""), "menu_kinds": data.getlist("menu_kind")},
                           error=str(exc), status=exc.status)
    url = url_for("live.show", session_id=session.id)
    if request.is_json:
        return jsonify(id=session.id, url=url), 201
    return redirect(url)


@bp.get("/<session_id>")
def show(session_id: str):
    session = sessions().get(session_id)
    session.touch()
    return render_template("live.html", session=session, players=session.game.players,
                           edition=session.game.edition, editions=None, error=None, form=None)


# --- frames and read-out ---------------------------------------------------------------


def _frame_time() -> float | None:
    raw = request.headers.get(FRAME_TIME)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not np.isfinite(value) or value < 0:
        abort(400, description=_("%(header)s: the frame's time in seconds (a number >= 0)", header=FRAME_TIME))
    return value


def _check_lead(session: LiveSession, timestamp: float, last: float | None) -> None:
    """A 400 for a frame time further ahead of the one before than the server's clock moved
    since (plus ``MAX_FRAME_LEAD_S``): once taken, every later frame would be out of order."""
    now = time.monotonic()
    since, elapsed = (0.0, now - session.created) if last is None else (last, now - (session.frame_at or now))
    if timestamp - since > elapsed + MAX_FRAME_LEAD_S:
        values = {"time": f"{timestamp:.6g}", "ahead": f"{timestamp - since:.6g}", "moved": f"{elapsed:.3g}"}
        abort(400, description=(
            _("%(header)s: %(time)ss is %(ahead)ss after the start, but the server's clock moved "
              "%(moved)ss: send the seconds since the camera started", header=FRAME_TIME, **values) if last is None else
            _("%(header)s: %(time)ss is %(ahead)ss after the frame before, but the server's clock moved "
              "%(moved)ss: send the seconds since the camera started", header=FRAME_TIME, **values)))


def _decode_jpeg() -> np.ndarray:
    from vision.photo import PhotoError, decode_photo
    from web.uploads import http_status

    if (request.content_length or 0) > MAX_FRAME_BYTES:
        abort(413, description=_("a frame is at most %(size)s MB", size=MAX_FRAME_BYTES // 1_000_000))
    data = request.get_data(cache=False)
    if not data:
        abort(400, description=_("the request body is empty: send one JPEG frame"))
    limit = current_app.config.get("MAX_IMAGE_PIXELS") or 50_000_000
    try:
        return decode_photo(data, limit, "the frame", formats=("JPEG",)).pixels
    except PhotoError as exc:
        from web.errors import upload_words

        abort(http_status(exc), description=upload_words(exc))


@bp.post("/<session_id>/frame")
def frame(session_id: str):
    """One camera frame (JPEG body) in; the read-out after it out."""
    from vision.live.pipeline import LivePipeline, live_detector
    from web.recognition import _slot, get_recognizer

    session = sessions().get(session_id)
    if session.source != "browser":
        abort(409, description=_("this live game reads a camera on the server; it takes no frames"))
    timestamp = _frame_time()
    image = _decode_jpeg()
    recognizer = get_recognizer()
    with session.lock:
        if timestamp is None:  # no clock from the page: the server's
            timestamp = time.monotonic() - session.created
        last = session.state["timestamp"] if session.state else None
        if last is not None and timestamp < last:
            abort(409, description=_("frames must come in time order (got %(time)ss after %(last)ss)",
                                      time=f"{timestamp:.3f}", last=f"{last:.3f}"))
        _check_lead(session, timestamp, last)
        if session.pipeline is None:
            session.pipeline = LivePipeline(_locked(live_detector(recognizer), _slot().lock), session.game)
        state = session.pipeline.process(image, timestamp)
        session.frame_at = time.monotonic()
        session.publish(state)
        return jsonify(said(session.state or {}, session.game))


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
                       scores=None, score_error=None, notes=[], reader_notes=[])
    return jsonify(said(session.state, session.game))


@bp.get("/<session_id>/stream.mjpg")
def stream(session_id: str):
    """The annotated frames of a server-side camera, as an MJPEG stream.

    It ends when the source ends or the game stops (its last frame sent first); the server
    thread it holds is then free again. A viewer past the game's cap is answered 503.
    """
    session = sessions().get(session_id)
    if session.source != "server":
        abort(404, description=_("this live game's frames come from the browser: it has no stream"))
    cap = int(current_app.config.get("LIVE_STREAM_VIEWERS", STREAM_VIEWERS))
    with session.lock:
        if session.viewers >= cap:
            abort(503, description=_("%(count)s screens already watch this game's stream: this one shows a "
                                     "still picture every second instead", count=cap))
        session.viewers += 1

    def parts():
        last, sent = None, 0.0
        try:
            while True:
                over = session.stopped or session.ended
                jpeg = session.jpeg
                now = time.monotonic()
                if jpeg is not None and (jpeg is not last or now - sent > STREAM_RESEND):
                    last, sent = jpeg, now
                    yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
                if over:
                    return
                time.sleep(0.03)
        finally:
            with session.lock:
                session.viewers -= 1

    return Response(parts(), mimetype="multipart/x-mixed-replace; boundary=frame")


@bp.get("/<session_id>/snapshot.jpg")
def snapshot(session_id: str):
    """The last annotated frame of a server-side camera, for a page past the stream's cap."""
    session = sessions().get(session_id)
    jpeg = session.jpeg
    if jpeg is None:
        abort(404, description=_("no frame has been read yet"))
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/<session_id>/save")
def save(session_id: str):
    """Store the game followed so far (with its per-turn log) as a game of the history."""
    from scorer import Game
    from web.db import get_db
    from web.review import review_from_round
    from web.store import create_game

    session = sessions().get(session_id)
    session.touch()
    with session.lock:
        record = session.game.record()
    if not record["rounds"]:
        abort(409, description=_("no turn has been read yet: nothing to save"))
    # the replay fills in each round's tableaux, which the history pages show
    full = Game.from_record(record).to_record()
    players = full["players"]
    rounds = [(review_from_round(r, players), r) for r in full["rounds"]]
    game_id = create_game(get_db(), full["edition"], players, full.get("menu"), full.get("variants"), rounds)
    url = url_for("games.show", game_id=game_id)
    if request.accept_mimetypes.best == "application/json" or request.is_json:
        return jsonify(game_id=game_id, url=url), 201
    return redirect(url)


@bp.post("/<session_id>/end-round")
def end_round(session_id: str):
    """The players end the round: the turn in play is read as the table lies (its last cards
    need not lie still the usual few seconds first), then the round; the next card laid
    starts the next round."""
    from vision.live.turns import EventKind

    session = sessions().get(session_id)
    if session.source != "browser":
        abort(409, description=_("this live game reads a camera on the server: its rounds end as the table is "
                                  "cleared"))
    with session.lock:
        state = session.game.end_round()
        if not any(e.kind == EventKind.ROUND_END for e in state.events):
            abort(409, description=_("no turn has been read in this round yet: nothing to end"))
        session.state = state.to_json()
        session.touched = time.monotonic()
        return jsonify(said(session.state, session.game))


@bp.post("/<session_id>/rounds/<int:round_number>/turns/<int:turn_number>")
def fix_turn(session_id: str, round_number: int, turn_number: int):
    """A player corrects a turn read (a card misread, a card given to the wrong player):
    ``{"reveals": {player: [cards]}, "events": [...]}``, cards as slugs or as printed names."""
    from scorer.errors import RecordError

    session = sessions().get(session_id)
    session.touch()
    value = json_body()
    if not isinstance(value, dict) or not isinstance(value.get("reveals"), dict):
        abort(400, description=_("expected %(example)s for the turn", example='{"reveals": {"Ann": ["Tempura"], ...}}'))
    value = {**value, "reveals": {p: [_slug(c) for c in cards] if isinstance(cards, list) else cards
                                  for p, cards in value["reveals"].items()}}
    with session.lock:
        try:
            session.game.fix_turn(round_number - 1, turn_number - 1, value)
        except RecordError as exc:
            from web.problems import record_words

            problem = str(exc) if page_language() == "en" else record_words(
                exc, session.game.edition, session.game.players)
            abort(400, description=_("round %(round)s, turn %(turn)s: %(problem)s", round=round_number,
                                     turn=turn_number, problem=problem))
        state = session.state.copy() if session.state else _empty_state(session.game)
        state["record"] = session.game.record()
        state["scores"], state["score_error"] = session.game.scores()
        state = with_score_words(state, session.game)
        state["names"] = {**state["names"], **session.game.names(record=state["record"])}
        session.state = state
    return jsonify(said(state, session.game))


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
_API = ("live.frame", "live.state", "live.stream", "live.snapshot", "live.save", "live.fix_turn", "live.end_round")


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
for _code in (400, 404, 405, 409, 413, 415, 503):
    bp.register_error_handler(_code, http_error)
