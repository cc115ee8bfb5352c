"""The PDF report's "Training plan and step time" section (webui/reports/training.py): the plan, the
measurement, and per fabric the layout, step time, MFU, HFU and memory of the Result, in en and zh,
user text escaped. Tests the HTML builder (the PDF is Chromium printing that HTML)."""

from __future__ import annotations

import re

import pytest
from test_export_training import moe_measured

import costmodel
from costmodel.catalog.formatting import format_number, format_share
from costmodel.scenario.changes import with_change
from webui.i18n import labels
from webui.i18n.layouts import layout_text
from webui.i18n.translator import Translator
from webui.reports.html import _table, report_html
from webui.reports.training import training_section

CJK = re.compile(r"[\u3400-\u9fff]")


def _cells(html_text: str) -> list[list[str]]:
    """The rows of the section's last table (the per-fabric one) as lists of cell texts."""
    last = html_text.rsplit("<table>", 1)[1]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in last.split("<tr>")[2:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_section_has_the_plan_and_each_fabrics_layout_step_and_memory(lang):
    scenario = moe_measured()
    res = costmodel.evaluate(scenario)
    t = Translator(lang)
    names = labels.fabric_names(t)
    out = training_section(t, scenario, res, names, _table)
    assert f">{t('rtrain.title')}</h2>" in out
    assert (CJK.search(t("rtrain.title")) is not None) == (lang == "zh")
    for key in ("seq_len", "experts", "top_k", "parallelism"):
        assert t(f"field.workload.{key}") in out
    assert t("field.cluster.in_network_reduction") in out and t("opt.workload.parallelism.best") in out
    assert scenario.cluster.gpus_per_node is None  # shown as the reference server's count, not "auto"
    label = re.escape(t("field.cluster.gpus_per_node"))
    assert re.search(rf"<td>{label}</td><td[^>]*>8</td>", out)  # a number: its cell never wraps
    m = scenario.measurements["ib-ndr-400"]
    assert format_number(m.busbw_GBps, 1) in out and m.summary in out
    rows = _cells(out)
    assert len(rows) == len(res.fabrics)
    for f, row in zip(res.fabrics, rows, strict=True):
        x = f.metrics
        assert row[0].startswith(names[f.id]) and (t("rtrain.measured_mark") in row[0]) == (f.measured is not None)
        assert row[1] == layout_text(t, x).replace("&", "&amp;")
        assert row[2] == format_number(x["step_time_s"], 3) and row[4] == format_number(x["exposed_comm_s"], 3)
        assert row[5] == format_share(x["scaleout_share"], 1)
        assert row[6] == format_share(x["mfu"], 1) and row[7] == format_share(x["hfu"], 1)
        assert row[8] == f"{format_number(x['memory_gb_per_gpu'], 1)} / {format_number(x['memory_usable_gb'], 1)}"


def test_a_measurement_header_is_escaped():
    scenario = moe_measured()
    doc = scenario.measurements["ib-ndr-400"].model_dump() | {"summary": "all_reduce <b>x</b> & y"}
    scenario = with_change(scenario, "measurements", {"ib-ndr-400": doc}).scenario
    t = Translator("en")
    out = training_section(t, scenario, costmodel.evaluate(scenario), labels.fabric_names(t), _table)
    assert "<b>x</b>" not in out and "all_reduce &lt;b&gt;x&lt;/b&gt; &amp; y" in out


def test_a_dense_plan_without_measurement_says_so_and_the_report_carries_the_section():
    scenario = costmodel.load_preset("seed-intro-32xA100")
    t = Translator("zh")
    out = report_html(scenario, lang="zh")
    assert t("rtrain.title") in out and t("rtrain.dense") in out and t("rtrain.no_measurements") in out
    assert out.index(t("rtrain.title")) < out.index(t("pdf.cash_flows"))


def test_the_plan_table_names_the_gpu_first():
    """The PDF's input table names the GPU (its catalog name), before the nodes and the model."""
    from webui.i18n.translator import Translator
    from webui.reports.training import plan_rows

    s = with_change(costmodel.load_preset("seed-intro-32xA100"), "cluster.gpu", "h100").scenario
    for lang in ("zh", "en"):
        t = Translator(lang)
        rows = plan_rows(t, s)
        assert rows[0] == (t("field.cluster.gpu"), "NVIDIA H100 80 GB SXM")
        assert rows[1] == (t("field.cluster.nodes"), "32")
