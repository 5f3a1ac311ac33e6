"""What keeps the app safe on a shared network: response headers, the Host check, the join code.

* Every response carries a Content-Security-Policy (scripts only from our static files; the pages'
  ``style`` attributes and the review page's JSON data block need nothing more), refuses to be
  framed, and turns off MIME sniffing and cross-site referrers.
* ``TRUSTED_HOSTS`` (Flask's own check, set by ``sushicam serve``) answers 400 to a request whose
  Host header names another site: a DNS-rebinding page cannot talk to the app through its name.
  An IPv6 address (``[::1]:5000``) is matched here (``Request``): werkzeug cuts every trusted
  name at its first colon, so it never matches one.
* ``JOIN_CODE`` (set by ``sushicam serve --lan``): a browser on another machine must type the code
  printed at startup once (it is then kept in the signed session cookie) before it can read or
  change games; a script sends it as the ``X-Join-Code`` header. The computer running the server
  (loopback) never needs it.
* Cross-origin POSTs to the CSRF-exempt API are refused: a page elsewhere could otherwise make a
  visitor's browser send it ``text/plain`` bodies (a simple request needs no preflight).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
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
from werkzeug.exceptions import Forbidden, SecurityError, Unauthorized

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
JOINED = "joined"  # session key: the code this browser entered


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


def _needs_join_code() -> bool:
    code = current_app.config.get("JOIN_CODE")
    if not code or _is_loopback(request.remote_addr):
        return False
    if request.endpoint in ("security.join", "static"):
        return False
    sent = request.headers.get("X-Join-Code") or str(session.get(JOINED, ""))  # a script, or a browser
    return not hmac.compare_digest(sent, code)


@bp.route("/join", methods=("GET", "POST"))
def join():
    """The form asking for the join code printed where the server was started."""
    code = current_app.config.get("JOIN_CODE")
    target = request.values.get("next", "")
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("history.index")  # never send the browser to another site
    if not code:
        return redirect(target)
    error = None
    if request.method == "POST":
        entered = "".join(request.form.get("code", "").split())
        if hmac.compare_digest(entered, code):
            session[JOINED] = code
            session.permanent = True
            return redirect(target)
        error = "That is not the code. It is printed where sushicam serve was started."
    return render_template("join.html", next=target, error=error), 400 if error else 200


def init_app(app: Flask) -> None:
    app.request_class = Request
    app.register_blueprint(bp)

    @app.before_request
    def check_join_code():
        if not _needs_join_code():
            return None
        from web.errors import wants_json

        if wants_json() or request.method != "GET":
            raise Unauthorized("this game server asks for its join code: open it in a browser and type the code")
        return redirect(url_for("security.join", next=request.full_path.rstrip("?")))

    @app.errorhandler(SecurityError)
    def untrusted_host(_exc: SecurityError):
        # no page: links cannot be built for a host the app does not answer to
        return Response(
            "that is not a name of this game server: open it by its address\n",
            400, mimetype="text/plain",
        )

    @app.after_request
    def add_security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response
