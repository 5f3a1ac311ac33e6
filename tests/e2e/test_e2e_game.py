"""A round played in a real browser: new game, photo, one correction, confirm, scoreboard.

Run on a desktop window with a mouse and keyboard, and on a phone-sized touch screen.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from scorer import score_record
from web.review import round_from_review

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PLAYERS = ["Ann", "Ben", "Cid"]
VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
              "is_mobile": True, "has_touch": True},
}


def shot(page, artifacts, name: str, full_page: bool = True) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=full_page)
    # nothing sticks out sideways: a phone would scroll the whole page left and right
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{name} overflows"


def press(locator, touch: bool, **options) -> None:
    if touch:
        locator.tap(**options)
    else:
        locator.click(**options)


def wait_for_scores(page, after: int = 0) -> int:
    """Wait for the live scores of a change made after score request number ``after``."""
    page.wait_for_function(f"() => Number(document.body.dataset.scored || 0) > {after}")
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")  # a function: the CSP forbids eval
    return int(page.evaluate("document.body.dataset.scored"))


def round_points(page) -> dict[str, int]:
    return {
        seat.get_attribute("data-player"): int(seat.locator("[data-testid=round-points]").inner_text())
        for seat in page.locator(".seat-card").all()
    }


def points_of(record: dict) -> dict[str, int]:
    result = score_record(record)
    return {p: result["players"][p]["rounds"][0] for p in PLAYERS}


def free_point(card: dict, cards: list[dict]) -> dict[str, float]:
    """A point of ``card``'s box, in its lower part (name tags sit at the top), that no other
    box covers: where a tap reaches this card. Relative to the box, in photo pixels."""
    x1, y1, x2, y2 = card["box"]
    for fy in (0.9, 0.8, 0.7, 0.6, 0.5):
        for fx in (0.5, 0.3, 0.7, 0.15, 0.85):
            x, y = x1 + fx * (x2 - x1), y1 + fy * (y2 - y1)
            if not any(o is not card and o["box"] and o["box"][0] <= x <= o["box"][2] and o["box"][1] <= y <= o["box"][3]
                       for o in cards):
                return {"x": x - x1, "y": y - y1}
    raise AssertionError(f"every point of {card['label']}'s box is covered by another box")


def empty_corner(photo: dict, cards: list[dict]) -> tuple[float, float, float, float]:
    """A box in a corner of the photo that no card overlaps, to draw a missed card in."""
    w, h = photo["width"], photo["height"]
    for x, y in ((0.03, 0.03), (0.85, 0.03), (0.03, 0.82), (0.85, 0.82)):
        box = (x * w, y * h, (x + 0.1) * w, (y + 0.14) * h)
        if not any(c["box"][0] < box[2] and box[0] < c["box"][2] and c["box"][1] < box[3] and box[1] < c["box"][3]
                   for c in cards if c["box"]):
            return box
    raise AssertionError("the composed photo has no empty corner")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_play_a_round_in_the_browser(browser, live_server, table_photo, artifacts, device):
    photo_path, _truth = table_photo
    touch = device == "phone"
    context = browser.new_context(**VIEWPORTS[device])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    # --- a new game of three
    page.goto(live_server + "/")
    shot(page, artifacts, f"{device}-1-home-empty")
    press(page.get_by_role("link", name="Start a new game"), touch)
    press(page.locator('label.tile:has(input[name="edition"][value="original"])'), touch)
    for i, name in enumerate(PLAYERS):
        page.get_by_label(f"Player {i + 1}").fill(name)
    shot(page, artifacts, f"{device}-2-new-game")
    press(page.get_by_role("button", name="Start the game"), touch)
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_url = page.url
    shot(page, artifacts, f"{device}-3-game-start")

    # --- photograph the table
    press(page.get_by_role("link", name=re.compile("Photograph round 1")), touch)
    page.locator('input[name="table"]').set_input_files(str(photo_path))
    shot(page, artifacts, f"{device}-4-capture")
    press(page.get_by_role("button", name="Read the cards"), touch)
    page.wait_for_url(re.compile(r"/rounds/1/review$"), timeout=120_000)
    scored = wait_for_scores(page)
    state = json.loads(page.locator("#review-state").text_content())
    read = copy.deepcopy(state["review"])
    assert read["cards"], "the recogniser found no card on the photo"
    assert page.locator(".boxes .card-box").count() == len(read["cards"])
    assert page.locator(".tags .tag").count() == len(read["cards"])
    shot(page, artifacts, f"{device}-5-review")

    # the live scores are the scorer's for what was read
    record = {"edition": "original", "players": PLAYERS, "rounds": [round_from_review(read, PLAYERS)]}
    as_read = points_of(record)
    assert round_points(page) == as_read

    # --- correct one card on the photo, with the searchable picker
    loose = [c for c in read["cards"] if c["on"] is None and not any(o["on"] == c["id"] for o in read["cards"])]
    target = next((c for c in loose if c["seat"] == 1), loose[0])
    new_label, new_name = ("sashimi", "Sashimi") if target["label"] != "sashimi" else ("tempura", "Tempura")
    box = page.locator(f'.boxes .card-box[data-id="{target["id"]}"] rect')
    scale = box.bounding_box()["width"] / (target["box"][2] - target["box"][0])
    point = free_point(target, read["cards"])
    press(box, touch, position={"x": point["x"] * scale, "y": point["y"] * scale})
    picker = page.locator("#picker")
    picker.wait_for(state="visible")
    shot(page, artifacts, f"{device}-6-picker", full_page=False)  # the dialog is fixed to the screen
    page.locator("#picker-search").fill(new_name[:4].lower())
    press(picker.locator(f'.pick[data-slug="{new_label}"]'), touch)
    picker.wait_for(state="hidden")
    scored = wait_for_scores(page, scored)
    chip = page.locator(f'.seat-card .chip-btn[data-id="{target["id"]}"]')
    assert chip.inner_text() == new_name

    target["label"], target["confidence"] = new_label, None
    record["rounds"] = [round_from_review(read, PLAYERS)]
    corrected = points_of(record)
    assert round_points(page) == corrected

    if not touch:
        # draw a card the camera missed, name it with a number key, then undo it and the
        # correction from the keyboard, and redo the correction
        cards = page.locator(".boxes .card-box").count()
        page.get_by_role("button", name=re.compile("Draw")).click()
        overlay = page.locator("svg.overlay").first
        frame = overlay.bounding_box()
        scale = frame["width"] / state["photos"][0]["width"]
        x1, y1, x2, y2 = (v * scale for v in empty_corner(state["photos"][0], read["cards"]))
        page.mouse.move(frame["x"] + x1, frame["y"] + y1)
        page.mouse.down()
        page.mouse.move(frame["x"] + (x1 + x2) / 2, frame["y"] + (y1 + y2) / 2, steps=4)
        page.mouse.move(frame["x"] + x2, frame["y"] + y2, steps=4)
        page.mouse.up()
        picker.wait_for(state="visible")
        page.keyboard.press("1")
        picker.wait_for(state="hidden")
        scored = wait_for_scores(page, scored)
        assert page.locator(".boxes .card-box").count() == cards + 1
        shot(page, artifacts, f"{device}-7-drawn-card")
        assert page.get_by_role("button", name=re.compile("Draw")).get_attribute("aria-pressed") == "false"

        page.keyboard.press("Control+z")
        scored = wait_for_scores(page, scored)
        assert page.locator(".boxes .card-box").count() == cards
        assert round_points(page) == corrected
        page.keyboard.press("Control+z")
        scored = wait_for_scores(page, scored)
        assert round_points(page) == as_read
        page.keyboard.press("Control+Shift+z")
        scored = wait_for_scores(page, scored)
        assert round_points(page) == corrected
        assert chip.inner_text() == new_name

    # --- confirm: the scoreboard shows the scorer's numbers for the corrected round
    press(page.get_by_role("button", name="Confirm round 1"), touch)
    page.wait_for_url(re.compile(r"/games/\d+#round-1$"))
    shot(page, artifacts, f"{device}-8-scoreboard")
    expected = score_record(record)
    for player in PLAYERS:
        row = page.locator(f'tr[data-player="{player}"]')
        assert row.locator('[data-round="1"]').inner_text() == str(expected["players"][player]["rounds"][0])
        assert row.locator('[data-col="total"]').inner_text() == str(expected["players"][player]["total"])
    exported = page.request.get(game_url + "/record.json").json()
    assert exported["rounds"] == record["rounds"]

    page.goto(live_server + "/")
    shot(page, artifacts, f"{device}-9-home")
    assert errors == []
    context.close()


def drag(page, frame: dict, scale: float, box) -> None:
    x1, y1, x2, y2 = (v * scale for v in box)
    page.mouse.move(frame["x"] + x1, frame["y"] + y1)
    page.mouse.down()
    page.mouse.move(frame["x"] + (x1 + x2) / 2, frame["y"] + (y1 + y2) / 2, steps=3)
    page.mouse.move(frame["x"] + x2, frame["y"] + y2, steps=3)
    page.mouse.up()


def test_seat_areas_are_set_once_and_remembered(browser, live_server, table_photo, artifacts):
    """Draw where each player sits on round 1's photo; round 2's photo is split by those areas."""
    photo_path, truth = table_photo
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(live_server + "/games/new")
    page.locator('label.tile:has(input[value="original"])').click()
    for i, name in enumerate(PLAYERS):
        page.get_by_label(f"Player {i + 1}").fill(name)
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_url = page.url
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(str(photo_path))
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"), timeout=120_000)
    wait_for_scores(page)
    state = json.loads(page.locator("#review-state").text_content())
    photo = state["photos"][0]

    # each seat's area around its cards, except that Ben and Cid are swapped on purpose
    def area(seat: int) -> tuple[float, ...]:
        boxes = [c["box"] for c in truth["cards"] if c["seat"] == seat and c["box"]]
        pad = 0.02 * photo["width"]
        return (min(b[0] for b in boxes) - pad, min(b[1] for b in boxes) - pad,
                max(b[2] for b in boxes) + pad, max(b[3] for b in boxes) + pad)

    drawn = {"Ann": area(0), "Ben": area(2), "Cid": area(1)}
    page.get_by_role("button", name=re.compile("Seat")).click()
    frame = page.locator("svg.overlay").bounding_box()
    scale = frame["width"] / photo["width"]
    for player in PLAYERS:
        page.locator("#seat-area-players").get_by_role("button", name=player).click()
        drag(page, frame, scale, drawn[player])
    page.screenshot(path=str(artifacts / "desktop-seat-areas.png"), full_page=True)
    page.get_by_role("button", name="Save areas").click()
    page.get_by_role("status").filter(has_text="Seat areas saved").wait_for()
    assert page.locator("#seat-area-bar").is_hidden()
    wait_for_scores(page)

    # every card moved to the seat whose area holds its centre: Ben now has Cid's side
    def inside(card, box) -> bool:
        x, y = (card["box"][0] + card["box"][2]) / 2, (card["box"][1] + card["box"][3]) / 2
        return box[0] <= x <= box[2] and box[1] <= y <= box[3]

    read = state["review"]["cards"]
    names = {c["slug"]: c["name"] for c in state["cards"]}
    in_area = {p: sorted(c["label"] for c in read if inside(c, drawn[p])) for p in PLAYERS}
    assert in_area["Ben"] and in_area["Cid"]
    # an unsure read is marked "? Name" on its chip; the name is what moved with the seat
    ben_chips = [
        text.removeprefix("? ")
        for text in page.locator('.seat-card[data-player="Ben"] .chip-btn').all_inner_texts()
    ]
    assert sorted(ben_chips) == sorted(names[label] for label in in_area["Ben"])
    page.get_by_role("button", name="Confirm round 1").click()
    page.wait_for_url(re.compile(r"#round-1$"))

    # round 2: the areas are remembered and split the new photo (the same table again)
    page.get_by_role("link", name=re.compile("Photograph round 2")).click()
    assert "seat areas are saved" in page.locator(".mode-panel[data-mode=table]").inner_text()
    page.locator('input[name="table"]').set_input_files(str(photo_path))
    page.get_by_role("button", name="Read the cards").click()
    page.wait_for_url(re.compile(r"/rounds/2/review$"), timeout=120_000)
    wait_for_scores(page)
    state = json.loads(page.locator("#review-state").text_content())
    assert len(state["game"]["seatAreas"]) == 3
    for seat, player in enumerate(PLAYERS):
        assert sorted(c["label"] for c in state["review"]["cards"] if c["seat"] == seat) == in_area[player]
    page.close()
