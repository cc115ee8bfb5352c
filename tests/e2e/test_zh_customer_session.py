"""A Chinese customer's session, walked in Chromium from a fresh en-US browser as a person would:
switch to 中文 (money turns to ¥), set 64 × H100 on the Cluster page, select every fabric, read
Compare, then download the PDF, the workbook and the CSV from the Report page.

Asserted: the title and every file name the cluster (64 × H100) — never the preset's title and never
"（已修改）"; no Latin-script word outside the allowed technical terms on any page visited or in any
file (tests/zh_words.py); the PDF's text layer holds the real characters ("网络" on the chart pages, no
Kangxi-radical look-alikes); cards and chart labels are not cut (every KPI value fits its box, every
chart tick is a fabric's whole short label, no ellipsis)."""

from __future__ import annotations

import csv
import io
import re

import openpyxl
import pytest
from browser_helpers import TIMEOUT_MS, AppServer, open_page, require_browser, settle, wait_for
from zh_words import CITED, latin_words

import costmodel
from costmodel.catalog.loader import load_catalog
from webui.i18n import labels
from webui.i18n.translator import Translator, catalog

ZH = catalog("zh")
TITLE = "64 × H100 · 500 亿参数 · 训练"
SIDEBAR = '[data-testid="stSidebar"]'
EXCEPTION = '[data-testid="stException"]'
RADICALS = re.compile("[\u2e80-\u2fdf]")  # CJK radicals supplement and Kangxi radicals

VISIBLE = """() => {
  const skip = '.katex, [data-testid="stIconMaterial"], [data-testid="stAlertDynamicIcon"], code, pre, script, '
    + 'style, [data-testid="stSkipToContent"]';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(skip) || el.closest('svg')) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const box = el.getBoundingClientRect();  // screen-reader-only live regions are 1 px boxes
    if (box.width <= 1 || box.height <= 1) continue;
    if (node.textContent.trim()) out.push(node.textContent);
  }
  document.querySelectorAll('.js-plotly-plot svg text').forEach(e => out.push(e.textContent));
  return out;
}"""
CUT_CARDS = """() => [...document.querySelectorAll('[data-testid="stMetricValue"], [data-testid="stMetricLabel"]')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 || /\\.\\.$|…$/.test(e.innerText.trim()))
  .map(e => e.innerText)"""
TICKS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => [...gd.querySelectorAll(
  '.xtick text, .ytick text')].map(e => e.textContent))"""


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("zh-session").wait_ready()
    yield app.base
    app.stop()


def _nav(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name, exact=True).click()
    page.wait_for_selector("h1")
    settle(page)
    page.wait_for_timeout(1500)  # plotly draws after the script run
    assert page.locator(EXCEPTION).count() == 0, name


def _stray(page) -> dict[str, str]:
    return {w: text.strip()[:100] for text in page.evaluate(VISIBLE) for w in latin_words(text)}


def _set_number(page, label: str, value: str) -> None:
    box = page.get_by_role("spinbutton", name=label)
    box.click()
    box.press("Control+a")
    box.press_sequentially(value)
    box.press("Tab")
    settle(page)


def _choose(page, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def _download(page, button: str, nth: int = 0):
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name=button).nth(nth).click()
    settle(page)
    return info.value


def _selected() -> int:
    """How many fabrics "select all" picks for an H100 cluster: those its server carries, at most the
    scenario's limit."""
    cat = load_catalog()
    limit = next(m.max_length for m in costmodel.Scenario.model_fields["fabrics"].metadata
                 if hasattr(m, "max_length"))
    return min(sum(cat.gpus["h100"].carries(f) for f in cat.fabrics), limit)


def _cluster(page) -> None:
    """Switch to Chinese, then 64 × H100 with every fabric selected."""
    page.locator(SIDEBAR).get_by_text("中文", exact=True).click()
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=ZH["nav.cluster"], exact=True).wait_for()
    settle(page)
    _nav(page, ZH["nav.cluster"])
    _choose(page, ZH["field.cluster.gpu"], load_catalog().gpus["h100"].name)
    _set_number(page, ZH["field.cluster.nodes"], "64")
    assert page.get_by_role("spinbutton", name=ZH["field.cluster.nodes"]).input_value() in ("64", "64.0")
    page.get_by_role("button", name=re.compile("^全选")).click()
    settle(page)
    assert not _stray(page), _stray(page)


