"""Editing a round by hand in the browser: no photo, every card added with the picker.

Covers what the photo test does not: adding cards to a seat, moving one to another seat,
putting a nigiri on a wasabi and taking it off, a special order copying a card, deleting,
and reopening a confirmed round to correct it (the totals follow).
"""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def hand_server(tmp_path, serve_app):
    """The app without any recogniser (cards are entered by hand), on a free port."""
    config = {"DATA_DIR": str(tmp_path / "data"), "MODEL_DIR": str(tmp_path / "no-model")}
    with serve_app(config) as url:
        yield url


def add_card(page, player: str, name: str) -> None:
    page.locator(f'.seat-card[data-player="{player}"] .add-card').click()
    page.locator("#picker-search").fill(name)
    page.keyboard.press("Enter")
    page.locator("#picker").wait_for(state="hidden")


def chip(page, player: str, name: str):
    return page.locator(f'.seat-card[data-player="{player}"] .chip-btn', has_text=re.compile(f"^{re.escape(name)}$"))


def settle(page) -> None:
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")  # a function: the CSP forbids eval


def points(page, player: str) -> int:
    settle(page)
    return int(page.locator(f'.seat-card[data-player="{player}"] [data-testid=round-points]').inner_text())


def test_edit_a_round_by_hand(browser, hand_server, artifacts):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(hand_server + "/games/new")
    page.locator('label.tile:has(input[value="party"])').click()
    page.locator('label.tile:has(input[value="party-sampler"])').click()  # temaki, tofu, menu...
    page.get_by_label("Player 1").fill("Ann")
    page.get_by_label("Player 2").fill("Ben")
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("link", name="Enter the cards by hand").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))

    for name in ("Wasabi", "Squid Nigiri", "Tofu", "Tofu"):
        add_card(page, "Ann", name)
    for name in ("Tempura", "Tempura", "Temaki"):
        add_card(page, "Ben", name)
    assert points(page, "Ann") == 3 + 6  # squid alone, two tofu
    assert points(page, "Ben") == 5 + 4  # a pair of tempura, most temaki (with 2 players nobody loses)

    # the squid goes onto the wasabi, triples, and comes off again
    chip(page, "Ann", "Squid Nigiri").click()
    page.get_by_role("button", name="Put it on a wasabi").click()
    page.get_by_role("button", name="Done").click()
    assert points(page, "Ann") == 9 + 6
    assert page.locator('.seat-card[data-player="Ann"] .stack').count() == 1
    shot_path = artifacts / "hand-review.png"
    page.screenshot(path=str(shot_path), full_page=True)

    # a tofu was Ben's: move it (Ann's one tofu scores 2, Ben's one tofu 2)
    chip(page, "Ann", "Tofu").first.click()
    page.locator("#picker-seats").get_by_role("button", name="Ben").click()
    page.get_by_role("button", name="Done").click()
    assert points(page, "Ann") == 9 + 2
    assert points(page, "Ben") == 5 + 4 + 2

    # keyboard only: a focused card takes the card of a number key; Ctrl+Z takes it back
    state = json.loads(page.locator("#review-state").text_content())
    key, card = next((str(c["hotkey"]), c) for c in state["cards"] if c["hotkey"] and c["slug"] != "tofu")
    chip(page, "Ben", "Tofu").focus()
    page.keyboard.press(key)  # "1" may begin "12": the card comes once no second digit follows
    chip(page, "Ben", card["name"]).first.wait_for()
    assert chip(page, "Ben", "Tofu").count() == 0
    page.keyboard.press("Control+z")
    assert chip(page, "Ben", "Tofu").count() == 1
    assert points(page, "Ben") == 5 + 4 + 2

    # a wrong card is deleted with the Delete key
    chip(page, "Ben", "Temaki").click()
    page.keyboard.press("Delete")
    assert chip(page, "Ben", "Temaki").count() == 0

    page.get_by_role("button", name="Confirm round 1").click()
    page.wait_for_url(re.compile(r"#round-1$"))
    assert page.locator('tr[data-player="Ann"] [data-col="total"]').inner_text() == "11"
    assert page.locator('tr[data-player="Ben"] [data-col="total"]').inner_text() == "7"

    # reopen the round: the squid was really on the wasabi's neighbour... take it off
    page.get_by_role("link", name="Correct round 1").click()
    chip(page, "Ann", "Squid Nigiri").click()
    page.get_by_role("button", name=re.compile("take it off")).click()
    page.get_by_role("button", name="Done").click()
    assert points(page, "Ann") == 3 + 2  # the squid alone, one tofu
    page.get_by_role("button", name="Confirm round 1").click()
    page.wait_for_url(re.compile(r"#round-1$"))
    assert page.locator('tr[data-player="Ann"] [data-col="total"]').inner_text() == "5"
    record = page.request.get(page.url.split("#")[0] + "/record.json").json()
    tableaux = {p: sorted(map(str, t)) for p, t in record["rounds"][0]["tableaux"].items()}
    assert tableaux == {"Ann": ["squid-nigiri", "tofu", "wasabi"], "Ben": ["tempura", "tempura", "tofu"]}
    assert errors == []

    # a wrong address: a page that says so, in the same style
    response = page.goto(hand_server + "/games/999")
    assert response.status == 404
    assert "no game 999" in page.locator(".error-message").inner_text()
    page.screenshot(path=str(artifacts / "error-404.png"), full_page=True)
    page.close()


