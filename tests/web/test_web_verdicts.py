"""The teach page words what a retraining or a round learning decided in the page's language.

Oracles: the French catalog's own entries (read from ``messages.po``, not from the code that
words them), filled with figures written as French writes them (``0,874``), and the English
messages as the catalog's template holds them.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
with (ROOT / "web" / "translations" / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as _handle:
    FRENCH = read_po(_handle, locale="fr")

REFUSED_TABLES = ("the new model read the held-out test tables worse: card score %(after)s against %(before)s, "
                  "more than %(limit)s lower")


def shown(page: str) -> str:
    """A page's text as read: entities decoded, runs of white space one space."""
    return " ".join(html.unescape(page).split())


def french(msgid: str, form: int | None = None, **values: str) -> str:
    entry = FRENCH[msgid]
    assert entry is not None and entry.string, f"the French catalog lacks {msgid!r}"
    text = entry.string[form or 0] if isinstance(entry.string, tuple) else entry.string
    return text % values


def test_a_french_page_shows_a_refused_retraining_in_french(client, teach_states):
    # card F1 on the held-out tables 0.912 -> 0.874, 0.01 allowed: refused
    teach_states.retrained(teach_states.refused(), version=None)
    client.set_cookie("lang", "fr")
    why = french(REFUSED_TABLES, after="0,874", before="0,912", limit="0,01")
    line = french("Last retraining: %(message)s", message=french("the model in use stays: %(why)s", why=why))
    assert line in shown(client.get("/teach").get_data(as_text=True))
    status = client.get("/teach/retrain/status", headers={"Accept": "application/json"}).get_json()
    assert status["words"] == line


def test_an_english_page_words_a_kept_retraining_and_its_notes(client, teach_states):
    teach_states.retrained(teach_states.kept(), version="20260101-000000")
    words = client.get("/teach/retrain/status", headers={"Accept": "application/json"}).get_json()["words"]
    assert words.startswith("Last retraining: the new model 20260101-000000 is in use: card score on the held-out "
                            "test tables 0.900 → 0.910; known cards named right 95% → 94%; your confirmed photos "
                            "0.800 → 0.850; new cards' score 0.660; not read well yet (teach more photos): Gyoza; ")
    assert "the retrained card finder read worse (card score 0.9131 → 0.9012" in words
    assert words.endswith("left out 2 corrections the model reads otherwise (confirm them on this page to learn them)")


def test_a_status_written_before_decisions_is_shown_as_it_is(client, teach_states):
    teach_states.status(state="done", accepted=True, version="20250101-000000",
                        message="card F1 0.900 -> 0.910", result={"version": "20250101-000000", "reason": "x"})
    assert "Last retraining: card F1 0.900 -> 0.910" in shown(client.get("/teach").get_data(as_text=True))


def test_a_french_page_says_why_a_confirmed_round_was_not_learnt(client, teach_states):
    # 7 of 10 cards of the other rounds right with the new exemplars, 9 without
    teach_states.learnt(kept=False)
    client.set_cookie("lang", "fr")
    reason = french("your other confirmed rounds are read worse with them: %(right)s of %(num)d card right, "
                    "%(without)s without", form=1, right="7", num=10, without="9")  # French: 10 is plural
    page = shown(client.get("/teach").get_data(as_text=True))
    assert french("Your last confirmed round was not learnt: %(reason)s.", reason=reason) in page


def test_the_model_list_says_each_versions_origin_in_french(client, teach_states):
    teach_states.versions()
    client.set_cookie("lang", "fr")
    page = shown(client.get("/teach").get_data(as_text=True))
    assert french("%(num)d new card, from the bundled model", num=1) in page
    assert french("refused, kept to look at: %(summary)s",
                  summary=french("retrained from %(parent)s", parent="20260101-000001")) in page
    assert french("the bundled model without %(cards)s", cards="Anguille et Sauce soja") in page


def test_a_french_page_says_why_a_photo_cannot_be_taught(client):
    client.set_cookie("lang", "fr")
    answer = client.post("/teach/faces?edition=anniversary", data={"card": "mochi", "photos": [(
        io.BytesIO(b"%PDF-1.4"), "1.jpg")]})
    assert answer.status_code == 415
    assert french("that file is not a photo sushicam reads: send a JPEG, PNG, WebP or HEIC photo") in shown(
        answer.get_data(as_text=True))
