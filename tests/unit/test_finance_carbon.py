"""Finance and carbon: depreciation, the tax shield, after-tax totals, emissions.

Expected figures are computed here from the model's amounts and the published presets, never
read back from the code under test: straight-line depreciation is rebuilt year by year, the
pre-tax TCO and NPV are rebuilt from the ledger amounts and the capex schedule (the model as it
was before taxes), and the emission factors are read from the data file.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from calc import libreoffice_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import scenarios

import costmodel
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.regions import DATA_FILE
from costmodel.errors import ScenarioError
from costmodel.exports.workbook import fabric_sheet_names, workbook_bytes
from costmodel.money import finance, ledger
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import CAPEX_CATEGORIES, CATEGORIES, compute
from costmodel.scenario.presets import list_presets, load_preset

PRESETS = list_presets()
DATA = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _with(scenario, **sections):
    """``scenario`` with some fields of its sections changed (validated)."""
    data = scenario.model_dump()
    for section, fields in sections.items():
        data[section].update(fields)
    return costmodel.Scenario.model_validate(data)


def _out(scenario):
    built = build(scenario)
    return built.inputs, compute(built.inputs, built.structure)


def _straight_line(life: float, residual: float, horizon: int) -> list[float]:
    """Depreciation share per year 0..H, year by year: book value falls by (1 − residual)/life a
    year until it reaches the salvage value; what is left at H is written off when sold."""
    book, out = 1.0, [0.0]
    for year in range(1, horizon + 1):
        step = min((1 - residual) / life * min(1.0, max(0.0, life - (year - 1))), book - residual)
        book -= step
        if year == horizon:
            step += book - residual
        out.append(step)
    return out


# -- depreciation -------------------------------------------------------------------------------
@given(life=st.floats(1, 15), residual=st.floats(0, 0.9), horizon=st.integers(1, 15))
def test_straight_line_depreciation_is_the_year_by_year_write_down(life, residual, horizon):
    env = {"instalment_rate": 0.0, "instalment_months": 12.0, "residual_frac": residual,
           "dep_years_servers": life, "dep_years_network": life}
    got = ledger.deduction_schedules(horizon, "upfront", env)["dep:compute_capex"]
    assert got == pytest.approx(_straight_line(life, residual, horizon), abs=1e-12)


@pytest.mark.parametrize("region", ["cn", "us"])
@pytest.mark.parametrize("preset", PRESETS)
def test_depreciation_over_the_horizon_is_capex_less_salvage(preset, region):
    s = _with(load_preset(preset), finance={"tax_region": region})
    p, out = _out(s)
    capex = sum(out.amounts[c] for c in CAPEX_CATEGORIES)
    salvage = p.residual_frac * capex
    assert out.metrics["depreciation"] == pytest.approx(capex - salvage, rel=1e-12)
    assert out.yearly_tax()["depreciation"].sum(axis=-1) == pytest.approx(capex - salvage, rel=1e-12)


def test_a_life_within_the_horizon_deducts_equal_yearly_shares_then_nothing():
    s = _with(load_preset("seed-intro-32xA100"), finance={"tax_region": "cn", "horizon_years": 5,
                                                          "residual_value_frac": 0.1})
    _, out = _out(s)
    dep = out.yearly_tax()["depreciation"][0, 0]
    capex = out.amounts["compute_capex"][0, 0] + out.amounts["network_capex"][0, 0]
    assert dep[1:4] == pytest.approx([0.9 * capex / 3] * 3)  # China: 3 years for electronic equipment
    assert dep[0] == 0 and dep[4] == 0 and dep[5] == 0


# -- the tax shield ------------------------------------------------------------------------------
@pytest.mark.parametrize("payment", ["upfront", "instalments"])
@pytest.mark.parametrize("preset", PRESETS)
def test_the_tax_shield_is_the_rate_times_the_deductions(preset, payment):
    s = _with(load_preset(preset), finance={"tax_region": "us", "payment": payment, "instalment_months": 36})
    p, out = _out(s)
    h = s.finance.horizon_years
    capex = sum(out.amounts[c] for c in CAPEX_CATEGORIES)
    recurring = sum(out.amounts[c] for c in CATEGORIES if c not in CAPEX_CATEGORIES) * h
    paid = capex * out.capex_schedule[..., :-1].sum(axis=-1) if payment == "instalments" else capex  # no resale
    interest = paid - capex  # what instalments pay above the price
    deductions = (1 - p.residual_frac) * capex + interest + recurring
    assert p.tax_rate[0, 0] == DATA["tax_regions"]["us"]["tax_rate"]["typical"]
    assert out.metrics["tax_shield"] == pytest.approx(p.tax_rate * deductions, rel=1e-9)
    assert out.metrics["tco_after_tax"] == pytest.approx(out.tco - p.tax_rate * deductions, rel=1e-9)


@SLOW
@given(scenario=scenarios(max_nodes=256), region=st.sampled_from(["cn", "us"]), rate=st.floats(0.01, 0.6))
def test_after_tax_tco_and_npv_are_never_above_the_pre_tax_ones(scenario, region, rate):
    s = _with(scenario, finance={"tax_region": region, "tax_rate": rate})
    _, out = _out(s)
    assert np.all(out.metrics["tco_after_tax"] <= out.tco)
    assert np.all(-out.metrics["npv_after_tax"] <= out.pv_cost + 1e-9 * np.abs(out.pv_cost))
    assert np.all(out.metrics["tax_shield"] > 0)


def test_a_higher_tax_rate_shields_more():
    base = load_preset("seed-case3-128xH100")
    shields = [_out(_with(base, finance={"tax_rate": r}))[1].metrics["tax_shield"] for r in (0.1, 0.2, 0.3)]
    assert np.all(shields[0] < shields[1]) and np.all(shields[1] < shields[2])


def test_a_shorter_tax_life_is_worth_more_today_but_not_in_total():
    base = _with(load_preset("seed-intro-32xA100"), finance={"tax_region": "us"})
    short = _out(_with(base, finance={"depreciation_years_servers": 3, "depreciation_years_network": 3}))[1]
    long_ = _out(_with(base, finance={"depreciation_years_servers": 5, "depreciation_years_network": 5}))[1]
    assert short.metrics["tax_shield"] == pytest.approx(long_.metrics["tax_shield"], rel=1e-12)
    assert np.all(short.metrics["npv_after_tax"] > long_.metrics["npv_after_tax"])


# -- region none: today's figures ---------------------------------------------------------------
@pytest.mark.parametrize("payment", ["upfront", "instalments"])
@pytest.mark.parametrize("preset", PRESETS)
def test_region_none_keeps_todays_figures(preset, payment):
    """The pre-tax model rebuilt here (amounts × schedule, discounted) equals the after-tax
    figures exactly when no tax applies, and setting a tax region changes no pre-tax figure."""
    s = _with(load_preset(preset), finance={"payment": payment, "instalment_months": 24})
    assert s.finance.tax_region == "none"
    p, out = _out(s)
    h = s.finance.horizon_years
    cap = finance.capex_schedule(h, payment, p.instalment_months[0, 0], p.instalment_rate[0, 0],
                                 p.residual_frac[0, 0])
    rec = finance.recurring_schedule(h)
    todays = sum(out.amounts[c][..., None] * (cap if c in CAPEX_CATEGORIES else rec) for c in CATEGORIES)
    assert out.metrics["tco_after_tax"] == pytest.approx(todays.sum(axis=-1), rel=1e-12)
    assert out.metrics["npv_after_tax"] == pytest.approx(finance.npv(p.discount_rate[0, 0], -todays), rel=1e-12)
    assert np.array_equal(out.metrics["tco_after_tax"], out.tco)
    assert np.array_equal(out.metrics["npv_after_tax"], -out.pv_cost)
    assert np.all(out.metrics["tax_shield"] == 0)
    taxed = _out(_with(s, finance={"tax_region": "cn"}))[1]
    for key in ("tco", "pv_cost"):
        assert np.array_equal(getattr(taxed, key), getattr(out, key)), key
    for key, value in out.metrics.items():
        if key not in ("tco_after_tax", "npv_after_tax", "tax_shield", "depreciation"):
            assert np.array_equal(taxed.metrics[key], value, equal_nan=True), key


def test_presets_of_each_region_come_from_the_data_file():
    for region, preset in DATA["tax_regions"].items():
        p = build(_with(costmodel.Scenario(), finance={"tax_region": region})).inputs
        assert p.tax_rate[0, 0] == preset["tax_rate"]["typical"]
        assert p.dep_years_servers[0, 0] == preset["depreciation_years_servers"]["typical"]
        assert p.dep_years_network[0, 0] == preset["depreciation_years_network"]["typical"]
    p = build(_with(costmodel.Scenario(), finance={"tax_region": "cn", "tax_rate": 0.15})).inputs
    assert p.tax_rate[0, 0] == 0.15  # a high-tech enterprise's rate overrides the region's


@pytest.mark.parametrize("field, value", [("tax_rate", 0.7), ("tax_rate", -0.1), ("depreciation_years_servers", 0.5),
                                          ("depreciation_years_network", 16)])
def test_out_of_range_finance_inputs_are_refused_naming_the_field(field, value):
    data = costmodel.Scenario().model_dump()
    data["finance"][field] = value
    with pytest.raises(ScenarioError, match=rf"finance\.{field}"):
        costmodel.scenario_from_dict(data)


# -- carbon --------------------------------------------------------------------------------------
@pytest.mark.parametrize("region", ["cn", "us", "eu", "custom"])
@pytest.mark.parametrize("preset", PRESETS)
def test_carbon_is_energy_times_the_grid_factor(preset, region):
    facility = {"grid_kg_per_kwh": 0.123} if region == "custom" else {"grid_region": region}
    s = _with(load_preset(preset), facility=facility)
    _, out = _out(s)
    factor = 0.123 if region == "custom" else DATA["grid_regions"][region]["typical"]
    m = out.metrics
    assert m["co2_kg_per_year"] == pytest.approx(m["energy_kwh_per_year"] * factor, rel=1e-12)
    assert m["co2_kg_horizon"] == pytest.approx(m["energy_kwh_per_year"] * factor * s.finance.horizon_years)
    assert m["co2_kg_per_run"] == pytest.approx(m["energy_kwh_per_year"] * factor / m["runs_per_year"])


def test_the_grid_factors_are_the_published_ones():
    """China: MEE/NBS national average 2023; US: eGRID2023 rev2 (770.9 lb CO2e/MWh); EU: EEA 2023 (kg CO2e/kWh)."""
    assert {r: q["typical"] for r, q in DATA["grid_regions"].items()} == {"cn": 0.5306, "us": 0.350, "eu": 0.21}
    assert 770.9 * 0.453592 / 1000 == pytest.approx(0.350, abs=5e-4)  # lb/MWh → kg/kWh


@SLOW
@given(scenario=scenarios(max_nodes=256), factor=st.floats(0.0, 2.0))
def test_a_fabric_using_less_energy_never_emits_more(scenario, factor):
    _, out = _out(_with(scenario, facility={"grid_kg_per_kwh": factor}))
    kwh, kg = out.metrics["energy_kwh_per_year"][0], out.metrics["co2_kg_per_year"][0]
    for i in range(len(kwh)):
        for j in range(len(kwh)):
            if kwh[i] <= kwh[j]:
                assert kg[i] <= kg[j]


def test_the_grid_factor_changes_no_cost():
    s = load_preset("seed-case2-24xA100")
    a, b = (_out(_with(s, facility={"grid_region": g}))[1] for g in ("cn", "eu"))
    assert np.array_equal(a.tco, b.tco) and np.all(a.metrics["co2_kg_per_year"] > b.metrics["co2_kg_per_year"])


def test_results_carry_after_tax_and_carbon_figures_per_fabric():
    res = costmodel.evaluate(_with(load_preset("seed-intro-32xA100"), finance={"tax_region": "cn"},
                                   facility={"grid_region": "cn"}))
    for f in res.fabrics:
        assert f.metrics["tco_after_tax"] < f.tco_total
        assert len(f.yearly_tax) == res.horizon_years + 1
        assert sum(y["total_after_tax"] for y in f.yearly_tax) == pytest.approx(f.metrics["tco_after_tax"])
        assert f.to_dict()["co2_kg_per_run"] == f.metrics["co2_kg_per_run"]


def test_tornado_swings_the_tax_inputs_on_the_after_tax_tco():
    from costmodel.analysis.uncertainty import tornado

    s = _with(load_preset("seed-intro-32xA100"), finance={"tax_region": "us"})
    df = tornado(s, "ib-ndr-400", metric="tco_after_tax")
    rows = df.set_index("parameter")
    assert {"tax_rate", "dep_years_servers", "dep_years_network"} <= set(rows.index)
    assert rows.loc["tax_rate", "swing"] > 0
    pre = tornado(s, "ib-ndr-400").set_index("parameter")
    assert pre.loc["tax_rate", "swing"] == 0  # the pre-tax ΔTCO does not see the tax rate


# -- the workbook: live formulas -----------------------------------------------------------------
_CACHED = re.compile(rb"(<f>[^<]*</f>)<v>[^<]*</v>")


def _zeroed(path: Path, scenario) -> Path:
    """The workbook with every cached formula value 0, so only a recalculation gives the figures."""
    src = workbook_bytes(scenario)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out, zipfile.ZipFile(io.BytesIO(src)) as zin:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith("xl/worksheets/sheet"):
                data = _CACHED.sub(rb"\1<v>0</v>", data)
            out.writestr(item, data)
    return path


#: the four tax columns after a cash-flow sheet's total (year, one column per category, total)
TAX_COLS = "".join(chr(ord("A") + len(CATEGORIES) + 2 + i) for i in range(4))


def _expected(scenario) -> dict[str, float]:
    res = costmodel.evaluate(scenario)
    h = res.horizon_years
    want = {}
    sheets = fabric_sheet_names([f.id for f in res.fabrics], fabric_names("en"))  # each fabric's sheet, by its name
    for i, f in enumerate(res.fabrics):
        sheet = sheets[f.id]
        for y in f.yearly_tax:
            for col, key in zip(TAX_COLS, ("depreciation", "deductions", "tax_shield", "total_after_tax"), strict=True):
                want[f"{sheet}!{col}{4 + y['year']}"] = y[key]
        want[f"{sheet}!{TAX_COLS[-1]}{8 + h}"] = f.metrics["tco_after_tax"]
        want[f"{sheet}!{TAX_COLS[-1]}{9 + h}"] = f.metrics["npv_after_tax"]
        n = len(res.fabrics)
        want[f"SUMMARY!B{7 + n + i}"] = f.metrics["tco_after_tax"]
        want[f"SUMMARY!C{7 + n + i}"] = f.metrics["tax_shield"]
        want[f"SUMMARY!D{7 + n + i}"] = f.metrics["npv_after_tax"]
        want[f"CARBON!B{4 + i}"] = f.metrics["energy_kwh_per_year"]
        want[f"CARBON!D{4 + i}"] = f.metrics["co2_kg_per_year"]
        want[f"CARBON!F{4 + i}"] = f.metrics["co2_kg_per_run"]
        want[f"CARBON!G{4 + i}"] = f.metrics["co2_kg_horizon"] / 1000
    return want


def _mismatches(got: dict, want: dict) -> list[str]:
    return [f"{a}: workbook {got.get(a.upper())!r}, model {v!r}" for a, v in want.items()
            if got.get(a.upper()) is None or got[a.upper()] != pytest.approx(v, rel=1e-6, abs=1e-6)]


def _formulas_engine(path: Path) -> dict[str, float]:
    import formulas

    sol = formulas.ExcelModel().loads(str(path)).finish().calculate()
    return {k.split("]", 1)[1].replace("'", "").upper(): v.value[0][0] for k, v in sol.items() if hasattr(v, "value")}


@pytest.mark.parametrize("payment", ["upfront", "instalments"])
def test_the_workbook_recalculates_the_after_tax_columns_and_carbon(tmp_path, payment):
    s = _with(load_preset("seed-intro-32xA100"), finance={"tax_region": "cn", "payment": payment,
                                                          "instalment_months": 30, "instalment_rate_annual": 0.08},
              facility={"grid_region": "cn"})
    got = _formulas_engine(_zeroed(tmp_path / "w.xlsx", s))
    assert _mismatches(got, _expected(s)) == []


def test_libreoffice_recalculates_the_after_tax_columns(tmp_path):
    s = _with(load_preset("seed-case3-128xH100"), finance={"tax_region": "us", "payment": "instalments",
                                                           "instalment_months": 30}, facility={"grid_region": "eu"})
    path = _zeroed(tmp_path / "w.xlsx", s)
    got = libreoffice_values([path], tmp_path)[path]
    assert _mismatches(got, _expected(s)) == []


def test_the_results_csv_carries_after_tax_money_in_the_shown_currency_and_carbon():
    import csv

    from costmodel.exports.csv import results_csv

    res = costmodel.evaluate(_with(load_preset("seed-case1-8xA10"), finance={"tax_region": "us"}))
    rows = list(csv.DictReader(io.StringIO(results_csv(res, "CNY", 7.0))))
    for f, row in zip(res.fabrics, rows, strict=True):
        assert float(row["tco_after_tax"]) == pytest.approx(f.metrics["tco_after_tax"] * 7.0, rel=1e-4)
        assert float(row["co2_kg_per_year"]) == pytest.approx(f.metrics["co2_kg_per_year"], rel=1e-4)  # 6 digits
