"""The join code on a shared network (issue 46, items 1-4, 15, 16): it cannot be guessed at
speed, the cookie does not show it, ``live --serve`` asks for it too, and the join page never
sends a browser to another site nor answers 500."""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
from urllib.parse import urljoin, urlsplit

import pytest

from web.app import create_app
from web.serve import server_config

CODE = "482913"
GAME = {"edition": "original", "players": ["Ann", "Ben"],
        "rounds": [{"tableaux": {"Ann": ["tempura", "tempura"], "Ben": ["sashimi"]}}]}


def lan_app(data_dir, **config):
    return create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                       "WTF_CSRF_ENABLED": False, "JOIN_CODE": CODE, **config})


def device(address: str) -> dict:
    return {"REMOTE_ADDR": address}


PHONE = device("192.168.1.77")
OTHER_PHONE = device("192.168.1.78")


def wrong_code(n: int) -> str:
    return f"{(int(CODE) + 1 + n) % 10**6:06d}"


def type_code(client, code: str, who: dict, next_: str = "/"):
    return client.post("/join", data={"code": code, "next": next_}, environ_base=who)


def script_call(client, code: str, who: dict, path: str = "/api/score"):
    return client.post(path, json=GAME, headers={"X-Join-Code": code}, environ_base=who)


# --- item 1: no brute force ---------------------------------------------------------------------


def test_after_ten_wrong_codes_the_form_refuses_even_the_right_one(data_dir):
    app = lan_app(data_dir)
    phone = app.test_client()
    for n in range(10):
        assert type_code(phone, wrong_code(n), PHONE).status_code == 400, n
    locked = type_code(phone, CODE, PHONE)
    assert locked.status_code == 429
    assert "Too many wrong join codes from this device" in locked.data.decode()
    assert 0 < int(locked.headers["Retry-After"]) <= 600
    assert phone.get("/", environ_base=PHONE).status_code == 302  # not let in
    # another phone at the table is not locked out, and the host computer needs no code
    other = app.test_client()
    assert type_code(other, CODE, OTHER_PHONE).status_code == 302
    assert other.get("/", environ_base=OTHER_PHONE).status_code == 200
    assert app.test_client().get("/").status_code == 200


def test_wrong_codes_in_the_header_count_on_every_path_and_with_the_form(data_dir):
    app = lan_app(data_dir)
    script = app.test_client()
    for n in range(5):  # a path with no page tells a right code from a wrong one too: 404 or 401
        assert script_call(script, wrong_code(n), PHONE, "/no/such/page").status_code == 401
    for n in range(5, 9):
        assert script_call(script, wrong_code(n), PHONE).status_code == 401
    assert type_code(script, wrong_code(9), PHONE).status_code == 400
    locked = script_call(script, CODE, PHONE)
    assert locked.status_code == 429
    assert "Too many wrong join codes" in locked.get_json()["error"]
    assert int(locked.headers["Retry-After"]) > 0
    assert script_call(app.test_client(), CODE, OTHER_PHONE).status_code == 200


def test_right_codes_in_the_header_are_never_counted(data_dir):
    app = lan_app(data_dir)
    script = app.test_client()
    for _ in range(30):
        assert script_call(script, CODE, PHONE).status_code == 200


def test_a_browser_that_joined_keeps_working_when_its_address_is_locked(data_dir):
    app = lan_app(data_dir)
    phone = app.test_client()
    assert type_code(phone, CODE, PHONE).status_code == 302
    guesser = app.test_client()  # a script on the same address
    for n in range(11):
        script_call(guesser, wrong_code(n), PHONE)
    assert script_call(guesser, CODE, PHONE).status_code == 429
    assert phone.get("/", environ_base=PHONE).status_code == 200


def test_ipv6_addresses_of_one_network_share_their_tries(data_dir):
    """One machine may take any number of addresses in its /64: they count as one device."""
    app = lan_app(data_dir)
    client = app.test_client()
    for n in range(10):
        assert type_code(client, wrong_code(n), device(f"fd00:1:2:3::{n + 1:x}")).status_code == 400
    assert type_code(client, CODE, device("fd00:1:2:3::abcd")).status_code == 429
    assert type_code(app.test_client(), CODE, device("fd00:1:2:4::1")).status_code == 302


