"""No English on a page asked for in French, Icelandic, Polish or Spanish.

Every page a player reaches (the games list, the new-game form with its warning about the
anniversary cards, capture, review, a scored game with its rounds, import and export faults,
the join page, the live setup page, the teach page, and the error pages 400, 404, 409, 413, 415,
429 and 507) is rendered in each language, and the text a player sees is taken from it: the
text of the elements and the attributes read out or shown (``title``, ``placeholder``,
``aria-label``, ``alt``), not the scripts' JSON data. It fails when it holds

- an English message of the ``messages`` catalog: a whole element's text equal to a message,
  or a stretch of three words or more of one, where the language's catalog says otherwise;
- an English word: one of the words of the English messages that no text of the language uses
  (its two catalogs, its card names), the brand names and the players' names set apart.

Oracles: the English messages (the ``messages.pot`` template, extracted from the source) and each
language's own catalogs; ``<html lang>`` must name the language.
"""

from __future__ import annotations

import errno
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from scorer.names import NAMES
from web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("fr", "is", "pl", "es")
PLAYERS = ("Ann", "Ben", "Cid")
#: names that are no language's words: the game's, the app's, and the players'
BRANDS = {"Sushi", "Go", "Party", "sushicam", *PLAYERS}
HIDDEN = ("script", "style", "code")
SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt"}
PLACEHOLDER = re.compile(r"%\(\w+\)\w|\{\w+\}|<[^>]+>")
WORD = re.compile(r"[^\W\d_]+")
#: messages that are examples of players' names, not words
EXAMPLES = {"Ann, Ben, Cid"}
RECORD_EXAMPLE = re.compile(r'^\{"edition": .*\}$')

GAME = {
    "edition": "original", "players": list(PLAYERS),
    "rounds": [
        {"tableaux": {"Ann": ["maki-3", "tempura", "tempura", ["wasabi", "squid-nigiri"]],
                      "Ben": ["maki-2", "salmon-nigiri", "pudding", "chopsticks"],
                      "Cid": ["dumpling", "dumpling", "sashimi", "sashimi", "sashimi"]}},
        {"tableaux": {"Ann": ["pudding", "egg-nigiri"], "Ben": ["maki-1"], "Cid": ["pudding"]}},
        {"tableaux": {"Ann": ["sashimi"], "Ben": ["pudding"], "Cid": ["tempura"]}},
    ],
}


def _catalog(path: Path, lang: str | None = None):
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


TEMPLATE = [m for m in _catalog(ROOT / "web" / "translations" / "messages.pot") if m.id]


def _forms(value) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else (value,)


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}


ENGLISH_WORDS = set().union(*(_words(f) for m in TEMPLATE for f in _forms(m.id)))


class VisibleText(HTMLParser):
    """The text a player sees or hears: element text outside <script>/<style>, and the shown
    attributes; each piece separately (``pieces``), and the ``<html lang>``. ``<code>`` holds
    names that are no words (a card's slug on the teach page, a command) and is left out too."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.lang: str | None = None
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        if tag in HIDDEN:
            self._hidden += 1
        for name, value in attrs:
            if name in SHOWN_ATTRIBUTES and value:
                self.pieces.append(value)

    def handle_endtag(self, tag):
        if tag in HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden and data.strip():
            self.pieces.append(data)


def visible(html: str) -> VisibleText:
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return parser


def _fragments(message: str) -> list[str]:
    """The stretches of three words or more of a message, between its placeholders and tags
    (and without its <code>: commands, the same in every language)."""
    out = []
    for part in PLACEHOLDER.split(re.sub(r"<code>.*?</code>", " ", message)):
        part = " ".join(part.split()).strip(" .,:;()…?!“”")
        if len(WORD.findall(part)) >= 3:
            out.append(part)
    return out


class Language:
    """What one language's texts are made of, to tell its words from English left in a page."""

    def __init__(self, lang: str):
        self.lang = lang
        pages = _catalog(ROOT / "web" / "translations" / lang / "LC_MESSAGES" / "messages.po", lang)
        scorer = _catalog(ROOT / "scorer" / "locale" / lang / "LC_MESSAGES" / "scorer.po", lang)
        texts = [s for c in (pages, scorer) for m in c if m.id for s in _forms(m.string)]
        texts += [n.text for n in NAMES[lang].values()]
        self.own_words = set().union(*(_words(t) for t in texts)) | {w.lower() for w in BRANDS}
        # the messages this language says otherwise than English (Nigiri, Sushi Go! are the same)
        self.messages = [m for m in TEMPLATE if m.id not in EXAMPLES
                         and any(f not in _forms(m.id) for f in _forms(pages.get(m.id, m.context).string))]

    def leaks(self, html: str) -> list[str]:
        page = visible(html)
        found = []
        if page.lang != self.lang:
            found.append(f"<html lang={page.lang!r}>")
        # a game record's example (the import box's placeholder) keeps the format's English keys
        # and the language menu names the page's language by its code (IS, PL)
        pieces = [" ".join(p.split()) for p in page.pieces
                  if not RECORD_EXAMPLE.match(p.strip()) and p.strip() != self.lang.upper()]
        text = " ".join(pieces)
        for message in self.messages:
            for form in _forms(message.id):
                whole = " ".join(PLACEHOLDER.sub(" ", form).split())
                if WORD.search(whole) and whole in pieces:
                    found.append(f"message {form!r}")
                found += [f"message {form!r}: {f!r}" for f in _fragments(form)
                          if re.search(rf"(?<!\w){re.escape(f)}(?!\w)", text)]
        leaked = (_words(text) & ENGLISH_WORDS) - self.own_words
        found += [f"English word {w!r}" for w in sorted(leaked)]
        return sorted(set(found))


