"""Compare's "Own vs rent" panel renders in English and Chinese with the figures of costmodel.analysis.rent,
and says why it is empty in fabric scope or for a GPU without rental prices."""

from __future__ import annotations

import pytest
from apptest_helpers import open_details, open_page
from zh_words import latin_words

import costmodel
from costmodel.analysis import rent
from costmodel.catalog.currency import reference_rate
from costmodel.catalog.loader import load_catalog
from webui.i18n.labels import fabric_names
from webui.i18n.money import Money
from webui.i18n.translator import Translator, fmt_number

PRESET = "seed-case3-128xH100"


def _texts(at) -> list[str]:
    """The panel's texts as they read (Markdown's backslash escapes removed)."""
    return [str(e.value).replace("\\", "") for e in (*at.markdown, *at.caption, *at.info, *at.subheader)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_panel_shows_the_models_own_vs_rent_figures(lang):
    at = open_details(open_page("compare", lang, p=PRESET), "rent", lang)
    t = Translator(lang)
    texts = _texts(at)
    assert t("rent.title") in texts
    sc = at.session_state["scenario"]  # the page's scenario (the preset as the session holds it)
    o = rent.for_scenario(costmodel.evaluate(sc), sc)
    cur = {"en": "USD", "zh": "CNY"}[lang]  # the page's default display currency, at the reference rate
    money = Money("USD", cur, reference_rate("USD", cur), lang)
    names = fabric_names(t)
    tables = [x for x in texts if x.startswith("|")]
    prices, owned, rented = (next(x for x in tables if f"| {t(key)} |" in x.splitlines()[0])
                             for key in ("rent.col.class", "rent.col.owned_hour", "rent.col.rent_hours"))
    for k, cls in enumerate(o.classes):
        line = next(r for r in prices.splitlines() if r.startswith(f"| {t(f'rent.class.{cls}')} |"))
        assert [money(v, digits=2) for v in o.prices[k]] == line.split(" | ")[1:4]
    for i, fid in enumerate(o.fabric_ids):
        row = next(r for r in owned.splitlines() if r.startswith(f"| {names[fid]} |")).split(" | ")
        assert row[1] == money.short(o.owned_cash_per_year[i])
        assert row[2] == money(o.owned_per_gpu_hour[i], digits=2)
        assert row[6].startswith(f"{o.break_even[i, 0, 1]:.0%}")
        row = next(r for r in rented.splitlines() if r.startswith(f"| {names[fid]} |")).split(" | ")
        assert row[1] == fmt_number(o.rent_gpu_hours_per_year[i])
        assert [c.split(" (")[0] for c in row[2:5]] == [money.short(v) for v in o.rent_cost_per_year[i, :, 1]]
    assert any(t("rent.class.specialist") in x and "[1]" not in x for x in texts)
    if lang == "zh":
        panel = [x for x in texts if any(k in x for k in ("自建", "租用", "[1]", "[2]"))]
        assert panel and not {w for x in panel for w in latin_words(x)}, panel


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_panel_explains_fabric_scope_and_missing_prices(lang):
    t = Translator(lang)
    at = open_details(open_page("compare", lang, p="seed-case2-24xA100"), "rent", lang)  # fabric scope
    assert t("rent.fabric_scope") in [str(i.value) for i in at.info]
    at = open_details(open_page("compare", lang, p="seed-case1-8xA10"), "rent", lang)  # no rental price for the A10
    cat, stored = load_catalog(), rent.load_rental_table().gpus
    names = ", ".join(cat.gpus[g].name for g in stored)
    expected = t("rent.no_prices", gpu=cat.gpus["a10"].name, stored=names)
    assert expected in [str(i.value) for i in at.info]
