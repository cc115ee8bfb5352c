"""Compare's texts in words, for the page and the PDF report alike: where the cumulative costs cross
the baseline's (a table under the chart, never labels on it), the recommendation's two questions
(the cheapest way to do the work; the best fabric for the nodes entered), and why a fabric's run is
slower on more nodes. Plain text: the page's Markdown and the PDF's HTML each escape it."""

from __future__ import annotations

import math
from collections.abc import Mapping

from costmodel.analysis.slowdown import Slowdown, slower_with_more_nodes
from costmodel.analysis.timeline import Cumulative
from costmodel.pipeline.results import Result
from webui.i18n.durations import months_text
from webui.i18n.money import Money
from webui.i18n.translator import Translator, fmt_number


def crossing_table(t: Translator, money: Money, cum: Cumulative, names: Mapping[str, str]
                   ) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the crossings of each fabric's cumulative cost with the baseline's: the
    fabric, when (:func:`webui.i18n.durations.months_text`), the cumulative cost there, and whether the
    fabric is cheaper or dearer than the baseline from then on (until a next crossing); the
    earliest crossing first."""
    header = [t("crossings.fabric"), t("crossings.after"), t("crossings.cost"), t("crossings.then")]
    rows = []
    for c in sorted(cum.crossings, key=lambda c: c.month):  # the earliest first
        base, curve = cum.curves[c.a], cum.curves[c.b]
        after = min(math.floor(c.month) + 1, len(curve) - 1)  # the first whole month past the crossing
        cheaper = curve[after] < base[after]
        rows.append([names.get(c.b, c.b), months_text(t, c.month), money.short(c.cost),
                     t("crossings.cheaper" if cheaper else "crossings.dearer")])
    return header, rows


def picks(t: Translator, money: Money, res: Result, names: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """The recommendation's two answers, each with its question: ``work`` (the cheapest way to do
    this work, when some fabric can be sized for it) and ``fixed`` (the best fabric for the nodes
    entered); each ``{"question", "fabric", "detail", "help"}``."""
    rec = res.recommendation
    out: dict[str, dict[str, str]] = {}
    ew = res.equal_work
    if rec.metric == "work_cost" and ew is not None:
        j = ew.fabric_ids.index(rec.cost_optimal)
        out["work"] = {"question": t("pick.work"), "fabric": rec.cost_optimal, "help": t("pick.work_help"),
                       "detail": t("pick.work_detail", fabric=names[rec.cost_optimal],
                                   nodes=fmt_number(int(ew.nodes[j])), cost=money.short(ew.cost[j]))}
    fixed = rec.fixed_pick or rec.cost_optimal
    f = res.fabric(fixed)
    metric = rec.fixed_metric
    value = f.tco_total if metric == "tco_total" else f.metrics["cost_per_run"]
    out["fixed"] = {"question": t("pick.fixed", nodes=fmt_number(res.nodes)), "fabric": fixed,
                    "help": t(f"pick.fixed_help_{metric}"),
                    "detail": t(f"pick.fixed_detail_{metric}", fabric=names[fixed], value=money.short(value))}
    return out


def picks_sentence(t: Translator, money: Money, res: Result, names: Mapping[str, str]) -> str:
    """Both answers in one sentence (the PDF's summary)."""
    p = picks(t, money, res, names)
    work = p["work"]["detail"] if "work" in p else "—"
    return t("pick.pdf", work=work, fixed=p["fixed"]["detail"], nodes=fmt_number(res.nodes))


def _seconds(x: float) -> str:
    return fmt_number(x, 1)


def slowdown_text(t: Translator, s: Slowdown, names: Mapping[str, str]) -> str:
    """Why one fabric's run is slower on the scenario's nodes than on the equal-work cluster."""
    common = dict(fabric=names.get(s.fabric, s.fabric), big=fmt_number(s.big_nodes), small=fmt_number(s.small_nodes),
                  days_big=fmt_number(s.big_days, 1), days_small=fmt_number(s.small_days, 1),
                  step_big=_seconds(s.big["step_time_s"]), step_small=_seconds(s.small["step_time_s"]))
    if s.cause == "communication":
        return t("slowdown.communication", **common, comp_big=_seconds(s.big["compute_time_s"]),
                 comp_small=_seconds(s.small["compute_time_s"]), comm_big=_seconds(s.big["exposed_comm_s"]),
                 comm_small=_seconds(s.small["exposed_comm_s"]), share=f"{s.comm_share_big:.0%}")
    return t("slowdown.interruptions", **common, int_big=fmt_number(s.big["interruptions_per_year"], 1),
             int_small=fmt_number(s.small["interruptions_per_year"], 1))


def slowdown_lines(t: Translator, res: Result, names: Mapping[str, str]) -> list[str]:
    """One sentence per fabric slower on the scenario's nodes than on its equal-work cluster."""
    return [slowdown_text(t, s, names) for s in slower_with_more_nodes(res)]


__all__ = ["crossing_table", "picks", "picks_sentence", "slowdown_lines", "slowdown_text"]
