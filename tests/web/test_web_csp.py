"""The pages work under the Content-Security-Policy every answer carries (issue 14, item 10):
a real Chromium walks through a round and reports every CSP violation and script error."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from tests.web.conftest import ScriptedRecognizer

pytestmark = pytest.mark.e2e

CARDS = [("tempura", [40, 40, 140, 180], 0.95), ("sashimi", [400, 60, 500, 200], 0.4),
         ("wasabi", [600, 300, 700, 440], 0.9)]


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "table.jpg"
    image = np.full((600, 800, 3), 90, np.uint8)
    cv2.rectangle(image, (40, 40), (140, 180), (240, 240, 240), -1)
    cv2.imwrite(str(path), image)
    return path


def test_every_page_runs_under_the_content_security_policy(browser, serve_app, tmp_path, photo):
    recognizer = ScriptedRecognizer(CARDS)
    config = {"DATA_DIR": str(tmp_path / "data"), "RECOGNIZER_FACTORY": lambda: recognizer}
    with serve_app(config) as url:
        page = browser.new_context().new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
        page.on("console", lambda msg: problems.append(msg.text)
                if "Content Security Policy" in msg.text or msg.type == "error" else None)

        page.goto(url + "/games/new")
        page.locator('label.tile:has(input[name="edition"][value="original"])').click()
        page.get_by_label("Player 1").fill("Ann")
        page.get_by_label("Player 2").fill("Ben")
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_url(re.compile(r"/games/\d+$"))
        game = page.url

        page.goto(game + "/rounds/1/capture")
        page.locator('input[name="table"]').set_input_files(str(photo))  # previewed from a blob: URL
        page.get_by_role("button", name="Read the cards").click()
        page.wait_for_url(re.compile(r"/rounds/1/review$"))
        # the review page's script ran: it drew the boxes and fetched live scores from /api/score
        page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")  # no eval under the CSP
        assert page.locator(".boxes .card-box").count() == len(CARDS)
        page.get_by_role("button", name="Confirm round 1").click()
        page.wait_for_url(re.compile(r"/games/\d+(#round-1)?$"))

        for path in ("/", "/teach", "/live"):
            page.goto(url + path)
        page.goto(game)
        headers = page.request.get(game).headers
        assert "content-security-policy" in headers
        assert problems == []


def test_a_page_inline_script_would_be_refused(browser, serve_app, tmp_path):
    """The oracle for the test above: the policy does block what it claims to."""
    with serve_app({"DATA_DIR": str(tmp_path / "data")}) as url:
        page = browser.new_context().new_page()
        violations: list[str] = []
        page.on("console", lambda msg: violations.append(msg.text)
                if "Content Security Policy" in msg.text else None)
        page.goto(url + "/")
        page.evaluate("""() => {
            const s = document.createElement('script');
            s.textContent = 'window.ran = true';
            document.body.append(s);
        }""")
        assert page.evaluate("window.ran === undefined")
        assert violations


