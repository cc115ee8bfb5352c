"""The same work, each fabric's cluster sized in whole nodes to deliver it: the rows and the plan in
words, for Compare's headline (:mod:`webui.panels.equal_work_panel`) and the PDF report (no Streamlit here)."""

from __future__ import annotations

import math

from costmodel.pipeline.results import Result
from webui.i18n.translator import fmt_number


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
            t("work.per_run"): money.short(ew.work_cost_per_run[j]),
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
