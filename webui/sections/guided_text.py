"""The quick estimate's answer in words, for the page (plain text: the page escapes it): the one
sentence that says why the guide leads with its fabric, and its headline numbers."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.analysis.guided import PRIORITY_METRIC
from costmodel.pipeline.results import Result
from webui.i18n.money import Money
from webui.i18n.translator import Translator, fmt_number
from webui.sections.compare_notes import picks


def _runner_up(res: Result, fabric: str, key: str):
    """The next-best other fabric on metric ``key`` (lower is better), or None when there is none."""
    others = [f for f in res.fabrics if f.id != fabric and f.metrics["fits_memory"]]
    return min(others, key=lambda f: (float(f.metrics[key]), f.tco_total)) if others else None


def _pair(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` written with one decimal, or more (up to three) until they read differently."""
    for digits in (1, 2, 3):
        pa, pb = fmt_number(a, digits), fmt_number(b, digits)
        if pa != pb:
            break
    return pa, pb


def reason(t: Translator, money: Money, res: Result, names: Mapping[str, str], fabric: str, priority: str) -> str:
    """One sentence: why ``fabric`` answers ``priority`` (``cost``: the model's recommendation as
    Compare words it; ``time``, ``risk``: its run length or lost hours against the next-best fabric)."""
    if priority == "cost":
        answer = picks(t, money, res, names)
        detail = (answer.get("work") or answer["fixed"])["detail"]
        return t("guided.why.cost", fabric=names[fabric], detail=detail)
    key = PRIORITY_METRIC[priority]
    mine = float(res.fabric(fabric).metrics[key])
    other = _runner_up(res, fabric, key)
    if other is None:
        return t(f"guided.why.{priority}_alone", fabric=names[fabric], value=fmt_number(mine, 1),
                 nodes=fmt_number(res.nodes))
    value, other_value = _pair(mine, float(other.metrics[key]))
    return t(f"guided.why.{priority}", fabric=names[fabric], value=value, nodes=fmt_number(res.nodes),
             other=names[other.id], other_value=other_value)


def headline(t: Translator, money: Money, res: Result, fabric: str) -> list[tuple[str, str]]:
    """(label, value) of the answer's headline numbers: the TCO over the horizon, the days of one
    training run, the hours a year lost to interruptions, and the cost of one run."""
    f = res.fabric(fabric)
    return [
        (t("guided.kpi.tco", years=res.horizon_years), money.short(f.tco_total)),
        (t("guided.kpi.run_days"), fmt_number(float(f.metrics["run_days"]), 1)),
        (t("guided.kpi.lost_hours"), fmt_number(float(f.metrics["lost_hours_per_year"]), 1)),
        (t("guided.kpi.cost_per_run"), money.short(float(f.metrics["cost_per_run"]))),
    ]


__all__ = ["headline", "reason"]
