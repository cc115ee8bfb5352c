"""CSV exports: tidy, complete, equal to the model (rounded as the pages show it), in the display
currency, readable by Excel in any locale, and harmless for spreadsheets."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

import costmodel
from costmodel.exports.csv import csv_bytes, results_csv, safe_cell, yearly_csv

MONEY_COLUMNS = ("tco_total", "npv", "delta_vs_baseline", "cost_per_run", "cost_per_mtok", "cost_per_useful_gpu_hour")


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _decimals(cell: str) -> int:
    return len(cell.split(".", 1)[1]) if "." in cell and "e" not in cell.lower() else 0


def test_yearly_csv_is_tidy_and_adds_up_to_the_tco():
    res = costmodel.evaluate(costmodel.load_preset("seed-case2-24xA100"))
    rows = _rows(yearly_csv(res))
    assert len(rows) == len(res.fabrics) * (res.horizon_years + 1)
    for f in res.fabrics:
        mine = [r for r in rows if r["fabric"] == f.id]
        assert [int(r["year"]) for r in mine] == list(range(res.horizon_years + 1))
        # each year rounded to the cent: the sum is within half a cent per year
        assert sum(float(r["total"]) for r in mine) == pytest.approx(f.tco_total, abs=0.005 * len(mine) + 1e-6)


def test_results_csv_matches_the_model():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    rows = {r["fabric"]: r for r in _rows(results_csv(res))}
    for f in res.fabrics:
        assert float(rows[f.id]["tco_total"]) == pytest.approx(f.tco_total, abs=0.005)
        assert float(rows[f.id]["run_days"]) == pytest.approx(f.metrics["run_days"], rel=1e-5)


def test_numbers_are_rounded_as_a_person_reads_them():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    results = _rows(results_csv(res))
    for row in results:
        for col in MONEY_COLUMNS + tuple(k for k in row if k.startswith("breakdown_")):
            assert _decimals(row[col]) <= 2, (col, row[col])
        for col in ("gpu_utilization", "mfu", "goodput", "cpu_overhead_share"):
            assert _decimals(row[col]) <= 4, (col, row[col])
        for col in ("step_time_s", "run_days", "interruptions_per_year", "checkpoint_interval_h"):
            digits = row[col].replace("-", "").replace(".", "").lstrip("0")
            assert len(digits) <= 6, (col, row[col])
    for row in _rows(yearly_csv(res)):
        for col in ("energy", "cpu_overhead", "interruptions", "operations", "total"):
            assert _decimals(row[col]) <= 2, (col, row[col])


def test_money_is_in_the_display_currency():
    res = costmodel.evaluate(costmodel.load_preset("seed-case2-24xA100"))
    rows = {r["fabric"]: r for r in _rows(results_csv(res, "CNY", 7.1))}
    yearly = _rows(yearly_csv(res, "CNY", 7.1))
    for f in res.fabrics:
        assert rows[f.id]["currency"] == "CNY"
        assert float(rows[f.id]["tco_total"]) == pytest.approx(f.tco_total * 7.1, abs=0.005)
        assert float(rows[f.id]["run_days"]) == pytest.approx(f.metrics["run_days"], rel=1e-5)  # not money
        total = sum(float(r["total"]) for r in yearly if r["fabric"] == f.id)
        assert total == pytest.approx(f.tco_total * 7.1, abs=0.05)
    with pytest.raises(ValueError, match="rate"):
        results_csv(res, "CNY", 0.0)


def test_files_carry_a_byte_order_mark_so_excel_reads_utf8():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))  # its name has '×'
    data = csv_bytes(yearly_csv(res))
    assert data[:3] == b"\xef\xbb\xbf"
    text = data.decode("utf-8-sig")
    assert _rows(text)[0]["scenario"] == res.name and "×" in res.name


@pytest.mark.parametrize("name", [
    "=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)",
    "  =1+1",  # leading spaces
    "\u3000=1+1",  # ideographic (full-width) space
    "＝HYPERLINK(\"http://x\")",  # full-width equals sign
    "＋1", "－1", "＠SUM(A1)", "﹦1",  # full-width and small forms
])
def test_formulas_are_neutralised(name):
    data = costmodel.load_preset("seed-case1-8xA10").model_dump()
    data["name"] = name
    res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
    for text in (yearly_csv(res), results_csv(res)):
        assert _rows(text)[0]["scenario"] == "'" + name


@pytest.mark.parametrize("text", ["\t=1+1", "\r=1+1", "\n=1+1", " \t@x"])
def test_control_characters_in_front_are_neutralised(text):
    # scenario names refuse control characters (schema); other text passes through the same cell filter
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("name", ["<script>x</script>", "Plan 1=1", "  Plan B", "A – B × 2"])
def test_ordinary_text_is_unchanged(name):
    data = costmodel.load_preset("seed-case1-8xA10").model_dump()
    data["name"] = name
    res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
    assert _rows(results_csv(res))[0]["scenario"] == name


def test_cli_report_writes_both_files(root, tmp_path):
    a, b, x = tmp_path / "r.csv", tmp_path / "y.csv", tmp_path / "r.xlsx"
    proc = subprocess.run([sys.executable, "-m", "costmodel", "report", "--preset", "seed-case3-128xH100",
                           "--results-csv", str(a), "--csv", str(b), "--xlsx", str(x)], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert x.read_bytes()[:2] == b"PK"  # a zip container, as every .xlsx
    assert a.read_bytes()[:3] == b"\xef\xbb\xbf" and b.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert len(_rows(a.read_text(encoding="utf-8-sig"))) == 4 and len(_rows(b.read_text(encoding="utf-8-sig"))) == 24
    bad = subprocess.run([sys.executable, "-m", "costmodel", "report", "--preset", "seed-case3-128xH100"],
                         cwd=root, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
