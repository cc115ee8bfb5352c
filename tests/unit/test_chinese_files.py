"""The files a Chinese customer downloads read in Chinese, checked with the Chinese walker's rule
(:func:`zh_words.latin_words`: no Latin-script word outside the allowed technical terms and cited
names): the workbook's sheet names (a fabric's sheet is named by the fabric, never ``tcp-100``) and
its source notes, the CSV files' headers, fabric names, scope and yes/no."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from zh_words import latin_words

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.exports.csv import results_csv, yearly_csv
from costmodel.exports.workbook import labels, workbook_bytes

PRESETS = ["seed-intro-32xA100", "seed-case3-128xH100"]
CAT = load_catalog()


def _every_fabric(preset: str) -> costmodel.Scenario:
    return costmodel.load_preset(preset).model_copy(update={"fabrics": list(CAT.fabrics)[:12]})


@pytest.mark.parametrize("preset", PRESETS)
def test_the_chinese_workbooks_sheet_names_and_source_notes_are_chinese(preset):
    scenario = _every_fabric(preset)
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario, "CNY", 7.1, lang="zh", title="测试")))
    assert not {w for name in wb.sheetnames for w in latin_words(name)}, wb.sheetnames
    assert not [fid for fid in scenario.fabrics if fid in wb.sheetnames]
    notes = [c.value for c in wb[labels("zh")["sheet_catalog"]]["F"][1:] if c.value]
    assert len(notes) > 20
    stray = {n: latin_words(n) for n in notes if latin_words(n)}
    assert not stray, stray


@pytest.mark.parametrize("make", [results_csv, yearly_csv])
def test_the_chinese_csv_files_headers_and_names_are_chinese(make):
    res = costmodel.evaluate(_every_fabric("seed-intro-32xA100"))
    rows = list(csv.DictReader(io.StringIO(make(res, "CNY", 7.1, lang="zh"))))
    header = list(rows[0])
    assert not {w for h in header for w in latin_words(h)}, header
    if "网络" in header:  # the fabrics by their Chinese names (their ids stay in their own column)
        assert {r["网络"] for r in rows} == {CAT.fabrics[f.id].name_zh for f in res.fabrics}
        assert {r["能完成年度计划"] for r in rows} <= {"是", "否"} and rows[0]["范围"] == "整个集群"
        assert rows[0]["基准网络"] == CAT.fabrics[res.baseline].name_zh
    assert {r["网络编号"] for r in rows} == {f.id for f in res.fabrics}


def test_the_english_csv_keeps_its_column_ids():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    header = next(csv.reader(io.StringIO(results_csv(res))))
    head = ["scenario", "gpu", "nodes", "gpus_per_node", "model_params_b", "scaleup_domain_gpus", "cooling",
            "build_cooling", "pue", "rack_power_limit_kw", "racks"]
    assert header[:17] == [*head, "currency", "scope", "baseline", "fabric", "family", "name"]
    assert next(csv.reader(io.StringIO(yearly_csv(res))))[:15] == [*head, "currency", "fabric", "family", "year"]
