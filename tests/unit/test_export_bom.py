"""The workbook's Bill of materials sheet (costmodel/exports/bom_sheet.py): live formulas over the Inputs
sheet that recalculate to the model's bill and network capex, in formulas and in LibreOffice."""

from __future__ import annotations

import io

import openpyxl
import pytest
from calc import libreoffice_values
from test_workbook_recalc import _formulas_engine, _write

import costmodel
from costmodel.exports.bom_sheet import labels
from costmodel.exports.workbook import workbook_bytes

PRESETS = ("seed-case1-8xA10", "seed-case2-24xA100", "seed-case3-128xH100", "seed-intro-32xA100")


def _bill_cells(scenario, lang: str = "en") -> dict[str, float]:
    """The model's network capex at the workbook address of each fabric's total (column D)."""
    res = costmodel.evaluate(scenario)
    tx = labels(lang)
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario, lang=lang)))
    ws = book[tx["sheet"]]
    totals = [c.row for c in ws["A"] if c.value == tx["total"]]
    assert len(totals) == len(res.fabrics)
    return {f"{tx['sheet']}!D{r}".upper(): f.network_capex_purchase for r, f in zip(totals, res.fabrics, strict=True)}


def _check(got: dict, want: dict) -> list[str]:
    return [f"{a}: workbook {got.get(a)!r}, model {v!r}" for a, v in want.items()
            if got.get(a) is None or got[a] != pytest.approx(v, rel=1e-9, abs=1e-6)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sheet_lists_every_priced_line_with_live_formulas(lang):
    scenario = costmodel.load_preset("seed-case3-128xH100")
    tx = labels(lang)
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario, lang=lang)))[tx["sheet"]]
    rows = {c.value: c.row for c in ws["A"] if isinstance(c.value, str)}
    res = costmodel.evaluate(scenario)
    for key in ("switch_modules", "node_modules"):  # module lines name their module type
        module = res.fabrics[-1].modules[key]["name_zh" if lang == "zh" else "name"]
        assert any(label.startswith(tx["items"][key]) and label.endswith(module) for label in rows), key
    rows |= {tx["items"][k]: r for label, r in rows.items() for k in ("switch_modules", "node_modules")
             if label.startswith(tx["items"][k] + ":")}
    for key in ("nics", "switches", "switch_modules", "node_modules", "install_nodes", "install_links", "frontend"):
        r = rows[tx["items"][key]]
        assert str(ws[f"B{r}"].value).startswith("=f") or str(ws[f"B{r}"].value).startswith("=in_")
        assert str(ws[f"D{r}"].value) == f"=B{r}*C{r}"
    node_price = str(ws[f"C{rows[tx['items']['node_modules']]}"].value)
    assert "optic_price" in node_price and "module_port_ratio" in node_price  # the switch module's price per port
    assert str(ws[f"D{rows[tx['total']]}"].value).startswith("=SUM(")


def test_the_formulas_engine_recalculates_the_bill_to_the_network_capex(tmp_path):
    for pid in PRESETS:
        scenario = costmodel.load_preset(pid)
        path = _write(tmp_path / f"{pid}.xlsx", scenario)
        assert _check(_formulas_engine(path), _bill_cells(scenario)) == [], pid
    # a price changed in the formulas must show: the engine really recalculated
    scenario = costmodel.load_preset("seed-intro-32xA100")
    tampered = _write(tmp_path / "t.xlsx", scenario, tamper=b"f0_nic_price")
    assert _check(_formulas_engine(tampered), _bill_cells(scenario))


def test_libreoffice_recalculates_the_bill_to_the_network_capex(tmp_path):
    scenarios = {pid: costmodel.load_preset(pid) for pid in PRESETS}
    paths = {pid: _write(tmp_path / f"{pid}.xlsx", s) for pid, s in scenarios.items()}
    tampered = _write(tmp_path / "tampered.xlsx", scenarios["seed-intro-32xA100"], tamper=b"f0_nic_price")
    got = libreoffice_values([*paths.values(), tampered], tmp_path)
    for pid, s in scenarios.items():
        assert _check(got[paths[pid]], _bill_cells(s)) == [], pid
    assert _check(got[tampered], _bill_cells(scenarios["seed-intro-32xA100"]))
