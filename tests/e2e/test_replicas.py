"""Two app replicas on different ports share one PostgreSQL: what one saves, the other lists and
loads with identical results. Real Chromium through Playwright; a scenario file is uploaded in the
browser, its HTML name is shown as text, never as markup.
"""

from __future__ import annotations

import json

import pytest
from browser_helpers import (
    ROOT,
    AppServer,
    expected_tco,
    open_compare,
    open_page,
    require_browser,
    settle,
    sign_in,
    wait_for,
)

import costmodel
import store
from store import accounts

PASSWORD = "replica test password"
SHOTS = ROOT / "out" / "screenshots"
HOSTILE = '<img src=x onerror="window.__pwned=1"> Replica **deal**'


@pytest.fixture(scope="module")
def replicas(pg_server, tmp_path_factory):
    require_browser()
    work = tmp_path_factory.mktemp("replicas")
    users = work / "users.json"
    accounts.add_user(users, "alice", PASSWORD)
    url = pg_server.new_database()
    env = {"DATABASE_URL": url, "FABRIC_TCO_USERS": str(users)}
    apps = [AppServer("replica-a", env), AppServer("replica-b", env)]
    for app in apps:
        app.wait_ready()
    yield url, apps
    for app in apps:
        app.stop()


def _sign_in(page) -> None:
    sign_in(page, "alice", PASSWORD)


def test_saved_on_one_replica_loads_identically_on_the_other(replicas, browser, tmp_path):
    url, (a, b) = replicas
    scen = costmodel.Scenario(name=HOSTILE, cluster={"nodes": 48}, fabrics=["tcp-200", "roce-200", "ib-ndr-400"],
                              baseline="tcp-200")
    upload = tmp_path / "customer.json"
    upload.write_text(json.dumps(scen.model_dump(mode="json")), encoding="utf-8")

    # replica A: sign in, upload the file, save it
    ctx_a, page = open_page(browser, f"{a.base}/scenarios?lang=en&cur=USD")
    _sign_in(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    page.get_by_text("Imported “").wait_for()
    settle(page)
    body = page.inner_text("body")
    assert "<img src=x" in body  # shown as text ...
    assert page.evaluate("() => window.__pwned") is None  # ... never run
    assert page.locator("img[src='x']").count() == 0
    page.get_by_role("button", name="Save as new scenario").click()
    page.get_by_text("as version 1.").wait_for()
    expected = expected_tco(scen)
    assert wait_for(page, lambda: open_compare(page), expected) == expected
    ctx_a.close()

    saved = store.open_store(url)
    [info] = saved.list_scenarios("local:alice")
    assert saved.load("local:alice", info.id).scenario() == scen
    saved.engine.dispose()

    # replica B: a new browser session lists it and loads the same numbers
    ctx_b, page = open_page(browser, f"{b.base}/scenarios?lang=en&cur=USD")
    _sign_in(page)
    table = page.locator('[data-testid="stDataFrame"]').first
    table.wait_for()
    page.get_by_role("button", name="Load latest").click()
    page.get_by_text("Loaded “").wait_for()
    settle(page)
    assert wait_for(page, lambda: open_compare(page), expected) == expected
    assert page.evaluate("() => window.__pwned") is None
    # the sales engineer's pages, for the eye (out/screenshots/)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for link, shot in (("Scenarios", "scenarios-sales-en.png"), ("Price books", "price-books-en.png")):
        page.get_by_role("link", name=link).click()
        page.wait_for_selector(f"h1:has-text('{link}')")
        settle(page)
        page.set_viewport_size({"width": 1500, "height": 2400})
        page.wait_for_timeout(800)
        assert page.locator('[data-testid="stException"]').count() == 0, link
        page.screenshot(path=str(SHOTS / shot), full_page=True)
    ctx_b.close()
