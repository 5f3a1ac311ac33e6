"""What keeps the app safe on a shared network: response headers, the Host check, the join code.

* Every response carries a Content-Security-Policy (scripts only from our static files; the pages'
  ``style`` attributes and the review page's JSON data block need nothing more), refuses to be
  framed, and turns off MIME sniffing and cross-site referrers.
* ``TRUSTED_HOSTS`` (Flask's own check, set by ``sushicam serve`` and ``live --serve``) answers 400 to a request whose
  Host header names another site: a DNS-rebinding page cannot talk to the app through its name.
* ``JOIN_CODE`` (set by ``sushicam serve`` and ``sushicam live --serve`` when they listen beyond
  this computer, e.g. ``--lan``): a browser on another machine must type the code printed at startup once before it
  can read or change games; a script sends it as the ``X-Join-Code`` header. The computer running
  the server (loopback) never needs it. The session cookie keeps an HMAC of the code under the
  secret key, not the code: the cookie is signed, not encrypted, so anyone who sees it can read
  it; this value tells them nothing, and a new code (every start makes one) invalidates it.
* Wrong codes are counted per device (an IPv4 address, an IPv6 /64, which one machine can fill
  with addresses of its own) and for the whole server, with the ``limits`` package's moving
  window: past ``JOIN_CODE_TRIES_PER_DEVICE`` (or ``..._PER_SERVER``) every try is answered 429
  with Retry-After, the right code included, until the window has room again. At the server's
  cap, trying half of the million codes takes about 35 days. Browsers that joined keep working.
* An IPv6 address (``[::1]:5000``) is matched here (``Request``): werkzeug cuts every trusted
  name at its first colon, so it never matches one.
* Cross-origin POSTs to the CSRF-exempt API are refused: a page elsewhere could otherwise make a
  visitor's browser send it ``text/plain`` bodies (a simple request needs no preflight).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import re
import secrets
import time
from urllib.parse import urlsplit

import flask
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import ngettext
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from werkzeug.exceptions import Forbidden, SecurityError, TooManyRequests, Unauthorized

bp = Blueprint("security", __name__)

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        # the templates set CSS custom properties in style attributes (card family colours)
        "style-src 'self' 'unsafe-inline'",
        # the capture page previews the chosen photo from a blob: URL; the live page shows the camera
        "img-src 'self' blob: data:",
        "media-src 'self' blob: mediastream:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
JOIN_CODE_LENGTH = 6
JOINED = "joined"  # session key: join_token() of the code this browser entered
# A player who mistypes has ten tries; a script has one a minute. The server-wide cap holds a
# machine that takes address after address on the network to 10 a minute.
JOIN_CODE_TRIES_PER_DEVICE = "10 per 10 minutes"
JOIN_CODE_TRIES_PER_SERVER = "100 per 10 minutes"


def new_join_code() -> str:
    """Six digits: easy to type on a phone, and a stranger has one chance in a million a try."""
    return f"{secrets.randbelow(10**JOIN_CODE_LENGTH):0{JOIN_CODE_LENGTH}d}"


def trusted_hosts(*hosts: str | None) -> list[str]:
    """The names the app may be reached by: this computer's, and the addresses it listens on."""
    names = [*LOCAL_HOSTS, *(h for h in hosts if h and h not in ("0.0.0.0", "::"))]
    return list(dict.fromkeys(names))


_IPV6_HOST = re.compile(r"\[([0-9A-Fa-f:.]+)\](?::[1-9][0-9]{0,4})?", re.ASCII)


def _ipv6_host(host: str | None) -> ipaddress.IPv6Address | None:
    """The address of a Host header that is a bracketed IPv6 literal with an optional port."""
    match = _IPV6_HOST.fullmatch(host or "")
    if match is None:
        return None
    try:
        return ipaddress.IPv6Address(match[1])
    except ValueError:
        return None


def _ipv6_address(name: str) -> ipaddress.IPv6Address | None:
    try:
        return ipaddress.IPv6Address(name.strip("[]"))
    except ValueError:
        return None


class Request(flask.Request):
    """Flask's request, whose Host check also accepts the trusted IPv6 addresses.

    Flask hands ``TRUSTED_HOSTS`` to werkzeug through ``trusted_hosts``: for a Host header that
    is a trusted IPv6 literal (checked here, in either spelling, ``::1`` or ``[::1]``) werkzeug
    is given no list, so it checks only that the header is well formed.
    """

    _trusted: list[str] | None = None

    @property
    def trusted_hosts(self) -> list[str] | None:
        address = _ipv6_host(self.headers.get("Host")) if self._trusted else None
        if address is not None and any(_ipv6_address(name) == address for name in self._trusted or ()):
            return None
        return self._trusted

    @trusted_hosts.setter
    def trusted_hosts(self, value: list[str] | None) -> None:
        self._trusted = value


def _is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _same_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    return bool(parts.netloc) and parts.netloc == request.host


def refuse_cross_origin() -> None:
    """403 when a browser sends this request from a page of another site.

    Scripts (curl, requests) send no Origin and no Sec-Fetch-Site, so they are let through.
    """
    origin = request.headers.get("Origin")
    site = request.headers.get("Sec-Fetch-Site")
    if (origin is not None and not _same_origin(origin)) or site in ("cross-site", "same-site"):
        raise Forbidden("requests from other web sites are refused; call the API from a script or this app")


def join_token(code: str) -> str:
    """What the session keeps for a browser that typed ``code``: reveals nothing of the code."""
    key = current_app.secret_key
    key_bytes = key.encode() if isinstance(key, str) else bytes(key or b"")
    return hmac.new(key_bytes, b"sushicam join code\0" + code.encode(), hashlib.sha256).hexdigest()


