"""Chinese throughout: every page in zh, as a customer and as a signed-in sales engineer, shows no
Latin-script word outside a short allow-list, in a real browser (Debian's Chromium).

The walk opens every expander and tab, then reads what a person can read: the page's visible text
(KaTeX's hidden MathML copy, Material icon ligatures such as ``expand_more``, and code blocks —
share URLs, JSON — left out), every chart's SVG text (ticks, titles, legends, annotations) and its
hover texts. Tables drawn on a canvas (``st.dataframe``) are checked by ``tests/app/test_chinese.py``.
A zh screenshot of every page goes to ``docs/screenshots/zh-<page>.png``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from browser_helpers import ROOT, AppServer, open_page, require_browser, settle
from zh_words import latin_words

from store import accounts

SHOTS = ROOT / "docs" / "screenshots"
USER, PASSWORD = "alice", "chinese walk password"
PRESET = "seed-intro-32xA100"

COLLECT = """() => {
  // every visible text node on its own (chips and cells written side by side stay separate words)
  // stStatusWidget: Streamlit's own "Running… Stop" while a run is in flight, not the app's words
  const skip = '.katex, [data-testid="stIconMaterial"], code, pre, script, style, [data-testid="stSkipToContent"], '
             + '[data-testid="stStatusWidget"]';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(skip) || el.closest('svg')) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    if (node.textContent.trim()) out.push(node.textContent);
  }
  // equations: only their words (text and operators), not the run of variable letters
  document.querySelectorAll('.katex-html .text, .katex-html .mop').forEach(e => out.push(e.textContent));
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    gd.querySelectorAll('svg text').forEach(e => out.push(e.textContent));
    (gd.data || []).forEach(tr => {
      out.push(String(tr.name || ''));
      for (const key of ['hovertext', 'text']) {
        const v = tr[key];
        if (Array.isArray(v)) v.forEach(x => out.push(String(x))); else if (v) out.push(String(v));
      }
    });
  });
  return out;
}"""
@pytest.fixture(scope="module")
def server():
    require_browser()
    work = Path(tempfile.mkdtemp(prefix="fabric-tco-zh-"))
    accounts.add_user(work / "users.json", USER, PASSWORD)
    app = AppServer("zh", env={"FABRIC_TCO_USERS": str(work / "users.json"),
                               "FABRIC_TCO_DB": str(work / "store.db")}).wait_ready()
    yield app.base
    app.stop()


def _open_everything(page) -> list[str]:
    """Open every closed expander and visit every tab; returns the texts of each tab but the last."""
    closed = page.locator('[data-testid="stExpander"] details:not([open]) > summary')
    for _ in range(50):  # each click opens one; the locator then finds the next
        if closed.count() == 0:
            break
        closed.first.click()
        page.wait_for_timeout(200)
    settle(page)
    texts = []
    tabs = page.get_by_role("tab").all()
    for tab in tabs[1:]:
        texts += page.evaluate(COLLECT)
        tab.click()
        page.wait_for_timeout(500)
        settle(page)  # a run a click starts shows Streamlit's English "Stop" until it ends
    return texts


def _screenshot(page, name: str) -> None:
    """The whole page (Streamlit scrolls its main block, not the document) as docs/screenshots/zh-<name>.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
                           ".getBoundingClientRect().height + 150")
    page.set_viewport_size({"width": 1500, "height": min(max(int(height) + 40, 900), 9000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(SHOTS / f"zh-{name}.png"))


def _walk(page, name: str) -> dict[str, str]:
    """Each stray Latin word on the page now (everything opened) with a text it appears in;
    takes the page's screenshot first."""
    page.wait_for_timeout(1500)  # plotly draws after the script run
    assert page.locator('[data-testid="stException"]').count() == 0, name
    texts = _open_everything(page)
    _screenshot(page, name)
    settle(page)
    texts += page.evaluate(COLLECT)
    return {w: text.strip()[:120] for text in texts for w in latin_words(text, {USER})}


def _sign_in_zh(page) -> None:
    page.get_by_label("用户名").fill(USER)
    page.get_by_label("密码", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="登录").click()
    page.get_by_text(f"欢迎，{USER}。").wait_for()
    settle(page)


@pytest.mark.parametrize("name", ["compare", "cluster", "scale", "risk", "assumptions", "method", "report",
                                  "scenarios"])
def test_a_customer_page_in_chinese_has_no_stray_english(browser, server, name):
    path = "" if name == "compare" else name
    context, page = open_page(browser, f"{server}/{path}?p={PRESET}&lang=zh", height=1400, locale="zh-CN")
    stray = _walk(page, name)
    context.close()
    assert not stray, f"Latin-script words on the Chinese {name} page (translate them or allow-list them): {stray}"


@pytest.mark.parametrize("name", ["scenarios-sales", "price-books"])
def test_a_sales_page_in_chinese_has_no_stray_english(browser, server, name):
    context, page = open_page(browser, f"{server}/scenarios?p={PRESET}&lang=zh", height=1400, locale="zh-CN")
    _sign_in_zh(page)
    page.get_by_role("button", name="另存为新方案").click()  # so the lists, versions and links show
    settle(page)
    if name == "price-books":
        page.get_by_role("link", name="价格表").click()
        page.wait_for_selector("h1:has-text('价格表')")
        settle(page)
    stray = _walk(page, name)
    context.close()
    assert not stray, f"Latin-script words on the Chinese {name} page (translate them or allow-list them): {stray}"


def _upload(page, name: str, data: bytes, shows: str) -> None:
    """Drop a file on the uploader and wait until the page shows the text ``shows`` after it."""
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    page.get_by_text(shows).first.wait_for()
    settle(page)


def test_the_upload_box_speaks_chinese_states_the_real_limit_and_keeps_only_the_latest_message(browser, server):
    import costmodel

    context, page = open_page(browser, f"{server}/scenarios?p={PRESET}&lang=zh", height=1400, locale="zh-CN")
    box = page.locator('[data-testid="stFileUploader"]')
    assert not box.get_by_text("Drag and drop").is_visible() and not box.get_by_text("1MB").is_visible()
    assert not box.locator("button p").first.is_visible()  # Streamlit's "Upload"; ours is CSS text
    assert page.get_by_text("最大 256 KiB").is_visible()

    _upload(page, "zero.json", b'{"cluster": {"nodes": 0}}', "≥ 1 且 ≤ 100,000")
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 1
    first = errors.first.inner_text()
    assert "节点数（GPU 服务器）" in first and "≥ 1 且 ≤ 100,000" in first, first
    assert page.locator('[data-testid="stFileUploaderFile"]').count() == 0  # a fresh, empty box

    _upload(page, "broken.json", b'{"cluster": ', "不是有效的 JSON")
    assert errors.count() == 1 and "不是有效的 JSON" in errors.first.inner_text()  # the old message is gone
    assert page.locator('[data-testid="stFileUploaderFile"]').count() == 0

    good = costmodel.load_preset("seed-case1-8xA10").model_dump_json().encode()
    _upload(page, "good.json", good, "已导入")
    assert errors.count() == 0
    assert page.get_by_text("已导入").is_visible()
    assert page.locator('[data-testid="stFileUploaderFile"]').count() == 0
    context.close()
