"""In Chromium, as a Chinese user types, imports and follows links: ``1e12`` and ``2.5`` in 节点数 are
refused with the field's label and range (an integer box would read them as 1 and 2 without a word);
a 200 KB ``?s=`` link opens the page with a message in Chinese instead of the browser's "This page
isn't working"; a file over the server's upload limit is refused in Chinese (no English "File must be
1.0MB or smaller") and the earlier refusal does not stay beside it; a GBK file is imported and says so."""

from __future__ import annotations

import json
import os
import re

import pytest
from browser_helpers import AppServer, open_page, require_browser, settle

from webui.i18n.translator import catalog

ZH = catalog("zh")


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("typed", port=int(os.environ.get("E2E_PORT", "0")) or None).wait_ready()
    yield app.base
    app.stop()


REFUSALS = re.compile("超出|不是整数")


def _type_nodes(page, text: str, refusal: str | None) -> str:
    """Type ``text`` into 节点数 as a person does (select all, type, Tab away); the alerts shown after.

    The rerun the Tab starts may not have begun when the page first looks settled, so this waits for
    its outcome: an alert with ``refusal`` in it, or (``refusal`` None) no refusal left on the page."""
    box = page.get_by_role("spinbutton", name=ZH["field.cluster.nodes"])
    box.click()
    box.press("Control+a")
    box.press_sequentially(text)
    box.press("Tab")
    alerts = page.locator('[data-testid="stAlert"]')
    if refusal is None:
        alerts.filter(has_text=REFUSALS).first.wait_for(state="detached")
    else:
        alerts.filter(has_text=refusal).first.wait_for()
    settle(page)
    return " ".join(alerts.all_inner_texts())


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
        shown = _type_nodes(page, typed, expect)
        assert ZH["field.cluster.nodes"] in shown and expect in shown, shown
        assert _nodes_shown(page) == before  # the box shows the value the model kept
        shown = _type_nodes(page, "48", None)
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


def _upload(page, name: str, data: bytes) -> str:
    """Choose a file in the Scenarios page's importer; the visible alerts and uploader texts after."""
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    page.wait_for_timeout(1000)
    settle(page)
    return page.evaluate("""() => {
      const box = document.querySelector('[data-testid="stFileUploader"]').closest('[class*="st-key-"]');
      const chips = box.querySelector('[data-testid="stFileChips"]');
      const after = chips ? getComputedStyle(chips, '::after').content : '';
      const alerts = [...document.querySelectorAll('[data-testid="stAlert"]')]
        .filter(a => a.checkVisibility()).map(a => a.innerText);
      return [after, ...alerts].join(' | ');
    }""")


def test_imports_answer_in_chinese_and_never_leave_an_old_refusal_beside_a_new_one(browser, server):
    context, page = open_page(browser, server + "/scenarios?lang=zh", locale="zh-CN")
    try:
        shown = _upload(page, "a.json", b'{"cluster": {"nodes": 0}}')
        assert "文件未导入" in shown and ZH["field.cluster.nodes"] in shown, shown
        shown = _upload(page, "big.json", b" " * 2_000_000 + b"{}")  # over the server's 1 MB: never sent
        assert "未导入：文件超过服务器接受的大小；文件最大 256 KiB" in shown, shown
        assert ZH["field.cluster.nodes"] not in shown and "File must" not in shown, shown
        doc = json.dumps({"name": "华东集群", "cluster": {"nodes": 16}}, ensure_ascii=False)
        shown = _upload(page, "gbk.json", doc.encode("gbk"))  # Notepad's "ANSI" on a Chinese Windows
        assert "已导入“华东集群”" in shown and "GBK" in shown, shown
        shown = _upload(page, "sjis.json", json.dumps({"name": "クラスタ"}, ensure_ascii=False).encode("shift_jis"))
        assert "另存为 UTF-8" in shown, shown
    finally:
        context.close()
