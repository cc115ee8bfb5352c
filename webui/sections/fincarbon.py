"""After tax and carbon, as rows shared by the Compare page (:mod:`webui.panels.carbon_panel`)
and the PDF report's section (:func:`fincarbon_section`): per fabric the pre-tax and after-tax
TCO and NPV with the tax shield, and t CO₂e per run, per year and over the horizon. Texts in
``locales/{en,zh}/fincarbon.yaml``; every cell of the report is HTML-escaped."""

from __future__ import annotations

import html
from collections.abc import Callable

import costmodel
from costmodel.catalog import regions
from costmodel.catalog.formatting import format_number, format_share
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.inputs import finance_carbon_terms
from webui.i18n.labels import reference_title
from webui.i18n.translator import Translator

KG_PER_TONNE = 1000.0


def _tonnes(kg: float | None) -> str:
    return "—" if kg is None else format_number(kg / KG_PER_TONNE, 1)


def tax_header(t: Translator, years: int) -> list[str]:
    return [t("fincarbon.col_fabric"), t("fincarbon.col_tco", years=years), t("fincarbon.col_tco_after", years=years),
            t("fincarbon.col_shield"), t("fincarbon.col_npv"), t("fincarbon.col_npv_after")]


def tax_rows(res, names: dict[str, str], money: Callable[[float], str]) -> list[list[str]]:
    """Per fabric: name, TCO, after-tax TCO, tax shield, NPV, after-tax NPV (``money`` formats)."""
    return [[names[f.id], money(f.tco_total), money(f.metrics["tco_after_tax"]), money(f.metrics["tax_shield"]),
             money(f.npv), money(f.metrics["npv_after_tax"])] for f in res.fabrics]


def carbon_header(t: Translator, years: int) -> list[str]:
    return [t("fincarbon.col_fabric"), t("fincarbon.col_mwh"), t("fincarbon.col_t_run"), t("fincarbon.col_t_year"),
            t("fincarbon.col_t_horizon", years=years)]


def carbon_rows(res, names: dict[str, str]) -> list[list[str]]:
    """Per fabric: name, MWh per year, t CO₂e per run, per year and over the horizon."""
    return [[names[f.id], format_number(f.metrics["energy_kwh_per_year"] / KG_PER_TONNE, 1),
             _tonnes(f.metrics["co2_kg_per_run"]), _tonnes(f.metrics["co2_kg_per_year"]),
             _tonnes(f.metrics["co2_kg_horizon"])] for f in res.fabrics]


def tax_note(t: Translator, scenario: costmodel.Scenario) -> str:
    """The tax rules applied: region, rate, lives and their source, or that the figures are pre-tax."""
    fi = scenario.finance
    terms = finance_carbon_terms(scenario)  # what the model used, without building every input
    rate = terms["tax_rate"]
    if rate == 0:
        return t("fincarbon.pre_tax_note")
    preset = regions.tax_preset(fi.tax_region)
    refs = load_catalog().references
    own = fi.tax_rate is not None
    source = t("fincarbon.own_value") if own else reference_title(t, refs[preset["tax_rate"].source])
    return t("fincarbon.tax_note", region=t(f"opt.finance.tax_region.{fi.tax_region}"), rate=format_share(rate, 1),
             servers=f"{terms['dep_years_servers']:g}", network=f"{terms['dep_years_network']:g}", source=source)


def grid_note(t: Translator, scenario: costmodel.Scenario) -> str:
    """The grid factor applied and its source (or the user's own value)."""
    fa = scenario.facility
    if fa.grid_kg_per_kwh is not None:
        return t("fincarbon.grid_own", factor=f"{fa.grid_kg_per_kwh:.4g}")
    q = regions.grid_factor(fa.grid_region)
    ref = load_catalog().references[q.source]
    return t("fincarbon.grid_note", region=t(f"opt.facility.grid_region.{fa.grid_region}"),
             factor=f"{q.typical:.4g}", source=reference_title(t, ref), as_of=q.as_of)


def fincarbon_section(t: Translator, scenario: costmodel.Scenario, res, names: dict[str, str],
                      table: Callable[..., str], money: Callable[[float], str]) -> str:
    """The report's section "After tax and carbon" as HTML."""
    e = html.escape
    h = res.horizon_years
    return "".join([
        f"<h2>{e(t('fincarbon.title'))}</h2>",
        f"<p class='muted'>{e(tax_note(t, scenario))}</p>",
        table(tax_header(t, h), tax_rows(res, names, money)),
        f"<p class='muted'>{e(grid_note(t, scenario))}<br>{e(t('fincarbon.scope_note'))}</p>",
        table(carbon_header(t, h), carbon_rows(res, names)),
    ])
