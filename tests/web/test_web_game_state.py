"""What the home and game pages say about a game: its real state, where it came from, its menu."""

from __future__ import annotations

import io
import json
import re
import sqlite3

from scorer.menus import MENUS
from web.app import create_app

RECORD = {"edition": "original", "players": ["Ann", "Ben"],
          "rounds": [{"tableaux": {"Ann": ["tempura", "tempura"], "Ben": ["sashimi"]}}]}


def cards_of(html: str, game_id: int) -> str:
    """The home page's card of one game."""
    return re.search(rf'href="/games/{game_id}">(.*?)</a>', html, re.S).group(1)


def test_a_game_whose_round_was_read_is_not_shown_as_not_started(client, make_game, recognizer, images):
    game_id = make_game("original", ["Ann", "Ben"])
    assert "Not started" in cards_of(client.get("/").data.decode(), game_id)
    recognizer.cards = [("tempura", [10, 10, 60, 90], 0.9)]
    client.post(f"/games/{game_id}/rounds/1/capture",
                data={"mode": "table", "table": (io.BytesIO(images.png(300, 200)), "t.png")})
    card = cards_of(client.get("/").data.decode(), game_id)
    assert "Not started" not in card and "Round 1 read, to confirm" in card


def test_an_imported_game_is_told_apart_from_its_original(client):
    original = client.post("/games/import", data={"record_text": json.dumps(RECORD)})
    first = int(original.headers["Location"].rsplit("/", 1)[1])
    exported = client.get(f"/games/{first}/record.json").data
    again = client.post("/games/import", data={"record": (io.BytesIO(exported), "sushicam-game-1.json")})
    second = int(again.headers["Location"].rsplit("/", 1)[1])
    home = client.get("/").data.decode()
    assert "Imported" in cards_of(home, second)
    page = client.get(f"/games/{second}").data.decode()
    assert "Imported from the file sushicam-game-1.json" in page
    assert "Imported from a pasted record" in client.get(f"/games/{first}").data.decode()


def test_a_game_played_here_is_not_marked_imported(client, make_game):
    game_id = make_game("original", ["Ann", "Ben"])
    assert "Imported" not in cards_of(client.get("/").data.decode(), game_id)
    assert "Imported from" not in client.get(f"/games/{game_id}").data.decode()


def test_the_game_page_lists_the_menus_dishes(client, make_game):
    game_id = make_game("party", ["Ann", "Ben", "Cid"], menu="master-menu")
    html = client.get(f"/games/{game_id}").data.decode()
    dishes = re.findall(r'<li class="chip"[^>]*>([^<]+)</li>', re.search(r'class="menu-dishes".*?</ul>', html, re.S).group(0))
    # the rulebook's Master Menu: nigiri, temaki, onigiri, tofu, sashimi, spoon, take-out box, fruit
    assert len(dishes) == len(MENUS["master-menu"].kinds) == 8
    assert {"Temaki", "Tofu", "Sashimi", "Spoon", "Take-out Box"} <= set(dishes)


def test_a_data_folder_from_before_gets_the_imported_column(tmp_path):
    """An existing database without the new column still opens, and its games are not imported."""
    data = tmp_path / "data"
    data.mkdir()
    db = sqlite3.connect(data / "sushicam.sqlite")
    db.executescript("""
        CREATE TABLE game (id INTEGER PRIMARY KEY AUTOINCREMENT,
            created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            edition TEXT NOT NULL, players TEXT NOT NULL, menu TEXT, variants TEXT, seat_areas TEXT);
        INSERT INTO game (edition, players) VALUES ('original', '["Ann", "Ben"]');
    """)
    db.close()
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    assert client.get("/games/1").status_code == 200
    assert "Imported" not in client.get("/").data.decode()
