"""Compare's fixed-cluster KPIs for 2–20 fabrics: cards of a readable width that wrap into rows or,
past :data:`CARDS_UP_TO` fabrics, one sortable table with a row per fabric.

Why a table past eight: on the 1,500-px-wide screen a sales engineer presents on, four cards of
:data:`CARD_WIDTH_PX` fit a row, so eight fabrics are two rows a reader takes in at a glance. Nine
or more are three rows or more of tall cards, where finding the cheapest fabric means scanning every
card; a table puts each figure in one column, sorted with a click on its header. The notes a card
carries (layout, memory, measured figures, NCCL's socket fallback) go under the table as one list,
a note shared by every fabric said once.
"""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.catalog.formatting import format_ratio
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.results import FabricResult, Result
from costmodel.scenario.schema import Scenario
from webui.i18n import layouts
from webui.i18n.durations import duration_text
from webui.i18n.money import SYMBOLS, Money, compact
from webui.i18n.text import md_escape
from webui.i18n.translator import Translator, fmt_number
from webui.inputs import calibration

#: at most this many fabrics are shown as cards; more become one table
CARDS_UP_TO = 8
#: a card's width [px]: "¥18,312 万" and "−$1.23 M" fit at the metric's size; four fit a row at 1,500 px
CARD_WIDTH_PX = 240


def layout_for(n_fabrics: int) -> str:
    """``"cards"`` for up to :data:`CARDS_UP_TO` fabrics, else ``"table"``.

    >>> layout_for(2), layout_for(8), layout_for(9), layout_for(20)
    ('cards', 'cards', 'table', 'table')
    """
    return "cards" if n_fabrics <= CARDS_UP_TO else "table"


def card_lines(t: Translator, money: Money, f: FabricResult) -> dict[str, str]:
    """A card's figures under its TCO, label → text (the payback in words: :func:`duration_text`)."""
    m = f.metrics
    rows = {
        t("kpi.ratio"): format_ratio(f.ratio_vs_baseline),
        t("kpi.npv"): money.short(f.npv),
        t("kpi.payback"): duration_text(t, f.payback_years),
        t("kpi.run_days"): fmt_number(m["run_days"], 1),
        t("kpi.gpu_util"): f"{m['gpu_utilization']:.1%}",
        t("kpi.interruptions"): fmt_number(m["interruptions_per_year"], 1),
        t("kpi.cpu"): f"{m['cpu_overhead_share']:.2%}",
        t("kpi.runs_year"): fmt_number(m["runs_per_year"], 1),
    }
    if f.always_busy:  # the most runs the same cluster makes, kept busy all year
        rows[t("kpi.max_runs")] = fmt_number(f.always_busy["runs_per_year"], 1)
    rows.update({  # one figure each, whatever the schedule: the hours a run holds the cluster, priced
        t("kpi.per_cluster_hour"): money.short(m["cost_per_cluster_hour"]),
        t("kpi.per_run"): money.short(m["cost_per_run"]),
        t("kpi.per_mtok"): money(m["cost_per_mtok"], digits=2),
        t("kpi.per_gpu_hour"): money(m["cost_per_useful_gpu_hour"], digits=2),
    })
    return rows


def fabric_notes(t: Translator, scenario: Scenario, f: FabricResult) -> list[str]:
    """The notes of one fabric's card as Markdown (user-given labels escaped): layout, memory, a
    measured efficiency, NCCL's socket fallback, a measured all-to-all."""
    m = f.metrics
    notes = [t("layout.card", layout=layouts.layout_text(t, m)), layouts.memory_text(t, m)]
    cat = load_catalog()
    if f.measured:  # the result's label; the scenario's fields give it in the page's language
        meas = scenario.measurements.get(f.id)
        notes.append(t("calib.measured", summary=md_escape(calibration.label(t, meas) if meas else f.measured)))
    elif f.id in cat.fabrics and cat.fabrics[f.id].socket_fallback and f.id not in scenario.overrides.fabrics:
        notes.append(t("compare.nccl_sockets"))
    if f.measured_alltoall:
        a2a = scenario.alltoall_measurements.get(f.id)
        notes.append(t("calib.a2a_measured", summary=md_escape(calibration.label(t, a2a) if a2a
                                                                else f.measured_alltoall)))
    return notes


def show(t: Translator, money: Money, scenario: Scenario, res: Result, names: Mapping[str, str],
         short: Mapping[str, str]) -> None:
    """The fixed cluster's KPIs: cards or, past :data:`CARDS_UP_TO` fabrics, a sortable table."""
    if layout_for(len(res.fabrics)) == "cards":
        _cards(t, money, scenario, res, names)
    else:
        _table(t, money, res, short)
        _notes(t, scenario, res, short)


