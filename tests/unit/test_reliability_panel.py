"""The Compare page's reliability table (webui/panels/reliability_panel.py) and the Risk page's coverage of
the new reliability quantities (tornado and Monte Carlo draw the registry's ranges)."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.physics.reliability import CAUSES
from costmodel.pipeline.inputs import build
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.panels import reliability_panel

RELIABILITY_FIELDS = {"xcvr_fail_per_hour", "aoc_fail_per_hour", "aec_fail_per_hour", "dac_fail_per_hour",
                      "switch_fail_per_hour", "node_hw_share", "init_s_per_gpu", "hang_detect_s",
                      "soft_fail_per_gpu_hour", "setup_s_per_run"}


def test_rows_show_each_fabrics_figures_under_translated_headers():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    for lang in ("en", "zh"):
        t = Translator(lang)
        rows = reliability_panel.rows(t, res.fabrics, labels.fabric_names(t))
        assert len(rows) == len(res.fabrics)
        for row, f in zip(rows, res.fabrics, strict=True):
            m = f.metrics
            assert row[t("reliability.cause.soft")] == f"{m['interruptions_soft_per_year']:,.2f}"
            assert row[t("reliability.total")] == f"{m['interruptions_per_year']:,.2f}"
            assert row[t("reliability.spares")] == "1"  # ⌈2 % of 32⌉
            # the causes add up to the total the KPI card shows
            assert abs(sum(m[f"interruptions_{c}_per_year"] for c in CAUSES) - m["interruptions_per_year"]) < 1e-9
        if lang == "zh":
            assert t("reliability.cause.links") == "线缆与光模块 / 年"


def test_risk_swings_the_new_reliability_quantities():
    names = {u.name for u in build(costmodel.load_preset("seed-case3-128xH100")).uncertain}
    assert RELIABILITY_FIELDS <= names, RELIABILITY_FIELDS - names


def test_the_workbooks_reliability_sheet_holds_each_fabrics_figures():
    import io

    import openpyxl

    from costmodel.exports.reliability_sheet import ROWS
    from costmodel.exports.workbook import labels as xlsx_labels
    from costmodel.exports.workbook import workbook_bytes

    scenario = costmodel.load_preset("seed-intro-32xA100")
    res = costmodel.evaluate(scenario)
    for lang in ("en", "zh"):
        tx = xlsx_labels(lang)["reliability"]
        ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario, lang=lang)))[tx["sheet"]]
        by_label = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
        for key, _ in ROWS:
            r = by_label[tx["rows"][key]]
            for j, f in enumerate(res.fabrics):
                assert ws.cell(r, 2 + j).value == pytest.approx(f.metrics[key], rel=1e-12), (lang, key, f.id)


def test_the_pdf_section_lists_each_fabric_with_its_figures():
    from webui.sections.reliability import reliability_section

    res = costmodel.evaluate(costmodel.load_preset("seed-case3-128xH100"))
    seen = {}

    def table(header, rows, **kw):
        seen["header"], seen["rows"] = header, rows
        assert len(kw.get("widths", header)) == len(header)
        return "<table></table>"

    for lang in ("en", "zh"):
        t = Translator(lang)
        names = labels.fabric_names(t)
        out = reliability_section(t, res, names, table)
        assert t("reliability.title") in out and len(seen["header"]) == 12
        for row, f in zip(seen["rows"], res.fabrics, strict=True):
            assert row[0] == names[f.id]
            assert row[-1] == f"{100 * f.metrics['goodput']:.2f} %"
            assert row[-3] == "3"  # ⌈2 % of 128⌉ hot spares
