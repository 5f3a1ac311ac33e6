"""What a first game and an attack on the server broke (issue 14, items 5-10): never a 500,
never a hang, and nothing readable by a stranger on the network."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import stat
import time
from pathlib import Path

import pytest

from web import db as web_db
from web.app import create_app

GAME = {
    "edition": "original",
    "players": ["Ann", "Ben"],
    "rounds": [{"tableaux": {"Ann": ["tempura", "tempura"], "Ben": ["sashimi"]}}],
}


def stored_players(data_dir: Path, game_id: int, names_json: str) -> None:
    """Write a game's players as raw JSON, as a record stored before names were checked."""
    with sqlite3.connect(data_dir / "sushicam.sqlite") as connection:
        connection.execute("UPDATE game SET players = ? WHERE id = ?", (names_json, game_id))


# --- item 5: names no page can encode ---------------------------------------------------------


def test_a_stored_lone_surrogate_in_a_name_does_not_break_the_pages(client, make_game, data_dir):
    game_id = make_game(players=("Ann", "Ben"))
    stored_players(data_dir, game_id, '["Ann", "B\\ud800n"]')
    for url in ("/", f"/games/{game_id}", f"/games/{game_id}/rounds/1/capture",
                f"/games/{game_id}/rounds/1/review", f"/games/{game_id}/record.json"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert b"B?n" in response.data or b"B\\ud800n" in response.data, url


@pytest.mark.parametrize("name", ["B\ud800n", "Ben\x00", "Ben\nAnn", "\x1b[31mBen"])
def test_names_no_page_can_show_are_refused_on_every_way_in(client, name):
    record = {**GAME, "players": ["Ann", name], "rounds": []}
    body = json.dumps(record)  # \ud800 travels as an escape, as an imported file holds it
    score = client.post("/api/score", data=body, content_type="application/json")
    assert score.status_code == 400 and "players[1]" in score.get_json()["error"]
    imported = client.post("/games/import", data={"record_text": body})
    assert imported.status_code == 400 and b"control characters" in imported.data
    if "\ud800" not in name:  # a browser's form cannot send a lone surrogate
        form = client.post("/games/new", data={"edition": "original", "player": ["Ann", name]})
        assert form.status_code == 400 and b"control characters" in form.data
    assert client.get("/").status_code == 200


def test_names_in_other_scripts_and_emoji_are_welcome(client):
    response = client.post("/games/new", data={"edition": "original", "player": ["Zoë", "健太 🍣"]})
    assert response.status_code == 302
    page = client.get(response.headers["Location"])
    assert "健太 🍣" in page.data.decode()


# --- item 6: a damaged secret key -------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00garbage", b"short"])
def test_an_empty_or_damaged_secret_key_is_replaced(tmp_path, content):
    data = tmp_path / "data"
    data.mkdir()
    (data / "secret_key").write_bytes(content)
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "RECOGNIZER_FACTORY": lambda: None})
    page = app.test_client().get("/games/new")
    assert page.status_code == 200 and b'name="csrf-token"' in page.data
    key = (data / "secret_key").read_text()
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert stat.S_IMODE((data / "secret_key").stat().st_mode) == 0o600
    assert list(data.glob("*.part")) == []
    # kept: the next start signs sessions with the same key
    again = create_app({"TESTING": True, "DATA_DIR": str(data), "RECOGNIZER_FACTORY": lambda: None})
    assert again.config["SECRET_KEY"] == key


# --- item 7: sizes checked first, no cross-site bodies ----------------------------------------


def test_a_record_of_40000_players_is_refused_at_once(client):
    body = json.dumps({"edition": "party", "menu": "my-first-meal",
                       "players": [f"player{i}" for i in range(40_000)], "rounds": []})
    for send in (
        lambda: client.post("/api/score", data=body, content_type="application/json"),
        lambda: client.post("/games/import", data={"record_text": body}),
    ):
        start = time.perf_counter()
        response = send()
        took = time.perf_counter() - start
        assert response.status_code == 400
        assert "40000 players" in response.data.decode()
        assert took < 2.0, f"{took:.1f} s (it was 6 s, quadratic in the names)"


def test_a_tableau_of_150000_cards_is_refused_at_once(client):
    """Under the 2 MB body cap; each card was read before the deck counts refused them (3 s)."""
    cards = ["tofu"] * 150_000
    body = json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": cards, "Ben": []}}]})
    start = time.perf_counter()
    response = client.post("/api/score", data=body, content_type="application/json")
    took = time.perf_counter() - start
    assert response.status_code == 400
    assert "150000 cards" in response.get_json()["error"]
    assert took < 1.0, f"{took:.1f} s"


