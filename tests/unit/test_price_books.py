"""Derived price books: discounts by category, explicit prices, precedence, effect on the TCO."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.scenario import price_books
from costmodel.scenario.schema import DISCOUNT_CATEGORIES, DerivedPriceBook, Scenario

PUBLIC = load_catalog().price_book("public")


def test_a_discount_scales_typical_low_and_high_of_its_category_only():
    book = price_books.derive(PUBLIC, DerivedPriceBook(name="Q4", discounts={"cabling": 25.0}))
    for fid, prices in PUBLIC.fabrics.items():
        for field in ("cable_price", "optic_price"):
            q, d = getattr(prices, field), getattr(book.fabrics[fid], field)
            assert d.typical == pytest.approx(0.75 * q.typical)
            assert d.lo == pytest.approx(0.75 * q.lo) and d.hi == pytest.approx(0.75 * q.hi)
            assert d.source == "price-book" and "25 % cabling discount" in d.note
        assert book.fabrics[fid].nic_price == prices.nic_price
        assert book.fabrics[fid].switch_price == prices.switch_price
    assert book.gpus == PUBLIC.gpus and book.currency == PUBLIC.currency and book.name == "Q4"


def test_an_explicit_price_wins_over_the_discount_and_has_no_range():
    book = price_books.derive(PUBLIC, DerivedPriceBook(
        name="Q4", discounts={"switches": 50.0}, fabrics={"ib-ndr-400": {"switch_price": 12345.0}}))
    ib = book.fabrics["ib-ndr-400"].switch_price
    assert (ib.typical, ib.lo, ib.hi) == (12345.0, 12345.0, 12345.0)
    assert book.fabrics["roce-200"].switch_price.typical == pytest.approx(
        0.5 * PUBLIC.fabrics["roce-200"].switch_price.typical)


def test_scenario_inputs_still_win_over_the_price_book():
    book = DerivedPriceBook(name="Q4", discounts={"servers": 30.0, "nics": 30.0})
    pinned = Scenario(cluster={"server_price": 200_000.0},
                      overrides={"fabric_prices": {"roce-200": {"nic_price": 999.0}}})
    with_book = pinned.model_copy(update={"custom_price_book": book})
    a, b = costmodel.evaluate(pinned), costmodel.evaluate(with_book)
    roce = [f.id for f in a.fabrics].index("roce-200")
    assert b.fabrics[roce].metrics["capex_nics"] == pytest.approx(a.fabrics[roce].metrics["capex_nics"])
    assert b.fabrics[roce].compute_capex_purchase == pytest.approx(a.fabrics[roce].compute_capex_purchase)
    assert b.price_book == "Q4" and a.price_book == "public"


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(list(DISCOUNT_CATEGORIES)), st.floats(0, 95), max_size=5))
def test_discounts_never_raise_any_fabrics_tco(discounts):
    base = costmodel.evaluate(Scenario())
    cheaper = costmodel.evaluate(Scenario(custom_price_book=DerivedPriceBook(name="d", discounts=discounts)))
    for a, b in zip(base.fabrics, cheaper.fabrics, strict=True):
        assert b.tco_total <= a.tco_total * (1 + 1e-12)


def test_the_book_travels_in_the_scenario_json():
    scen = Scenario(custom_price_book=DerivedPriceBook(name="Acme", discounts={"nics": 10.0}))
    again = Scenario.model_validate_json(scen.model_dump_json())
    assert again == scen and costmodel.evaluate(again).to_dict() == costmodel.evaluate(scen).to_dict()


def test_a_customer_quote_keeps_the_results_and_drops_the_book():
    book = DerivedPriceBook(id="0" * 32, name="ACME secret Q4", discounts={"switches": 42.0, "servers": 12.0},
                            fabrics={"ib-xdr-800": {"nic_price": 1.0}})
    scen = Scenario(custom_price_book=book)
    quote = price_books.quote_only(scen)
    doc = quote.custom_price_book.model_dump(mode="json")
    assert doc["name"] == price_books.QUOTE_NAME and doc["id"] == "" and doc["discounts"] == {}
    assert set(doc["fabrics"]) == set(scen.fabrics) and set(doc["gpus"]) == {scen.cluster.gpu}
    assert "ib-xdr-800" not in doc["fabrics"]
    a, b = costmodel.evaluate(scen), costmodel.evaluate(quote)
    for fa, fb in zip(a.fabrics, b.fabrics, strict=True):
        assert fb.tco_total == pytest.approx(fa.tco_total, rel=1e-12)
    assert price_books.quote_only(Scenario()) == Scenario()
