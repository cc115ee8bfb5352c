"""Compare's headline: the same work, each fabric's cluster sized in whole nodes to deliver it.

:func:`rows` and :func:`plan_text` serve the PDF report too (Streamlit is imported only to show)."""

from __future__ import annotations

import math

from costmodel.pipeline.results import Result
from webui.i18n import fmt_number
from webui.text import markdown_table, md_escape


def rows(t, money, res: Result, names: dict[str, str]) -> list[dict[str, str]]:
    """One table row per fabric, in the page's language, plain text (the page's Markdown table and
    the PDF's HTML table each escape it)."""
    ew = res.equal_work
    best = ew.cheapest
    out = []
    for j, fid in enumerate(ew.fabric_ids):
        star = " ★" if j == best else ""
        if not ew.feasible[j]:
            out.append({t("work.fabric"): names[fid],
                        t("work.nodes"): t("work.none", max=fmt_number(ew.max_nodes)),
                        t("work.cost"): "—", t("work.per_run"): "—", t("work.days"): "—",
                        t("work.vs_best"): "—"})
            continue
        vs = "—" if best is None or j == best else f"+{ew.cost[j] / ew.cost[best] - 1.0:.1%}"
        out.append({
            t("work.fabric"): names[fid] + star,
            t("work.nodes"): fmt_number(int(ew.nodes[j])),
            t("work.cost"): money.short(ew.cost[j]),
            t("work.per_run"): money.short(ew.cost_per_run[j]),
            t("work.days"): fmt_number(ew.run_days[j], 1),
            t("work.vs_best"): vs,
        })
    return out


def plan_text(t, res: Result) -> str:
    """The work every fabric is sized for, in words."""
    ew = res.equal_work
    target = ew.target_run_days
    days = t("work.target", days=fmt_number(target, 1)) if target is not None and math.isfinite(target) \
        else t("work.no_target")
    return t("work.plan", runs=fmt_number(ew.runs_per_year, 1), days=days, years=res.horizon_years)


def show(t, money, res: Result, names: dict[str, str], slowdowns: list[str] = ()) -> None:
    """The equal-work table with its plan and how to read it; ``slowdowns``: why a fabric is slower on
    the scenario's nodes than on the cluster sized for the work (plain text, one line each)."""
    import streamlit as st

    if res.equal_work is None:
        return
    with st.container(border=True):
        st.subheader(t("work.title"))
        st.caption(plan_text(t, res))
        table = rows(t, money, res, names)
        st.markdown(markdown_table(list(table[0]), [list(row.values()) for row in table]))
        st.caption(t("work.note", nodes=fmt_number(res.nodes)))
        if slowdowns:
            st.info("  \n".join(md_escape(line) for line in slowdowns), icon=":material/speed:")