def test_the_server_caps_wrong_codes_from_every_address_together(data_dir):
    app = lan_app(data_dir, JOIN_CODE_TRIES_PER_SERVER="20 per 10 minutes")
    client = app.test_client()
    for n in range(20):  # 20 addresses, 1 wrong code each: no device reaches its own limit
        assert type_code(client, wrong_code(n), device(f"192.168.1.{100 + n}")).status_code == 400
    refused = type_code(client, CODE, device("192.168.1.200"))
    assert refused.status_code == 429
    assert "tried on this game server" in refused.data.decode()


def test_the_lock_lifts_when_its_window_has_passed(data_dir):
    app = lan_app(data_dir, JOIN_CODE_TRIES_PER_DEVICE="3 per 2 seconds")
    phone = app.test_client()
    for n in range(3):
        assert type_code(phone, wrong_code(n), PHONE).status_code == 400
    locked = type_code(phone, CODE, PHONE)
    assert locked.status_code == 429
    wait = int(locked.headers["Retry-After"])
    assert 1 <= wait <= 2
    time.sleep(wait + 0.1)
    assert type_code(phone, CODE, PHONE).status_code == 302


# --- item 4: the cookie does not carry the code -------------------------------------------------


def session_of(app, client) -> dict:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return app.session_interface.get_signing_serializer(app).loads(cookie.value)


def test_the_session_cookie_does_not_reveal_the_code(data_dir):
    app = lan_app(data_dir)
    phone = app.test_client()
    assert type_code(phone, CODE, PHONE).status_code == 302
    stored = session_of(app, phone)
    assert stored  # the browser is remembered ...
    assert CODE not in json.dumps(stored)  # ... by something else than the code
    assert phone.get("/", environ_base=PHONE).status_code == 200


def test_a_cookie_holding_the_code_itself_is_not_let_in(data_dir):
    app = lan_app(data_dir)
    phone = app.test_client()
    forged = app.session_interface.get_signing_serializer(app).dumps({"joined": CODE})
    phone.set_cookie("session", forged)
    assert phone.get("/", environ_base=PHONE).status_code == 302


def test_a_new_join_code_asks_joined_browsers_again(data_dir):
    app = lan_app(data_dir)
    phone = app.test_client()
    assert type_code(phone, CODE, PHONE).status_code == 302
    app.config["JOIN_CODE"] = "111111"  # the next start of the server
    response = phone.get("/", environ_base=PHONE)
    assert response.status_code == 302 and "/join" in response.headers["Location"]


# --- items 3 and 16: where /join sends the browser ----------------------------------------------


def browser_destination(location: str, page: str = "http://localhost/join") -> str:
    """Where a browser goes on this Location, per the WHATWG URL parser's clean-up: leading and
    trailing spaces and controls stripped, tabs and newlines removed, backslashes read as
    slashes (for http URLs)."""
    cleaned = location.strip("".join(map(chr, range(0x21))))
    cleaned = re.sub(r"[\t\n\r]", "", cleaned).replace("\\", "/")
    return urlsplit(urljoin(page, cleaned)).netloc


HOSTILE_NEXT = [
    "//evil.example/", "/\t/evil.example", "/\n/evil.example", "/\r/evil.example",
    "/\\evil.example", "\\/evil.example", "/\t\\evil.example", " //evil.example",
    "\t//evil.example", "https://evil.example/", "/\x00/evil.example", "/\r/x", "/\n/x",
    "http:evil.example", "javascript:alert(1)",
]


@pytest.mark.parametrize("target", HOSTILE_NEXT)
def test_joining_never_sends_the_browser_to_another_site(data_dir, target):
    phone = lan_app(data_dir).test_client()
    response = type_code(phone, CODE, PHONE, target)
    assert response.status_code == 302
    assert browser_destination(response.headers["Location"]) == "localhost"


@pytest.mark.parametrize("query", ["/%09/evil.example", "/%0d/x", "/%0a/x", "/%0d%0aSet-Cookie:x=1",
                                   "/%5cevil.example", "%2F%2Fevil.example"])
def test_join_without_a_code_redirects_only_to_this_site(data_dir, query):
    """Without a join code (plain ``serve``), /join redirects at once: no 500, no other site."""
    client = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t"}).test_client()
    response = client.get(f"/join?next={query}")
    assert response.status_code == 302
    assert "Set-Cookie" not in response.headers
    assert browser_destination(response.headers["Location"]) == "localhost"


