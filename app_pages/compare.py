"""Compare: the fabrics side by side — KPIs, breakdown, cumulative cost, waterfall, specs, advice."""

from __future__ import annotations

import streamlit as st

from costmodel.analysis.timeline import cumulative
from webui import compute
from webui.charts.base import lite
from webui.charts.costs import breakdown_bar, cumulative_cost, savings_waterfall
from webui.i18n import labels
from webui.i18n.text import markdown_table, md_escape
from webui.i18n.translator import fmt_number
from webui.panels import bom_panel, details, equal_work_panel, kpi_cards, reliability_panel, rent_panel, specs_panel
from webui.panels.carbon_panel import carbon_panel
from webui.sections import compare_notes, scaleout
from webui.sections.fit_notes import no_fit_text
from webui.session import keys, titles
from webui.session import state as session

t = session.translator()
money = session.money()
scenario = session.scenario()
res = compute.evaluate(compute.key(scenario), _scenario=scenario)
fabrics = res.fabrics
names = labels.fabric_names(t)
short = labels.fabric_short_names(t)
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
        st.warning(no_fit_text(t, names[f.id], f.metrics, scenario.cluster.nodes), icon="⏱️")
searched = scenario.workload.parallelism == "best"
for f in fabrics:
    if not f.metrics["fits_memory"]:
        st.warning(t("layout.none_fits" if searched else "layout.fixed_too_big", fabric=names[f.id],
                     used=fmt_number(f.metrics["memory_gb_per_gpu"], 1),
                     usable=fmt_number(f.metrics["memory_usable_gb"], 1)), icon="🧮")

# --- headline: the same work, each fabric sized to deliver it
equal_work_panel.show(t, money, res, names, compare_notes.slowdown_lines(t, res, names))

# --- KPIs of the fixed cluster: cards that wrap into rows, or one sortable table for many fabrics
st.subheader(t("compare.fixed_title", nodes=fmt_number(res.nodes)))
kpi_cards.show(t, money, scenario, res, names, short)

# --- recommendation: the article's rule, and the model's two answers, each with its question
rec = res.recommendation
with st.container(border=True):
    st.subheader(t("compare.recommendation"))
    answers = compare_notes.picks(t, money, res, names)
    cols = st.columns(1 + len(answers))
    cols[0].metric(t("pick.rule"), short.get(rec.rule, "—") if rec.rule else "—", help=t("compare.rule_help"))
    if rec.rule:
        cols[0].caption(md_escape(names[rec.rule]))
    for col, answer in zip(cols[1:], answers.values(), strict=True):
        col.metric(answer["question"], short[answer["fabric"]], help=answer["help"])
        col.caption(md_escape(answer["detail"]))
    if rec.reason_codes:  # one Markdown list
        st.markdown("\n".join(f"- {md_escape(labels.reason(t, rc, money))}" for rc in rec.reason_codes))

# --- how much of a step the scale-out fabric costs (inside the scale-up domain the GPUs talk over NVLink)
with st.container(border=True):
    st.subheader(t("scaleup.title"))
    st.caption(md_escape(scaleout.scaleout_caption(t, res)))
    st.markdown(markdown_table(*scaleout.scaleout_table(t, res, names)))
    st.markdown(f"**{md_escape(scaleout.scaleout_note(t, res))}**")

# --- charts
show = money.display.short  # charts convert with money.rate, then format


def charts_section() -> None:  # no widget in it: a fragment would only add its bookkeeping
    # side by side up to the cards' count; more fabrics: each chart the page's width
    left, right = st.columns(2) if kpi_cards.layout_for(len(fabrics)) == "cards" else (st.container(),) * 2
    with left:
        st.plotly_chart(
            lite(breakdown_bar, res, L, show, money.rate), key="chart_breakdown", width="stretch"
        )
    cum = cumulative(res)
    with right:
        st.plotly_chart(
            lite(cumulative_cost, cum.months, cum.curves, cum.crossings, names, families, L, show, money.rate),
            key="chart_cumulative",
            width="stretch",
        )
    if cum.crossings:  # a table under the charts, by the legend's labels: on the plot they would overlap
        header, rows = compare_notes.crossing_table(t, money, cum, short)
        st.markdown(f"**{md_escape(t('crossings.title'))}**\n\n" + markdown_table(header, rows))


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
        lite(
            savings_waterfall,
            base.breakdown,
            chosen.breakdown,
            names[base.id],
            names[choice],
            L,
            show,
            money.rate,
            short_names=(short[base.id], short[choice]),
        ),
        key="chart_waterfall",
        width="stretch",
    )


charts_section()
waterfall_section()
details.show(t, {
    "bom": lambda: bom_panel.render(res, t, money, names),
    "rent": lambda: rent_panel.render(t, money, scenario, res),
    "fincarbon": lambda: carbon_panel(t, scenario, res, money, names),  # after tax and carbon
    "specs": lambda: specs_panel.render(t, scenario, res, names),
    "reliability": lambda: reliability_panel.render(t, fabrics, names),  # by cause, restarts, spares
})
