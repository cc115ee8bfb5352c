"""Risk: tornado of ΔTCO (or of the Δ cost of the same work) vs the baseline, the Monte Carlo spread of
every fabric's TCO, and the same work under uncertainty — one tab each; only the open tab computes
(a scenario change reruns one analysis, not three)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.catalog.loader import load_catalog
from costmodel.quantities import spec
from webui import compute
from webui.charts.base import lite
from webui.charts.risk import mc_histogram, tornado_chart
from webui.i18n import labels
from webui.i18n.text import markdown_table, md_escape
from webui.inputs import number_boxes, risk_choices
from webui.panels import lazy_tabs
from webui.sections import work_resize as resize_rows
from webui.sections import work_risk as work_rows
from webui.session import keys
from webui.session import state as session

t = session.translator()
money = session.money()
scenario = session.scenario()
skey = compute.key(scenario)
names = labels.fabric_names(t)
families = {f: load_catalog().fabrics[f].family for f in scenario.fabrics}
L = labels.chart_labels(t)

st.title(t("risk.title"))
st.caption(t("risk.intro"))


@st.fragment
def tornado_section() -> None:
    st.subheader(t("risk.tornado"))
    options = [f for f in scenario.fabrics if f != scenario.baseline]
    if not options:
        st.info(t("scale.need_two"))
        return
    fabric = keys.selectbox(st, t("risk.fabric"), options, name="risk_fabric", format_func=names.get)
    res = compute.evaluate(skey, _scenario=scenario)
    metric = risk_choices.tornado_metric(t, scenario, res, fabric, names)  # after tax, same work
    df = compute.tornado(skey, fabric, metric)
    st.plotly_chart(
        lite(tornado_chart, df, risk_choices.chart_labels(L, t, metric), money.display.short,
             money.rate),
        key="chart_tornado", width="stretch",
    )


KEPT = "risk_draws_seed"  # the last draws and seed: a widget's state is dropped while its tab is closed


def _draws_and_seed() -> tuple[int, int]:
    """The Monte Carlo's draws and seed, shared by its two tabs (kept while the other tab is open)."""
    kept_draws, kept_seed = st.session_state.get(KEPT, (10_000, 1))
    c1, c2 = st.columns(2)
    draws = c1.select_slider(t("risk.draws"), [1_000, 2_000, 5_000, 10_000, 20_000], value=kept_draws,
                             key="risk_draws")
    seed_lo, seed_hi = spec("analysis.mc_seed").bounds()
    seed = number_boxes.bounded_number(t, c2, t("risk.seed"), "risk_seed", seed_lo, seed_hi, kept_seed, whole=True)
    st.session_state[KEPT] = (int(draws), int(seed))
    return int(draws), int(seed)


@st.fragment
def monte_carlo_section() -> None:
    st.subheader(t("risk.mc"))
    draws, seed = _draws_and_seed()
    metric = risk_choices.mc_metric(t, scenario)  # the TCO after tax when taxed
    tco, summary = compute.monte_carlo(skey, int(draws), int(seed), metric)
    st.plotly_chart(
        lite(
            mc_histogram,
            tco,
            list(scenario.fabrics),
            names,
            families,
            summary,
            risk_choices.chart_labels(L, t, metric),
            money.display.short,
            money.rate,
        ),
        key="chart_mc",
        width="stretch",
    )
    table = pd.DataFrame(
        {
            t("risk.col_fabric"): [names[f] for f in summary["fabric"]],
            "P10": [money.short(v) for v in summary["p10"]],
            "P50": [money.short(v) for v in summary["p50"]],
            "P90": [money.short(v) for v in summary["p90"]],
            t("risk.col_prob"): [f"{p:.0%}" for p in summary["prob_cheaper_than_baseline"]],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch", key="risk_table")
    st.caption(t("risk.mc_note", draws=f"{int(draws):,}", seed=int(seed)))


@st.fragment
def work_section() -> None:
    """The same work under uncertainty: each fabric's equal-work cluster in the same draws."""
    st.subheader(t("work_mc.title"))
    draws, seed = _draws_and_seed()
    work = compute.work_monte_carlo(skey, int(draws), int(seed))
    rows = work_rows.rows(t, work, names, money.short)
    st.markdown(markdown_table(work_rows.header(t), rows))
    st.caption(md_escape(work_rows.note(t, scenario, int(scenario.finance.horizon_years))))
    st.markdown(f"**{md_escape(t('work_resize.title'))}**")
    resized = compute.resized_work_monte_carlo(skey, int(draws), int(seed))
    st.markdown(markdown_table(resize_rows.header(t), resize_rows.rows(t, resized, names, money.short)))
    st.caption(md_escape(resize_rows.note(t, int(scenario.finance.horizon_years))))


NAME, TITLES = lazy_tabs.RISK
RENDER = {"tornado": tornado_section, "mc": monte_carlo_section, "work_mc": work_section}
lazy_tabs.show(t, NAME, {p: (TITLES[p], RENDER[p]) for p in TITLES})