def _cards(t: Translator, money: Money, scenario: Scenario, res: Result, names: Mapping[str, str]) -> None:
    import streamlit as st

    with st.container(horizontal=True, wrap=True, gap="small"):
        for f in res.fabrics:
            with st.container(border=True, width=CARD_WIDTH_PX):
                is_base = f.id == res.baseline
                st.markdown(f"**{md_escape(names[f.id])}**" + (f" · {t('compare.baseline')}" if is_base else ""))
                st.metric(t("kpi.tco", years=res.horizon_years), money.short(f.tco_total),
                          delta=None if is_base else money.delta(f.delta_vs_baseline), delta_color="inverse",
                          help=money(f.tco_total))
                # one Markdown element for the figures: far cheaper to send on every rerun than a table
                st.markdown("  \n".join(f"{k}: **{v}**" for k, v in card_lines(t, money, f).items()))
                notes = fabric_notes(t, scenario, f)
                st.caption(notes[0] + "  \n" + notes[1])  # layout and memory
                for note in notes[2:]:
                    st.caption(note)


def money_column(money: Money, values: list[float | None]) -> tuple[list[float | None], str, str]:
    """Amounts of one table column in one compact unit (from its largest), so that they sort as
    numbers and read alike: (scaled values, unit text for the header, printf format).

    >>> money_column(Money("USD", "USD", 1.0), [25.8e6, -1.2e6, None])
    ([25.8, -1.2, None], '$ M', '%.2f')
    >>> money_column(Money("USD", "CNY", 7.1, "zh"), [2.5e6, 1e6])[1:]
    ('¥ 万', '%.0f')
    """
    shown = [None if v is None else money.convert(v) for v in values]
    top = max((abs(v) for v in shown if v is not None), default=0.0)
    scaled, suffix = compact(top, money.lang)
    div = top / scaled if suffix and scaled else 1.0
    digits = 2 if money.lang != "zh" or not suffix else 0 if scaled >= 1000 else 1 if scaled >= 100 else 2
    unit = SYMBOLS[money.currency] + suffix
    return [None if v is None else v / div for v in shown], unit, f"%.{digits}f"


def _table(t: Translator, money: Money, res: Result, short: Mapping[str, str]) -> None:
    """One row per fabric (its short label: the column stays narrow; the full names are in the
    equal-work table above), one numeric column per figure, so a click on a header sorts by it."""
    import pandas as pd
    import streamlit as st
    from streamlit import column_config as cc

    fabrics = res.fabrics
    cols: dict[str, list] = {}
    config: dict[str, object] = {}
    label = t("cards.fabric")
    cols[label] = [short[f.id] + (f" · {t('compare.baseline')}" if f.id == res.baseline else "") for f in fabrics]
    config[label] = cc.TextColumn(label, pinned=True)

    def money_col(title: str, values: list[float | None]) -> None:
        scaled, unit, fmt = money_column(money, values)
        head = f"{title} [{unit}]"
        cols[head] = scaled
        config[head] = cc.NumberColumn(head, format=fmt)

    def number_col(title: str, values: list[float | None], fmt: str) -> None:
        cols[title] = values
        config[title] = cc.NumberColumn(title, format=fmt)

    money_col(t("kpi.tco", years=res.horizon_years), [f.tco_total for f in fabrics])
    money_col(t("cards.delta"), [None if f.id == res.baseline else f.delta_vs_baseline for f in fabrics])
    money_col(t("kpi.npv"), [f.npv for f in fabrics])
    number_col(f"{t('kpi.payback')} [{t('cards.days')}]",
               [None if f.payback_years is None else f.payback_years * 365.25 for f in fabrics], "%.0f")
    for key, metric, fmt, scale in (("kpi.run_days", "run_days", "%.1f", 1.0),
                                    ("kpi.gpu_util", "gpu_utilization", "%.1f%%", 100.0),
                                    ("kpi.interruptions", "interruptions_per_year", "%.1f", 1.0),
                                    ("kpi.cpu", "cpu_overhead_share", "%.2f%%", 100.0)):
        number_col(t(key), [f.metrics[metric] * scale for f in fabrics], fmt)
    number_col(t("kpi.runs_year"), [f.metrics["runs_per_year"] for f in fabrics], "%.1f")
    if all(f.always_busy for f in fabrics):
        number_col(t("kpi.max_runs"), [f.always_busy["runs_per_year"] for f in fabrics], "%.1f")
    for key, metric in (("kpi.per_cluster_hour", "cost_per_cluster_hour"), ("kpi.per_run", "cost_per_run"),
                        ("kpi.per_mtok", "cost_per_mtok"), ("kpi.per_gpu_hour", "cost_per_useful_gpu_hour")):
        money_col(t(key), [f.metrics[metric] for f in fabrics])
    st.caption(t("cards.table_note", n=len(fabrics)))
    st.dataframe(pd.DataFrame(cols), hide_index=True, column_config=config, key="compare_kpi_table",
                 height=38 + 35 * len(fabrics), placeholder="—")


def _notes(t: Translator, scenario: Scenario, res: Result, short: Mapping[str, str]) -> None:
    """The cards' notes under the table, each once: for every fabric, or naming the fabrics it is about."""
    import streamlit as st

    by_note: dict[str, list[str]] = {}
    for f in res.fabrics:
        for note in fabric_notes(t, scenario, f):
            by_note.setdefault(note, []).append(f.id)
    every = len(res.fabrics)
    lines = [f"**{md_escape(t('cards.all_fabrics') if len(ids) == every else ', '.join(short[i] for i in ids))}**: "
             f"{note}" for note, ids in by_note.items()]
    st.caption("  \n".join(lines))
