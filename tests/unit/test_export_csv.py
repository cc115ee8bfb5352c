"""CSV exports: tidy, complete, equal to the model, and harmless for spreadsheets."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

import costmodel
from costmodel.export_csv import results_csv, yearly_csv


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_yearly_csv_is_tidy_and_adds_up_to_the_tco():
    res = costmodel.evaluate(costmodel.load_preset("seed-case2-24xA100"))
    rows = _rows(yearly_csv(res))
    assert len(rows) == len(res.fabrics) * (res.horizon_years + 1)
    for f in res.fabrics:
        mine = [r for r in rows if r["fabric"] == f.id]
        assert [int(r["year"]) for r in mine] == list(range(res.horizon_years + 1))
        assert sum(float(r["total"]) for r in mine) == pytest.approx(f.tco_total, rel=1e-12)


def test_results_csv_matches_the_model():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    rows = {r["fabric"]: r for r in _rows(results_csv(res))}
    for f in res.fabrics:
        assert float(rows[f.id]["tco_total"]) == f.tco_total
        assert float(rows[f.id]["run_days"]) == pytest.approx(f.metrics["run_days"], rel=1e-12)


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "<script>x</script>"])
def test_user_text_stays_text(name):
    data = costmodel.load_preset("seed-case1-8xA10").model_dump()
    data["name"] = name
    res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
    for text in (yearly_csv(res), results_csv(res)):
        cell = _rows(text)[0]["scenario"]
        assert cell == ("'" + name if name[0] in "=+-@" else name)


def test_cli_report_writes_both_files(root, tmp_path):
    a, b, x = tmp_path / "r.csv", tmp_path / "y.csv", tmp_path / "r.xlsx"
    proc = subprocess.run([sys.executable, "-m", "costmodel", "report", "--preset", "seed-case3-128xH100",
                           "--results-csv", str(a), "--csv", str(b), "--xlsx", str(x)], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert x.read_bytes()[:2] == b"PK"  # a zip container, as every .xlsx
    assert len(_rows(a.read_text(encoding="utf-8"))) == 4 and len(_rows(b.read_text(encoding="utf-8"))) == 24
    bad = subprocess.run([sys.executable, "-m", "costmodel", "report", "--preset", "seed-case3-128xH100"],
                         cwd=root, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
