"""The PDF report's "Own vs rent" section (webui/sections/rent.py): the tables carry costmodel.analysis.rent's
figures in en and zh (no stray English in Chinese), the report includes it, and fabric scope or a GPU
without rental prices says why instead of showing tables."""

from __future__ import annotations

import html
import re

import pytest
from zh_words import latin_words

import costmodel
from costmodel.analysis import rent
from webui.i18n import labels
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.reports.html import _table, report_html
from webui.sections.rent import rent_section

PRESET = "seed-case3-128xH100"


def _tables(doc: str) -> list[list[list[str]]]:
    """Each table's body rows as lists of unescaped cell texts."""
    out = []
    for tab in doc.split("<table>")[1:]:
        body = tab.split("</table>")[0].split("<tr>")[2:]
        out.append([[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in body])
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_section_tables_carry_the_rent_figures(lang):
    sc = costmodel.load_preset(PRESET)
    res = costmodel.evaluate(sc)
    t = Translator(lang)
    names = labels.fabric_names(t)
    money = Money(res.currency, res.currency, 1.0, lang)
    doc = rent_section(t, sc, res, names, _table, money)
    o = rent.for_scenario(res, sc)
    prices, owned, rented = _tables(doc)
    assert [r[0] for r in prices] == [t(f"rent.class.{c}") for c in o.classes]
    assert [r[1:4] for r in prices] == [[money(v, digits=2) for v in row] for row in o.prices]
    for i, row in enumerate(owned):
        assert row[0] == names[o.fabric_ids[i]]
        assert row[1] == money.short(o.owned_cash_per_year[i]) and row[2] == money(o.owned_per_gpu_hour[i], 2)
        assert row[4] == money(o.owned_per_useful_gpu_hour[i], 2)
        assert [c.split(" ")[0] for c in row[6:]] == [f"{o.break_even[i, k, 1]:.0%}" for k in range(len(o.classes))]
    for i, row in enumerate(rented):
        assert [c.split(" (")[0] for c in row[2:5]] == [money.short(v) for v in o.rent_cost_per_year[i, :, 1]]
    if lang == "zh":
        text = html.unescape(re.sub(r"<[^>]+>", " ", doc))
        assert not latin_words(text), latin_words(text)


def test_the_report_includes_the_section():
    sc = costmodel.load_preset(PRESET)
    t = Translator("en")
    assert re.search(rf"<h2 id='sec-\d+'>{t('rent.title')}</h2>", report_html(sc, "en"))


@pytest.mark.parametrize(("preset", "key"), [("seed-case2-24xA100", "rent.fabric_scope"),
                                              ("seed-case1-8xA10", "rent.no_prices")])
def test_no_tables_where_own_vs_rent_does_not_apply(preset, key):
    sc = costmodel.load_preset(preset)
    res = costmodel.evaluate(sc)
    t = Translator("en")
    doc = rent_section(t, sc, res, labels.fabric_names(t), _table, Money(res.currency, res.currency, 1.0))
    assert "<table>" not in doc and html.escape(t(key).split("{")[0]) in doc
