"""The workbook's Training sheet: the training plan and topology inputs, the nccl-tests
measurement, each fabric's layout, step time, MFU/HFU and memory equal to the Result's metrics, and
its bill of materials equal to FabricResult.bom, in English and Chinese."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest

import costmodel
from costmodel.exports.training_sheet import RESULT_ROWS
from costmodel.exports.workbook import labels, workbook_bytes
from costmodel.physics import calibration, nccl_tests
from costmodel.pipeline.stages.topology import BOM_KEYS
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import Scenario

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")
NCCL = Path(__file__).resolve().parents[1] / "data" / "nccl"


def moe_measured() -> Scenario:
    """64 H100 nodes, a 64-expert top-8 MoE, the best layout, SHARP on, and an nccl-tests fit on IB."""
    s = Scenario()
    for path, value in (("cluster.gpu", "h100"), ("cluster.nics_per_node", 8), ("cluster.nodes", 64),
                        ("workload.experts", 64), ("workload.top_k", 8), ("workload.parallelism", "best"),
                        ("cluster.in_network_reduction", True)):
        s = with_change(s, path, value).scenario
    log = (NCCL / "allreduce_h100_8nodes_nccl-tests-309.log").read_text(encoding="utf-8")
    doc = calibration.measurement(nccl_tests.fit(nccl_tests.parse(log)))
    return with_change(s, "measurements", {"ib-ndr-400": doc}).scenario


def _sheet(scenario: Scenario, lang: str, tmp_path):
    path = tmp_path / f"t-{lang}.xlsx"
    path.write_bytes(workbook_bytes(scenario, lang=lang))
    wb = openpyxl.load_workbook(path)
    name = labels(lang)["sheet_training"]
    assert name in wb.sheetnames
    return wb[name]


def _rows(ws) -> dict[str, list]:
    """Column A label → the values after it (the first occurrence of each label)."""
    out: dict[str, list] = {}
    for row in ws.iter_rows(values_only=True):
        if isinstance(row[0], str) and row[0] not in out:
            out[row[0]] = list(row[1:])
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_training_sheet_has_the_results_and_bill_of_materials_of_the_model(tmp_path, lang):
    scenario = moe_measured()
    res = costmodel.evaluate(scenario)
    ws = _sheet(scenario, lang, tmp_path)
    tt = labels(lang)["training"]
    rows = _rows(ws)
    n = len(res.fabrics)
    for key, _ in RESULT_ROWS:
        got = rows[tt["metrics"][key]][:n]
        assert all(isinstance(v, (int, float)) for v in got), (key, got)
        assert got == pytest.approx([f.metrics[key] for f in res.fabrics], rel=1e-12), key
    assert rows[tt["metrics"]["measured"]][:n] == [int(f.measured is not None) for f in res.fabrics]
    # the BOM block comes after the results; its labels are unique
    for key in BOM_KEYS:
        label = f"{tt['bom_keys'][key]} [{tt['units']['count']}]"
        assert rows[label][:n] == pytest.approx([f.bom[key] for f in res.fabrics]), key
    assert sum(rows[f"{tt['bom_keys']['nics']} [{tt['units']['count']}]"][:n]) > 0
    layouts = rows[tt["metrics"]["layout"]][:n]
    for f, text in zip(res.fabrics, layouts, strict=True):
        assert f"{f.metrics['layout_dp']:.0f}" in text and f"{f.metrics['layout_tp']:.0f}" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_training_sheet_shows_the_plan_topology_and_measurement(tmp_path, lang):
    scenario = moe_measured()
    ws = _sheet(scenario, lang, tmp_path)
    tt = labels(lang)["training"]
    rows = _rows(ws)
    wl, cl = scenario.workload, scenario.cluster
    assert rows[tt["workload"]["experts"]][0] == 64 and rows[tt["workload"]["top_k"]][0] == 8
    assert rows[tt["workload"]["seq_len"]][0] == wl.seq_len
    assert rows[tt["workload"]["parallelism"]][0] == tt["parallelism"]["best"]
    assert rows[tt["workload"]["tensor_parallel"]][0] == tt["auto"]  # empty: the model chooses
    assert tt["search_note"] in rows  # the layout is searched: the plan's layout values are not used
    assert rows[tt["workload"]["full_recompute"]][0] == 0
    assert rows[tt["cluster"]["in_network_reduction"]][0] == 1
    assert rows[tt["cluster"]["oversubscription"]][0] == cl.oversubscription
    assert rows[tt["cluster"]["spare_optic_frac"]][0] == cl.spare_optic_frac
    assert rows[tt["cluster"]["gpus_per_node"]][0] == 8  # the effective count, not "auto"
    cell = next(c for c in ws["B"] if c.value == 1 and c.row == _row_of(ws, tt["cluster"]["in_network_reduction"]))
    assert cell.number_format == tt["on_off"]
    m = scenario.measurements["ib-ndr-400"]
    ib_name = costmodel.catalog.loader.load_catalog().fabrics["ib-ndr-400"]
    ib = rows[ib_name.name_zh if lang == "zh" else ib_name.name]
    assert ib[:6] == ["all_reduce", pytest.approx(m.alpha_us), pytest.approx(m.busbw_GBps), m.hosts, m.ranks,
                      m.summary]
    for f in scenario.fabrics:
        if f != "ib-ndr-400":
            name = costmodel.catalog.loader.load_catalog().fabrics[f]
            assert rows[name.name_zh if lang == "zh" else name.name][0] == tt["no_measurement"]


def _row_of(ws, label: str) -> int:
    return next(c.row for c in ws["A"] if c.value == label)


def test_chinese_training_sheet_has_no_stray_english(tmp_path):
    scenario = moe_measured()
    ws = _sheet(scenario, "zh", tmp_path)
    names = {costmodel.catalog.loader.load_catalog().fabrics[f].name_zh for f in scenario.fabrics}
    m = scenario.measurements["ib-ndr-400"]
    allowed = names | {m.summary, m.collective, "—"}
    texts = [c.value for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and c.value not in allowed]
    assert texts and all(CJK.search(v) for v in texts), [v for v in texts if not CJK.search(v)]
    formats = {c.number_format for row in ws.iter_rows() for c in row if isinstance(c.value, (int, float))}
    assert labels("zh")["training"]["yes_no"] in formats and '"yes"' not in "".join(formats)


def test_english_training_sheet_has_no_chinese_and_a_dense_model_says_so(tmp_path):
    scenario = costmodel.load_preset("seed-intro-32xA100")
    ws = _sheet(scenario, "en", tmp_path)
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert not [v for v in texts if CJK.search(v)]
    tt = labels("en")["training"]
    rows = _rows(ws)
    assert rows[tt["workload"]["experts"]][0] == tt["dense"]
    assert "not formulas" in tt["step_note"] and tt["step_note"] in texts
    assert tt["search_note"] not in texts  # a fixed layout: the plan's values are the ones used
