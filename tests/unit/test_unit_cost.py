"""The cost of a run: one figure per concept, the hours a run holds the cluster priced at the cost of a
cluster-hour of training, the same under every schedule, in the model, the CSV and the workbook, with
words in English and Chinese and no trace of the old always-busy / yearly-plan pair."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from strategies import scenarios

import costmodel
from costmodel.exports.csv import results_csv
from costmodel.exports.unit_cost_table import COLUMNS, first_row
from costmodel.exports.workbook import labels, workbook_bytes
from costmodel.scenario.changes import with_change

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "webui" / "i18n" / "locales"
KPI_KEYS = ("runs_year", "max_runs", "per_cluster_hour", "per_run", "per_mtok", "per_gpu_hour")


def _with_schedule(s: costmodel.Scenario, schedule: str) -> costmodel.Scenario:
    return with_change(s, "workload.schedule", schedule).scenario


def _case3_with(*extra: str) -> costmodel.Scenario:
    s = costmodel.load_preset("seed-case3-128xH100")
    return s.model_copy(update={"fabrics": [*s.fabrics, *extra]})


def test_a_longer_run_costs_more_on_the_article_case_3_under_its_yearly_plan():
    """The inversion the yearly plan showed: TCP/IP 400 G runs longer than InfiniBand NDR 400 on the same
    128 × H100 nodes at a lower cost per cluster-hour, yet read cheaper per run."""
    res = costmodel.evaluate(_case3_with("tcp-400", "ib-ndr-400"))
    tcp, ib = res.fabric("tcp-400").metrics, res.fabric("ib-ndr-400").metrics
    assert tcp["run_days"] > ib["run_days"] * 1.1
    assert tcp["cost_per_cluster_hour"] < ib["cost_per_cluster_hour"]  # cheaper network, yet
    assert tcp["cost_per_run"] > ib["cost_per_run"]
    assert tcp["cost_per_mtok"] > ib["cost_per_mtok"]
    assert tcp["runs_per_year"] == ib["runs_per_year"] == pytest.approx(6.0)  # the plan fits on both


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(max_nodes=256))
def test_a_longer_run_never_costs_less_per_run_at_no_cheaper_an_hour(scenario):
    """Over generated clusters, workloads and fabrics: on the same cluster a fabric whose run takes longer
    never shows a lower cost per run than one with an equal or lower cost per cluster-hour."""
    res = costmodel.evaluate(scenario)
    ms = [f.metrics for f in res.fabrics]
    for a in ms:
        for b in ms:
            if None in (a["cost_per_run"], b["cost_per_run"], a["run_days"], b["run_days"]):
                continue
            if a["run_days"] > b["run_days"] and a["cost_per_cluster_hour"] >= b["cost_per_cluster_hour"]:
                assert a["cost_per_run"] >= b["cost_per_run"] * (1 - 1e-12)
            # the figures are the hours of a run at the cost of an hour, and per million tokens
            assert a["cost_per_run"] == pytest.approx(a["cost_per_cluster_hour"] * a["run_days"] * 24.0, rel=1e-9)
            tokens_m = scenario.workload.tokens_per_run_b * 1e3
            assert a["cost_per_mtok"] == pytest.approx(a["cost_per_run"] / tokens_m, rel=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(max_nodes=256))
def test_the_schedule_sets_the_runs_per_year_not_the_cost_of_one(scenario):
    """A plan and the cluster always busy give the same cost per cluster-hour, run, million tokens and
    useful GPU-hour; with the cluster always busy it is the cash cost over the runs it makes."""
    plan = costmodel.evaluate(_with_schedule(scenario, "plan"))
    busy = costmodel.evaluate(_with_schedule(scenario, "always_busy"))
    for p, b in zip(plan.fabrics, busy.fabrics, strict=True):
        for key in ("cost_per_cluster_hour", "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour"):
            assert p.metrics[key] == pytest.approx(b.metrics[key], rel=1e-9, nan_ok=True), (p.id, key)
        m = b.metrics
        if m["runs_per_year"]:
            per_run = m["cash_total"] / (m["runs_per_year"] * busy.horizon_years)
            assert m["cost_per_run"] == pytest.approx(per_run, rel=1e-9)
        assert p.metrics["runs_per_year"] <= p.always_busy["runs_per_year"] * (1 + 1e-9)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_csv_and_the_workbook_give_the_models_figures(lang):
    res = costmodel.evaluate(_case3_with("tcp-400"))
    rows = list(csv.DictReader(io.StringIO(results_csv(res, lang=lang))))
    head = yaml.safe_load((ROOT / "costmodel/data/csv_headers.yaml").read_text(encoding="utf-8"))["zh"]
    col = (lambda k: k) if lang == "en" else (lambda k: head[k])
    for f, row in zip(res.fabrics, rows, strict=True):
        for key in ("cost_per_cluster_hour", "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour"):
            assert float(row[col(key)]) == pytest.approx(f.metrics[key], abs=0.005), (f.id, key)
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(_case3_with("tcp-400"), lang=lang)))
    summary = book[labels(lang)["sheet_summary"]]
    first = first_row(len(res.fabrics)) + 4
    for i in range(len(res.fabrics)):  # live formulas (recalculated by test_workbook_recalc)
        for k, c in enumerate(COLUMNS):
            if c != "runs_per_year":
                assert str(summary.cell(first + i, 2 + k).value).startswith("="), c
    # the cached values the workbook carries are the model's
    values = openpyxl.load_workbook(io.BytesIO(workbook_bytes(_case3_with("tcp-400"), lang=lang)), data_only=True)
    cached_sheet = values[labels(lang)["sheet_summary"]]
    for i, f in enumerate(res.fabrics):
        for k, c in enumerate(COLUMNS):
            if c in f.metrics and c != "runs_per_year":
                assert cached_sheet.cell(first + i, 2 + k).value == pytest.approx(f.metrics[c], rel=1e-12), (f.id, c)


def _locale(lang: str) -> dict:
    return yaml.safe_load((LOCALES / f"{lang}.yaml").read_text(encoding="utf-8"))


def test_the_labels_exist_in_english_and_chinese():
    en, zh = _locale("en")["kpi"], _locale("zh")["kpi"]
    for key in KPI_KEYS:
        assert en[key] and zh[key] and en[key] != zh[key], key
    labels = yaml.safe_load((ROOT / "costmodel/data/export_labels.yaml").read_text(encoding="utf-8"))
    assert set(labels["en"]["unit_cost"]) == set(labels["zh"]["unit_cost"]) >= {f"col_{c}" for c in COLUMNS}
    assert {"kwh_site_busy", "run_h"} <= set(labels["en"]["inputs"]) & set(labels["zh"]["inputs"])
    head = yaml.safe_load((ROOT / "costmodel/data/csv_headers.yaml").read_text(encoding="utf-8"))["zh"]
    assert {"cost_per_cluster_hour", "cost_per_run", "cost_per_mtok"} <= set(head)
    # the equal-work figure has its own name, not "cost per run"
    work = yaml.safe_load((LOCALES / "en" / "work.yaml").read_text(encoding="utf-8"))["work"]
    assert work["per_run"] != en["per_run"] and "planned run" in work["per_run"]


OLD = re.compile(r"busy_per_(run|mtok|gpu_hour)|busy_runs|Cost per run \(always busy\)|每次训练成本（始终满载）"
                 r"|ew\.cost_per_run|always_busy\[\"cost_per")


def test_no_old_label_is_left():
    files = [p for d in ("webui", "app_pages", "costmodel") for p in (ROOT / d).rglob("*")
             if p.suffix in (".py", ".yaml", ".html")]
    left = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in files
            for m in OLD.finditer(p.read_text(encoding="utf-8"))]
    assert left == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pdf_shows_the_models_figures_under_the_cards_labels(lang):
    from webui.i18n.translator import Translator
    from webui.reports.doc_money import DocumentMoney
    from webui.reports.html import report_html

    s = _case3_with("tcp-400")
    res, t = costmodel.evaluate(s), Translator(lang)
    doc = report_html(s, lang)
    money = DocumentMoney(res.currency, res.currency, 1.0, lang=lang)  # the report's one way of writing money
    table = doc[doc.index(t("rpt.unit_title")):]
    for key in ("kpi.per_cluster_hour", "kpi.per_run", "kpi.per_mtok", "kpi.per_gpu_hour"):
        assert f"<th>{t(key)}</th>" in table, key
    for f in res.fabrics:
        for cell in (money.short(f.metrics["cost_per_run"]), money(f.metrics["cost_per_mtok"], digits=2)):
            assert f">{cell}</td>" in table, (f.id, cell)
