"""What the players read on the pages, and what they do about it, in Chromium.

A deck count exceeded is a warning the players confirm anyway (their deck is like this); a fault
is said in the players' words beside the cards it marks, and its one-action fix mends it there;
the anniversary edition says, where the game is made, which kinds photos cannot name yet.
"""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture
def hand_server(tmp_path, serve_app, model_dir):
    """The app with the bundled model (what it can name decides the anniversary warning)."""
    config = {"DATA_DIR": str(tmp_path / "data"), "MODEL_DIR": str(model_dir)}
    with serve_app(config) as url:
        yield url


def new_game(page, url: str, edition: str, menu: str | None, players=("Ann", "Ben", "Cid")) -> str:
    page.goto(url + "/games/new")
    page.locator(f'label.tile:has(input[value="{edition}"])').click()
    if menu:
        page.locator(f'label.tile:has(input[value="{menu}"])').click()
    for i, name in enumerate(players):
        page.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/games/\d+$"))
    return page.url


def add_card(page, player: str, name: str) -> None:
    page.locator(f'.seat-card[data-player="{player}"] .add-card').click()
    page.locator("#picker-search").fill(name)
    page.keyboard.press("Enter")
    page.locator("#picker").wait_for(state="hidden")


def settle(page) -> None:
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")


def test_a_deck_count_warning_is_confirmed_anyway(browser, hand_server, artifacts):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    game_url = new_game(page, hand_server, "party", "my-first-meal")
    page.goto(game_url + "/rounds/1/review")
    for _ in range(4):  # the Party deck holds 3 wasabi (rulebook): one of these 4 is more
        add_card(page, "Ann", "Wasabi")
    add_card(page, "Ben", "Tempura")
    settle(page)
    warning = page.locator("#review-error")
    warning.wait_for(state="visible")
    assert "1 of these 4 Wasabi cards is more than the Sushi Go Party! deck's 3" in warning.inner_text()
    assert "rounds[" not in warning.inner_text()

    page.locator("#confirm").click()
    anyway = page.get_by_role("button", name="Confirm anyway: our deck is like this")
    anyway.wait_for()
    assert "Confirm anyway" in warning.inner_text()
    page.screenshot(path=str(artifacts / "deck-count-confirm-anyway.png"))
    anyway.click()
    page.wait_for_url(re.compile(r"/games/\d+#round-1$"))
    record = json.loads(page.request.get(game_url + "/record.json").text())
    assert record["rounds"][0]["over_deck"] == ["wasabi"]
    assert record["rounds"][0]["tableaux"]["Ann"] == ["wasabi"] * 4
    assert not errors, errors


def test_a_message_is_read_and_fixed_where_it_points_on_a_phone(browser, hand_server, artifacts):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    game_url = new_game(page, hand_server, "party", "points-platter")
    page.goto(game_url + "/rounds/1/review")
    for _ in range(3):
        add_card(page, "Ann", "Uramaki (5)")
    add_card(page, "Ben", "Dumpling")
    settle(page)
    seat = page.locator('.seat-card[data-player="Ann"]')
    message = seat.locator(".card-problems li")
    message.wait_for()
    text = message.inner_text()
    # in the players' words, naming the player and the section that mends it
    assert "Ann's uramaki show 15 icons" in text and "Scored during the round" in text
    assert "rounds[" not in text and "scored_during_round" not in text
    assert seat.locator(".chip-btn.invalid").count() == 3  # the cards it is about are marked
    page.screenshot(path=str(artifacts / "phone-message-uramaki.png"))

    # the fix it offers: the first place in the uramaki race, 8 points (Party rulebook)
    seat.get_by_role("button", name="Enter: Ann scored 8 for uramaki").tap()
    row = page.locator("#during-list .during-row")
    row.wait_for()
    assert row.locator('select[aria-label="Player"]').input_value() == "Ann"
    assert row.locator('input[aria-label="Points"]').input_value() == "8"
    page.wait_for_function("() => !document.querySelector('.seat-card .card-problems')")
    settle(page)
    assert seat.locator(".chip-btn").all_inner_texts() == []  # the uramaki left the table on scoring
    assert int(seat.locator("[data-testid=round-points]").inner_text()) == 8
    page.locator("#confirm").tap()
    page.wait_for_url(re.compile(r"/games/\d+#round-1$"))
    record = json.loads(page.request.get(game_url + "/record.json").text())
    assert record["rounds"][0]["scored_during_round"] == [{"player": "Ann", "for": "uramaki", "points": 8}]
    assert not errors, errors
    context.close()


def test_an_anniversary_game_is_warned_and_its_untaught_cards_are_added_by_hand(browser, hand_server, artifacts):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(hand_server + "/games/new")
    note = page.locator('.unread-kinds[data-edition="anniversary"]')
    assert not note.is_visible()  # the original edition is chosen first: its faces are all known
    page.locator('label.tile:has(input[value="anniversary"])').tap()
    note.wait_for(state="visible")
    text = note.inner_text()
    for kind in ("Futomaki", "Gyoza", "Strawberry Pudding", "Frozen Yogurt", "Bubble Tea", "Mochi"):
        assert kind in text
    assert "6 kinds" in text and "by hand" in text
    page.screenshot(path=str(artifacts / "phone-anniversary-warning.png"))
    teach = note.get_by_role("link", name="Teach these cards")
    assert "/teach" in teach.get_attribute("href")

    page.get_by_label("Player 1", exact=True).fill("Ann")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_role("button", name="Start the game").tap()
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_url = page.url
    page.goto(game_url + "/rounds/1/review")
    add_card(page, "Ann", "Futomaki (2)")
    add_card(page, "Ben", "Gyoza")
    chips = page.locator(".seat-card .chip-btn")
    assert chips.all_inner_texts() == ["Futomaki (2)", "Gyoza"]

    # and the link leads to teaching them
    page.goto(hand_server + "/games/new")
    page.locator('label.tile:has(input[value="anniversary"])').tap()
    page.locator('.unread-kinds[data-edition="anniversary"] a').tap()
    page.wait_for_url(re.compile(r"/teach"))
    assert "anniversary" in page.url
    context.close()