def _compare(page) -> None:
    _nav(page, ZH["nav.compare"])
    assert TITLE in page.locator('[data-testid="stMain"]').inner_text()
    values = page.locator('[data-testid="stMain"]').inner_text()
    assert "¥" in values and "$" not in values
    assert page.evaluate(CUT_CARDS) == []
    short = {v for k, v in labels.chart_labels(Translator("zh")).items() if k.startswith(labels.SHORT_PREFIX)}
    ticks = [t for chart in page.evaluate(TICKS) for t in chart]
    assert ticks and not [t for t in ticks if "…" in t or t.endswith("..")], ticks
    first = page.evaluate(TICKS)[0]  # the breakdown: one bar per fabric, each its whole short label
    bars = [t for t in first if t in short]
    assert len(bars) == _selected(), first
    assert all(re.search(r"\d", t) for t in first if t not in short), first  # the rest: the money axis
    assert not _stray(page), _stray(page)


def _without_cited(text: str) -> str:
    """``text`` less the cited titles (tests/zh_words.py), wherever a line break split them: PDF text
    extraction drops or adds spaces where a line wrapped ("Networkingfor", "Measu rement")."""
    for phrase in sorted(CITED, key=len, reverse=True):
        pattern = r"\s*".join(re.escape(ch) for ch in phrase.replace(" ", ""))
        text = re.sub(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])", " ", text)
    return text


def _pdf(page, tmp_path) -> None:
    from pypdf import PdfReader

    page.get_by_role("button", name=ZH["rpt.pdf_prepare"]).click()
    page.get_by_text(ZH["rpt.pdf_ready"]).wait_for(timeout=240_000)
    settle(page)
    pdf = _download(page, ZH["report.download"])
    assert pdf.suggested_filename.startswith("64-H100"), pdf.suggested_filename
    pdf.save_as(tmp_path / "r.pdf")
    pages = [p.extract_text() for p in PdfReader(str(tmp_path / "r.pdf")).pages]
    assert TITLE in pages[0] and "H100" in pages[0] and "64" in pages[0]
    assert "文章引言" not in pages[0] and "已修改" not in "".join(pages)
    text = "".join(pages)
    assert not RADICALS.findall(text), sorted(set(RADICALS.findall(text)))[:20]
    charts = [p for p in pages if "网络" in p and "%" in p]
    assert len(charts) >= 2  # the summary and the chart pages name the fabrics' network in real characters
    flowing = _without_cited(" ".join(text.split()))
    stray = {w: flowing[max(0, flowing.find(w) - 60):flowing.find(w) + 60]
             for w in latin_words(flowing, _brand_words())}
    assert not stray, stray


def _brand_words() -> set[str]:
    """The Latin words a Chinese proposal carries as the brand's own: its contact (an e-mail address, a
    web address) and the text of its logo, which is a picture of the company's mark."""
    from webui.reports.brand import brand

    b = brand()
    logo = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", b.logo_svg_path.read_text(encoding="utf-8")))
    return set(re.findall(r"[A-Za-z][A-Za-z0-9]*", " ".join((b.contact.email, b.contact.web, b.contact.phone, logo))))


def _tables(page) -> None:
    page.get_by_role("button", name=ZH["progress.xlsx_prepare"]).click()
    page.get_by_role("button", name=ZH["report.download"]).nth(2).wait_for(timeout=TIMEOUT_MS)
    settle(page)
    buttons = page.get_by_role("button", name=ZH["report.download"])
    n = buttons.count()
    xlsx = _download(page, ZH["report.download"], n - 3)  # workbook, results CSV, yearly CSV: the last three
    assert xlsx.suggested_filename == "64-H100-500-亿参数-训练.xlsx", xlsx.suggested_filename
    wb = openpyxl.load_workbook(io.BytesIO(xlsx.path().read_bytes()))
    assert wb.worksheets[0].cell(1, 2).value == TITLE
    assert not {w for name in wb.sheetnames for w in latin_words(name)}, wb.sheetnames
    table = _download(page, ZH["report.download"], n - 2)
    assert table.suggested_filename.startswith("64-H100")
    rows = list(csv.DictReader(io.StringIO(table.path().read_bytes().decode("utf-8-sig"))))
    first = rows[0]
    assert (first["方案"], first["节点数"]) == (TITLE, "64") and "H100" in first["GPU"]
    assert len(rows) == _selected() == 12
    assert not {w for h in first for w in latin_words(h)}, list(first)


def test_a_chinese_customer_walks_from_the_switch_to_the_files(browser, server, tmp_path):
    context, page = open_page(browser, f"{server}/", locale="en-US", height=1600)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        _cluster(page)
        _compare(page)
        _nav(page, ZH["nav.report"])
        assert wait_for(page, lambda: TITLE in page.locator('[data-testid="stMain"]').inner_text(), True)
        assert not _stray(page), _stray(page)
        _tables(page)
        _pdf(page, tmp_path)
    finally:
        context.close()
