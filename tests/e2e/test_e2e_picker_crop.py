"""The picker shows the card being fixed (cut from the photo) and leaves that card in sight;
beside each kind, a picture of it from the players' own confirmed photos; Party cards by family."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1100, "height": 900}}
RED, BLUE = (40, 40, 220), (220, 60, 30)  # BGR: a red card and a blue card on a grey table
CARDS = [("tempura", [100, 100, 300, 400], 0.9, RED), ("sashimi", [700, 450, 900, 750], 0.9, BLUE)]

# the colour at the middle of a canvas, or of an image drawn on one
MIDDLE_OF_CANVAS = """(canvas) => {
  const data = canvas.getContext("2d").getImageData(canvas.width / 2, canvas.height / 2, 1, 1).data;
  return [data[0], data[1], data[2]];
}"""
MIDDLE_OF_IMAGE = """(img) => {
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  canvas.getContext("2d").drawImage(img, 0, 0);
  const data = canvas.getContext("2d").getImageData(canvas.width / 2, canvas.height / 2, 1, 1).data;
  return [data[0], data[1], data[2]];
}"""


def coloured_photo(tmp_path) -> str:
    import cv2
    import numpy as np

    image = np.full((900, 1200, 3), 120, np.uint8)
    for _, (x1, y1, x2, y2), _, colour in CARDS:
        cv2.rectangle(image, (x1, y1), (x2, y2), colour, -1)
    path = tmp_path / "coloured.jpg"
    cv2.imwrite(str(path), image)
    return str(path)


def is_colour(rgb, bgr) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(rgb, reversed(bgr), strict=True))


def read_round(page, game_url: str, photo: str, tap: bool) -> None:
    page.goto(game_url + "/rounds/1/capture")
    page.locator('input[name="table"]').set_input_files(photo)
    button = page.get_by_role("button", name="Read the cards")
    button.tap() if tap else button.click()
    page.wait_for_url(re.compile(r"/rounds/1/review$"))
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")


def rects_meet(a, b) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] \
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_picker_shows_the_card_and_leaves_it_in_sight(device, browser, scripted_server, scripted,
                                                          tmp_path, import_game, artifacts):
    scripted.cards = [(label, box, conf) for label, box, conf, _ in CARDS]
    phone = device == "phone"
    context = browser.new_context(**(PHONE if phone else DESKTOP))
    page = context.new_page()
    game_url = import_game(page, scripted_server, {"edition": "original", "players": ["Ann", "Ben"], "rounds": []})
    read_round(page, game_url, coloured_photo(tmp_path), phone)
    for label, box, _, colour in CARDS:
        page.locator("svg.overlay").evaluate("(node) => node.scrollIntoView({block: 'center'})")
        frame = page.locator("svg.overlay").bounding_box()
        scale = frame["width"] / 1200
        x, y = frame["x"] + (box[0] + box[2]) / 2 * scale, frame["y"] + (box[1] + box[3]) / 2 * scale
        page.touchscreen.tap(x, y) if phone else page.mouse.click(x, y)
        page.locator("#picker").wait_for(state="visible")
        crop = page.locator("#picker-crop")
        assert crop.is_visible()
        assert is_colour(crop.evaluate(MIDDLE_OF_CANVAS), colour), label
        # the card being fixed is not under the picker
        page.wait_for_timeout(100)
        on_photo = page.locator(".boxes .card-box.selected rect").bounding_box()
        picker = page.locator("#picker").bounding_box()
        assert not rects_meet(on_photo, picker), (label, on_photo, picker)
        assert on_photo["y"] >= 0 and on_photo["y"] + on_photo["height"] <= page.viewport_size["height"]
        page.screenshot(path=str(artifacts / f"picker-crop-{device}-{label}.png"))
        page.locator("#picker").get_by_role("button", name="Close").click()
        page.locator("#picker").wait_for(state="hidden")
    # a card entered by hand has no crop
    page.locator('.seat-card[data-player="Ben"] .add-card').click()
    page.locator("#picker").wait_for(state="visible")
    assert not page.locator("#picker-crop").is_visible()
    context.close()


def test_each_kind_shows_a_picture_from_confirmed_rounds(browser, scripted_server, scripted, tmp_path,
                                                         import_game):
    scripted.cards = [(label, box, conf) for label, box, conf, _ in CARDS]
    page = browser.new_page(**DESKTOP)
    game_url = import_game(page, scripted_server, {"edition": "original", "players": ["Ann", "Ben"], "rounds": []})
    read_round(page, game_url, coloured_photo(tmp_path), False)
    # before any round is confirmed, no card has a picture
    page.locator('.seat-card[data-player="Ann"] .add-card').click()
    assert page.locator("#picker .pick-picture").count() == 0
    page.locator("#picker").get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Confirm round 1").click()
    page.wait_for_url(re.compile(r"/games/\d+#round-1$"))

    page.goto(game_url + "/rounds/2/review")
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    page.locator('.seat-card[data-player="Ann"] .add-card').click()
    page.locator("#picker").wait_for(state="visible")
    for label, _, _, colour in CARDS:
        picture = page.locator(f'#picker .pick[data-slug="{label}"] .pick-picture')
        picture.wait_for()
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
        assert is_colour(picture.evaluate(MIDDLE_OF_IMAGE), colour), label
    assert page.locator("#picker .pick-picture").count() == len(CARDS)  # the others have none yet
    assert page.request.get(scripted_server + "/cards/dumpling/picture.jpg").status == 404
    assert page.request.get(scripted_server + "/cards/no-such-card/picture.jpg").status == 404
    page.close()


def test_party_cards_are_grouped_by_family(browser, scripted_server, import_game):
    page = browser.new_page(**DESKTOP)
    game_url = import_game(page, scripted_server, {"edition": "party", "players": ["Ann", "Ben", "Cid"], "rounds": []})
    page.goto(game_url + "/rounds/1/review")
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    families = {c["slug"]: c["family"] for c in json.loads(page.locator("#review-state").text_content())["cards"]}
    page.locator('.seat-card[data-player="Ann"] .add-card').click()
    page.locator("#picker").wait_for(state="visible")
    heading, seen = None, []
    for node in page.locator("#picker-cards > *").all():
        if "picker-family" in (node.get_attribute("class") or ""):
            heading = node.inner_text().lower()
            seen.append(heading)
        elif node.get_attribute("data-slug"):
            assert heading == families[node.get_attribute("data-slug")], node.get_attribute("data-slug")
    assert seen[:5] == ["nigiri", "rolls", "appetizers", "specials", "desserts"], seen
    page.close()
