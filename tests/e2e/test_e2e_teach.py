"""The teach page's Retrain button in a real browser: what it asks the server to start."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize("finder", [False, True])
def test_the_retrain_button_sends_the_detector_box(browser, scripted_server, artifacts, finder):
    """The button posts the form by script: the box beside it must reach the server with it
    (the retraining is answered here, not run)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    posted: list[str] = []

    def answer(route):
        posted.append(route.request.post_data or "")
        route.fulfill(status=202, content_type="application/json",
                      body=json.dumps({"state": "running", "pid": 1, "status_url": "/teach/retrain/status"}))

    page.route("**/teach/retrain", answer)
    page.goto(f"{scripted_server}/teach")
    if finder:
        page.locator("#retrain-detector").check()
    page.locator("#retrain-button").click()
    page.wait_for_function("() => document.getElementById('retrain-button').disabled")
    page.screenshot(path=str(artifacts / f"teach-retrain-{'detector' if finder else 'classifier'}.png"), full_page=True)
    assert len(posted) == 1
    assert ('name="detector"' in posted[0]) == finder
    assert 'name="csrf_token"' in posted[0]
    assert not errors