def test_a_path_on_this_site_is_kept(data_dir):
    phone = lan_app(data_dir).test_client()
    response = type_code(phone, CODE, PHONE, "/games/3/rounds/1/review?x=1#top")
    assert response.headers["Location"] == "/games/3/rounds/1/review?x=1#top"


def test_a_code_in_other_scripts_is_a_wrong_code_not_a_500(data_dir):
    phone = lan_app(data_dir).test_client()
    assert type_code(phone, "٤٨٢٩١٣", PHONE).status_code == 400  # Arabic-Indic digits
    assert script_call(phone, "482913\u00e9", PHONE).status_code == 401


# --- item 15: an untrusted Host without the code -----------------------------------------------


@pytest.mark.parametrize("send", [
    lambda c, h: c.get("/", headers=h, environ_base=PHONE),
    lambda c, h: c.get("/games/1", headers={**h, "Accept": "application/json"}, environ_base=PHONE),
    lambda c, h: c.post("/api/score", json=GAME, headers=h, environ_base=PHONE),
    lambda c, h: c.get("/join?next=/", headers=h, environ_base=PHONE),
    lambda c, h: c.post("/join", data={"code": CODE}, headers=h, environ_base=PHONE),
])
def test_a_stranger_naming_another_host_gets_400(data_dir, send):
    config = server_config(["0.0.0.0", "192.168.1.20"], https=False, exposed=True)
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "WTF_CSRF_ENABLED": False, **config})
    response = send(app.test_client(), {"Host": "rebind.attacker.example:5000"})
    assert response.status_code == 400
    assert b"not a name of this game server" in response.data
    # the same stranger by the server's address is asked for the code
    asked = app.test_client().get("/", headers={"Host": "192.168.1.20:5000"}, environ_base=PHONE)
    assert asked.status_code == 302 and "/join" in asked.headers["Location"]


# --- item 2: live --serve has the same protections ---------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def live_apps(monkeypatch, tmp_path):
    """The apps ``serve_live`` builds, on a temporary data folder instead of instance/."""
    import web

    made = []
    real = web.create_app

    def create_app_in_tmp(test_config=None):
        app = real({"DATA_DIR": str(tmp_path / "data"), "RECOGNIZER_FACTORY": lambda: None,
                    **(test_config or {})})
        made.append(app)
        return app

    monkeypatch.setattr(web, "create_app", create_app_in_tmp)
    return made


def get(port: int, path: str, host: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        return connection.getresponse().status
    finally:
        connection.close()


def test_live_serve_refuses_another_site_s_host_name(live_apps):
    from vision.live.pipeline import LiveGame
    from web.live_cli import serve_live

    port = free_port()
    serve_live(LiveGame(["Ann", "Ben"], "original"), "127.0.0.1", port)
    for _ in range(50):  # the server thread is starting
        try:
            status = get(port, "/", f"127.0.0.1:{port}")
            break
        except OSError:
            time.sleep(0.1)
    assert status == 200
    assert get(port, "/", "evil.example") == 400  # a DNS-rebinding page's name
    assert get(port, "/live/", f"evil.example:{port}") == 400


def test_live_serve_on_the_network_asks_for_the_join_code(live_apps, capsys):
    from vision.live.pipeline import LiveGame
    from web.live_cli import serve_live

    serve_live(LiveGame(["Ann", "Ben"], "original"), "0.0.0.0", free_port())
    printed = capsys.readouterr().err
    (app,) = live_apps
    code = app.config["JOIN_CODE"]
    assert code and re.search(rf"join code for other devices: {code}$", printed, re.M)
    assert "http://0.0.0.0" not in printed  # a name the Host check refuses
    phone = app.test_client()
    asked = phone.get("/", environ_base=PHONE)
    assert asked.status_code == 302 and "/join" in asked.headers["Location"]
    assert phone.get("/", headers={"Host": "evil.example"}, environ_base=PHONE).status_code == 400
    form = phone.get("/join", environ_base=PHONE).data.decode()  # CSRF is on, as served
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    joined = phone.post("/join", data={"code": code, "next": "/", "csrf_token": token},
                        environ_base=PHONE)
    assert joined.status_code == 302
    assert phone.get("/", environ_base=PHONE).status_code == 200
