"""The card picker as a player uses it: search, number keys, what a special order copies, drawing."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# a custom Party menu with both specials a search for "special" could mean
MENU = ["nigiri", "maki", "tempura", "sashimi", "dumpling", "wasabi", "special-order", "pudding"]
GAME = {"edition": "party", "players": ["Ann", "Ben", "Cid"], "menu": MENU, "rounds": []}


def open_review(page, game_url: str, number: int = 1) -> None:
    page.goto(f"{game_url}/rounds/{number}/review")
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")


def chips(page, player: str) -> list[str]:
    return page.locator(f'.seat-card[data-player="{player}"] .chip-btn').all_inner_texts()


def open_add(page, player: str) -> None:
    page.locator(f'.seat-card[data-player="{player}"] .add-card').click()
    page.locator("#picker").wait_for(state="visible")


def test_search_and_enter_picks_the_card_named(browser, scripted_server, import_game):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    open_review(page, import_game(page, scripted_server, GAME))
    for typed, name in (("special", "Special Order"), ("wasa", "Wasabi"), ("nigiri", "Egg Nigiri"),
                        ("salmon", "Salmon Nigiri"), ("pud", "Pudding")):
        open_add(page, "Ann")
        page.locator("#picker-search").fill(typed)
        page.keyboard.press("Enter")
        page.locator("#picker").wait_for(state="hidden")
        assert chips(page, "Ann")[-1].removeprefix("⚠ ") == name, typed
    page.close()


def test_number_keys_follow_the_screen_and_every_card_has_one(browser, scripted_server, import_game):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    open_review(page, import_game(page, scripted_server, GAME))
    open_add(page, "Ben")
    picks = page.locator("#picker-cards .pick")
    shown = []
    for i in range(picks.count()):
        pick = picks.nth(i)
        box = pick.bounding_box()
        shown.append((round(box["y"]), box["x"], pick.locator("kbd").inner_text(), pick.get_attribute("data-slug")))
    # read as a person does, row by row, left to right: 1, 2, 3... with none missing
    shown.sort()
    assert [int(number) for _, _, number, _ in shown] == list(range(1, len(shown) + 1))
    by_number = {int(number): slug for _, _, number, slug in shown}
    names = {c["slug"]: c["name"] for c in json.loads(page.locator("#review-state").text_content())["cards"]}
    assert len(shown) > 10  # two digits are needed, and they work

    page.keyboard.press("1")
    page.keyboard.press("2")
    page.locator("#picker").wait_for(state="hidden")
    assert chips(page, "Ben") == [names[by_number[12]]]
    open_add(page, "Ben")
    page.keyboard.press("3")  # alone, after a pause: the third card
    page.locator("#picker").wait_for(state="hidden")
    assert chips(page, "Ben") == [names[by_number[12]], names[by_number[3]]]
    page.close()


def test_copies_lists_each_copyable_card_once(browser, scripted_server, import_game):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    open_review(page, import_game(page, scripted_server, GAME))
    for typed in ("tempura", "tempura", "dumpling", "special", "special"):
        open_add(page, "Ann")
        page.locator("#picker-search").fill(typed)
        page.keyboard.press("Enter")
        page.locator("#picker").wait_for(state="hidden")
    page.locator('.seat-card[data-player="Ann"] .chip-btn', has_text="Special Order").first.click()
    options = page.locator("#copies option").all_inner_texts()
    assert options == ["nothing (yet)", "Tempura", "Dumpling"]
    page.locator("#copies").select_option(label="Tempura")
    page.get_by_role("button", name="Done").click()
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")  # marks as now scored
    # the other special order may copy the tempura too (it lies on the first copy)
    page.locator('.seat-card[data-player="Ann"] .chip-btn.invalid', has_text="Special Order").click()
    assert page.locator("#copies option").all_inner_texts() == ["nothing (yet)", "Tempura", "Dumpling"]
    page.locator("#copies").select_option(label="Tempura")
    page.get_by_role("button", name="Done").click()
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")
    # four tempura scored as two pairs (the rulebook: 5 a pair) and a lone dumpling
    assert page.locator('.seat-card[data-player="Ann"] [data-testid=round-points]').inner_text() == "11"
    page.close()


def test_draw_mode_ends_once_a_card_is_drawn(browser, scripted_server, scripted, plain_photo, import_game):
    scripted.cards = [("tempura", [100, 100, 300, 400], 0.9)]
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    game_url = import_game(page, scripted_server, GAME)
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(plain_photo())
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    draw = page.get_by_role("button", name=re.compile("Draw"))
    draw.click()
    assert draw.get_attribute("aria-pressed") == "true"
    frame = page.locator("svg.overlay").bounding_box()
    scale = frame["width"] / 1200
    page.mouse.move(frame["x"] + 600 * scale, frame["y"] + 300 * scale)
    page.mouse.down()
    page.mouse.move(frame["x"] + 700 * scale, frame["y"] + 450 * scale, steps=4)
    page.mouse.move(frame["x"] + 800 * scale, frame["y"] + 600 * scale, steps=4)
    page.mouse.up()
    page.locator("#picker").wait_for(state="visible")
    page.locator("#picker-search").fill("sashimi")
    page.keyboard.press("Enter")
    page.locator("#picker").wait_for(state="hidden")
    assert draw.get_attribute("aria-pressed") == "false"
    assert page.locator(".boxes .card-box").count() == 2
    # a tap on the drawn card opens it, as in any other card
    page.mouse.click(frame["x"] + 700 * scale, frame["y"] + 500 * scale)
    page.locator("#picker").wait_for(state="visible")
    assert page.locator("#picker-title").inner_text().startswith("Sashimi")
    page.close()


def test_a_card_of_another_edition_shows_its_name(browser, scripted_server, scripted, plain_photo, import_game):
    """A misread card of another edition: its printed name on the photo, in the list and the
    picker, and what to do about it; never its slug."""
    scripted.cards = [("green-tea-ice-cream", [100, 100, 300, 400], 0.9), ("tempura", [400, 100, 600, 400], 0.9),
                      ("tempura", [700, 100, 900, 400], 0.9)]
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    game_url = import_game(page, scripted_server, {"edition": "original", "players": ["Ann", "Ben"], "rounds": []})
    page.goto(game_url + "/rounds/1/capture")
    page.locator("label", has_text="One photo per player").click()
    page.locator('input[name="seat-0"]').set_input_files(plain_photo())
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    page.locator(".card-problems").wait_for()
    assert "green-tea" not in page.locator("main").inner_text()
    tag = page.locator(".tags .tag.invalid").text_content()
    assert tag.startswith("⚠ Green Tea") and "green-tea" not in tag  # (shortened where it lacks room)
    assert page.locator(".boxes .card-box.invalid").get_attribute("aria-label").startswith("Green Tea Ice Cream, ")
    chip = page.locator(".chip-btn.invalid")
    assert chip.inner_text() == "⚠ Green Tea Ice Cream"
    assert page.locator(".card-problems").inner_text().startswith(
        "Green Tea Ice Cream is not a card of Sushi Go!: pick the card it really is.")
    assert page.locator('.seat-card[data-player="Ann"] [data-testid=round-points]').inner_text() == "5"  # a tempura pair
    chip.click()
    assert page.locator("#picker-title").inner_text().startswith("Green Tea Ice Cream")
    page.close()
