"""At the table on a phone (390x844, touch): taps open the card under the finger, the winner
shows after the last Confirm; and undo outlives a reload."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PLAYERS = ["Ann", "Ben"]

# a tight table as photographed: covered cards show a strip (their box is the strip read)
TABLE = [
    ("wasabi", [100, 100, 300, 160], 0.9),          # under the nigiri: its top strip shows
    ("squid-nigiri", [100, 150, 300, 430], 0.9),
    ("tempura", [340, 100, 390, 380], 0.9),         # under the sashimi: its left strip shows
    ("sashimi", [380, 100, 580, 380], 0.9),
    ("maki-2", [620, 100, 820, 380], 0.9),
    ("dumpling", [860, 100, 1060, 380], 0.9),
    ("pudding", [100, 480, 300, 760], 0.9),
    ("egg-nigiri", [320, 500, 470, 720], 0.9),
]


def visible_point(box, boxes):
    """The middle of the part of ``box`` no other box covers (column by column)."""
    x1, y1, x2, y2 = box
    points = [(x1 + fx * (x2 - x1), y1 + fy * (y2 - y1)) for fy in (0.5, 0.3, 0.7, 0.15, 0.85)
              for fx in (0.5, 0.3, 0.7, 0.15, 0.85)]
    for x, y in points:
        if not any(o is not box and o[0] <= x <= o[2] and o[1] <= y <= o[3] for o in boxes):
            return x, y
    raise AssertionError(f"{box} is covered everywhere")


def test_a_tap_opens_the_card_under_the_finger(browser, scripted_server, scripted, plain_photo,
                                               import_game, artifacts):
    scripted.cards = TABLE
    context = browser.new_context(**PHONE)
    page = context.new_page()
    game_url = import_game(page, scripted_server, {"edition": "original", "players": PLAYERS, "rounds": []})
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(plain_photo())
    page.get_by_role("button", name="Read the cards").tap()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    overlay = page.locator("svg.overlay")
    overlay.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "phone-tap-review.png"))
    frame = overlay.bounding_box()
    scale = frame["width"] / 1200
    boxes = [box for _, box, _ in TABLE]
    names = {c["slug"]: c["name"] for c in json.loads(page.locator("#review-state").text_content())["cards"]}
    opened = {}
    for label, box, _ in TABLE:
        x, y = visible_point(box, boxes)
        page.touchscreen.tap(frame["x"] + x * scale, frame["y"] + y * scale)
        page.locator("#picker").wait_for(state="visible")
        opened[label] = page.locator("#picker-title").inner_text().split(" · ")[0]
        page.locator("#picker").get_by_role("button", name="Close").tap()
        page.locator("#picker").wait_for(state="hidden")
    assert opened == {label: names[label] for label, _, _ in TABLE}
    # a fingertip just beside a lone card (4 screen pixels right of the egg nigiri) still opens it
    page.touchscreen.tap(frame["x"] + 470 * scale + 4, frame["y"] + 610 * scale)
    page.locator("#picker").wait_for(state="visible")
    assert page.locator("#picker-title").inner_text().startswith(names["egg-nigiri"])
    context.close()


def test_the_winner_is_on_screen_after_the_last_confirm(browser, scripted_server, import_game, artifacts):
    record = {"edition": "original", "players": PLAYERS, "rounds": [
        {"tableaux": {"Ann": ["tempura", "tempura"], "Ben": ["sashimi"]}},
        {"tableaux": {"Ann": ["dumpling"], "Ben": ["maki-3", "pudding"]}},
    ]}
    context = browser.new_context(**PHONE)
    page = context.new_page()
    game_url = import_game(page, scripted_server, record)
    page.goto(game_url + "/rounds/3/review")
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    for player, card in (("Ann", "Tempura"), ("Ben", "Egg Nigiri")):
        page.locator(f'.seat-card[data-player="{player}"] .add-card').tap()
        page.locator("#picker-search").fill(card)
        page.keyboard.press("Enter")
        page.locator("#picker").wait_for(state="hidden")
    page.get_by_role("button", name="Confirm round 3").tap()
    page.wait_for_url(re.compile(r"/games/\d+#winner$"))
    banner = page.get_by_test_id("winner")
    box = banner.bounding_box()
    assert box["y"] >= -1 and box["y"] + box["height"] <= 844, box  # (scrolled to a fraction of a pixel)
    # the rulebook: Ann 5 (a tempura pair) + 1 (a dumpling) + 0 (a lone tempura) = 6; Ben 0 (a lone
    # sashimi) + 6 (most maki) + 1 (egg nigiri) + 6 (most puddings; with two players nobody loses) = 13
    assert "Ben wins with 13 points" in banner.inner_text()
    page.screenshot(path=str(artifacts / "phone-winner.png"))
    context.close()


def test_undo_outlives_a_reload(browser, scripted_server, import_game):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    game_url = import_game(page, scripted_server, {"edition": "original", "players": PLAYERS, "rounds": []})
    page.goto(game_url + "/rounds/1/review")
    for card in ("Tempura", "Sashimi"):
        page.locator('.seat-card[data-player="Ann"] .add-card').click()
        page.locator("#picker-search").fill(card)
        page.keyboard.press("Enter")
        page.locator("#picker").wait_for(state="hidden")
    page.reload()
    chips = page.locator('.seat-card[data-player="Ann"] .chip-btn')
    assert chips.all_inner_texts() == ["Tempura", "Sashimi"]
    assert page.locator("#undo").is_enabled()
    page.locator("#undo").click()
    assert chips.all_inner_texts() == ["Tempura"]
    page.reload()
    assert chips.all_inner_texts() == ["Tempura"]
    assert page.locator("#redo").is_enabled()
    page.locator("#redo").click()
    assert chips.all_inner_texts() == ["Tempura", "Sashimi"]
    page.close()
