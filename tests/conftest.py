"""Fixtures shared by every test folder."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


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
