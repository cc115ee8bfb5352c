"""The same work under uncertainty as a table: the rows of the Risk page's section and of
the PDF report's, from :func:`costmodel.analysis.work_risk.work_monte_carlo`'s summary. Texts in
``locales/{en,zh}/work_risk.yaml``; no Streamlit here, so the report builds without it."""

from __future__ import annotations

import html
import math
from collections.abc import Callable

import pandas as pd

from webui.i18n.translator import Translator

#: draws and seed of the report's table (the report's Monte Carlo histogram uses the same)
REPORT_DRAWS, REPORT_SEED = 5000, 1


def header(t: Translator) -> list[str]:
    return [t("work_mc.col_fabric"), t("work_mc.col_nodes"), "P10", "P50", "P90", t("work_mc.col_first"),
            t("work_mc.col_delivers")]


def rows(t: Translator, summary: pd.DataFrame, names: dict[str, str], money: Callable[[float], str]
         ) -> list[list[str]]:
    """One row per fabric: name, nodes, P10/P50/P90 of the cost of the work, P(cheapest), P(delivers);
    a fabric no size delivers reads "not within N nodes" and dashes."""
    out = []
    for r in summary.itertuples(index=False):
        if r.nodes > 0:
            out.append([names[r.fabric], f"{r.nodes:,}", money(r.p10), money(r.p50), money(r.p90),
                        f"{r.prob_first:.0%}", f"{r.prob_delivers:.0%}"])
        else:
            out.append([names[r.fabric], t("work_mc.none", max=f"{r.max_nodes:,}"), "—", "—", "—", "—", "—"])
    return out


def note(t: Translator, scenario, years: int) -> str:
    """What the table measures, with the scenario's plan."""
    w = scenario.workload
    runs = f"{w.runs_per_year:g}"
    plan = (t("work_mc.plan_target", runs=runs, days=f"{w.target_run_days:g}") if w.target_run_days is not None
            else t("work_mc.plan_year", runs=runs))
    return t("work_mc.note", years=years, plan=plan)


def work_risk_section(t: Translator, scenario, summary: pd.DataFrame, names: dict[str, str],
                      table: Callable[..., str], money: Callable[[float], str], years: int) -> str:
    """The PDF report's section "The same work under uncertainty" as HTML; ``table`` escapes cells."""
    e = html.escape
    if not any(math.isfinite(v) for v in summary["p50"]):
        return ""  # no fabric can deliver the plan: the report's equal-work table already says so
    return "".join([f"<h2>{e(t('work_mc.title'))}</h2>",
                    table(header(t), rows(t, summary, names, money)),
                    f"<p class='muted'>{e(note(t, scenario, years))}</p>"])
