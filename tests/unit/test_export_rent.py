"""The workbook's "Own vs rent" sheet (costmodel/exports/rent_sheet.py): rental prices as inputs, and per
fabric the owned cash, rented GPU-hours, rent per year and break-even utilisation equal to
costmodel.analysis.rent, the last two as formulas over the price cells; en and zh; a note where it does not apply."""

from __future__ import annotations

import re

import openpyxl
import pytest

import costmodel
from costmodel.analysis import rent
from costmodel.catalog.currency import reference_rate
from costmodel.exports.rent_sheet import labels
from costmodel.exports.workbook import workbook_bytes

CJK = re.compile(r"[\u3400-\u9fff]")


def _sheet(scenario, lang, tmp_path, **kw):
    path = tmp_path / f"r-{lang}.xlsx"
    path.write_bytes(workbook_bytes(scenario, lang=lang, **kw))
    return (openpyxl.load_workbook(path)[labels(lang)["sheet"]],
            openpyxl.load_workbook(path, data_only=True)[labels(lang)["sheet"]])


def _row_of(ws, text: str) -> int:
    return next(c.row for c in ws["A"] if c.value == text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sheet_holds_the_rent_figures_and_formulas_over_the_prices(lang, tmp_path):
    sc = costmodel.load_preset("seed-case3-128xH100")
    res = costmodel.evaluate(sc)
    o = rent.for_scenario(res, sc)
    tx = labels(lang)
    f_ws, v_ws = _sheet(sc, lang, tmp_path)
    assert (CJK.search(v_ws["A1"].value) is not None) == (lang == "zh")
    for k, cls in enumerate(o.classes):
        r = _row_of(v_ws, tx["classes"][cls])
        assert [v_ws.cell(r, c).value for c in (2, 3, 4)] == pytest.approx(list(o.prices[k]))
    names = costmodel.catalog.formatting.fabric_names(lang)
    for i, fid in enumerate(o.fabric_ids):
        r = _row_of(v_ws, names[fid])
        assert v_ws.cell(r, 2).value == pytest.approx(o.owned_cash_per_year[i])
        assert v_ws.cell(r, 3).value == pytest.approx(o.owned_per_gpu_hour[i])
        assert v_ws.cell(r, 6).value == pytest.approx(o.rent_gpu_hours_per_year[i])
        rents = [v_ws.cell(r, 7 + 6 * k + lv).value for k in range(3) for lv in range(3)]
        assert rents == pytest.approx(list(o.rent_cost_per_year[i].ravel()))
        bes = [v_ws.cell(r, 10 + 6 * k + lv).value for k in range(3) for lv in range(3)]
        assert bes == pytest.approx(list(o.break_even[i].ravel()))
        assert f_ws.cell(r, 7).value == f"=$B${_row_of(v_ws, tx['classes'][o.classes[0]])}*F{r}"
        assert f_ws.cell(r, 10).value.startswith(f"=B{r}/($B$")


def test_money_follows_the_workbooks_currency(tmp_path):
    sc = costmodel.load_preset("seed-intro-32xA100")
    o = rent.for_scenario(costmodel.evaluate(sc), sc)
    rate = reference_rate("USD", "CNY")
    _, v_ws = _sheet(sc, "en", tmp_path, currency="CNY", rate=rate)
    r = _row_of(v_ws, labels("en")["classes"]["specialist"])
    assert v_ws.cell(r, 3).value == pytest.approx(o.prices[2, 1] * rate)


@pytest.mark.parametrize(("preset", "key"), [("seed-case2-24xA100", "not_cluster"), ("seed-case1-8xA10", "no_prices")])
def test_a_note_where_own_vs_rent_does_not_apply(preset, key, tmp_path):
    _, v_ws = _sheet(costmodel.load_preset(preset), "en", tmp_path)
    assert v_ws["A2"].value.startswith(labels("en")[key].split("{")[0]) and v_ws.max_row == 2
