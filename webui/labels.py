"""Translated texts built from model output: recommendation reasons, chart labels, names."""

from __future__ import annotations

from costmodel.catalog import load_catalog
from costmodel.tco import CATEGORIES

from .i18n import Translator
from .money import Money


def fabric_names(t: Translator) -> dict[str, str]:
    """Display name of every catalog fabric in the current language."""
    return {fid: (f.name_zh if t.lang == "zh" else f.name) for fid, f in load_catalog().fabrics.items()}


def reason(t: Translator, rc: dict, money: Money) -> str:
    """One recommendation reason (``{"code", "values"}``) in the current language."""
    values = dict(rc["values"])
    names = fabric_names(t)
    for key in ("best", "rule"):
        if key in values:
            values[key] = names.get(values[key], values[key])
    if "family" in values:
        values["family"] = t(f"family.{values['family']}")
    if "metric" in values:
        values["metric"] = t(f"metric.{values['metric']}")
    if "gap_value" in values:
        values["gap"] = money(values["gap_value"])
    if "diffs" in values:
        values["parts"] = ", ".join(f"{t(f'cat.{k}')} {money(v, signed=True)}" for k, v in values["diffs"].items())
    for key in ("rule_days", "best_days"):
        if key in values:
            values[key] = float(values[key])
    return t(f"reason.{rc['code']}", **values)


CHART_KEYS = (
    "breakdown_title", "axis_fabric", "axis_cost", "total", "cumulative_title", "axis_month",
    "axis_cumulative_cost", "month", "crossover", "waterfall_title", "increase", "decrease", "scale_title",
    "axis_nodes", "tco_total", "cost_per_run", "nodes", "delta_vs_baseline", "break_even", "delta_title",
    "axis_delta", "delta_curve", "root", "current", "tornado_title", "input_low", "input_high", "base_delta",
    "mc_title", "axis_tco", "axis_share_of_draws", "p10", "p50", "p90", "region_roce", "region_ib_preferred",
    "region_ib_only",
)


def chart_labels(t: Translator) -> dict[str, str]:
    """Every text a chart builder reads, translated: chart keys, categories, parameters."""
    out = {key: t(f"chart.{key}") for key in CHART_KEYS}
    out.update({cat: t(f"cat.{cat}") for cat in CATEGORIES})
    out.update({k[len("param."):]: v for k, v in _params(t).items()})
    return out


def _params(t: Translator) -> dict[str, str]:
    from .i18n import catalog

    keys = {k for k in catalog("en") if k.startswith("param.")}
    return {k: t(k) for k in keys}
