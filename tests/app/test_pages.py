"""Every page in both languages; inputs change the KPIs as the model says; charts carry their
traces; the share link round-trips; a broken link gives a message, not a crash."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from apptest_helpers import PAGES, go, keyed, open_page, open_tab, plotly_specs

import costmodel
from costmodel.catalog import formatting
from costmodel.catalog.price_schema import FabricPrices
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import catalog
from webui.panels import lazy_tabs
from webui.session import share

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_in_both_languages(name, lang):
    at = open_page(name, lang)
    title = at.title[0].value
    assert title == catalog(lang)[f"{name if name != 'cluster' else 'cluster'}.title"]
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", title)
    assert not at.error, [e.value for e in at.error]


def _shown(alert) -> str:
    """An alert's text as the page shows it (its Markdown escapes removed)."""
    return alert.value.replace("\\", "")


def _tco_metrics(at) -> list[str]:
    return [m.value for m in at.metric if m.label.startswith(("TCO", "5 年"))]


def _expected(scenario: costmodel.Scenario) -> list[str]:
    res = costmodel.evaluate(scenario)
    money = Money(res.currency, "USD", default_rate(res.currency, "USD"))
    return [money.short(f.tco_total) for f in res.fabrics]


@pytest.mark.parametrize(
    ("key", "value", "group", "field"),
    [
        ("w.cluster.nodes", 64, "cluster", "nodes"),
        ("w.facility.pue", 1.8, "facility", "pue"),
        ("w.facility.electricity_price_per_kwh", 0.2, "facility", "electricity_price_per_kwh"),
    ],
)
def test_changing_an_input_changes_the_kpis_as_the_model_says(key, value, group, field):
    at = open_page("cluster", cur="USD")
    at.number_input(key=key).set_value(value).run()
    assert not at.exception
    go(at, "compare")
    shown = _tco_metrics(at)
    data = costmodel.load_preset("seed-intro-32xA100").model_dump()
    data[group][field] = value
    expected = _expected(costmodel.Scenario.model_validate(data))
    before = _expected(costmodel.load_preset("seed-intro-32xA100"))
    assert shown == expected
    assert shown != before  # the change really moved the numbers


def test_an_invalid_combination_is_refused_inline_and_keeps_the_last_valid_scenario():
    at = open_page("cluster", cur="USD")
    at.number_input(key="w.facility.gpu_idle_power_frac").set_value(0.95).run()  # above busy (0.8)
    assert any("gpu_idle_power_frac" in _shown(e) for e in at.error)
    go(at, "compare")
    assert _tco_metrics(at) == _expected(costmodel.load_preset("seed-intro-32xA100"))


def test_compare_charts_carry_their_traces():
    at = open_page("compare", cur="USD")
    specs = plotly_specs(at)
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    names = {f.name for f in res.fabrics}
    by_title = {s["layout"].get("title", {}).get("text", ""): s for s in specs.values()}
    breakdown = by_title["TCO breakdown"]
    assert {t["name"] for t in breakdown["data"]} >= {"Servers (capex)", "Network (capex)", "Energy"}
    cumulative = by_title["Cumulative cost, month by month"]
    short = formatting.fabric_short_names("en")
    lines = {t.get("name"): t for t in cumulative["data"] if t.get("mode") == "lines"}
    assert set(lines) == {short[f.id] for f in res.fabrics}  # short labels in the legend
    assert names == {lines[short[f.id]]["hovertext"][0].split("</b>")[0].removeprefix("<b>") for f in res.fabrics}
    waterfall = by_title["From the baseline to the chosen fabric"]
    assert waterfall["data"][0]["type"] == "waterfall"


def test_scale_and_risk_charts_carry_their_traces():
    at = open_page("scale", cur="USD")
    titles = {s["layout"]["title"]["text"]: s for s in plotly_specs(at).values()}
    assert len([t for t in titles["Cost against node count"]["data"] if t.get("mode", "").startswith("lines")]) >= 4
    assert "ΔTCO against the input" not in titles  # only the open tab computes and draws
    titles = {s["layout"]["title"]["text"]: s for s in plotly_specs(open_tab(at, lazy_tabs.SCALE, "solver")).values()}
    assert titles["ΔTCO against the input"]["data"] and "Cost against node count" not in titles
    at = go(at, "risk")
    titles = {s["layout"]["title"]["text"]: s for s in plotly_specs(at).values()}
    assert len(titles["What moves ΔTCO"]["data"]) == 2
    assert "Spread of 5-year TCO" not in titles  # only the open tab computes and draws
    at = open_tab(at, lazy_tabs.RISK, "mc")
    titles = {s["layout"]["title"]["text"]: s for s in plotly_specs(at).values()}
    assert titles["Spread of 5-year TCO"]["data"] and "What moves ΔTCO" not in titles


