"""Photographing a round again in the browser: only the re-taken player's cards change."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAME = {"edition": "original", "players": ["Ann", "Ben", "Cid"], "rounds": []}


def chips(page, player: str) -> list[str]:
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    return sorted(t.removeprefix("? ") for t in page.locator(f'.seat-card[data-player="{player}"] .chip-btn').all_inner_texts())


def test_retaking_one_players_photo_keeps_everyone_elses_corrected_cards(
        browser, scripted_server, scripted, plain_photo, import_game, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    game_url = import_game(page, scripted_server, GAME)

    scripted.cards = [("tempura", [100, 100, 400, 550], 0.9), ("sashimi", [500, 100, 800, 550], 0.9)]
    page.get_by_role("link", name=re.compile("Photograph round 1")).click()
    page.locator("label", has_text="One photo per player").click()
    for seat in range(3):
        page.locator(f'input[name="seat-{seat}"]').set_input_files(plain_photo(f"seat{seat}.jpg"))
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    # a correction made on the review page, not confirmed yet
    page.locator('.seat-card[data-player="Ann"] .chip-btn', has_text="Tempura").click()
    page.locator("#picker-search").fill("squid")
    page.keyboard.press("Enter")
    page.locator("#picker").wait_for(state="hidden")
    assert chips(page, "Ann") == ["Sashimi", "Squid Nigiri"]

    # Ben's photo again, alone
    page.goto(game_url)
    page.get_by_role("link", name=re.compile("Photograph round 1")).click()
    assert "replaces only that player's cards" in page.locator("#retake-note").inner_text()
    page.locator("label", has_text="One photo per player").click()
    scripted.cards = [("dumpling", [100, 100, 400, 550], 0.9)]
    page.locator('input[name="seat-1"]').set_input_files(plain_photo("ben-again.jpg"))
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    assert chips(page, "Ann") == ["Sashimi", "Squid Nigiri"]
    assert chips(page, "Ben") == ["Dumpling"]
    assert chips(page, "Cid") == ["Sashimi", "Tempura"]
    page.screenshot(path=str(artifacts / "retake-review.png"), full_page=True)

    # a whole-table photo would replace every card: the page asks first
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(plain_photo("table.jpg"))
    asked: list[str] = []

    def answer(dialog, accept: bool):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_timeout(300)
    assert asked and "5 cards" in asked[0] and "replaces them all" in asked[0]
    assert page.url.endswith("/rounds/1/capture")
    page.goto(game_url + "/rounds/1/review")
    assert chips(page, "Ben") == ["Dumpling"]  # nothing was replaced
    assert errors == []
    page.close()


def test_a_photo_without_cards_and_a_player_without_photo_are_said(
        browser, scripted_server, scripted, plain_photo, import_game):
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    game_url = import_game(page, scripted_server, GAME)
    scripted.cards = []
    page.goto(game_url + "/rounds/1/capture")
    page.locator("label", has_text="One photo per player").tap()
    page.locator('input[name="seat-0"]').set_input_files(plain_photo("ann.jpg"))
    page.get_by_role("button", name="Read the cards").tap()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    flashes = page.locator(".flash-warning").all_inner_texts()
    assert any("No card was found on Ann's photo" in f for f in flashes)
    assert any("No photo of Ben's cards" in f for f in flashes) and any("No photo of Cid's cards" in f for f in flashes)
    # the seat says it too, after the message is gone
    page.reload()
    assert "No photo of Ben's cards" in page.locator('.seat-card[data-player="Ben"] .no-cards').inner_text()
    page.close()