@pytest.mark.parametrize("origin, headers", [
    ("http://evil.example", {"Content-Type": "text/plain"}),
    ("null", {"Content-Type": "text/plain"}),
    (None, {"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}),
])
def test_the_api_refuses_bodies_sent_by_other_sites(client, origin, headers):
    if origin:
        headers = {**headers, "Origin": origin}
    response = client.post("/api/score", data=json.dumps(GAME), headers=headers)
    assert response.status_code == 403
    assert "other web sites" in response.get_json()["error"]


def test_the_app_s_own_pages_and_scripts_may_call_the_api(client):
    same_site = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    response = client.post("/api/score", json=GAME, headers=same_site)
    assert response.status_code == 200
    assert response.get_json()["players"]["Ann"]["total"] == 5  # two tempura: 5 points
    script = client.post("/api/score", data=json.dumps(GAME), content_type="text/plain")
    assert script.status_code == 200


# --- item 8: no 500s ---------------------------------------------------------------------------


@pytest.mark.parametrize("seats", ["²", "٣", "1" * 5000, "-1", "3 "])
def test_odd_seat_numbers_are_a_400(client, images, seats):
    response = client.post("/api/detect", data={
        "image": (io.BytesIO(images.png(64, 64)), "a.png"), "seats": seats})
    if seats == "3 ":
        assert response.status_code == 200
    else:
        assert response.status_code == 400
        assert "'seats' must be a number of players" in response.get_json()["error"]


@pytest.mark.parametrize("body, message", [
    ('{"edition": "original", "players": ["Ann", "Ben"], "rounds": [], "n": ' + "7" * 4400 + "}",
     "thousands of digits"),
    (json.dumps({**GAME, "edition": ["original", "party"]}), "unknown edition"),
    ('{"edition": "original", "players": ["Ann", "Ben"], "rounds": [], "n": NaN}', "NaN"),
    ('{"edition": "original", "players": ["Ann", "Ben"], "rounds": [], "n": -Infinity}', "Infinity"),
])
def test_records_python_reads_oddly_are_a_400(client, body, message):
    response = client.post("/api/score", data=body, content_type="application/json")
    assert response.status_code == 400
    assert message in response.get_json()["error"]


@pytest.mark.parametrize("path", [
    "/games/9223372036854775808", "/games/99999999999999999999999/rounds/1/review",
    "/photos/18446744073709551616", "/games/9223372036854775807",
])
def test_ids_sqlite_cannot_hold_are_not_found(client, path):
    assert client.get(path).status_code == 404
    assert client.post(path.split("/rounds")[0] + "/delete").status_code == 404


def confirm_body(confidence) -> str:
    card = {"id": "c1", "label": "tempura", "seat": 0, "photo": None, "box": None,
            "confidence": confidence, "on": None}
    return json.dumps({"cards": [card], "scored_during_round": []}, allow_nan=True)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_confidence_is_refused_and_the_review_page_still_opens(client, make_game, constant):
    game_id = make_game()
    body = confirm_body(0.5).replace("0.5", constant)
    response = client.post(f"/games/{game_id}/rounds/1/confirm", data=body,
                           content_type="application/json")
    assert response.status_code == 400 and constant.lstrip("-") in response.get_json()["error"]
    assert client.get(f"/games/{game_id}/rounds/1/review").status_code == 200


def test_a_review_stored_with_nan_still_opens_as_strict_json(client, make_game, data_dir):
    game_id = make_game()
    with sqlite3.connect(data_dir / "sushicam.sqlite") as connection:
        connection.execute("INSERT INTO round (game_id, number, review) VALUES (?, 1, ?)",
                           (game_id, confirm_body(float("nan"))))
    page = client.get(f"/games/{game_id}/rounds/1/review")
    assert page.status_code == 200
    state = re.search(rb'id="review-state">(.*?)</script>', page.data, re.S).group(1)

    def strict(name):
        raise AssertionError(f"{name} in the page's JSON: JSON.parse refuses it")

    cards = json.loads(state, parse_constant=strict)["review"]["cards"]
    assert cards[0]["label"] == "tempura" and cards[0]["confidence"] is None


def upload_table(client, game_id, images):
    return client.post(f"/games/{game_id}/rounds/1/capture", data={
        "mode": "table", "table": (io.BytesIO(images.png(64, 48)), "t.png")})


def test_photos_being_a_file_says_so(client, make_game, images, data_dir):
    game_id = make_game()
    (data_dir / "photos").write_text("in the way")
    response = upload_table(client, game_id, images)
    assert response.status_code == 503
    assert "photos is in the way" in response.data.decode()


def test_a_read_only_database_says_so(client, make_game, images, monkeypatch, data_dir):
    game_id = make_game()
    path = data_dir / "sushicam.sqlite"

    def read_only(_path):
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        connection.row_factory = sqlite3.Row
        return connection

    monkeypatch.setattr(web_db, "connect", read_only)
    response = client.post("/games/new", data={"edition": "original", "player": ["Ann", "Ben"]})
    assert response.status_code == 503
    assert "read-only" in response.data.decode()
    assert client.get(f"/games/{game_id}").status_code == 200  # reading still works


def test_a_full_disk_is_a_507(client, make_game, images, monkeypatch, data_dir):
    game_id = make_game()
    connect = web_db.connect

    def full(path):
        connection = connect(path)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
        return connection

    monkeypatch.setattr(web_db, "connect", full)
    # three rounds of cards: more than the free room in the database's last page
    rounds = [{"tableaux": {"Ann": ["tempura"] * 10, "Ben": ["sashimi"] * 9}}] * 3
    response = client.post("/games/import", data={"record_text": json.dumps({**GAME, "rounds": rounds})})
    assert response.status_code == 507
    assert "is full" in response.data.decode()
    assert client.get(f"/games/{game_id}").status_code == 200


def test_no_space_for_a_photo_is_a_507(client, make_game, images, monkeypatch):
    import errno

    import web.rounds

    def no_space(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    game_id = make_game()
    monkeypatch.setattr(web.rounds, "save_photo", no_space)
    response = upload_table(client, game_id, images)
    assert response.status_code == 507 and "is full" in response.data.decode()


# --- item 9: memory and leftovers ---------------------------------------------------------------


def test_a_large_png_is_shrunk_while_decoding(images):
    from vision.photo import WORKING_PIXELS
    from web.uploads import read_image

    image = read_image(images.png(6000, 4000), 50_000_000)
    assert image.width * image.height <= WORKING_PIXELS
    assert image.width / image.height == pytest.approx(1.5, rel=0.01)
    b, g, r = image.pixels[100, 100].astype(int)  # the colour survives: (200, 120, 80) as RGB
    assert (r, g, b) == pytest.approx((200, 120, 80), abs=2)


def test_a_large_jpeg_is_decoded_at_a_reduced_scale(images):
    import numpy as np

    from vision.photo import WORKING_PIXELS
    from web.uploads import read_image

    photo = np.zeros((4000, 6000, 3), np.uint8)
    photo[:, :3000] = 255  # left half white
    image = read_image(images.jpeg(photo), 50_000_000)
    assert image.width * image.height <= WORKING_PIXELS
    assert image.pixels[:, : image.width // 2 - 8].mean() > 240
    assert image.pixels[:, image.width // 2 + 8:].mean() < 15


def test_orphan_photos_and_part_files_are_removed_at_startup(client, make_game, images, data_dir):
    game_id = make_game()
    assert upload_table(client, game_id, images).status_code == 302
    photos = data_dir / "photos"
    kept = {p.name for p in photos.iterdir()}
    assert len(kept) == 1
    orphan, part, fresh, other = (photos / n for n in (
        "0123456789abcdef01234567.jpg", ".89abcdef0123456789abcdef.jpg.part",
        "fedcba9876543210fedcba98.jpg", "notes.txt"))
    for path in (orphan, part, fresh, other):
        path.write_bytes(b"x")
    old = time.time() - 3600
    for path in (orphan, part, other, *(photos / n for n in kept)):
        import os

        os.utime(path, (old, old))
    create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t"})
    left = {p.name for p in photos.iterdir()}
    # the crash's leftovers go; the round's photo, one being saved now and others' files stay
    assert left == kept | {fresh.name, other.name}
    assert client.get(f"/games/{game_id}/rounds/1/review").status_code == 200


# --- item 10: headers, cookies, hosts, join code, file modes -------------------------------------


def test_every_answer_carries_the_security_headers(client, make_game):
    from web.security import CONTENT_SECURITY_POLICY

    game_id = make_game()
    for response in (client.get("/"), client.get(f"/games/{game_id}/rounds/1/review"),
                     client.post("/api/score", json=GAME), client.get("/nope")):
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "same-origin"
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY


def test_the_pages_need_no_inline_script():
    """The CSP allows scripts from our files only: no template may hold an inline one."""
    templates = Path(__file__).resolve().parents[2] / "web" / "templates"
    for template in templates.glob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag or 'type="application/json"' in tag, (template.name, tag)
        assert not re.search(r"\son[a-z]+=", text), template.name  # onclick= and the like


def test_the_session_cookie_is_same_site_and_http_only(csrf_client):
    csrf_client.get("/games/new")
    cookie = csrf_client.get_cookie("session")
    assert cookie is not None
    assert cookie.same_site == "Lax" and cookie.http_only and not cookie.secure


def test_under_https_the_cookie_is_secure(data_dir):
    from web.serve import server_config

    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      **server_config(["127.0.0.1"], https=True, exposed=False)})
    client = app.test_client()
    client.get("/games/new", base_url="https://localhost")
    assert client.get_cookie("session").secure


def test_a_host_name_of_another_site_is_refused(data_dir):
    from web.serve import server_config

    config = server_config(["0.0.0.0", "192.168.1.20"], https=False, exposed=False)
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t", **config})
    client = app.test_client()
    for host in ("localhost:5000", "127.0.0.1:5000", "192.168.1.20:5000"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host
    refused = client.get("/", headers={"Host": "rebind.attacker.example:5000"})
    assert refused.status_code == 400


@pytest.fixture
def lan_app(data_dir):
    return create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                       "WTF_CSRF_ENABLED": False, "JOIN_CODE": "482913"})


STRANGER = {"REMOTE_ADDR": "192.168.1.77"}


def test_a_stranger_on_the_network_needs_the_join_code(lan_app):
    host = lan_app.test_client()
    made = host.post("/games/new", data={"edition": "original", "player": ["Ann", "Ben"]})
    assert made.status_code == 302  # the computer running the server needs no code
    game = made.headers["Location"]

    phone = lan_app.test_client()
    for path in ("/", game, game + "/export"):
        response = phone.get(path, environ_base=STRANGER)
        assert response.status_code == 302 and "/join" in response.headers["Location"], path
    api = phone.post("/api/score", json=GAME, environ_base=STRANGER)
    assert api.status_code == 401 and "join code" in api.get_json()["error"]
    delete = phone.post(game + "/delete", environ_base=STRANGER)
    assert delete.status_code == 401
    assert host.get(game).status_code == 200  # still there

    wrong = phone.post("/join", data={"code": "000000", "next": game}, environ_base=STRANGER)
    assert wrong.status_code == 400 and b"not the code" in wrong.data
    right = phone.post("/join", data={"code": "482 913", "next": game}, environ_base=STRANGER)
    assert right.status_code == 302 and right.headers["Location"].endswith(game)
    assert phone.get(game, environ_base=STRANGER).status_code == 200  # the cookie remembers
    script = lan_app.test_client().post("/api/score", json=GAME, environ_base=STRANGER,
                                        headers={"X-Join-Code": "482913"})
    assert script.status_code == 200


def test_join_never_redirects_to_another_site(lan_app):
    phone = lan_app.test_client()
    response = phone.post("/join", data={"code": "482913", "next": "//evil.example/"},
                          environ_base=STRANGER)
    assert response.status_code == 302 and response.headers["Location"] == "/"


def test_data_files_are_readable_by_their_owner_only(client, make_game, images, data_dir):
    game_id = make_game()
    assert upload_table(client, game_id, images).status_code == 302
    files = [data_dir / "sushicam.sqlite", *(data_dir / "photos").iterdir()]
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((data_dir / "photos").stat().st_mode) == 0o700


def test_waitress_limits_connections_and_drops_idle_ones(monkeypatch, tmp_path):
    import waitress.server

    from web.cli import main

    seen = {}

    class Stop(Exception):
        pass

    def create_server(app, **options):
        seen.update(options)
        raise Stop

    monkeypatch.setattr(waitress.server, "create_server", create_server)
    with pytest.raises(Stop):
        main(["serve", "--data", str(tmp_path / "d"), "--port", "5999"])
    # bounded, but not so low that a few dozen unfinished requests fill it (one address is
    # capped well below it: tests/web/test_web_server_load.py)
    assert 0 < seen["connection_limit"] < 10_000
    assert 0 < seen["channel_timeout"] <= 60


def test_a_photo_the_disk_could_not_hold_leaves_no_part_file(tmp_path, monkeypatch, images):
    import errno

    from PIL import Image

    from web.uploads import read_image, save_photo

    def disk_full(self, fp, *args, **kwargs):
        fp.write(b"half a jpeg")
        raise OSError(errno.ENOSPC, "No space left on device")

    photo = read_image(images.png(64, 48), 1_000_000)
    monkeypatch.setattr(Image.Image, "save", disk_full)
    with pytest.raises(OSError, match="No space"):
        save_photo(photo, tmp_path)
    assert list((tmp_path / "photos").iterdir()) == []