def test_a_special_order_copies_the_card_it_lies_on(browser, hand_server):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(hand_server + "/games/new")
    page.locator('label.tile:has(input[value="party"])').click()
    page.locator('label.tile:has(input[value="points-platter"])').click()  # with special order
    page.get_by_label("Player 1").fill("Ann")
    page.get_by_label("Player 2").fill("Ben")
    page.get_by_label("Player 3").fill("Cid")  # edamame needs 3
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("link", name="Enter the cards by hand").click()
    add_card(page, "Ann", "Dumpling")
    add_card(page, "Ann", "Special Order")
    # a special order copying nothing cannot be scored: that card says why and what to do, in
    # the player's words, and the rest of the round still scores without it
    problems = page.locator('.seat-card[data-player="Ann"] .card-problems')
    problems.wait_for()
    assert problems.inner_text().startswith("This special order copies nothing: set what it copies.")
    marked = page.locator('.seat-card[data-player="Ann"] .chip-btn.invalid')
    assert marked.count() == 1 and "Special Order" in marked.inner_text()
    assert points(page, "Ann") == 1  # the dumpling alone
    assert "rounds[0]" not in page.locator("main").inner_text()
    # Confirm is refused with the same words; Fix opens the card with them
    page.get_by_role("button", name="Confirm round 1").click()
    error = page.locator("#review-error")
    error.filter(has_text="copies nothing").wait_for()
    assert "tableaux" not in error.inner_text()
    problems.get_by_role("button", name="Fix").click()
    assert "copies nothing" in page.locator("#picker-problem").inner_text()
    page.locator("#copies").select_option(label="Dumpling")
    page.get_by_role("button", name="Done").click()
    assert points(page, "Ann") == 3  # two dumplings
    assert problems.count() == 0 and error.is_hidden()
    page.get_by_role("button", name="Confirm round 1").click()
    page.wait_for_url(re.compile(r"#round-1$"))
    record = page.request.get(page.url.split("#")[0] + "/record.json").json()
    assert record["rounds"][0]["tableaux"]["Ann"] == [["dumpling", "special-order"]]
    page.close()


def test_a_special_order_is_offered_only_cards_that_stay_on_the_table(browser, hand_server):
    # Sushi Go Party! rules (../shared/seeds, Spanish rulebook, "Pedido especial"): it copies
    # a card of the player's tableau; another special order is not a card it can copy, and
    # neither is a menu nor a take-out box, which leave the table
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(hand_server + "/games/new")
    page.locator('label.tile:has(input[value="party"])').click()
    page.locator('label.tile:has(input[value="points-platter"])').click()  # with special order
    for number, name in enumerate(["Ann", "Ben", "Cid"], start=1):
        page.get_by_label(f"Player {number}").fill(name)
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("link", name="Enter the cards by hand").click()
    add_card(page, "Ann", "Dumpling")
    add_card(page, "Ann", "Special Order")
    add_card(page, "Ann", "Special Order")
    chip(page, "Ann", "Special Order").first.click()
    offered = page.locator("#copies option").all_inner_texts()
    assert any("Dumpling" in text for text in offered)
    assert not any("Special Order" in text for text in offered)
    page.close()
