"""The Report page in a real browser: the PDF waits in the server's queue (the page shows how many
reports are ahead), file names carry the scenario's current title, and every download shows money
in the currency the page names."""

from __future__ import annotations

import csv
import io

import pytest
from browser_helpers import TIMEOUT_MS, AppServer, open_page, require_browser, settle
from pypdf import PdfReader

import costmodel
from webui import share
from webui.i18n import Translator
from webui.titles import file_stem, scenario_title


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("report").wait_ready()
    yield app.base
    app.stop()


def _intro(page) -> str:
    return page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').first.inner_text()


def test_pdf_waits_in_the_queue_with_its_position_then_downloads(browser, server, tmp_path):
    # today's preset by a current-format link (a bare ?p= link opens the preset format 1 froze, which
    # differs from today's since issue 13 gave the presets an equal-work target: its title says "modified")
    token = share.encode(costmodel.load_preset("seed-case2-24xA100"), "seed-case2-24xA100")
    url = f"{server}/report?p=seed-case2-24xA100&s={token}&lang=en&cur=CNY"
    ctx_a, a = open_page(browser, url)
    ctx_b, b = open_page(browser, url)
    try:
        a.get_by_role("button", name="Prepare the PDF").click()
        b.get_by_role("button", name="Prepare the PDF").click()
        b.get_by_text("1 report ahead of yours.").wait_for(timeout=TIMEOUT_MS)
        b.get_by_role("button", name="Prepare the PDF").wait_for(state="detached")  # one job per session
        a.get_by_text("Your PDF is ready.").wait_for(timeout=180_000)
        title = Translator("en")("preset.seed-case2-24xA100")
        with a.expect_download(timeout=TIMEOUT_MS) as info:
            a.get_by_role("button", name="Download").first.click()
        assert info.value.suggested_filename == f"{file_stem(title)}-en.pdf"
        path = tmp_path / "a.pdf"
        info.value.save_as(path)
        settle(a)
        reader = PdfReader(str(path))
        assert reader.metadata.title == title
        text = " ".join(p.extract_text() for p in reader.pages)
        assert "money in CNY" in text and "in CNY" in _intro(a)  # the page names the PDF's currency
        a.wait_for_timeout(1000)
        settle(a)
        with a.expect_download(timeout=TIMEOUT_MS) as info:
            a.get_by_role("button", name="Download").nth(2).click()  # yearly CSV (the workbook is not prepared)
        rows = list(csv.DictReader(io.StringIO(info.value.path().read_bytes().decode("utf-8-sig"))))
        assert {r["currency"] for r in rows} == {"CNY"}
        b.get_by_text("Your PDF is ready.").wait_for(timeout=180_000)
        assert b.locator('[data-testid="stException"]').count() == 0
    finally:
        ctx_a.close()
        ctx_b.close()


def test_file_names_follow_the_changed_scenario_in_chinese(browser, server):
    preset = "seed-intro-32xA100"
    data = costmodel.load_preset(preset).model_dump()
    data["cluster"]["nodes"] = 256
    changed = costmodel.Scenario.model_validate(data)
    token = share.encode(changed, preset)
    title = scenario_title(changed, preset, Translator("zh"))
    assert title == "256 × A100 80 GB · 500 亿参数 · 训练"  # made from what it is, never "（已修改）"
    context, page = open_page(browser, f"{server}/report?p={preset}&s={token}&lang=zh")
    try:
        assert title in _intro(page)
        page.get_by_role("button", name="生成工作簿").click()  # the workbook is built on request
        page.get_by_role("button", name="下载").nth(2).wait_for(timeout=TIMEOUT_MS)
        settle(page)
        with page.expect_download(timeout=TIMEOUT_MS) as info:
            page.get_by_role("button", name="下载").first.click()  # the Excel workbook
        assert info.value.suggested_filename == f"{file_stem(title)}.xlsx"
        settle(page)
        with page.expect_download(timeout=TIMEOUT_MS) as info:
            page.get_by_role("button", name="下载").nth(1).click()  # results CSV
        assert info.value.suggested_filename == f"{file_stem(title)}-results.csv"
        data = info.value.path().read_bytes()
        assert data[:3] == b"\xef\xbb\xbf"
    finally:
        context.close()


def test_excel_and_csv_download_while_other_sessions_wait_for_a_pdf(browser, server):
    """A file built at click time was stored unreferenced and deleted by other sessions' runs (the
    PDF queue polls) before the browser fetched it: the download was cancelled."""
    url = f"{server}/report?p=seed-intro-32xA100&lang=en"
    waiting = [open_page(browser, url) for _ in range(3)]
    ctx_b, b = open_page(browser, url)
    try:
        for _, a in waiting:
            a.bring_to_front()
            a.get_by_role("button", name="Prepare the PDF").click()
        b.bring_to_front()
        b.get_by_role("button", name="Prepare the workbook").click()  # built on request, then kept as bytes
        b.get_by_role("button", name="Download").nth(2).wait_for(timeout=TIMEOUT_MS)
        settle(b)
        for i in range(5):
            b.bring_to_front()
            with b.expect_download(timeout=TIMEOUT_MS) as info:
                b.get_by_role("button", name="Download").nth(i % 3).click()
            assert info.value.path().stat().st_size > 100  # completed, not cancelled
            b.wait_for_timeout(700)
    finally:
        for ctx, _ in waiting:
            ctx.close()
        ctx_b.close()
