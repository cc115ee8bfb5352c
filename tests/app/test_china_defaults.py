"""China defaults in Chinese: a zh-CN browser's first visit and the sidebar's switch to 中文 both
start from CNY, the China grid and tax regions, the China-market CNY price book and a CNY
electricity price; what the user chose (currency, a field) survives the switch; a share link opens
with exactly its own numbers whatever the browser's language."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import pytest
from apptest_helpers import APP, go, keyed
from streamlit.testing.v1 import AppTest

from costmodel.catalog.currency import reference_rate
from costmodel.scenario import locale_defaults
from costmodel.scenario.presets import load_preset
from store import accounts
from webui.i18n.translator import Translator, catalog
from webui.session.state import DEFAULT_PRESET

CN_BOOK = locale_defaults.defaults("zh").price_book
CN_POWER = locale_defaults.defaults("zh").money["facility.electricity_price_per_kwh"].typical


def _visit(locale: str, page: str = "cluster", **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.context["locale"] = locale
    for key, value in params.items():
        at.query_params[key] = value
    return go(at, page)


def _switch(at: AppTest, lang: str) -> AppTest:
    at.segmented_control(key="lang").set_value(lang).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _assert_china(at: AppTest) -> None:
    s = at.session_state["scenario"]
    assert (s.price_book, s.facility.grid_region, s.finance.tax_region) == (CN_BOOK, "cn", "cn")
    assert s.facility.electricity_price_per_kwh == CN_POWER == 0.62
    assert at.selectbox(key="cur").value == "CNY"
    assert at.session_state["fx"] == 1.0  # CNY book shown in CNY: nothing converted
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "中国市场参考价" in captions and "已在预设基础上修改" not in captions
    # the electricity widget shows the CNY price, its unit in CNY
    power = keyed(at.number_input, "w.facility.electricity_price_per_kwh")
    assert power.value == pytest.approx(0.62)


def _compare_money(at: AppTest) -> str:
    go(at, "compare")
    return " ".join(m.value for m in at.metric)


def test_a_zh_cn_browser_starts_in_china():
    at = _visit("zh-CN")
    _assert_china(at)
    money = _compare_money(at)
    assert "¥" in money and "$" not in money, money
    staff = at.session_state["scenario"].operations.staff_cost_per_fte_year
    en = load_preset(DEFAULT_PRESET).operations.staff_cost_per_fte_year
    assert staff == pytest.approx(en * reference_rate("USD", "CNY"))  # the other money, converted


def test_switching_to_chinese_moves_the_untouched_defaults_and_back():
    at = _visit("en-US")
    s0 = at.session_state["scenario"]
    assert (s0.price_book, s0.facility.grid_region, at.selectbox(key="cur").value) == ("public", "us", "USD")
    _switch(at, "zh")
    _assert_china(at)
    [toast] = [x.value for x in at.toast]  # the switch says what it moved, once
    assert "已换用中国默认值" in toast and "¥0.62/千瓦时" in toast and len(toast) <= 45, toast
    money = _compare_money(at)
    assert "¥" in money and "$" not in money, money
    assert not at.toast
    _switch(at, "en")
    assert at.session_state["scenario"] == s0  # exactly the English defaults again
    assert at.selectbox(key="cur").value == "USD" and at.session_state["fx"] == 1.0
    assert [x.value for x in at.toast] == [Translator("en")("defaults.moved_en")]


def test_a_chosen_currency_and_a_chosen_field_survive_the_switch():
    at = _visit("en-US")
    at.selectbox(key="cur").set_value("EUR").run()
    keyed(at.number_input, "w.facility.electricity_price_per_kwh").set_value(0.2).run()
    keyed(at.selectbox, "w.facility.grid_region").set_value("eu").run()
    _switch(at, "zh")
    s = at.session_state["scenario"]
    assert at.selectbox(key="cur").value == "EUR"
    assert at.session_state["fx"] == pytest.approx(reference_rate("CNY", "EUR"))  # the model computes in CNY now
    assert s.price_book == CN_BOOK and s.finance.tax_region == "cn"  # untouched: followed
    assert s.facility.grid_region == "eu"  # chosen: kept
    assert s.facility.electricity_price_per_kwh == pytest.approx(0.2 * reference_rate("USD", "CNY"))  # same worth
    money = _compare_money(at)
    assert "€" in money and "¥" not in money, money


def test_a_field_the_user_set_to_chinas_value_stays_when_switching_back():
    at = _visit("en-US")
    keyed(at.selectbox, "w.facility.grid_region").set_value("cn").run()
    _switch(at, "zh")
    _switch(at, "en")
    s = at.session_state["scenario"]
    assert s.facility.grid_region == "cn" and s.price_book == "public" and s.finance.tax_region == "none"


def test_a_typed_rate_is_kept_until_its_currencies_change():
    at = _visit("en-US")
    at.selectbox(key="cur").set_value("EUR").run()
    at.number_input(key="fx").set_value(0.9).run()
    go(at, "compare")
    assert at.session_state["fx"] == 0.9  # reruns keep the typed rate
    _switch(at, "zh")  # the model now computes in CNY: a USD → EUR rate no longer applies
    assert at.session_state["fx"] == pytest.approx(reference_rate("CNY", "EUR"))


def _link_of(at: AppTest) -> dict[str, str]:
    """The query parameters of the share link the sidebar shows."""
    [url] = [c.value for c in at.sidebar.code]
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def test_an_english_link_opens_unchanged_in_a_chinese_browser():
    at = _visit("en-US")
    keyed(at.number_input, "w.cluster.nodes").set_value(64).run()
    sent = at.session_state["scenario"]
    params = _link_of(at)
    assert params["cur"] == "USD" and "s" in params
    for lang_params in ({k: v for k, v in params.items() if k != "lang"}, {**params, "lang": "zh"}):
        opened = _visit("zh-CN", "compare", **lang_params)
        assert opened.session_state["scenario"] == sent  # the link's own numbers: USD book, US grid
        assert opened.session_state["scenario"].price_book == "public"
        assert opened.selectbox(key="cur").value == "USD"
        money = " ".join(m.value for m in opened.metric)
        assert "$" in money and "¥" not in money, money
    _switch(opened, "en")  # a linked scenario keeps its values through any language switch
    _switch(opened, "zh")
    assert opened.session_state["scenario"] == sent
    assert not opened.toast  # nothing moved, nothing said


def test_a_chinese_link_opens_unchanged_in_an_english_browser():
    at = _visit("zh-CN")
    sent = at.session_state["scenario"]
    params = _link_of(at)
    assert params["cur"] == "CNY" and params["lang"] == "zh"
    opened = _visit("en-US", "cluster", **{k: v for k, v in params.items() if k != "lang"})
    assert opened.session_state["scenario"] == sent and sent.price_book == CN_BOOK
    assert opened.selectbox(key="cur").value == "CNY"


def test_a_preset_loaded_in_chinese_starts_in_china():
    at = _visit("zh-CN")
    sb = next(w for w in at.sidebar.selectbox if (w.key or "").startswith("sb_preset"))
    sb.set_value("seed-case3-128xH100").run()
    s = at.session_state["scenario"]
    assert s == locale_defaults.localize(load_preset("seed-case3-128xH100"), "zh")
    assert s.cluster.gpu == "h100" and s.price_book == CN_BOOK
    assert "已在预设基础上修改" not in " ".join(c.value for c in at.sidebar.caption)


def test_a_sales_book_applied_in_chinese_prices_the_public_list_it_was_made_on():
    """Sales books hold USD prices (made on the public list): applying one to a CNY scenario restates
    the scenario in USD of the same worth first, so an explicit price is never read as yuan."""
    accounts.add_user(Path(os.environ["FABRIC_TCO_USERS"]), "china-sales", "correct horse battery", replace=True)
    at = _visit("zh-CN", "scenarios")
    at.text_input(key="auth_user").input("china-sales")
    at.text_input(key="auth_pw").input("correct horse battery")
    at.button(key="FormSubmitter:auth_form-" + catalog("zh")["auth.submit"]).click().run()
    cny = at.session_state["scenario"]
    assert cny.price_book == CN_BOOK
    go(at, "price_books")
    assert "USD" in at.caption[0].value  # the page prices the public list
    at.text_input(key="pb_name___new__").set_value("华东 Q4").run()
    at.number_input(key="pb_disc_switches___new__").set_value(10.0).run()
    at.button(key="pb_apply").click().run()
    s = at.session_state["scenario"]
    assert s.custom_price_book.name == "华东 Q4" and s.price_book == "public"
    assert s.facility.electricity_price_per_kwh == pytest.approx(0.62 / reference_rate("USD", "CNY"))
    assert s.facility.grid_region == "cn" and s.finance.tax_region == "cn"  # only amounts were restated
    assert s.operations.staff_cost_per_fte_year == pytest.approx(
        load_preset(DEFAULT_PRESET).operations.staff_cost_per_fte_year)
    money = _compare_money(at)
    assert "¥" in money and "$" not in money, money  # still shown in yuan, at the reference rate
    assert at.session_state["fx"] == pytest.approx(reference_rate("USD", "CNY"))
