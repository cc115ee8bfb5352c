"""The Excel workbook recalculated by spreadsheet engines equals the model.

Every cash-flow cell is the money ledger's formula (costmodel/money/ledger.py) printed for Excel, and the
cost of a run the formulas of costmodel/money/unit_cost.py, so a recalculated workbook must give the
model's yearly totals, TCO, NPV, cash cost, cost per cluster-hour, per run and per million tokens (within 0.1 %):
Hypothesis scenarios through the ``formulas`` engine, and the four presets through LibreOffice
itself (headless ``soffice``). The workbooks are written with their cached values set to 0, and a
tampered copy must disagree, so a test can only pass when the engine really recalculates.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import formulas
import pytest
from calc import libreoffice_values
from hypothesis import HealthCheck, given, settings
from strategies import scenarios

import costmodel
from costmodel.catalog.formatting import fabric_names
from costmodel.exports.unit_cost_table import first_row
from costmodel.exports.workbook import fabric_sheet_names, workbook_bytes
from costmodel.pipeline.tco import CATEGORIES

#: the cash-flow sheets' total column: year, one column per category, total
TOTAL_COL = chr(ord("A") + len(CATEGORIES) + 1)

REL = 1e-3
PRESETS = ("seed-case1-8xA10", "seed-case2-24xA100", "seed-case3-128xH100", "seed-intro-32xA100")
COLS = "".join(chr(ord("B") + i) for i in range(len(CATEGORIES)))  # the categories' columns, in CATEGORIES order
_CACHED = re.compile(rb"(<f>[^<]*</f>)<v>[^<]*</v>")
# LibreOffice keeps the cached values of a file Excel wrote unless told to recalculate always


def _write(path: Path, scenario, tamper: bytes | None = None) -> Path:
    """The scenario's workbook with every cached formula value 0 (and ``tamper`` doubled everywhere)."""
    src = workbook_bytes(scenario)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out, zipfile.ZipFile(io.BytesIO(src)) as zin:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith("xl/worksheets/sheet"):
                data = _CACHED.sub(rb"\1<v>0</v>", data)
                if tamper:
                    data = data.replace(tamper, tamper + b"*2")
            out.writestr(item, data)
    return path


def _expected(scenario) -> dict[str, float]:
    """The model's figures at their workbook addresses (``SHEET!A1``)."""
    res = costmodel.evaluate(scenario)
    h = res.horizon_years
    want = {}
    sheets = fabric_sheet_names([f.id for f in res.fabrics], fabric_names("en"))
    per_run = first_row(len(res.fabrics)) + 4  # the cost-of-a-run table's first fabric, 1-based
    for i, f in enumerate(res.fabrics):
        sheet = sheets[f.id]
        m = f.metrics
        for col, key in (("B", "cash_total"), ("D", "cost_per_cluster_hour"), ("F", "cost_per_run"),
                         ("G", "cost_per_mtok")):
            if m[key] is not None:
                want[f"Summary!{col}{per_run + i}"] = m[key]
        want[f"Summary!B{5 + i}"] = f.tco_total
        want[f"Summary!D{5 + i}"] = f.npv
        want[f"{sheet}!{TOTAL_COL}{6 + h}"] = f.tco_total
        want[f"{sheet}!{TOTAL_COL}{7 + h}"] = f.npv
        for y in f.yearly:
            want[f"{sheet}!{TOTAL_COL}{4 + y['year']}"] = y["total"]
            for col, cat in zip(COLS, CATEGORIES, strict=True):
                want[f"{sheet}!{col}{4 + y['year']}"] = y[cat]
    return want


def _mismatches(got: dict[str, float], want: dict[str, float]) -> list[str]:
    bad = []
    for addr, value in want.items():
        g = got.get(addr.upper())
        if g is None or g != pytest.approx(value, rel=REL, abs=1e-6):
            bad.append(f"{addr}: workbook {g!r}, model {value!r}")
    return bad


def _formulas_engine(path: Path) -> dict[str, float]:
    sol = formulas.ExcelModel().loads(str(path)).finish().calculate()
    return {k.split("]", 1)[1].replace("'", "").upper(): v.value[0][0]
            for k, v in sol.items() if hasattr(v, "value")}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(scenario=scenarios(max_nodes=512))
def test_recalculated_workbook_equals_the_model_for_generated_scenarios(tmp_path, scenario):
    path = _write(tmp_path / "w.xlsx", scenario)
    assert _mismatches(_formulas_engine(path), _expected(scenario)) == []


def test_the_formulas_engine_sees_a_tampered_formula(tmp_path):
    scenario = costmodel.load_preset("seed-intro-32xA100")
    path = _write(tmp_path / "t.xlsx", scenario, tamper=b"in_price_kwh")
    assert _mismatches(_formulas_engine(path), _expected(scenario))


def _instalments() -> costmodel.Scenario:
    """The intro preset bought in 30 monthly instalments at 8 % with 10 % resale (PMT in Calc)."""
    data = costmodel.load_preset("seed-intro-32xA100").model_dump()
    data["finance"].update(payment="instalments", instalment_months=30, instalment_rate_annual=0.08,
                           residual_value_frac=0.1)
    return costmodel.Scenario.model_validate(data)


def test_libreoffice_recalculates_the_presets_to_the_model(tmp_path):
    scenarios_ = {pid: costmodel.load_preset(pid) for pid in PRESETS} | {"instalments": _instalments()}
    paths = {pid: _write(tmp_path / f"{pid}.xlsx", s) for pid, s in scenarios_.items()}
    tampered = _write(tmp_path / "tampered.xlsx", scenarios_["seed-intro-32xA100"], tamper=b"in_price_kwh")
    got = libreoffice_values([*paths.values(), tampered], tmp_path)
    for pid, s in scenarios_.items():
        assert _mismatches(got[paths[pid]], _expected(s)) == [], pid
    # the same workbook with one formula changed must disagree: LibreOffice did recalculate
    assert _mismatches(got[tampered], _expected(scenarios_["seed-intro-32xA100"]))
