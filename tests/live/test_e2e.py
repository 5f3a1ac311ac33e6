"""The live page in a real headless Chromium: camera on, frames sent, turns and scores shown."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from vision.detections import Detections

pytestmark = pytest.mark.e2e
SHOTS = os.environ.get("SUSHICAM_SCREENSHOTS")  # a folder to keep a screenshot in, if set


class TwoCardsRecognizer:
    """Whatever the fake camera shows: an empty table at first (the game has not started),
    then Ann (bottom) lays a tempura and Ben (top) an eel."""

    def __init__(self):
        self.started = None

    def detect(self, image_bgr):
        self.started = self.started or time.monotonic()
        if time.monotonic() - self.started < 2.0:
            return Detections.empty()
        h, w = image_bgr.shape[:2]
        boxes = [[0.4 * w, 0.6 * h, 0.5 * w, 0.9 * h], [0.4 * w, 0.1 * h, 0.5 * w, 0.4 * h]]
        return Detections(xyxy=np.array(boxes, np.float32), confidence=np.array([0.9, 0.9]),
                          data={"label": np.array(["tempura", "eel"], dtype=object)})


@pytest.fixture
def live_url(tmp_path, serve_app):
    config = {"DATA_DIR": str(tmp_path / "data"), "RECOGNIZER_FACTORY": TwoCardsRecognizer}
    with serve_app(config) as url:
        yield url


def test_the_page_streams_the_camera_and_shows_the_turn_and_the_scores(browser, live_url):
    page = browser.new_page()
    page.goto(f"{live_url}/live/")
    page.fill("input[name=players]", "Ann, Ben")
    page.check("input[name=edition][value=party]")
    page.click("button[type=submit]")
    page.wait_for_url("**/live/*")
    page.click("#live-start")
    # the turn is read once both cards have lain still for a couple of seconds
    page.wait_for_selector("#live-turns li", timeout=20_000)
    assert "Ann: Tempura · Ben: Eel" in page.inner_text("#live-turns")
    assert page.inner_text('tr[data-player="Ben"] [data-col="total"]') == "-3"
    assert page.inner_text('tr[data-player="Ann"] [data-round="1"]') == "0"
    assert "frames/s" in page.inner_text("#live-fps")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/live-page.png", full_page=True)
    page.click("#live-stop")
    page.close()


def test_the_live_page_fits_a_phone_and_a_turn_is_fixed_there(browser, live_url):
    """On a 390 px wide phone nothing is wider than the screen (it was 511 px), the cards are
    named as printed, and a turn is fixed in the page before saving."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True,
                            has_touch=True)
    page.goto(f"{live_url}/live/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.fill("input[name=players]", "Annabelle, Benedict")
    page.check("input[name=edition][value=party]")
    page.click("button[type=submit]")
    page.wait_for_url("**/live/*")
    page.click("#live-start")
    page.wait_for_selector("#live-turns li", timeout=40_000)  # the machine may be busy
    assert "Annabelle: Tempura · Benedict: Eel" in page.inner_text("#live-turns")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("#live-turns li .live-fix")
    page.wait_for_selector(".live-fix-form")
    page.fill(".live-fix-form input[name=Benedict]", "Squid Nigiri")
    page.click(".live-fix-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('#live-turns').innerText.includes('Benedict: Squid Nigiri')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/live-phone.png", full_page=True)
    page.click("#live-stop")
    page.close()