def test_share_link_round_trips_to_the_same_numbers():
    at = open_page("cluster", cur="EUR")
    at.number_input(key="w.cluster.nodes").set_value(48).run()
    at.number_input(key="w.facility.pue").set_value(1.25).run()
    go(at, "compare")
    first = _tco_metrics(at)
    token = share.encode(at.session_state["scenario"], at.session_state["preset"])
    fresh = open_page("compare", p="seed-intro-32xA100", s=token, cur="EUR")
    assert _tco_metrics(fresh) == first
    assert fresh.session_state["scenario"] == at.session_state["scenario"]


@pytest.mark.parametrize("params", [
    {"s": "not-a-token"},
    {"p": "no-such-preset"},
    {"s": share.encode(costmodel.Scenario(name="x"), "seed-intro-32xA100")[:-4]},
])
def test_a_broken_link_gives_a_message_and_the_defaults(params):
    at = open_page("compare", cur="USD", **params)
    assert any("could not be used" in w.value for w in at.warning)
    assert _tco_metrics(at) == _expected(costmodel.load_preset("seed-intro-32xA100"))


def test_a_tampered_link_with_an_out_of_range_value_names_the_field():
    import base64
    import zlib

    raw = json.dumps({"cluster": {"nodes": 0}}).encode()
    token = base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")
    at = open_page("compare", s=token)
    assert any("cluster.nodes" in w.value.replace("\\", "") for w in at.warning)


def test_a_link_cannot_inject_markdown_into_the_warning():
    import base64
    import zlib

    raw = json.dumps({"[Log in again](https://evil.example)": 1}).encode()
    token = base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")
    at = open_page("compare", s=token)
    text = " ".join(w.value for w in at.warning)
    assert "could not be used" in text
    assert "](https://evil.example)" not in text and "\\]\\(https\\:\u2060//evil" in text  # no autolink either


def test_every_translation_key_used_by_the_pages_exists_in_both_languages():
    used = set()
    for path in [*ROOT.glob("app_pages/*.py"), ROOT / "app.py", *ROOT.glob("webui/**/*.py")]:
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+\.[a-z0-9_.]+)["']""", path.read_text(encoding="utf-8")))
    en, zh = catalog("en"), catalog("zh")
    assert used, "no keys found"
    assert not used - set(en), sorted(used - set(en))
    assert not used - set(zh), sorted(used - set(zh))
    assert set(en) <= set(zh), sorted(set(en) - set(zh))


def test_user_text_is_escaped():
    at = open_page("cluster", cur="USD")
    keyed(at.text_input, "w.name").set_value("**bold** [x](javascript:alert(1))").run()
    go(at, "compare")
    caption = at.caption[0].value
    assert "\\*\\*bold\\*\\*" in caption and "\\[x\\]" in caption


