"""The PDF report's bill of materials: every fabric's items and its total, which is the
fabric's network capex; a negotiated quote shows counts and totals, never item prices."""

from __future__ import annotations

import html
import re

import pytest

import costmodel
from webui.i18n.translator import Translator
from webui.reports.doc_money import DocumentMoney
from webui.reports.html import report_html


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_lists_each_fabrics_bill_and_its_total(lang):
    s = costmodel.load_preset("seed-case3-128xH100")
    res = costmodel.evaluate(s)
    t = Translator(lang)
    doc = html.unescape(report_html(s, lang=lang, currency="USD"))
    start = re.search(rf"<h2[^>]*>{t('bom.title')}</h2>", doc).end()  # the heading (the appendix intro names it)
    section = doc[start:doc.index("<h2", start)]  # up to the next section
    money = DocumentMoney(res.currency, "USD", 1.0, lang)  # the report's one way of writing money
    for f in res.fabrics:
        assert money(f.network_capex_purchase) in section
        assert t("bom.item.nics") in section
        for key, module in f.modules.items():  # a module line names its module type in the page's language
            if f.bom_priced[key]["count"]:
                assert t("bom.module_item", item=t(f"bom.item.{key}"),
                         module=module["name_zh" if lang == "zh" else "name"]) in section
    assert t("bom.col.unit_price") in section


def test_a_negotiated_quote_shows_no_item_prices_in_the_report():
    s = costmodel.load_preset("seed-intro-32xA100")
    from costmodel.scenario.schema import DerivedPriceBook

    quoted = s.model_copy(update={"custom_price_book": DerivedPriceBook(name="q", discounts={})})
    doc = html.unescape(report_html(quoted, lang="en", currency="USD"))
    start = re.search(f"<h2[^>]*>{Translator('en')('bom.title')}</h2>", doc).end()
    section = doc[start:doc.index("<h2", start)]
    assert Translator("en")("bom.col.count") in section
    assert Translator("en")("bom.col.unit_price") not in section
