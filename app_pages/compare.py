"""Compare: the fabrics side by side — KPIs, breakdown, cumulative cost, waterfall, specs, advice."""

from __future__ import annotations

import streamlit as st

from costmodel.catalog import load_catalog
from costmodel.formatting import format_ratio
from costmodel.timeline import cumulative
from webui import (
    bom_panel,
    calibration,
    charts,
    compute,
    details,
    equal_work_panel,
    keys,
    labels,
    layouts,
    reliability_panel,
    rent_panel,
    session,
    specs_panel,
    titles,
)
from webui.carbon_panel import carbon_panel
from webui.i18n import fmt_number
from webui.text import md_escape

t = session.translator()
money = session.money()
scenario = session.scenario()
res = compute.evaluate(compute.key(scenario), _scenario=scenario)
cat = load_catalog()
fabrics = res.fabrics
names = labels.fabric_names(t)
families = {f.id: f.family for f in fabrics}
base = res.fabric(res.baseline)
L = labels.chart_labels(t)

st.title(t("compare.title"))
st.caption(
    t(
        "compare.subtitle",
        name=md_escape(titles.scenario_title(scenario, session.preset(), t)),  # "(modified)" once changed
        scope=t(f"opt.scope.{res.scope}"),
        years=res.horizon_years,
        book=md_escape(labels.price_book_name(t, res.price_book)),
        currency=money.currency,
        model_currency=money.model_currency,
        rate=f"{money.rate:g}",
    )
)

for f in fabrics:
    if not f.fits_plan:
        st.warning(t("compare.no_fit", fabric=names[f.id], load=f"{f.metrics['plan_load']:.0%}"), icon="⏱️")
searched = scenario.workload.parallelism == "best"
for f in fabrics:
    if not f.metrics["fits_memory"]:
        st.warning(t("layout.none_fits" if searched else "layout.fixed_too_big", fabric=names[f.id],
                     used=fmt_number(f.metrics["memory_gb_per_gpu"], 1),
                     usable=fmt_number(f.metrics["memory_usable_gb"], 1)), icon="🧮")

# --- headline: the same work, each fabric sized to deliver it
equal_work_panel.show(t, money, res, names)

# --- KPI cards: the fixed cluster
st.subheader(t("compare.fixed_title", nodes=fmt_number(res.nodes)))
cols = st.columns(len(fabrics), border=True)  # bordered columns: a card each, no container inside
for col, f in zip(cols, fabrics, strict=True):
    with col:
        is_base = f.id == res.baseline
        m = f.metrics
        st.markdown(f"**{names[f.id]}**" + (f" · {t('compare.baseline')}" if is_base else ""))
        st.metric(
            t("kpi.tco", years=res.horizon_years),
            money.short(f.tco_total),
            delta=None if is_base else money.delta(f.delta_vs_baseline),
            delta_color="inverse",
            help=money(f.tco_total),
        )
        rows = {
            t("kpi.ratio"): format_ratio(f.ratio_vs_baseline),
            t("kpi.npv"): money.short(f.npv),
            t("kpi.payback"): "—" if f.payback_years is None else (
                t("kpi.years", n=f"{f.payback_years:.1f}") if f.payback_years >= 1
                else t("kpi.months", n=f"{f.payback_years * 12:.1f}")),
            t("kpi.run_days"): fmt_number(m["run_days"], 1),
            t("kpi.gpu_util"): f"{m['gpu_utilization']:.1%}",
            t("kpi.interruptions"): fmt_number(m["interruptions_per_year"], 1),
            t("kpi.cpu"): f"{m['cpu_overhead_share']:.2%}",
        }
        busy = f.always_busy  # the same cluster kept busy all year: slowness shows as fewer runs
        if busy:
            rows.update({
                t("kpi.busy_runs"): fmt_number(busy["runs_per_year"], 1),
                t("kpi.busy_per_run"): money.short(busy["cost_per_run"]),
                t("kpi.busy_per_mtok"): money(busy["cost_per_mtok"], digits=2),
                t("kpi.busy_per_gpu_hour"): money(busy["cost_per_useful_gpu_hour"], digits=2),
            })
        # one Markdown element per card: far cheaper to send on every rerun than a table
        st.markdown("  \n".join(f"{k}: **{v}**" for k, v in rows.items()))
        st.caption(t("layout.card", layout=layouts.layout_text(t, m)) + "  \n" + layouts.memory_text(t, m))
        if f.measured:  # the result's label; the scenario's fields give it in the page's language
            meas = scenario.measurements.get(f.id)
            st.caption(t("calib.measured", summary=md_escape(calibration.label(t, meas) if meas else f.measured)))
        elif f.id in cat.fabrics and cat.fabrics[f.id].socket_fallback and f.id not in scenario.overrides.fabrics:
            st.caption(t("compare.nccl_sockets"))
        calibration.alltoall_caption(t, scenario, f)

# --- recommendation
rec = res.recommendation
with st.container(border=True):
    st.subheader(t("compare.recommendation"))
    a, b = st.columns(2)
    a.metric(t("compare.rule"), names.get(rec.rule, "—") if rec.rule else "—", help=t("compare.rule_help"))
    b.metric(t("compare.cost_optimal"), names[rec.cost_optimal], help=t(f"compare.metric_{rec.metric}"))
    if rec.reason_codes:  # one Markdown list
        st.markdown("\n".join(f"- {md_escape(labels.reason(t, rc, money))}" for rc in rec.reason_codes))

# --- charts
show = money.display.short  # charts convert with money.rate, then format


def charts_section() -> None:  # no widget in it: a fragment would only add its bookkeeping
    left, right = st.columns(2)
    with left:
        st.plotly_chart(
            charts.lite(charts.breakdown_bar, res, L, show, money.rate), key="chart_breakdown", width="stretch"
        )
    with right:
        cum = cumulative(res)
        st.plotly_chart(
            charts.lite(charts.cumulative_cost, cum.months, cum.curves, cum.crossings, names, families, L, show,
                        money.rate),
            key="chart_cumulative",
            width="stretch",
        )
        if cum.crossings:  # one caption, a line per crossing
            st.caption("  \n".join(t("compare.crossing", a=names[c.a], b=names[c.b], month=f"{c.month:.1f}")
                                    for c in cum.crossings))


@st.fragment
def waterfall_section() -> None:
    others = [f.id for f in fabrics if f.id != base.id]
    if not others:
        return
    default = rec.cost_optimal if rec.cost_optimal in others else others[0]
    choice = keys.selectbox(st, t("compare.waterfall"), others, name="compare_waterfall_fabric",
                            index=others.index(default), format_func=names.get)
    chosen = res.fabric(choice)
    st.plotly_chart(
        charts.lite(
            charts.savings_waterfall,
            base.breakdown,
            chosen.breakdown,
            names[base.id],
            names[choice],
            L,
            show,
            money.rate,
        ),
        key="chart_waterfall",
        width="stretch",
    )


charts_section()
waterfall_section()
details.show(t, {
    "bom": lambda: bom_panel.render(res, t, money, names),
    "rent": lambda: rent_panel.render(t, money, scenario, res),
    "fincarbon": lambda: carbon_panel(t, scenario, res, money, names),  # after tax and carbon (issue 13)
    "specs": lambda: specs_panel.render(t, scenario, res, names),
    "reliability": lambda: reliability_panel.render(t, fabrics, names),  # by cause, restarts, spares (issue 13)
})
