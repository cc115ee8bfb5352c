"""The Excel workbook: recalculated by the `formulas` engine it gives the model's numbers, and its
live formulas follow a changed input the way the model says."""

from __future__ import annotations

import formulas
import openpyxl
import pytest

import costmodel
from costmodel.export_xlsx import workbook_bytes


def _recalc(path, inputs=None) -> dict:
    model = formulas.ExcelModel().loads(str(path)).finish()
    sol = model.calculate(inputs=inputs or {})
    return {k.split("]", 1)[1].replace("'", ""): v.value[0][0] for k, v in sol.items() if hasattr(v, "value")}


def _cell_of(path, sheet: str, label: str, column: int = 2) -> str:
    """Address of the value next to ``label`` in column A of ``sheet``."""
    ws = openpyxl.load_workbook(path)[sheet]
    for row in ws.iter_rows(min_col=1, max_col=1):
        if row[0].value == label:
            return f"{openpyxl.utils.get_column_letter(column)}{row[0].row}"
    raise KeyError(label)


def _with(preset: str, **groups) -> costmodel.Scenario:
    data = costmodel.load_preset(preset).model_dump()
    for group, changes in groups.items():
        data[group].update(changes)
    return costmodel.Scenario.model_validate(data)


@pytest.mark.parametrize("scenario", [
    costmodel.load_preset("seed-case2-24xA100"),  # fabric scope
    costmodel.load_preset("seed-intro-32xA100"),  # whole cluster
    _with("seed-intro-32xA100", finance={"payment": "instalments", "instalment_months": 30}),
], ids=["fabric-scope", "cluster-scope", "instalments"])
def test_recalculated_workbook_equals_the_model(tmp_path, scenario):
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario))
    values = _recalc(path)
    res = costmodel.evaluate(scenario)
    for i, f in enumerate(res.fabrics):
        assert values[f"SUMMARY!B{5 + i}"] == pytest.approx(f.tco_total, rel=1e-3)
        assert values[f"SUMMARY!D{5 + i}"] == pytest.approx(f.npv, rel=1e-3)
        sheet = f.id.upper()
        for y in f.yearly:
            assert values[f"{sheet}!H{4 + y['year']}"] == pytest.approx(y["total"], rel=1e-3, abs=1e-6)


def test_changing_the_electricity_price_in_the_workbook_moves_totals_as_the_model_says(tmp_path):
    scenario = costmodel.load_preset("seed-intro-32xA100")
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario))
    cell = _cell_of(path, "Inputs", "Electricity price")
    values = _recalc(path, {f"'[r.xlsx]INPUTS'!{cell}": 0.2})
    moved = costmodel.evaluate(_with("seed-intro-32xA100", facility={"electricity_price_per_kwh": 0.2}))
    before = costmodel.evaluate(scenario)
    for i, f in enumerate(moved.fabrics):
        assert values[f"SUMMARY!B{5 + i}"] == pytest.approx(f.tco_total, rel=1e-3)
        assert f.tco_total > before.fabrics[i].tco_total


def test_user_text_is_written_as_text(tmp_path):
    name = '=HYPERLINK("http://evil.example","click")'
    data = costmodel.load_preset("seed-case1-8xA10").model_dump()
    data["name"] = name
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(costmodel.Scenario.model_validate(data)))
    ws = openpyxl.load_workbook(path)["Inputs"]
    assert ws["B1"].value == name and ws["B1"].data_type == "s"


def test_workbook_in_another_currency_is_converted_at_export(tmp_path):
    scenario = costmodel.load_preset("seed-case2-24xA100")
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario, "CNY", 7.1))
    values = _recalc(path)
    res = costmodel.evaluate(scenario)
    for i, f in enumerate(res.fabrics):
        assert values[f"SUMMARY!B{5 + i}"] == pytest.approx(f.tco_total * 7.1, rel=1e-3)
    assert "¥" in openpyxl.load_workbook(path)["Summary"]["B5"].number_format
