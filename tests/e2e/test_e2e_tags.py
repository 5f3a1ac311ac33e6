"""A whole table on a phone (390x844, touch, the photo at 1x): every card's name tag can be read
and tapped, and a tap, on a tag or on a card, opens the card it is on."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PLAYERS = ["Ann", "Ben", "Cid"]
PHOTO_SIZE = (1200, 1600)  # height, width


def seat_row(y: int) -> list[tuple[str, list[float], float]]:
    """Eight cards of one player in a row, laid as at a table: a nigiri on a wasabi (the wasabi's
    top strip shows), a tempura under a sashimi (its left strip shows), then six cards side by side."""
    return [
        ("wasabi", [60, y, 210, y + 55], 0.9),
        ("squid-nigiri", [60, y + 40, 210, y + 250], 0.9),
        ("tempura", [240, y, 300, y + 210], 0.9),
        ("sashimi", [290, y, 440, y + 210], 0.9),
        ("maki-2", [470, y, 620, y + 210], 0.9),
        ("dumpling", [650, y, 800, y + 210], 0.9),
        ("pudding", [830, y, 980, y + 210], 0.9),
        ("salmon-nigiri", [1010, y, 1160, y + 210], 0.9),
    ]


TABLE = seat_row(40) + seat_row(470) + seat_row(900)


def rects_meet(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def open_crowded_review(browser, scripted_server, scripted, plain_photo, import_game):
    scripted.cards = TABLE
    context = browser.new_context(**PHONE)
    page = context.new_page()
    game_url = import_game(page, scripted_server, {"edition": "original", "players": PLAYERS, "rounds": []})
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(plain_photo(size=PHOTO_SIZE))
    page.get_by_role("button", name="Read the cards").tap()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    state = json.loads(page.locator("#review-state").text_content())
    boxes = {c["id"]: c["box"] for c in state["review"]["cards"]}
    names = {c["slug"]: c["name"] for c in state["cards"]}
    labels = {c["id"]: names[c["label"]] for c in state["review"]["cards"]}
    assert sorted(boxes.values()) == sorted(box for _, box, _ in TABLE)
    return context, page, boxes, labels


def on_screen(page, box):
    """A box of the photo in the page's pixels, the photo where it is now."""
    frame = page.locator("svg.overlay").bounding_box()
    scale = frame["width"] / PHOTO_SIZE[1]
    return [frame["x"] + box[0] * scale, frame["y"] + box[1] * scale,
            frame["x"] + box[2] * scale, frame["y"] + box[3] * scale]


def show_photo(page):
    """The photo in the middle of the screen, clear of the toolbar that stays at the top."""
    page.locator("svg.overlay").evaluate("(node) => node.scrollIntoView({block: 'center'})")


def tag_on_screen(page, card):
    """The tag of a card scrolled into view, in the page's pixels (the overlay is redrawn as the
    scores come: a tag may be replaced while it is looked at)."""
    show_photo(page)
    tag = page.locator(f'.tags .tag[data-id="{card}"] .tag-bg')
    for _ in range(3):
        try:
            return tag.bounding_box(timeout=2000)
        except PlaywrightError:
            continue
    raise AssertionError(f"the tag of {card} stays out of reach")


def opened(page) -> list[float]:
    """The box of the card the open picker is about (the one drawn as selected)."""
    page.locator("#picker").wait_for(state="visible")
    rect = page.locator(".boxes .card-box.selected rect")
    found = [float(rect.get_attribute(a)) for a in ("x", "y", "width", "height")]
    page.locator("#picker").get_by_role("button", name="Close").tap()
    page.locator("#picker").wait_for(state="hidden")
    return [found[0], found[1], found[0] + found[2], found[1] + found[3]]


def test_tags_of_a_crowded_table_never_cover_each_other_nor_their_card(
        browser, scripted_server, scripted, plain_photo, import_game, artifacts):
    context, page, boxes, labels = open_crowded_review(browser, scripted_server, scripted, plain_photo, import_game)
    show_photo(page)
    page.screenshot(path=str(artifacts / "phone-crowded-tags.png"))
    tags = {}
    for tag in page.locator(".tags .tag").all():
        b = tag.locator(".tag-bg").bounding_box()
        tags[tag.get_attribute("data-id")] = ([b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]],
                                              tag.locator(".tag-text").text_content())
    assert sorted(tags) == sorted(boxes), "every card has its tag"
    for card, (rect, text) in tags.items():
        name = labels[card]
        shown = text.removesuffix("…")  # a long name may be shortened; a stack says what it is on
        assert len(shown) >= 5 and shown[:len(name)] == name[:len(shown)], (text, name)
        assert not rects_meet(rect, on_screen(page, boxes[card])), f"{name}'s tag covers its card"
        for other, (other_rect, _) in tags.items():
            assert other == card or not rects_meet(rect, other_rect), f"tags of {name} and {labels[other]} meet"
    context.close()


def test_taps_on_tags_and_on_cards_open_those_cards(browser, scripted_server, scripted, plain_photo, import_game):
    context, page, boxes, labels = open_crowded_review(browser, scripted_server, scripted, plain_photo, import_game)
    right = 0
    for card, box in boxes.items():
        b = tag_on_screen(page, card)
        page.touchscreen.tap(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        right += opened(page) == box
    assert right == len(TABLE) == 24

    right = 0
    for box in boxes.values():
        show_photo(page)
        x1, y1, x2, y2 = on_screen(page, box)
        page.touchscreen.tap((x1 + x2) / 2, (y1 + y2) / 2)
        right += opened(page) == box
    assert right == 24

    # where a strip and the card on it overlap, the strip (the smaller box) is the one meant
    wasabi = next(box for label, box, _ in TABLE if label == "wasabi")
    show_photo(page)
    x1, y1, x2, y2 = on_screen(page, wasabi)
    nigiri_top = on_screen(page, TABLE[1][1])[1]
    page.touchscreen.tap((x1 + x2) / 2, (nigiri_top + y2) / 2)
    assert opened(page) == wasabi
    context.close()
