"""In Chromium, as a user types: ``1e12`` and ``2.5`` in 节点数 are refused with the field's label and
range (an integer box would read them as 1 and 2 without a word), and a 200 KB ``?s=`` link opens the
page with a message in Chinese instead of the browser's "This page isn't working"."""

from __future__ import annotations

import os
import re

import pytest
from browser_helpers import AppServer, open_page, require_browser, settle

from webui.i18n import catalog

ZH = catalog("zh")


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("typed", port=int(os.environ.get("E2E_PORT", "0")) or None).wait_ready()
    yield app.base
    app.stop()


def _type_nodes(page, text: str) -> str:
    """Type ``text`` into 节点数 as a person does (select all, type, Tab away); the alerts shown after."""
    box = page.get_by_role("spinbutton", name=ZH["field.cluster.nodes"])
    box.click()
    box.press("Control+a")
    box.press_sequentially(text)
    box.press("Tab")
    settle(page)
    return " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())


def _nodes_shown(page) -> str:
    return page.get_by_role("spinbutton", name=ZH["field.cluster.nodes"]).input_value()


@pytest.mark.parametrize(("typed", "expect"), [("1e12", "1,000,000,000,000 超出允许范围 1 … 10 万"),
                                               ("2.5", "2.5 不是整数")])
def test_a_typed_number_is_refused_with_the_field_and_its_range_not_cut(browser, server, typed, expect):
    context, page = open_page(browser, server + "/?lang=zh", locale="zh-CN")
    try:
        page.get_by_role("link", name=ZH["nav.cluster"]).click()
        page.wait_for_selector(f"h1:has-text('{ZH['cluster.title']}')")
        settle(page)
        before = _nodes_shown(page)
        shown = _type_nodes(page, typed)
        assert ZH["field.cluster.nodes"] in shown and expect in shown, shown
        assert _nodes_shown(page) == before  # the box shows the value the model kept
        shown = _type_nodes(page, "48")
        assert "超出" not in shown and "不是整数" not in shown
        assert _nodes_shown(page) == "48"
    finally:
        context.close()


def test_a_200_kb_link_opens_the_page_and_says_why_it_cannot_be_used(browser, server):
    token = "3." + "A" * 200_000
    context, page = open_page(browser, f"{server}/?lang=zh&p=blank&s={token}", locale="zh-CN")
    try:
        shown = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
        assert "200,002 个字符" in shown and "8,192" in shown, shown
        assert re.search(r"“方案”页", shown)
    finally:
        context.close()
