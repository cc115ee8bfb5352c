"""Cluster page inputs of finance and carbon: tax rules, rate and tax lives (Finance),
the electricity grid and its emission factor (Facility). Empty numbers take the region's preset
(data/finance_carbon.yaml), shown as the placeholder."""

from __future__ import annotations

from costmodel.catalog import regions
from webui.inputs import widgets


def tax_inputs(t, scenario) -> None:
    """Tax rules (none / China / US) and, when taxed, the rate and the straight-line lives."""
    widgets.choice(t, "finance.tax_region", list(regions.TAX_REGIONS))
    region = scenario.finance.tax_region
    if region == "none" and scenario.finance.tax_rate is None:
        return
    preset = regions.tax_preset(region)
    widgets.number(t, "finance.tax_rate", placeholder_value=preset["tax_rate"].typical * 100)
    for kind in ("servers", "network"):
        key = f"depreciation_years_{kind}"
        widgets.number(t, f"finance.{key}", placeholder_value=preset[key].typical)

def grid_inputs(t, scenario) -> None:
    """Electricity grid (China / US / EU) and an optional own emission factor."""
    widgets.choice(t, "facility.grid_region", list(regions.GRID_REGIONS))
    widgets.number(t, "facility.grid_kg_per_kwh",
                   placeholder_value=regions.grid_factor(scenario.facility.grid_region).typical)
