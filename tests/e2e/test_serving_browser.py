"""The Serving page (推理服务) in Chromium: opened in Chinese on the DeepSeek-V3 / H800 preset, switched to
English with the sidebar's language switch, a change of the peak demand redraws the table with the
servers the model computes. Screenshots land in out/serving-<lang>.png."""

from __future__ import annotations

import pytest
from browser_helpers import ROOT, AppServer, open_page, require_browser, settle, wait_for

from costmodel.scenario.presets import load_preset
from costmodel.scenario.validation import validate_scenario
from costmodel.serving import serving_answers
from webui.i18n.translator import Translator
from webui.inputs.widgets import _label
from webui.session import share

PRESET = "serving-deepseek-v3-h800"
EXCEPTION = '[data-testid="stException"]'
SIDEBAR = '[data-testid="stSidebar"]'


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("serving").wait_ready()
    yield app.base
    app.stop()


def _servers(peak_rps: float | None = None) -> list[str]:
    """Each fabric's servers for the preset (at ``peak_rps``), as the table writes them."""
    doc = load_preset(PRESET).model_dump(mode="json")
    if peak_rps is not None:
        doc["serving"]["peak_rps"] = peak_rps
    return [f"{r.servers:,.0f}" for r in serving_answers(validate_scenario(doc)).fabrics]


def _table_servers(page) -> list[str]:
    """The servers column (the second) of the page's first table."""
    rows = page.locator('[data-testid="stMain"] table').first.locator("tbody tr")
    return [rows.nth(i).locator("td").nth(1).inner_text().strip() for i in range(rows.count())]


def test_open_in_chinese_switch_to_english_and_change_the_demand(browser, server):
    zh, en = Translator("zh"), Translator("en")
    link = f"{server}/serving?p={PRESET}&s={share.encode(load_preset(PRESET), PRESET)}&lang=zh"  # as the app shares it
    context, page = open_page(browser, link, height=2000, locale="zh-CN")
    try:
        assert page.locator("h1").first.inner_text() == zh("serving.title")
        assert wait_for(page, lambda: _table_servers(page), _servers()) == _servers()
        (ROOT / "out").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "out" / "serving-zh.png"), full_page=True)

        page.locator(SIDEBAR).get_by_text("English", exact=True).click()
        page.wait_for_selector(f"h1:has-text('{en('serving.title')}')")
        settle(page)
        assert page.get_by_role("spinbutton", name=_label(en, "serving.peak_rps")).count() == 1

        want = _servers(300.0)
        assert want != _servers()
        box = page.get_by_role("spinbutton", name=_label(en, "serving.peak_rps"))
        box.fill("300")
        box.press("Enter")
        settle(page)
        assert wait_for(page, lambda: _table_servers(page), want) == want
        assert page.locator(EXCEPTION).count() == 0
        page.screenshot(path=str(ROOT / "out" / "serving-en.png"), full_page=True)
    finally:
        context.close()
