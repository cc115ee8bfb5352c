"""The sales engineer's session in a real browser: the language switch followed by the clicks a
person makes, a sign-in that survives a reload (HttpOnly cookie), and a sign-out that ends it in
every tab. Needs Debian's Chromium (fails under CI=true without it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_helpers import AppServer, open_page, require_browser, settle, sign_in, wait_for
from playwright.sync_api import Error as PlaywrightError

from store import accounts
from webui.i18n.translator import catalog

PASSWORD = "correct horse battery"
EXCEPTION = '[data-testid="stException"]'
COOKIE = "fabric_session"


@pytest.fixture(scope="module")
def server():
    require_browser()
    accounts.add_user(Path(os.environ["FABRIC_TCO_USERS"]), "hana", PASSWORD, replace=True)
    app = AppServer("session").wait_ready()
    yield app.base
    app.stop()


def _nav(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    settle(page)


def _no_error(page, step: str) -> None:
    assert page.locator(EXCEPTION).count() == 0, f"error page after: {step}"


def _switch_language(page, to: str) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_text({"en": "English", "zh": "中文"}[to], exact=True).click()
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=catalog(to)["nav.cluster"],
                                                             exact=True).wait_for()
    settle(page)


def _change_currency(page, lang: str, currency: str) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name=catalog(lang)["app.currency"]).click()
    page.get_by_role("option", name=currency).click()
    settle(page)


def _clicks_after_the_switch(page, lang: str) -> None:
    """Navigate, change the currency, navigate again: each once crashed after a switch."""
    t = catalog(lang)
    assert re.search(rf"[?&]lang={lang}(&|$)", page.url), page.url  # the code, never "中文"/"English"
    _nav(page, t["nav.cluster"])
    _no_error(page, "navigation")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("combobox", name=t["app.currency"]).click()
    page.get_by_role("option", name="EUR").click()
    settle(page)
    _no_error(page, "currency change")
    _nav(page, t["nav.compare"])
    _no_error(page, "second navigation")
    preset = sidebar.get_by_role("combobox", name=t["app.preset"])
    assert t["preset.seed-intro-32xA100"] in preset.input_value() or t["preset.seed-intro-32xA100"] in (
        sidebar.locator('[data-testid="stSelectbox"]').first.inner_text())
    page.wait_for_selector(f"h1:has-text('{t['compare.title']}')")


@pytest.mark.parametrize(("start", "to"), [("en", "zh"), ("zh", "en")])
def test_switching_language_then_clicking_on_never_crashes(browser, server, start, to):
    context, page = open_page(browser, f"{server}/?lang={start}&cur=USD")
    _switch_language(page, to)
    _no_error(page, "language switch")
    _clicks_after_the_switch(page, to)
    _switch_language(page, start)  # and back again
    _clicks_after_the_switch(page, start)
    context.close()


def _cookie(context) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)


def _wait_cookie(page, context, present: bool = True) -> dict | None:
    for _ in range(50):
        if (_cookie(context) is not None) == present:
            break
        page.wait_for_timeout(200)
    return _cookie(context)


def test_signed_in_switch_reload_and_sign_out_everywhere(browser, server):
    en = catalog("en")
    context, page = open_page(browser, f"{server}/scenarios?lang=en")
    sign_in(page, "hana", PASSWORD)
    cookie = _wait_cookie(page, context)
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert page.evaluate("document.cookie").find(COOKIE) == -1  # page scripts cannot read it
    # the language switch, signed in
    _switch_language(page, "zh")
    _clicks_after_the_switch(page, "zh")
    _switch_language(page, "en")
    # a reload keeps the sign-in, and a reload on Price books stays on Price books
    page.goto(f"{server}/price-books?lang=en")
    page.wait_for_selector("h1")
    settle(page)
    page.reload()
    page.wait_for_selector(f"h1:has-text('{en['pb.title']}')")
    settle(page)
    assert page.get_by_text(en["app.signed_in"].format(user="hana")).count() >= 1
    # a second tab of the same browser shares the sign-in
    other = context.new_page()
    other.goto(f"{server}/scenarios?lang=en")
    other.wait_for_selector("h1")
    settle(other)
    other.get_by_role("button", name=en["auth.sign_out"]).wait_for()  # the new tab's session resumes from the cookie
    assert other.get_by_role("button", name=en["auth.sign_out"]).count() == 1
    # sign out in the first tab: it reloads into a fresh, signed-out session and the cookie is gone
    _nav(page, en["nav.scenarios"])
    page.get_by_role("button", name=en["auth.sign_out"]).click()
    page.get_by_role("button", name=en["auth.submit"]).wait_for()
    assert _wait_cookie(page, context, present=False) is None
    _reload_after_own_navigation(page)
    page.get_by_role("button", name=en["auth.submit"]).wait_for()
    # the other tab's next click finds its session ended
    _nav(other, en["nav.compare"])
    other.get_by_text(en["sess.ended"]).wait_for()
    assert other.get_by_text(en["app.signed_in"].format(user="hana")).count() == 0
    context.close()


def _reload_after_own_navigation(page, attempts: int = 5) -> None:
    """``page.reload()``; if the page's own navigation (the sign-out script's ``location.replace``, which
    follows the cookie's removal by a moment) detached or aborted the old document mid-call, wait for that
    load and reload again, up to ``attempts`` times — the reload itself is what the test checks, not the race."""
    for attempt in range(attempts):
        try:
            page.reload()
            return
        except PlaywrightError as exc:
            raced = any(race in str(exc) for race in ("Not attached to an active page", "net::ERR_ABORTED"))
            if not raced or attempt == attempts - 1:
                raise
            page.wait_for_load_state("load")
            page.wait_for_timeout(250 * (attempt + 1))  # let the page's own navigation finish


def test_user_text_that_looks_like_links_stays_inert(browser, server):
    en = catalog("en")
    context, page = open_page(browser, f"{server}/cluster?lang=en")
    name = "Deal www.evil.example https://evil.example/x ceo@evil.example"
    box = page.get_by_label(en["field.name"], exact=True)
    box.fill(name)
    box.press("Enter")
    settle(page)
    _nav(page, en["nav.compare"])
    page.wait_for_selector(f"h1:has-text('{en['compare.title']}')")
    caption = page.locator('[data-testid="stCaptionContainer"]').filter(has_text="Deal").first
    assert "evil" in caption.inner_text()
    assert page.locator("a[href*='evil']").count() == 0, "user text became a link"
    context.close()


def test_a_read_only_link_is_shown_until_copied_and_opens_on_compare(browser, server):
    en = catalog("en")
    context, page = open_page(browser, f"{server}/scenarios?lang=en")
    sign_in(page, "hana", PASSWORD)
    page.get_by_role("button", name=en["scn.save_new"]).click()
    settle(page)
    page.get_by_role("button", name=en["scn.share_new"]).click()
    settle(page)
    code = page.locator('[data-testid="stCode"]').filter(has_text="?t=")
    link = code.inner_text().strip()
    assert link.startswith(server + "/?t="), link  # the app's root: the Compare page
    assert page.get_by_role("button", name=en["scn.share_new"]).is_disabled()  # no second link by accident
    page.get_by_text(en["links.live"].format(n=1)).wait_for()
    page.get_by_role("button", name=en["links.copied"]).click()
    settle(page)
    assert wait_for(page, lambda: code.count(), 0) == 0  # the rerun may start after the status widget was checked
    assert page.get_by_role("button", name=en["scn.share_new"]).is_enabled()
    customer = browser.new_context(viewport={"width": 1500, "height": 1400}, locale="en-US")
    view = customer.new_page()
    view.goto(link)
    view.wait_for_selector(f"h1:has-text('{en['compare.title']}')")
    settle(view)
    view.locator('[data-testid="stMetricValue"]').first.wait_for()  # the results, at once
    assert view.get_by_role("button", name=en["auth.submit"]).count() == 0  # not the sign-in form
    customer.close()
    context.close()


def test_an_out_of_range_number_is_explained_on_the_page_not_in_a_tooltip(browser, server):
    en = catalog("en")
    context, page = open_page(browser, f"{server}/cluster?lang=en")
    box = page.get_by_role("spinbutton", name=en["field.cluster.nodes"])
    box.fill("999999")
    box.press("Enter")
    settle(page)
    alert = page.locator('[data-testid="stAlertContentError"]').filter(has_text=en["field.cluster.nodes"])
    alert.wait_for()
    assert "999,999" in alert.inner_text() and "100,000" in alert.inner_text()
    context.close()


def test_scale_and_risk_choices_survive_a_language_switch(browser, server):
    """Every choice widget with translated labels (Scale's metric, upgrade, parameter; Risk's fabric)."""
    zh = catalog("zh")
    context, page = open_page(browser, f"{server}/scale?lang=en&cur=USD")
    _switch_language(page, "zh")
    _change_currency(page, "zh", "EUR")  # a full rerun: every widget sends the value it holds
    _no_error(page, "a full rerun after the switch")
    page.get_by_role("tab", name=zh["scale.solver"]).click()  # the solver's tab (only the open tab runs)
    settle(page)
    page.get_by_role("combobox", name=zh["scale.parameter"]).click()
    page.get_by_role("option").nth(1).click()
    settle(page)
    _no_error(page, "solver parameter after the switch")
    page.get_by_role("tab", name=zh["chart.scale_title"]).click()
    settle(page)
    page.get_by_text(zh["metric.cost_per_run"], exact=True).click()
    settle(page)
    _no_error(page, "metric after the switch")
    _nav(page, zh["nav.risk"])
    _switch_language(page, "en")
    _change_currency(page, "en", "CNY")
    _no_error(page, "a full rerun on Risk after the switch")
    page.get_by_role("combobox", name=catalog("en")["risk.fabric"]).click()
    page.get_by_role("option").nth(1).click()
    settle(page)
    _no_error(page, "risk fabric after the switch")
    context.close()