LANGUAGE = {lang: Language(lang) for lang in LANGUAGES}


def test_the_scan_finds_english(client):
    """The oracle itself: an English page, and English words in a translated one, are caught."""
    english = client.get("/games/new").get_data(as_text=True)
    leaks = LANGUAGE["pl"].leaks(english)
    assert "<html lang='en'>" in leaks
    assert "message 'New game'" in leaks and "English word 'players'" in leaks
    polish = client.get("/", headers={"Accept-Language": "pl"}).get_data(as_text=True)
    assert LANGUAGE["pl"].leaks(polish) == []
    assert LANGUAGE["pl"].leaks(polish.replace("</main>", "<p>no game 12</p></main>")) == [
        "English word 'game'", "English word 'no'"]


# --- rendering every page ----------------------------------------------------------------------


def _photo() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (640, 480), (200, 120, 80)).save(buffer, format="PNG")
    return buffer.getvalue()


def _new_game(client, **form) -> int:
    answer = client.post("/games/new", data={"edition": "original", "player": list(PLAYERS), **form})
    assert answer.status_code == 302, answer.data
    return int(answer.headers["Location"].rstrip("/").rsplit("/", 1)[1])


def _pages(data_dir: Path, lang: str, recognizer, monkeypatch, teach_states) -> dict[str, tuple[int, str]]:
    """Every page, as (status, html), in ``lang``."""
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "WTF_CSRF_ENABLED": False, "RECOGNIZER_FACTORY": lambda: recognizer,
                      "MAX_CONTENT_LENGTH": 3_000_000, "TEACH_DETECTOR": False})
    client = app.test_client()
    client.set_cookie("lang", lang)
    pages: dict[str, tuple[int, str]] = {}

    def keep(name, answer):
        # the data folder's path is named by the test, in English: a folder, not words
        pages[name] = (answer.status_code, answer.get_data(as_text=True).replace(str(data_dir), "/srv/x"))

    imported = client.post("/games/import", data={"record_text": json.dumps(GAME)})
    assert imported.status_code == 302, imported.data
    finished = int(imported.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    fresh = _new_game(client)
    read = _new_game(client, edition="anniversary")
    recognizer.cards = [("tempura", [20, 20, 120, 180], 0.97), ("sashimi", [200, 20, 300, 180], 0.42),
                        ("maki-3", [400, 300, 500, 460], 0.9)]
    captured = client.post(f"/games/{read}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(_photo()), "t.png")})
    assert captured.status_code == 302, captured.data

    keep("games list", client.get("/"))
    keep("new game", client.get("/games/new"))
    keep("new game, one player", client.post("/games/new", data={"edition": "original", "player": ["Ann"]}))
    keep("scored game", client.get(f"/games/{finished}"))
    keep("game not started", client.get(f"/games/{fresh}"))
    keep("game with a round read", client.get(f"/games/{read}"))
    keep("capture", client.get(f"/games/{fresh}/rounds/1/capture"))
    keep("capture, no photo", client.post(f"/games/{fresh}/rounds/1/capture", data={"mode": "table"}))
    keep("review", client.get(f"/games/{read}/rounds/1/review"))
    keep("import, not JSON", client.post("/games/import", data={"record_text": "{not json"}))
    keep("import, nothing", client.post("/games/import", data={}))
    keep("import, bad record", client.post("/games/import", data={"record_text": json.dumps(
        {**GAME, "rounds": [{"tableaux": {"Ann": ["pudding"] * 30, "Ben": [], "Cid": []}}]})}))
    keep("export, no game", client.get("/games/9999/record.json"))
    keep("live setup", client.get("/live/"))
    keep("teach", client.get("/teach"))
    _teach_pages(client, keep, teach_states)
    keep("400", client.post("/live/", data={"players": "Ann"}))
    keep("404", client.get("/no/such/page"))
    keep("404, no game", client.get("/games/9999"))
    keep("409, round out of order", client.get(f"/games/{fresh}/rounds/3/capture"))
    keep("413", client.post(f"/games/{fresh}/rounds/1/capture", data={
        "mode": "table", "table": (io.BytesIO(b"\0" * 3_100_000), "big.jpg")}))
    keep("415", client.post(f"/games/{fresh}/rounds/1/capture", data={
        "mode": "table", "table": (io.BytesIO(b"%PDF-1.4 pretending"), "photo.jpg")}))

    import web.rounds

    def no_space(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(web.rounds, "save_photo", no_space)
        keep("507", client.post(f"/games/{fresh}/rounds/1/capture",
                                data={"mode": "table", "table": (io.BytesIO(_photo()), "t.png")}))

    lan = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "WTF_CSRF_ENABLED": False, "JOIN_CODE": "482913"})
    phone = lan.test_client()
    phone.set_cookie("lang", lang)
    keep("join", phone.get("/join"))
    keep("join, wrong code", phone.post("/join", data={"code": "000000"}))
    for _ in range(10):
        phone.post("/join", data={"code": "000000"})
    keep("429", phone.post("/join", data={"code": "482913"}))
    return pages


def _teach_pages(client, keep, states) -> None:
    """The teach page with what a retraining or a round learning decided on it, the model
    versions of every origin listed, its status line as the page's script polls it, and photos
    it cannot teach from."""
    import os

    states.versions()
    states.retrained(states.refused(), version=None)
    states.learnt(kept=False)
    keep("teach, retraining refused", client.get("/teach"))
    keep("teach, status refused", _status_page(client))
    states.retrained(states.kept())
    states.learnt(kept=True)
    keep("teach, retraining kept", client.get("/teach"))
    keep("teach, status kept", _status_page(client))
    states.status(state="running", stage="train", fraction=0.4, message="epoch 2 of 5", pid=os.getpid())
    keep("teach, retraining running", client.get("/teach"))
    keep("teach, status running", _status_page(client))
    states.status(state="failed", failure="nothing-to-learn", message="nothing to learn: teach some cards")
    keep("teach, retraining failed", client.get("/teach"))
    keep("teach, not a photo", client.post("/teach/faces", data={
        "card": "mochi", "photos": [(io.BytesIO(b"%PDF-1.4 pretending"), "1.jpg")]}))
    keep("teach, unknown card", client.post("/teach/faces", data={
        "card": "mochii", "photos": [(io.BytesIO(_photo()), "2.png")]}))
    keep("teach, no such face", client.get("/teach/faces/tofu__9.jpg"))
    keep("teach, no such model", client.post("/teach/models/use", data={"version": "20990101-000000"}))
    keep("teach, nothing to roll back to", client.post("/teach/models/rollback"))
    keep("teach, no card in the photo", client.post("/teach/faces", data={
        "card": "mochi", "photos": [(io.BytesIO(_photo()), "3.png"), (io.BytesIO(b""), "4.jpg")]}))


class _Shown:
    """The teach page's status line as its script shows it: the ``words`` of the status JSON."""

    def __init__(self, status: int, html: str) -> None:
        self.status_code, self._html = status, html

    def get_data(self, as_text: bool = True) -> str:
        return self._html


def _status_page(client) -> _Shown:
    answer = client.get("/teach/retrain/status", headers={"Accept": "application/json"})
    lang = client.get_cookie("lang").value
    return _Shown(answer.status_code, f'<html lang="{lang}"><body><p>{answer.get_json()["words"]}</p></body></html>')


EXPECTED = {"new game, one player": 400, "capture, no photo": 400, "import, not JSON": 400,
            "import, nothing": 400, "import, bad record": 400, "export, no game": 404, "400": 400,
            "404": 404, "404, no game": 404, "409, round out of order": 409, "413": 413, "415": 415,
            "join, wrong code": 400, "429": 429, "507": 507, "teach, not a photo": 415, "teach, unknown card": 400,
            "teach, no card in the photo": 400, "teach, no such face": 404, "teach, no such model": 404,
            "teach, nothing to roll back to": 409}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_page_shows_english(lang, tmp_path, recognizer, monkeypatch, teach_states):
    pages = _pages(tmp_path / "data", lang, recognizer, monkeypatch, teach_states)
    assert {name: status for name, (status, _) in pages.items()} == {
        name: EXPECTED.get(name, 200) for name in pages}
    # the pages hold what the scan is meant to read
    assert "Sushi Go!" in pages["new game"][1] and 'class="form-error"' in pages["import, not JSON"][1]
    leaks = {name: found for name, (_, html) in pages.items() if (found := LANGUAGE[lang].leaks(html))}
    assert leaks == {}, "\n".join(f"{name}: {found}" for name, found in leaks.items())


#: faults of an imported record that the scorer words in English (its setup, its format, its card
#: slugs): said in the page's language from the fault's cause and facts
SCORER_WORDED = {
    "one player": {**GAME, "players": ["Ann"]},
    "unknown card": {**GAME, "rounds": [{"tableaux": {"Ann": ["tempora"], "Ben": [], "Cid": []}}]},
    "unknown edition": {**GAME, "edition": "deluxe"},
    "a name twice": {**GAME, "players": ["Ann", "Ann"]},
    "unknown player": {**GAME, "rounds": [{"tableaux": {"Ann": [], "Ben": [], "Cid": [], "Zed": []}}]},
    "no tableau": {**GAME, "rounds": [{"tableaux": {"Ann": [], "Ben": []}}]},
    "off edition": {**GAME, "rounds": [{"tableaux": {"Ann": ["gyoza"], "Ben": [], "Cid": []}}]},
    "four rounds": {**GAME, "rounds": GAME["rounds"] * 2},
    "unknown variant": {**GAME, "variants": ["blitz"]},
    "menu outside Party": {**GAME, "menu": "my-first-meal"},
    "unknown menu": {**GAME, "edition": "party", "menu": "buffet"},
    "not a record": ["Ann"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("fault", list(SCORER_WORDED))
def test_an_imported_records_scorer_worded_fault(fault, lang, client):
    client.set_cookie("lang", lang)
    answer = client.post("/games/import", data={"record_text": json.dumps(SCORER_WORDED[fault])})
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    assert 'class="form-error"' in html
    assert LANGUAGE[lang].leaks(html) == []


def _json_leaks(lang: str, message: str) -> list[str]:
    """The leaks of a JSON error as a page shows it (its text in a paragraph of that language)."""
    return LANGUAGE[lang].leaks(f'<html lang="{lang}"><body><p>{message}</p></body></html>')


#: a review the page could send wrongly, each answered with a 400 whose error the page shows (the
#: cards' ids are numbers: an id is no word of any language)
BAD_REVIEWS = {
    "a card twice": {"cards": [{"id": "17", "label": "tempura", "seat": 0},
                               {"id": "17", "label": "tempura", "seat": 1}]},
    "an unknown card": {"cards": [{"id": "17", "label": "tempra", "seat": 0}]},
    "a seat of no player": {"cards": [{"id": "17", "label": "tempura", "seat": 7}]},
    "a loop": {"cards": [{"id": "17", "label": "wasabi", "seat": 0, "on": "18"},
                         {"id": "18", "label": "squid-nigiri", "seat": 0, "on": "17"}]},
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("fault", list(BAD_REVIEWS))
def test_a_review_json_error(fault, lang, client):
    client.set_cookie("lang", lang)
    game = _new_game(client)
    answer = client.post(f"/games/{game}/rounds/1/score", json=BAD_REVIEWS[fault])
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error
    assert _json_leaks(lang, error) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_live_frame_error(lang, client):
    client.set_cookie("lang", lang)
    created = client.post("/live/", json={"players": list(PLAYERS), "edition": "original"})
    assert created.status_code == 201, created.data
    session = created.get_json()["id"]
    answers = {
        "empty": client.post(f"/live/{session}/frame", data=b""),
        "not a JPEG": client.post(f"/live/{session}/frame", data=b"%PDF-1.4 pretending"),
        "nothing read": client.get(f"/live/{session}/snapshot.jpg"),
    }
    for name, answer in answers.items():
        assert answer.status_code in (400, 404, 415), (name, answer.status_code)
        error = answer.get_json()["error"]
        assert _json_leaks(lang, error) == [], (name, error)
