"""Language defaults: Chinese starts every preset in China (CNY book, China grid and tax, CNY power
price, the other money converted), a switch moves only what still holds the old language's default,
and a scenario whose prices were edited keeps its book."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.catalog.currency import reference_rate
from costmodel.catalog.loader import load_catalog
from costmodel.scenario import locale_defaults as ld
from costmodel.scenario.changes import with_change
from costmodel.scenario.presets import list_presets, load_preset

FX = reference_rate("USD", "CNY")
ZH = ld.defaults("zh")


@pytest.mark.parametrize("preset", [*list_presets(), "blank"])
def test_every_preset_starts_in_china_in_chinese_and_comes_back_exactly(preset):
    base = costmodel.Scenario() if preset == "blank" else load_preset(preset)
    zh = ld.localize(base, "zh")
    assert (zh.price_book, zh.facility.grid_region, zh.finance.tax_region) == ("cn-2025", "cn", "cn")
    assert load_catalog().price_book(zh.price_book).currency == ZH.currency == "CNY"
    assert zh.facility.electricity_price_per_kwh == ZH.money["facility.electricity_price_per_kwh"].typical
    assert zh.operations.staff_cost_per_fte_year == pytest.approx(base.operations.staff_cost_per_fte_year * FX)
    assert zh.cluster == base.cluster and zh.workload == base.workload and zh.fabrics == base.fabrics
    assert ld.localize(base, "en") == base
    assert ld.follow(zh, base, "zh", "en") == base
    assert ld.follow(base, base, "en", "zh") == zh
    assert ld.variants(base) == [base, zh]


def test_the_china_power_price_is_sourced_and_ranged():
    q = ZH.money["facility.electricity_price_per_kwh"]
    ref = load_catalog().references[q.source]
    assert "0.088" in ref.title and ref.url.startswith("https://")
    assert q.low < q.typical < q.high and q.typical == pytest.approx(0.088 * FX, abs=0.01)


def test_a_switch_keeps_what_the_user_chose():
    base = load_preset("seed-intro-32xA100")
    mine = with_change(base, "facility.grid_region", "eu").scenario
    mine = with_change(mine, "operations.staff_cost_per_fte_year", 90_000).scenario
    mine = with_change(mine, "cluster.nodes", 64).scenario
    zh = ld.follow(mine, base, "en", "zh")
    assert zh.facility.grid_region == "eu" and zh.finance.tax_region == "cn" and zh.cluster.nodes == 64
    assert zh.operations.staff_cost_per_fte_year == pytest.approx(90_000 * FX)  # the same worth, in CNY
    assert ld.follow(zh, base, "zh", "en") == mine


def test_a_chinese_choice_is_kept_when_switching_to_english():
    base = load_preset("seed-case3-128xH100")
    zh = with_change(ld.localize(base, "zh"), "facility.electricity_price_per_kwh", 0.4).scenario
    en = ld.follow(zh, base, "zh", "en")
    assert en.price_book == "public" and en.facility.grid_region == "us"
    assert en.facility.electricity_price_per_kwh == pytest.approx(0.4 / FX)


def test_edited_prices_pin_the_book_and_the_power_price_follows_in_its_currency():
    base = load_preset("seed-intro-32xA100")
    edited = with_change(base, "overrides.fabric_prices", {"tcp-100": {"nic_price": 700.0}}).scenario
    assert not ld.book_free(edited)
    zh = ld.follow(edited, base, "en", "zh")
    assert zh.price_book == "public" and zh.overrides == edited.overrides  # USD prices stay USD
    assert zh.facility.grid_region == "cn"
    assert zh.facility.electricity_price_per_kwh == pytest.approx(0.62 / FX)  # China's price, in USD
    assert zh.operations.staff_cost_per_fte_year == base.operations.staff_cost_per_fte_year


def test_a_language_without_defaults_changes_nothing():
    base = load_preset("seed-intro-32xA100")
    assert ld.localize(base, "fr") == base and ld.follow(base, base, "en", "en") == base


def test_restate_moves_every_amount_to_another_book_and_back():
    base = load_preset("seed-intro-32xA100")
    zh = with_change(ld.localize(base, "zh"), "overrides.fabric_prices", {"tcp-100": {"nic_price": 7100.0}}).scenario
    usd = ld.restate(zh, "public")
    assert usd.price_book == "public" and usd.overrides.fabric_prices == {"tcp-100": {"nic_price": 1000.0}}
    assert usd.facility.electricity_price_per_kwh == pytest.approx(0.62 / FX)
    assert usd.operations.staff_cost_per_fte_year == base.operations.staff_cost_per_fte_year
    assert usd.facility.grid_region == "cn"  # not an amount
    assert ld.restate(usd, "cn-2025") == zh and ld.restate(zh, "cn-2025") is zh


def test_a_field_set_to_the_other_languages_default_is_still_the_users():
    base = load_preset("seed-intro-32xA100")
    mine = with_change(base, "facility.grid_region", "cn").scenario
    zh = ld.follow(mine, base, "en", "zh", keep=frozenset({"facility.grid_region"}))
    en = ld.follow(zh, base, "zh", "en", keep=frozenset({"facility.grid_region"}))
    assert en.facility.grid_region == "cn" and en == mine
    assert ld.follow(zh, base, "zh", "en").facility.grid_region == "us"  # by value alone it would follow
