"""Scale: TCO and cost per run against node count, break-even node counts, the article's regions,
and the break-even solver for any numeric input — one tab each; only the open tab computes."""

from __future__ import annotations

import functools

import streamlit as st

from costmodel.analysis import breakeven
from costmodel.catalog.formatting import format_sig
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.recommend import LARGE_NODES, SMALL_NODES
from webui import compute
from webui.charts.base import lite
from webui.charts.scale import delta_curve_chart, scale_chart
from webui.i18n import labels
from webui.i18n.text import md_escape
from webui.i18n.translator import fmt_number
from webui.inputs import risk_choices
from webui.panels import lazy_tabs
from webui.session import keys, quote
from webui.session import state as session

t = session.translator()
money = session.money()
scenario = session.scenario()
skey = compute.key(scenario)
names = labels.fabric_names(t)
families = {fid: f.family for fid, f in load_catalog().fabrics.items()}
L = labels.chart_labels(t)

st.title(t("scale.title"))
st.caption(t("scale.intro"))


@st.fragment
def sweep_section() -> None:
    metrics = ["tco_total", "cost_per_run", "delta_vs_baseline"]
    metric = st.segmented_control(
        t("scale.metric"),
        metrics,
        default="tco_total",
        format_func=lambda m: t(f"metric.{m}"),
        key=keys.label_key("scale_metric", [t(f"metric.{m}") for m in metrics]),  # a language switch: new key
    )
    sweep_key = compute.sweep_key(scenario)  # a node count change alone reuses the sweep
    df = compute.sweep(sweep_key, scenario)
    bes = compute.node_break_evens(sweep_key, metric or "tco_total", scenario)
    regions = [
        (2, SMALL_NODES, L["region_roce"]),
        (SMALL_NODES, LARGE_NODES, L["region_ib_preferred"]),
        (LARGE_NODES, 16_384, L["region_ib_only"]),
    ]
    fig = lite(
        scale_chart,
        df,
        metric or "tco_total",
        scenario.baseline,
        names,
        families,
        L,
        money.display.short,
        money.rate,
        bes,
        regions,
    )
    st.plotly_chart(fig, key="chart_scale", width="stretch")
    if bes:
        by_fabric: dict[str, list[int]] = {}
        for f, n in bes:
            by_fabric.setdefault(f, []).append(n)
        st.markdown(
            "\n".join(
                f"- {t('scale.break_even_at', fabric=names[f], nodes=', '.join(fmt_number(n) for n in ns))}"
                for f, ns in by_fabric.items()
            )
        )
        st.caption(t("scale.steps_note"))
    else:
        st.info(t("scale.no_break_even"))


@st.fragment
def solver_section() -> None:
    st.subheader(t("scale.solver"))
    st.caption(t("scale.solver_intro"))
    options = [f for f in scenario.fabrics if f != scenario.baseline]
    if not options:
        st.info(t("scale.need_two"))
        return
    c1, c2, c3 = st.columns(3)
    fabric = keys.selectbox(c1, t("scale.upgrade"), options, name="solver_fabric", format_func=names.get)
    params = list(breakeven.PARAMETERS)
    if quote.hidden(scenario):  # a quote's item prices stay confidential: no solving around them
        params = [p for p in params if p not in quote.ITEM_PRICE_PARAMETERS]
        st.caption(t("quote.solver"))
    parameter = keys.selectbox(
        c2,
        t("scale.parameter"),
        params,
        name="solver_param",
        index=params.index("switch_price") if "switch_price" in params else 0,
        format_func=lambda p: L.get(p, p),
    )
    applies_to = None
    if breakeven.PARAMETERS[parameter].per_fabric:
        applies_to = keys.selectbox(
            c3, t("scale.applies_to"), [fabric, scenario.baseline], name="solver_applies", format_func=names.get
        )
    try:
        be = compute.break_even(skey, fabric, parameter, applies_to)
    except ValueError as exc:
        st.error(t("scale.solver_error", error=md_escape(labels.error_text(t, exc))), icon="⚠️")
        return
    # money inputs are shown in the display currency (conversion at display only)
    shown = functools.partial(money.convert_in, unit=be.unit)
    unit = money.unit(t.get(f"unit.{be.unit}", be.unit))
    x_title = f"{L.get(parameter, parameter)} [{unit}]"
    st.plotly_chart(
        lite(
            delta_curve_chart,
            shown(be.values),
            be.deltas,
            [shown(r) for r in be.roots],
            shown(be.current_value),
            risk_choices.chart_labels(L, t, be.metric),  # the tax rate: ΔTCO after tax
            money.display.short,
            money.rate,
            x_title,
        ),
        key="chart_solver",
        width="stretch",
    )
    if be.roots:
        for root, direction in zip(be.roots, be.direction, strict=True):
            st.success(t(f"scale.root_{direction}", fabric=names[fabric], value=format_sig(shown(root), 6), unit=unit))
    else:
        key = "scale.always_cheaper" if be.current_delta < 0 else "scale.always_dearer"
        st.info(t(key, fabric=names[fabric], lo=format_sig(shown(be.values[0])), hi=format_sig(shown(be.values[-1])),
                  unit=unit))
    st.caption(t("scale.current", value=format_sig(shown(be.current_value), 6), unit=unit,
                 delta=money.short(be.current_delta)))
    if be.metric == "tco_after_tax":
        st.caption(t("fincarbon.solver_after_tax"))


NAME, TITLES = lazy_tabs.SCALE
RENDER = {"sweep": sweep_section, "solver": solver_section}
lazy_tabs.show(t, NAME, {p: (TITLES[p], RENDER[p]) for p in TITLES})
