"""A customer's hand-off to sales in a real browser: a customer requests a quote on the Report page; a
sales engineer signs in, sees the request, opens it, makes the numbered quote and exports its PDF with
the number, customer and author on the cover; another customer sees neither the request nor the page.
Needs Debian's Chromium (fails under CI=true without it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_helpers import TIMEOUT_MS, AppServer, open_page, require_browser, settle, sign_in
from pypdf import PdfReader

from store import accounts
from webui.i18n.translator import catalog

PASSWORD = "correct horse battery"
EXCEPTION = '[data-testid="stException"]'
COMPANY = "Orbital <b>Compute</b> Ltd"  # shown as typed, never as markup
EN, ZH = catalog("en"), catalog("zh")


@pytest.fixture(scope="module")
def server():
    require_browser()
    accounts.add_user(Path(os.environ["FABRIC_TCO_USERS"]), "dana", PASSWORD, replace=True)
    app = AppServer("handoff").wait_ready()
    yield app.base
    app.stop()


def _nav(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    settle(page)


def _request_a_quote(page, t: dict) -> None:
    form = page.locator('[data-testid="stForm"]')
    form.get_by_role("textbox", name=t["handoff.name"], exact=True).fill("Wang Fang")
    form.get_by_role("textbox", name=t["handoff.company"], exact=True).fill(COMPANY)
    form.get_by_role("textbox", name=t["handoff.contact"], exact=True).fill("ring me")  # refused: named
    form.get_by_role("button", name=t["handoff.submit"]).click()
    settle(page)
    reason = t["handoff.field_error"].format(field=t["handoff.contact"], reason=t["handoff.reason.contact_format"])
    page.get_by_text(reason).wait_for()
    form.get_by_role("textbox", name=t["handoff.contact"], exact=True).fill("wang.fang@orbital.example")
    form.get_by_role("button", name=t["handoff.submit"]).click()
    sent = t["handoff.sent"].format(name="Wang Fang", contact="wang.fang@\u2060orbital.example")
    page.get_by_text(sent).wait_for()  # (a word joiner after "@" keeps the address from becoming a link)
    settle(page)


def _another_customer_sees_nothing(browser, server) -> None:
    context, page = open_page(browser, f"{server}/requests?lang=en")
    try:
        assert page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=EN["handoff.nav"]).count() == 0
        assert page.get_by_text("Orbital").count() == 0
        assert page.get_by_role("heading", name=EN["handoff.title"]).count() == 0
        page.goto(f"{server}/report?lang=en")  # (the app answers /requests with its "page not found" dialog)
        page.wait_for_selector("h1")
        settle(page)
        assert page.get_by_text("Orbital").count() == 0 and page.get_by_text("Wang Fang").count() == 0
        assert page.get_by_role("button", name=EN["handoff.submit"]).count() == 1  # their own, empty form
    finally:
        context.close()


def test_a_customer_asks_sales_numbers_the_quote_and_another_customer_sees_nothing(browser, server, tmp_path):
    customer, page = open_page(browser, f"{server}/report?lang=zh&cur=USD")
    try:
        _request_a_quote(page, ZH)
        assert page.locator(EXCEPTION).count() == 0
    finally:
        customer.close()
    _another_customer_sees_nothing(browser, server)

    sales, page = open_page(browser, f"{server}/scenarios?lang=en&cur=USD")
    try:
        sign_in(page, "dana", PASSWORD)
        _nav(page, EN["handoff.nav"])
        picker = page.get_by_role("combobox", name=EN["handoff.pick"])
        picker.wait_for()
        assert f"{COMPANY} · Wang Fang" in picker.input_value()  # shown as typed
        page.get_by_role("button", name=EN["handoff.open"]).click()
        settle(page)
        page.get_by_text(EN["handoff.opened"].format(company=COMPANY)).wait_for()
        form = page.locator('[data-testid="stForm"]')
        assert form.get_by_role("textbox", name=EN["handoff.customer"], exact=True).input_value() == COMPANY
        form.get_by_role("textbox", name=EN["handoff.project"], exact=True).fill("Training pod 2027")
        form.get_by_role("button", name=EN["handoff.make"]).click()
        settle(page)
        made = page.get_by_text(re.compile(r"Numbered quote FT-\d{4}-\d{6} saved"))
        made.wait_for()
        number = re.search(r"FT-\d{4}-\d{6}", made.inner_text()).group(0)

        _nav(page, EN["nav.report"])
        page.get_by_text(EN["handoff.report_note"].format(number=number, customer=COMPANY)).wait_for()
        page.get_by_role("button", name="Prepare the PDF").click()
        page.get_by_text("Your PDF is ready.").wait_for(timeout=240_000)
        with page.expect_download(timeout=TIMEOUT_MS) as info:
            page.get_by_role("button", name="Download").first.click()
        path = tmp_path / "quote.pdf"
        info.value.save_as(path)
        cover = PdfReader(str(path)).pages[0].extract_text()
        for text in (number, "Orbital <b>Compute</b>", "Training pod 2027", "dana", EN["prop.valid"]):
            assert text in cover, (text, cover[:800])
        assert page.locator(EXCEPTION).count() == 0
    finally:
        sales.close()
    _another_customer_sees_nothing(browser, server)
