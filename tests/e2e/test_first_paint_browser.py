"""In Chromium, a new session sees Compare's KPI values first and its charts right after, without
any action: the first paint's one-shot fragment asks for the full page by itself."""

from __future__ import annotations

import pytest
from browser_helpers import TIMEOUT_MS, AppServer, require_browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("first-paint").wait_ready()
    yield app.base
    app.stop()


def test_a_new_session_gets_its_kpis_then_its_charts_by_itself(browser, server):
    context = browser.new_context(viewport={"width": 1500, "height": 1400}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(f"{server}/?lang=en")
        page.locator('[data-testid="stMetricValue"]').first.wait_for(timeout=TIMEOUT_MS)
        page.locator(".js-plotly-plot").nth(2).wait_for(timeout=TIMEOUT_MS)  # breakdown, cumulative, waterfall
        page.get_by_text("Drawing…").wait_for(state="detached", timeout=TIMEOUT_MS)
        page.wait_for_timeout(1500)  # the one-shot fragment does not keep rerunning the app
        assert page.locator('[data-testid="stStatusWidget"]').count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
