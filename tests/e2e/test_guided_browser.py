"""The quick estimate (快速估算) in Chromium, as a customer who arrives cold: three steps — a 70 B
model, 64 H800 GPUs, time first — reach the recommended fabric with its reason; the estimate's link,
opened in a fresh browser, lands on the Compare page with the same scenario (title, node count,
TCO cards as the model computes them) and the Cluster page shows the same inputs.
Screenshots of every step land in out/guided-<lang>-step<N>.png."""

from __future__ import annotations

import pytest
from browser_helpers import ROOT, AppServer, open_page, require_browser, settle

import costmodel
from costmodel.analysis import guided as analysis
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.loader import load_catalog
from costmodel.scenario import guided, locale_defaults
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import Translator
from webui.inputs.widgets import _label
from webui.session import share, titles

EXCEPTION = '[data-testid="stException"]'
MODEL, GPU, GPUS, PRIORITY = "dense-70b", "h800", 64, "time"


@pytest.fixture(scope="module")
def server():
    require_browser()
    app = AppServer("guided").wait_ready()
    yield app.base
    app.stop()


def _shot(page, lang: str, n: int) -> None:
    (ROOT / "out").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "out" / f"guided-{lang}-step{n}.png"), full_page=True)


def _click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    settle(page)
    assert page.locator(EXCEPTION).count() == 0


def _walk(page, t: Translator, lang: str) -> None:
    """The three steps as a person takes them, a screenshot after each."""
    page.get_by_role("combobox", name=t("guided.model")).click()
    page.get_by_role("option", name=guided.models()[MODEL].label(lang), exact=True).click()
    settle(page)
    _shot(page, lang, 1)
    _click(page, t("guided.next"))
    page.get_by_role("combobox", name=t("guided.gpu")).click()
    page.get_by_role("option", name=load_catalog().gpus[GPU].name, exact=True).click()
    settle(page)
    box = page.get_by_role("spinbutton", name=t("guided.gpus"))
    box.fill(str(GPUS))
    box.press("Enter")
    settle(page)
    page.get_by_text(t("guided.servers", nodes="8", per=8, gpus="64"), exact=True).wait_for()
    _shot(page, lang, 2)
    _click(page, t("guided.next"))
    page.get_by_text(t(f"guided.priority_{PRIORITY}"), exact=True).click()
    settle(page)
    _click(page, t("guided.show"))


@pytest.mark.parametrize("lang, locale", [("zh", "zh-CN"), ("en", "en-US")])
def test_three_steps_reach_a_recommendation_and_its_link_reopens_the_scenario_on_compare(browser, server, lang,
                                                                                         locale):
    t = Translator(lang)
    want = guided.build(locale_defaults.localize(share.preset_scenario(share.BLANK), lang), MODEL, GPU, 8, PRIORITY)
    res = costmodel.evaluate(want)
    fabric = fabric_names(lang)[analysis.pick(res, PRIORITY)]
    context, page = open_page(browser, f"{server}/guided?lang={lang}", height=2200, locale=locale)
    assert page.locator("h1").inner_text() == t("guided.title")
    _walk(page, t, lang)
    page.get_by_text(t("guided.answer", fabric=fabric), exact=True).wait_for()
    page.get_by_role("link", name=t("guided.open_compare")).wait_for()  # the page's last rerun has drawn
    page.locator('[data-testid="stMetricValue"]').first.wait_for()
    settle(page)
    _shot(page, lang, 3)
    assert page.locator('[data-testid="stMarkdown"]', has_text=fabric).count() >= 1  # the one-sentence reason
    code = page.locator('[data-testid="stMain"] [data-testid="stCode"]').filter(has_text="?p=blank")
    link = code.inner_text().strip()
    assert link.startswith(server + "/?p=blank&s="), link  # the app's root: the Compare page
    context.close()

    context, page = open_page(browser, link, locale="en-US")  # a fresh browser: only the link carries the scenario
    assert page.locator("h1").inner_text() == t("compare.title")
    title = titles.scenario_title(want, share.BLANK, t)
    page.get_by_text(t("compare.fixed_title", nodes="8"), exact=True).wait_for()
    page.wait_for_timeout(1500)  # plotly draws after the script run
    _shot(page, lang, 4)
    assert page.locator('[data-testid="stCaptionContainer"]', has_text=title).count() >= 1, title
    cur = res.currency
    money = Money(cur, cur, default_rate(cur, cur), lang)
    cards = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    assert {money.short(f.tco_total) for f in res.fabrics} <= set(cards), cards
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=t("nav.cluster"), exact=True).click()
    page.wait_for_selector("h1")
    settle(page)
    assert page.get_by_role("spinbutton", name=_label(t, "cluster.nodes")).input_value() == "8"
    assert float(page.get_by_role("spinbutton", name=_label(t, "workload.model_params_b")).input_value()) == 70
    gpu_box = page.get_by_role("combobox", name=t("field.cluster.gpu"))
    assert gpu_box.input_value() == load_catalog().gpus[GPU].name, gpu_box.input_value()
    context.close()