def _joined(code: str) -> bool:
    kept = session.get(JOINED)
    return isinstance(kept, str) and hmac.compare_digest(kept, join_token(code))


def _device(address: str | None) -> str:
    """Who wrong codes are counted against: the address, or its /64 for IPv6."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return str(address)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class JoinCodeLock:
    """Counts wrong join codes per device and for the server (in memory: a code lasts one run)."""

    def __init__(self, per_device: str, per_server: str) -> None:
        self.windows = MovingWindowRateLimiter(MemoryStorage())
        self.limits: list[tuple[RateLimitItem, str]] = [
            (parse(per_device), "device"), (parse(per_server), "server")]

    def _keys(self, device: str) -> list[tuple[RateLimitItem, str, str]]:
        return [(limit, scope, device if scope == "device" else "all") for limit, scope in self.limits]

    def refuse_if_locked(self, device: str) -> None:
        """429 with Retry-After while ``device`` (or the server) has used up its tries."""
        for limit, scope, key in self._keys(device):
            if not self.windows.test(limit, "join-code", scope, key):
                reset = self.windows.get_window_stats(limit, "join-code", scope, key).reset_time
                wait = max(1, math.ceil(reset - time.time()))
                minutes = math.ceil(wait / 60)
                if scope == "device":
                    words = ngettext(
                        "Too many wrong join codes from this device: wait %(num)d minute, then type the "
                        "code printed where the game server was started.",
                        "Too many wrong join codes from this device: wait %(num)d minutes, then type the "
                        "code printed where the game server was started.", minutes)
                else:
                    words = ngettext(
                        "Too many wrong join codes were tried on this game server: wait %(num)d minute, "
                        "then type the code printed where the game server was started.",
                        "Too many wrong join codes were tried on this game server: wait %(num)d minutes, "
                        "then type the code printed where the game server was started.", minutes)
                raise TooManyRequests(words, retry_after=wait)

    def failed(self, device: str) -> None:
        for limit, scope, key in self._keys(device):
            self.windows.hit(limit, "join-code", scope, key)


def _lock() -> JoinCodeLock:
    return current_app.extensions["sushicam.join_code_lock"]


def try_join_code(entered: str, code: str) -> bool:
    """Whether ``entered`` is the code; a wrong one counts against this device.

    Refused with 429 before any comparison while the device is locked out, so the right code
    found by guessing is no use until the lock ends.
    """
    device = _device(request.remote_addr)
    lock = _lock()
    lock.refuse_if_locked(device)
    if hmac.compare_digest("".join(entered.split()).encode(), code.encode()):
        return True
    lock.failed(device)
    return False


def _needs_join_code() -> bool:
    code = current_app.config.get("JOIN_CODE")
    if not code or _is_loopback(request.remote_addr):
        return False
    if request.endpoint in ("security.join", "static") or _joined(code):
        return False
    sent = request.headers.get("X-Join-Code")  # a script
    return sent is None or not try_join_code(sent, code)


def safe_target(target: str) -> str:
    r"""``target`` if a browser would read it as a path on this site, else the games list.

    Browsers drop tabs and newlines anywhere in a URL and read a backslash as a slash, so
    ``/\t/evil.example`` and ``/\evil.example`` both lead to another site: a target with any
    control character or backslash is refused, as is one that does not start with exactly one
    slash. (A newline would also break the Location header.)
    """
    if (
        not target.startswith("/")
        or target.startswith("//")
        or any(c == "\\" or c < " " or c == "\x7f" for c in target)
        or urlsplit(target).netloc
    ):
        return url_for("history.index")
    return target


@bp.route("/join", methods=("GET", "POST"))
def join():
    """The form asking for the join code printed where the server was started."""
    code = current_app.config.get("JOIN_CODE")
    target = safe_target(request.values.get("next", ""))  # never send the browser to another site
    if not code:
        return redirect(target)
    error = None
    if request.method == "POST":
        if try_join_code(request.form.get("code", ""), code):
            session[JOINED] = join_token(code)
            session.permanent = True
            return redirect(target)
        error = _("That is not the code. It is printed where the game server was started.")
    return render_template("join.html", next=target, error=error), 400 if error else 200


def init_app(app: Flask) -> None:
    app.request_class = Request
    app.register_blueprint(bp)
    app.extensions["sushicam.join_code_lock"] = JoinCodeLock(
        app.config.get("JOIN_CODE_TRIES_PER_DEVICE", JOIN_CODE_TRIES_PER_DEVICE),
        app.config.get("JOIN_CODE_TRIES_PER_SERVER", JOIN_CODE_TRIES_PER_SERVER),
    )

    @app.before_request
    def check_join_code():
        # a Host the app does not answer to: no URL can be built for it (url_for needs the
        # adapter Flask could not make), so it is refused here, before anything else runs
        if isinstance(request.routing_exception, SecurityError):
            raise request.routing_exception
        if not _needs_join_code():
            return None
        from web.errors import wants_json

        if wants_json() or request.method != "GET":
            raise Unauthorized(_("this game server asks for its join code: open it in a browser and type the code"))
        return redirect(url_for("security.join", next=request.full_path.rstrip("?")))

    @app.errorhandler(SecurityError)
    def untrusted_host(_exc: SecurityError):
        # no page: links cannot be built for a host the app does not answer to
        return Response(
            "that is not a name of this game server: open it by its address\n",
            400, mimetype="text/plain",
        )

    @app.errorhandler(TooManyRequests)
    def locked_out(exc: TooManyRequests):
        from web.errors import error_response

        response = app.make_response(error_response(exc.description or exc.name, 429, _("Wait a moment")))
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.after_request
    def add_security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response
