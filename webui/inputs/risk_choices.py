"""The Risk page's measures: what the tornado swings — ΔTCO of the fixed cluster, after
tax when the scenario is taxed, or the Δ cost of the same work — and what the Monte Carlo histogram
shows (TCO, or TCO after tax), with the chart labels each one needs."""

from __future__ import annotations

import streamlit as st

from costmodel.pipeline.inputs import finance_carbon_terms
from webui.i18n.text import md_escape
from webui.session import keys


def taxed(scenario) -> bool:
    """Whether the scenario pays income tax (a tax region or its own rate above 0)."""
    return finance_carbon_terms(scenario)["tax_rate"] > 0


def _choose(t, options: list[str], name: str, help_text: str | None = None, prefix: str = "risk_metric.") -> str:
    """A segmented control over ``options`` (measure ids, labels ``<prefix><id>``), keyed by its labels
    (a language switch keeps the choice)."""
    if len(options) == 1:
        return options[0]
    fmt = lambda m: t(f"{prefix}{m}")  # noqa: E731
    key = keys.label_key(name, [fmt(m) for m in options])
    keys.carry(st.session_state, name, key, options)
    choice = st.segmented_control(t("risk_metric.label"), options, default=options[0], required=True,
                                  format_func=fmt, key=key, help=help_text)
    return choice or options[0]


def tornado_metric(t, scenario, result, fabric: str, names: dict[str, str]) -> str:
    """``tco``, ``tco_after_tax`` (taxed scenarios) or ``work_cost`` (when equal work sized both
    ``fabric`` and the baseline); a note says why the cost of the same work is not offered."""
    options = ["tco"] + (["tco_after_tax"] if taxed(scenario) else [])
    ew = result.equal_work
    if ew is not None:
        unsized = [f for f in dict.fromkeys((fabric, scenario.baseline))
                   if f in ew.fabric_ids and not ew.feasible[ew.fabric_ids.index(f)]]
        if unsized:
            st.caption(t("risk_metric.work_unavailable", fabric=md_escape(names.get(unsized[0], unsized[0])),
                         max=f"{ew.max_nodes:,}"))
        else:
            options.append("work_cost")
    return _choose(t, options, "risk_tornado_metric", t("risk_metric.help"))


def mc_metric(t, scenario) -> str:
    """``tco``, or ``tco_after_tax`` when the scenario is taxed and the user picks it."""
    return _choose(t, ["tco"] + (["tco_after_tax"] if taxed(scenario) else []), "risk_mc_metric",
                   prefix="risk_metric.mc_")


def chart_labels(labels: dict[str, str], t, metric: str) -> dict[str, str]:
    """``labels`` with the titles and axes of ``metric`` (the defaults are the pre-tax TCO's)."""
    if metric == "work_cost":
        return {**labels, "tornado_title": t("risk_metric.tornado_title_work"),
                "axis_delta": t("risk_metric.axis_delta_work"), "base_delta": t("risk_metric.base_delta_work")}
    if metric == "tco_after_tax":
        return {**labels, "mc_title": t("risk_metric.mc_title_after_tax"),
                "axis_tco": t("risk_metric.axis_tco_after_tax"), "axis_delta": t("risk_metric.axis_delta_after_tax")}
    return labels
