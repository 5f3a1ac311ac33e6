"""Fixtures shared by every test folder."""

from __future__ import annotations

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