def _edit_table(at, key: str, row: int, value: float):
    at.session_state[key] = {"edited_rows": {row: {"value": value}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def test_assumption_edits_flow_into_every_page_and_reset():
    at = open_page("assumptions", cur="USD")
    preset = costmodel.load_preset("seed-intro-32xA100")
    # fabric prices table: rows are (fabric, price field) in order; switch_price is the 2nd field
    ib = preset.fabrics.index("ib-ndr-400")
    assert "assume_fabric_prices" not in at.session_state  # only the open tab's table is built
    at = open_tab(at, lazy_tabs.ASSUMPTIONS, "fabric_prices")
    _edit_table(at, "assume_fabric_prices", ib * len(FabricPrices.model_fields) + 1, 1000.0)
    assert at.session_state["scenario"].overrides.fabric_prices == {"ib-ndr-400": {"switch_price": 1000.0}}
    go(at, "compare")
    data = preset.model_dump()
    data["overrides"] = {"fabric_prices": {"ib-ndr-400": {"switch_price": 1000.0}}}
    assert _tco_metrics(at) == _expected(costmodel.Scenario.model_validate(data))
    go(at, "assumptions")
    at.button(key="assume_reset").click().run()
    assert at.session_state["scenario"].overrides.is_empty()
    go(at, "compare")
    assert _tco_metrics(at) == _expected(preset)


def test_an_out_of_range_assumption_is_refused_inline():
    at = open_page("assumptions", cur="USD")
    # fabrics table: efficiency is the 4th quantity of each fabric; 2.0 is above its bound of 1
    _edit_table(at, "assume_fabrics", 3, 2.0)
    assert any("efficiency" in _shown(e) and "≤ 1" in _shown(e) for e in at.error)
    assert at.session_state["scenario"].overrides.is_empty()


def test_removing_the_baseline_picks_another_and_every_widget_matches_the_model():
    at = open_page("cluster", cur="USD")
    keyed(at.multiselect, "w.fabrics").set_value(["roce-200", "ib-ndr-400"]).run()
    s = at.session_state["scenario"]
    assert s.fabrics == ["roce-200", "ib-ndr-400"] and s.baseline == "roce-200"
    assert keyed(at.selectbox, "w.baseline").value == "roce-200"
    assert not at.error


def test_instalments_on_a_short_horizon_are_clamped_not_refused():
    at = open_page("cluster", cur="USD")
    at.number_input(key="w.finance.horizon_years").set_value(2).run()
    keyed(at.segmented_control, "w.finance.payment").set_value("instalments").run()
    fin = at.session_state["scenario"].finance
    assert fin.payment == "instalments" and fin.instalment_months == 24
    assert keyed(at.number_input, "w.finance.instalment_months").value == 24  # repaired: a new revision


def test_a_refused_value_is_explained_once_and_the_widget_shows_the_model_value():
    at = open_page("cluster", cur="USD")
    at.number_input(key="w.facility.gpu_idle_power_frac").set_value(0.95).run()
    assert any("gpu_idle_power_frac" in _shown(e) for e in at.error)
    assert keyed(at.number_input, "w.facility.gpu_idle_power_frac").value == pytest.approx(0.15)
    keyed(at.number_input, "w.facility.pue").set_value(1.3).run()  # any other change: the message is gone
    assert not at.error


def test_report_page_offers_the_downloads():
    at = open_page("report", cur="USD")
    buttons = at.get("download_button")
    assert len(buttons) == 2  # two CSVs; the workbook, the deck and the PDF are prepared on request
    ask = "FormSubmitter:quote_request-" + catalog("en")["handoff.submit"]  # a customer's request for a quote
    assert [b.key for b in at.button] == ["pdf_prepare", "pptx_prepare", "xlsx_prepare", ask]
    at.button(key="xlsx_prepare").click().run()  # the workbook is built by the click, then offered
    assert not at.exception
    assert [b.key for b in at.button] == ["pdf_prepare", "pptx_prepare", ask]
    assert len(at.get("download_button")) == 3
    assert at.session_state["report_xlsx"][1][:2] == b"PK"
    at.number_input(key="fx").set_value(1.5).run()  # another rate: that workbook is stale, asked for again
    assert [b.key for b in at.button] == ["pdf_prepare", "pptx_prepare", "xlsx_prepare", ask]


def test_an_out_of_range_value_is_refused_with_the_field_and_its_range_on_the_page():
    """The widgets carry no min/max of their own (the browser would only show a tooltip): the
    server refuses the value, names the field and its range, and keeps the previous value."""
    en = catalog("en")
    at = open_page("cluster", cur="USD")
    nodes = at.session_state["scenario"].cluster.nodes
    at.number_input(key="w.cluster.nodes").set_value(10**9).run()
    shown = " ".join(_shown(e) for e in at.error)
    assert en["field.cluster.nodes"] in shown and "1,000,000,000" in shown and "…" in shown
    assert at.session_state["scenario"].cluster.nodes == nodes
    assert keyed(at.number_input, "w.cluster.nodes").value == nodes


def test_the_discount_rate_is_typed_in_percent_like_the_discounts():
    en = catalog("en")
    at = open_page("cluster", cur="USD")
    box = at.number_input(key="w.finance.discount_rate")
    assert box.label == en["wr.pct.finance.discount_rate"]
    assert box.value == pytest.approx(100 * at.session_state["scenario"].finance.discount_rate)
    box.set_value(7.5).run()
    assert at.session_state["scenario"].finance.discount_rate == pytest.approx(0.075)
    at.number_input(key="w.finance.discount_rate").set_value(60.0).run()
    assert any("0 … 50" in _shown(e) for e in at.error)  # the range in %, as typed
    assert at.session_state["scenario"].finance.discount_rate == pytest.approx(0.075)


def test_a_presets_name_field_reads_in_the_page_language():
    zh = catalog("zh")
    at = open_page("cluster", lang="zh")
    keyed(at.sidebar.selectbox, "sb_preset").set_value("seed-case2-24xA100").run()  # today's preset, unchanged
    assert keyed(at.text_input, "w.name").value == zh["preset.seed-case2-24xA100"]
    keyed(at.text_input, "w.name").set_value("客户试点").run()
    assert at.session_state["scenario"].name == "客户试点"
    assert keyed(at.text_input, "w.name").value == "客户试点"
