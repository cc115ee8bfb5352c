"""The facility in words, for the Cluster page and the report: racks from power, and the warnings of a
configuration the site cannot hold (a liquid-only GPU on an air-cooled site, a server above the rack limit)."""

from __future__ import annotations

from costmodel.catalog.loader import Catalog
from costmodel.pipeline.facility_checks import rack_plan, warnings
from costmodel.scenario.schema import Scenario
from webui.i18n.translator import Translator


def _kw(x: float) -> str:
    """A power in kW with at most one decimal: 8.6, 45, 132."""
    return f"{x:,.1f}".removesuffix(".0")


def rack_line(t: Translator, scenario: Scenario, cat: Catalog) -> str:
    """Servers per rack, one server's peak power, the site limit and the compute racks, in a sentence."""
    plan = rack_plan(scenario, cat)
    return t("facility.racks", servers=plan.servers_per_rack, kw=_kw(plan.server_kw), limit=_kw(plan.limit_kw),
             racks=f"{plan.racks:,}")


def warning_lines(t: Translator, scenario: Scenario, cat: Catalog) -> list[str]:
    """The facility's warnings in ``t``'s language, most serious first (empty when the site holds it)."""
    out = []
    for w in warnings(scenario, cat):
        nums = {k: _kw(v) if isinstance(v, float) else v for k, v in w.numbers.items()}
        out.append(t(f"facility.{w.code}", **nums))
    return out
