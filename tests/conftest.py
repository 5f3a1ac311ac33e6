"""Fixtures shared by every test folder."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings

# No test is timed (speed lives in the benchmark commands): hypothesis's 200 ms deadline per
# example fails on a loaded machine, not on a slow program
settings.register_profile("sushicam", deadline=None)
settings.load_profile("sushicam")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(autouse=True)
def english_locale(monkeypatch):
    """Every test starts in English whatever the machine's locale (``sushicam score --explain``
    follows LANGUAGE/LC_ALL/LC_MESSAGES/LANG); a test of another language sets its own."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture(scope="session")
def playwright():
    """One Playwright driver for the whole run: its sync API refuses to start a second one
    while the first is alive, so every browser fixture launches from this one."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright):
    """Debian's headless Chromium (Playwright cannot download its own here), with a fake
    camera that needs no permission prompt and shows a test pattern (the live page uses it)."""
    args = [*CHROMIUM_ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
    yield browser
    browser.close()


@contextmanager
def served(config: dict) -> Iterator[str]:
    """The real app made from ``config``, served by waitress on a free port; yields its URL."""
    from waitress.server import create_server

    from web.app import create_app

    server = create_server(create_app(config), host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def serve_app():
    """``with serve_app(config) as url:`` serves the real app on a free port for a browser."""
    return served


# The quick loop is `pytest -m "not slow and not e2e"`. Marked here, by what a test does, so a
# new test in these places is marked without remembering to:
#: a real browser: every test in tests/e2e/ and every test that drives Chromium
E2E_FILES = ("tests/e2e/", "tests/live/test_e2e.py")
#: training and retraining models, or evaluating a real model on generated sets
SLOW_FILES = ("tests/e2e/", "tests/vision/test_training.py", "tests/teach/test_retrain.py",
              "tests/live/test_model.py")
#: single tests that took more than 5 s each on the 2-core dev machine (`pytest --durations=60`)
SLOW_TESTS = (
    "tests/teach/test_teach_web.py::test_bad_uploads_are_refused_with_the_reason",
    "tests/teach/test_teach_cli.py::test_bad_input_is_one_line_on_stderr_and_status_2",
    "tests/teach/test_teach.py::test_a_photo_without_a_card_is_refused",
    "tests/live/test_turns.py::test_three_rounds_of_three_players_are_read_exactly",
    "tests/live/test_turns.py::test_a_noisier_recogniser_still_reads_three_rounds_exactly",
    "tests/scorer/test_properties.py::test_party_seat_order_does_not_change_scores",
    "tests/scorer/test_properties.py::test_split_ties_never_pay_more_than_the_pot",
    "tests/vision/test_synth.py::test_clutter_is_recorded_and_negative_crops_hold_no_card",
    "tests/vision/test_synth.py::test_tiny_dataset_is_written_in_yolo_format_with_truth",
    "tests/vision/test_cli.py::test_generate_writes_a_dataset",
)
ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unseen = set(SLOW_TESTS)
    collected: set[str] = set()
    for item in items:
        path = Path(str(item.path)).resolve()
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
        collected.add(where)
        test = f"{where}::{item.name.split('[')[0]}"
        if where.startswith(E2E_FILES) or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)
        if where.startswith(SLOW_FILES) or test in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
            unseen.discard(test)
    # a renamed test would silently join the quick loop: say so when the whole tree is collected
    # (of the files collected: a run of some files does not see the others' tests)
    unseen = {test for test in unseen if test.split("::")[0] in collected}
    if unseen:
        warnings.warn(f"SLOW_TESTS names tests that no longer exist: {sorted(unseen)}", stacklevel=1)
