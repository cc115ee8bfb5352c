"""The Excel workbook: recalculated by the `formulas` engine it gives the model's numbers, and its
live formulas follow a changed input the way the model says."""

from __future__ import annotations

import re

import formulas
import openpyxl
import pytest

import costmodel
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.loader import load_catalog
from costmodel.exports.workbook import fabric_sheet_names, labels, workbook_bytes
from costmodel.money.ledger import CATEGORIES

#: the cash-flow sheets' total column: year, one column per category, total
TOTAL_COL = chr(ord("A") + len(CATEGORIES) + 1)

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")
SHEETS = {"en": ("Inputs", "Summary", "Catalog"), "zh": ("输入", "汇总", "目录与来源")}


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
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_recalculated_workbook_equals_the_model(tmp_path, scenario, lang):
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario, lang=lang))
    values = _recalc(path)
    res = costmodel.evaluate(scenario)
    summary = SHEETS[lang][1].upper()
    for i, f in enumerate(res.fabrics):
        assert values[f"{summary}!B{5 + i}"] == pytest.approx(f.tco_total, rel=1e-3)
        assert values[f"{summary}!D{5 + i}"] == pytest.approx(f.npv, rel=1e-3)
        sheet = _sheets(res, lang)[f.id].upper()
        for y in f.yearly:
            assert values[f"{sheet}!{TOTAL_COL}{4 + y['year']}"] == pytest.approx(y["total"], rel=1e-3, abs=1e-6)


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


def _sheets(res, lang: str) -> dict[str, str]:
    """Each fabric's sheet name: its name in the workbook's language."""
    return fabric_sheet_names([f.id for f in res.fabrics], fabric_names(lang))


def _texts(ws) -> list[str]:
    return [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.data_type == "s"]


def test_chinese_workbook_has_chinese_sheets_headers_labels_and_notes(tmp_path):
    scenario = costmodel.load_preset("seed-intro-32xA100")
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario, "CNY", 7.1, lang="zh", title="文章引言：32 节点 A100"))
    wb = openpyxl.load_workbook(path)
    inputs, summary, catalog = SHEETS["zh"]
    assert wb.sheetnames[0] == inputs and summary in wb.sheetnames and catalog in wb.sheetnames
    ws = wb[inputs]
    labels_a = [c.value for c in ws["A"] if isinstance(c.value, str)]
    assert labels_a and all(CJK.search(v) or v == "PUE" for v in labels_a), labels_a
    fabric_names = {load_catalog().fabrics[fid].name_zh for fid in scenario.fabrics}
    notes = [c.value for c in ws["D"] if isinstance(c.value, str) and c.value not in fabric_names]
    assert len(notes) >= 3 and all(CJK.search(v) for v in notes), notes
    assert ws["B1"].value == "文章引言：32 节点 A100" and ws["B3"].value == "整个集群"
    res = costmodel.evaluate(scenario)
    sheets = _sheets(res, "zh")
    assert not any(f.id in wb.sheetnames for f in res.fabrics)  # no id such as tcp-100 as a sheet name
    for f in res.fabrics:
        sheet = wb[sheets[f.id]]
        assert load_catalog().fabrics[f.id].name_zh.replace("/", "∕") == sheet.title
        assert CJK.search(sheet["A1"].value) and load_catalog().fabrics[f.id].name_zh in sheet["A1"].value
        header = [c.value for c in sheet[3]]
        assert header[0] == "年" and header[1 + len(CATEGORIES)] == "合计" and "电费" in header  # then after tax
        assert all(CJK.search(h) for h in header), header
    sm = wb[summary]
    assert [c.value for c in sm[4]][:4] == ["网络", "TCO", "相对基准的差额", "净现值"]
    assert [c.value for c in sm["A"][4:4 + len(res.fabrics)]] == [load_catalog().fabrics[f.id].name_zh
                                                                  for f in res.fabrics]
    head = [c.value for c in wb[catalog][1]]
    assert all(CJK.search(h) for h in head), head
    quantities = {c.value for c in wb[catalog]["B"][1:] if c.value}
    assert quantities and {v for v in quantities if not CJK.search(v)} <= {"MTU [B]"}, quantities


def test_english_workbook_has_no_chinese_labels(tmp_path):
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(costmodel.load_preset("seed-intro-32xA100"), lang="en"))
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames[0] == "Inputs"
    assert not [v for v in _texts(wb["Inputs"]) + _texts(wb["Summary"]) if CJK.search(v)]


def test_every_label_exists_in_both_languages():
    en, zh = labels("en"), labels("zh")

    def keys(d: dict, prefix: str = "") -> set[str]:
        out = set()
        for k, v in d.items():
            out |= keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k}
        return out

    assert keys(en) == keys(zh)
    with pytest.raises(ValueError, match="lang"):
        labels("fr")


def test_changing_an_input_in_the_chinese_workbook_moves_totals(tmp_path):
    scenario = costmodel.load_preset("seed-intro-32xA100")
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario, lang="zh"))
    cell = _cell_of(path, "输入", "电价")
    values = _recalc(path, {f"'[r.xlsx]输入'!{cell}": 0.2})
    moved = costmodel.evaluate(_with("seed-intro-32xA100", facility={"electricity_price_per_kwh": 0.2}))
    for i, f in enumerate(moved.fabrics):
        assert values[f"汇总!B{5 + i}"] == pytest.approx(f.tco_total, rel=1e-3)


def test_catalog_prices_are_in_the_workbook_currency(tmp_path):
    scenario = costmodel.load_preset("seed-case2-24xA100")
    path = tmp_path / "r.xlsx"
    path.write_bytes(workbook_bytes(scenario, "CNY", 7.1))
    ws = openpyxl.load_workbook(path)["Catalog"]
    book = load_catalog().price_book(scenario.price_book)
    fid = scenario.fabrics[0]
    name = load_catalog().fabrics[fid].name
    row = next(r for r in ws.iter_rows(min_row=2) if r[0].value == f"{name} (price)" and r[1].value == "NIC price")
    assert row[2].value == pytest.approx(book.fabrics[fid].nic_price.typical * 7.1)
    assert "¥" in row[2].number_format
