"""The browser of the end-to-end tests: Debian's Chromium through Playwright, one per module."""

from __future__ import annotations

import pytest
from browser_helpers import CHROMIUM, FLAGS, require_browser


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()
