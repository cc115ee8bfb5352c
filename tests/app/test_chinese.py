"""Chinese throughout, page by page in AppTest (fast; the browser walk is tests/e2e/test_chinese_browser.py):
the tables, widget labels, options and help texts and every chart text carry no stray English, money
axes count in 万 / 亿, and the Method page's claims table has plain numbers and every verdict."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import open_page, open_tab, plotly_specs
from zh_words import latin_words

from costmodel.catalog.loader import load_catalog
from webui.panels import lazy_tabs

PAGES = ["guided", "cluster", "compare", "serving", "scale", "risk", "assumptions", "method", "report", "scenarios"]
WIDGETS = ("selectbox", "multiselect", "radio", "segmented_control", "number_input", "text_input", "toggle",
           "checkbox", "select_slider", "button", "download_button", "text_area", "slider")
FABRIC_IDS = set(load_catalog().fabrics)
# pages whose tabs compute only when open
LAZY_TABS = {"risk": lazy_tabs.RISK, "scale": lazy_tabs.SCALE, "assumptions": lazy_tabs.ASSUMPTIONS}
CHART_TABS = {"chart_mc": (lazy_tabs.RISK, "mc"), "chart_solver": (lazy_tabs.SCALE, "solver")}  # not in the first tab
SCI = re.compile(r"\d[eE][+-]?\d")


def _frame_texts(df: pd.DataFrame) -> list[str]:
    return [str(c) for c in df.columns] + [str(v) for v in df.astype(str).to_numpy().ravel()]


def _chart_texts(spec: dict) -> list[str]:
    layout = spec.get("layout", {})
    out = [str((layout.get("title") or {}).get("text") or "")]
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            out.append(str((axis.get("title") or {}).get("text") or ""))
            out += [str(x) for x in axis.get("ticktext") or []]
            if axis.get("type") != "category" and key.startswith("y") and "categoryarray" in axis:
                out += [str(x) for x in axis["categoryarray"]]
    out += [str(a.get("text", "")) for a in layout.get("annotations", [])]
    for trace in spec.get("data", []):
        out.append(str(trace.get("name", "")))
        for key in ("hovertext", "text"):
            value = trace.get(key)
            out += [str(v) for v in value] if isinstance(value, list) else [str(value or "")]
        for key in ("x", "y"):
            value = trace.get(key)
            if isinstance(value, list) and value and isinstance(value[0], str):
                out += value
    return out


def _page_texts(at) -> dict[str, list[str]]:
    """What a person reads on the page beyond its Markdown: tables, widgets, charts."""
    texts: dict[str, list[str]] = {"tables": [], "widgets": [], "charts": []}
    for el in at.table:
        texts["tables"] += _frame_texts(el.value)
    for el in at.dataframe:  # shown with the headers of its column configuration, hidden columns left out
        config = json.loads(el.proto.columns or "{}")
        shown = [c for c in el.value.columns if not config.get(str(c), {}).get("hidden")]
        texts["tables"] += [config.get(str(c), {}).get("label") or str(c) for c in shown]
        values = el.value[shown].to_numpy().ravel()
        texts["tables"] += [str(v) for v in values if not isinstance(v, bool | np.bool_)]  # bools are ticks
    for kind in WIDGETS:
        for w in at.get(kind):
            texts["widgets"] += [str(getattr(w, "label", "") or ""), str(getattr(w, "help", "") or "")]
            options = getattr(w, "options", None)
            if options:
                texts["widgets"] += [str(o) for o in options]
    for spec in plotly_specs(at).values():
        texts["charts"] += _chart_texts(spec)
    return texts


@pytest.mark.parametrize("page", PAGES)
def test_tables_widgets_and_charts_of_a_chinese_page_have_no_stray_english(page):
    at = open_page(page, "zh", p="seed-intro-32xA100")
    tabs = LAZY_TABS.get(page)
    for panel in tabs[1] if tabs else [None]:  # a page with lazy tabs: each tab in turn
        if panel is not None:
            at = open_tab(at, tabs, panel, "zh")
        stray = {}
        for where, texts in _page_texts(at).items():
            words = {w: t[:100] for t in texts for w in latin_words(t)}
            if words:
                stray[where] = words
        assert not stray, f"Latin-script words on the Chinese {page} page ({panel or 'all'}): {stray}"


@pytest.mark.parametrize("page, chart, axis", [
    ("compare", "chart_breakdown", "yaxis"), ("compare", "chart_cumulative", "yaxis"),
    ("scale", "chart_scale", "yaxis"), ("scale", "chart_solver", "yaxis"),
    ("risk", "chart_tornado", "xaxis"), ("risk", "chart_mc", "xaxis"),
])
def test_chinese_money_axes_count_in_wan_and_yi_and_english_ones_stay_plotly_ticks(page, chart, axis):
    def opened(lang: str):
        at = open_page(page, lang)
        return open_tab(at, *CHART_TABS[chart], lang) if chart in CHART_TABS else at

    zh = {k.split("-")[-1] if "-" in k else k: v for k, v in plotly_specs(opened("zh")).items()}
    spec = next(v for k, v in zh.items() if chart in k)
    ticks = spec["layout"][axis].get("ticktext") or []
    assert ticks and all(("万" in t or "亿" in t or t.endswith("¥0")) for t in ticks), ticks
    assert all(t.startswith(("¥", "−¥")) for t in ticks), ticks
    en = plotly_specs(opened("en"))
    assert not next(v for k, v in en.items() if chart in k)["layout"][axis].get("ticktext")


def test_tornado_names_fabrics_not_ids():
    spec = next(v for k, v in plotly_specs(open_page("risk", "zh")).items() if "chart_tornado" in k)
    bars = spec["data"][0]["y"]
    assert any("·" in b for b in bars), bars  # some inputs are per fabric …
    assert not any(fid in b for b in bars for fid in FABRIC_IDS), bars  # … named, not by id


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_method_claims_table_has_plain_numbers_and_every_verdict(lang):
    at = open_page("method", lang)
    claims = at.table[0].value
    verdicts = {"zh": {"已复现（±25 %）", "未能复现"}, "en": {"reproduced (±25 %)", "not reproduced"}}[lang]
    verdict_col = {"zh": "结论", "en": "Verdict"}[lang]
    assert set(claims[verdict_col]) <= verdicts and len(claims) >= 15
    numbers = claims.iloc[:, 3:5].astype(str).to_numpy().ravel()
    assert not [n for n in numbers if SCI.search(n)], numbers
    why = claims.iloc[:, -1].astype(str)
    assert why.str.len().min() > 20 and not any(fid in w for w in why for fid in FABRIC_IDS)
