"""One round played in Spanish on a phone (390x844, touch), in Chromium: what the page scripts
write is Spanish, and the cards bear the names the Spanish rulebook (Sushi Go Party!) prints.

Oracles: the Spanish rulebook's card names ("Nigiri de salmón", "Nigiri de calamar", "Nigiri
de tortilla", "Bandeja para llevar", "Pedido especial", "Tempura"), Spanish grammar ("3 cartas"),
the rulebook's scoring (two tofu 6, a salmon nigiri 2, three sashimi 10, an egg nigiri 1), and
the English of the js catalog (web/translations/js.pot), none of which may show on the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# the Master Menu of the Spanish rulebook ("Menú gourmet"), its spoon (3 to 8 players) a special order
MENU = ["nigiri", "temaki", "onigiri", "tofu", "sashimi", "special-order", "takeout-box", "fruit"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "locale": "es-ES", "extra_http_headers": {"Accept-Language": "es-ES,es;q=0.9"}}
GAME = {"edition": "party", "menu": MENU, "players": ["Ana", "Beto"], "rounds": []}
# the photo as the recogniser reads it: Ana's cards at the bottom, Beto's at the top; the last
# card of Beto's is an egg nigiri read as a squid nigiri
TABLE = [
    ("sashimi", [150, 40, 350, 300], 0.95),
    ("sashimi", [380, 40, 580, 300], 0.95),
    ("sashimi", [610, 40, 810, 300], 0.95),
    ("squid-nigiri", [840, 40, 1040, 300], 0.62),
    ("tofu", [265, 600, 465, 860], 0.95),
    ("tofu", [495, 600, 695, 860], 0.95),
    ("salmon-nigiri", [725, 600, 925, 860], 0.95),
]
POT = Path(__file__).resolve().parents[2] / "web" / "translations" / "js.pot"
#: what the scripts write on the review page (the breakdown lines and problems are the server's)
SCRIPT_TEXT = """() => {
  const parts = [];
  for (const selector of ["#seats", "#seat-tools", "#photos figcaption", "#toast", "#review-error"]) {
    for (const node of document.querySelectorAll(selector)) {
      const copy = node.cloneNode(true);
      for (const server of copy.querySelectorAll(".breakdown, .problem-text")) server.remove();
      parts.push(copy.textContent);
      for (const labelled of node.querySelectorAll("[aria-label], [title]")) {
        parts.push(labelled.getAttribute("aria-label") || "", labelled.getAttribute("title") || "");
      }
    }
  }
  return parts.join("\\n");
}"""


def english_phrases() -> list[re.Pattern]:
    """Every English message of the page scripts' catalog, as the words between its placeholders."""
    with POT.open("rb") as handle:
        catalog = read_po(handle)
    phrases = set()
    for message in catalog:
        if not message.id:
            continue
        for text in message.id if isinstance(message.id, tuple) else (message.id,):
            for part in re.split(r"\{\w+\}", text):
                words = part.strip(" .,:;()?·—↻↺✓“”+")
                if re.search(r"[A-Za-z]{2}", words) and words not in {"Nigiri"}:  # the Spanish word too
                    phrases.add(words)
    return [re.compile(rf"(?<![\w-]){re.escape(p)}(?![\w-])") for p in sorted(phrases)]


def assert_no_english(text: str) -> None:
    leaked = sorted({p.pattern for p in english_phrases() if p.search(text)})
    assert leaked == [], f"English left on the page: {leaked}\n{text}"


def test_a_round_in_spanish_on_a_phone(browser, scripted_server, scripted, plain_photo, artifacts):
    scripted.cards = TABLE
    context = browser.new_context(**PHONE)
    page = context.new_page()
    # a new game, from its record (the import form, found by its fields, not its words)
    page.goto(scripted_server + "/")
    assert page.locator("html").get_attribute("lang") == "es"
    page.locator("#import summary").tap()
    page.locator('textarea[name="record_text"]').fill(json.dumps(GAME))
    page.locator('#import form').evaluate("form => form.requestSubmit()")  # setup, not under test
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_url = page.url

    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(plain_photo())
    page.locator('#capture-form button[type="submit"]').tap()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")

    ana = page.locator('.seat-card[data-player="Ana"]')
    beto = page.locator('.seat-card[data-player="Beto"]')
    assert ana.locator(".chip-btn").all_inner_texts() == ["Tofu", "Tofu", "Nigiri de salmón"]
    assert beto.locator(".chip-btn").all_inner_texts() == ["Sashimi", "Sashimi", "Sashimi", "? Nigiri de calamar"]
    assert ana.locator(".seat-count").inner_text() == "3 cartas"
    assert beto.locator(".seat-count").inner_text() == "4 cartas"
    assert ana.locator(".add-card").inner_text() == "+ Añadir carta"
    assert page.locator("#photos figcaption").inner_text() == "Toda la mesa"
    assert "Intercambiar" in page.locator("#seat-tools").inner_text()
    assert_no_english(page.evaluate(SCRIPT_TEXT))

    # the misread card, fixed with the picker: its Spanish name found by typing part of it
    beto.locator(".chip-btn", has_text="Nigiri de calamar").tap()
    picker = page.locator("#picker")
    picker.wait_for(state="visible")
    assert page.locator("#picker-title").inner_text() == "Nigiri de calamar · seguro al 62 %"
    names = page.locator("#picker-cards .pick-name").all_inner_texts()
    for name in ("Nigiri de salmón", "Nigiri de tortilla", "Bandeja para llevar", "Pedido especial",
                 "Tempura"):
        assert name in names
    listed = page.locator("#picker-cards").text_content()  # (the family headings are shown in capitals)
    assert "Postres" in listed and "No está en el menú de esta partida" in listed
    assert page.locator("#picker-delete").text_content() == "Eliminar Supr"
    assert_no_english(page.locator("#picker-title").inner_text() + "\n" + listed + "\n"
                      + page.locator("#picker-stack").inner_text())
    page.screenshot(path=str(artifacts / "phone-es-picker.png"))
    page.locator("#picker-search").fill("tortilla")
    page.keyboard.press("Enter")
    picker.wait_for(state="hidden")
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")
    assert beto.locator(".chip-btn").all_inner_texts() == ["Sashimi", "Sashimi", "Sashimi", "Nigiri de tortilla"]
    # the rulebook: Ana 6 (two tofu) + 2 (a salmon nigiri); Beto 10 (three sashimi) + 1 (an egg nigiri)
    assert ana.get_by_test_id("round-points").inner_text() == "8"
    assert beto.get_by_test_id("round-points").inner_text() == "11"
    assert_no_english(page.evaluate(SCRIPT_TEXT))
    page.screenshot(path=str(artifacts / "phone-es-review.png"))

    page.locator("#confirm").tap()
    page.wait_for_url(re.compile(r"/games/\d+(#.*)?$"))
    assert page.locator("html").get_attribute("lang") == "es"
    board = page.get_by_test_id("scoreboard")
    assert board.locator('tr[data-player="Ana"] [data-col="total"]').inner_text() == "8"
    assert board.locator('tr[data-player="Beto"] [data-col="total"]').inner_text() == "11"
    assert page.locator("header nav").get_by_text("Partidas").is_visible()
    page.screenshot(path=str(artifacts / "phone-es-scoreboard.png"))
    context.close()
