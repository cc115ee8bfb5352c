"""Risk: tornado of ΔTCO vs the baseline, and the Monte Carlo spread of every fabric's TCO."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from costmodel.catalog import load_catalog
from costmodel.quantities import spec
from webui import charts, compute, keys, labels, session
from webui.fincarbon_inputs import tornado_metric

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
    df = compute.tornado(skey, fabric, tornado_metric(t, scenario))  # after-tax ΔTCO when taxed (issue 13)
    st.plotly_chart(
        charts.lite(charts.tornado_chart, df, L, money.display.short, money.rate), key="chart_tornado", width="stretch"
    )


@st.fragment
def monte_carlo_section() -> None:
    st.subheader(t("risk.mc"))
    c1, c2 = st.columns(2)
    draws = c1.select_slider(t("risk.draws"), [1_000, 2_000, 5_000, 10_000, 20_000], value=10_000, key="risk_draws")
    seed_lo, seed_hi = spec("analysis.mc_seed").bounds()
    seed = c2.number_input(t("risk.seed"), min_value=seed_lo, max_value=seed_hi, value=1, step=1, key="risk_seed")
    tco, summary = compute.monte_carlo(skey, int(draws), int(seed))
    st.plotly_chart(
        charts.lite(
            charts.mc_histogram,
            tco,
            list(scenario.fabrics),
            names,
            families,
            summary,
            L,
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


tornado_section()
monte_carlo_section()
