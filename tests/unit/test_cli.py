"""The command line, run as a user would (subprocess)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

CATEGORIES = ["compute_capex", "network_capex", "cooling_capex", "energy", "cpu_overhead", "network_wait",
              "interruptions", "operations"]
FABRIC_KEYS = {
    "id", "family", "name", "tco_total", "npv", "delta_vs_baseline", "breakdown", "yearly", "nic_gbps",
    "allreduce_busbw_gbs", "step_time_s", "gpu_utilization", "mfu", "run_days", "runs_per_year", "goodput",
    "interruptions_per_year", "checkpoint_interval_h", "switches", "cpu_overhead_share", "payback_years",
}


def run(root, *args, check=True):
    proc = subprocess.run([sys.executable, "-m", "costmodel", *args], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_presets_and_preset_round_trip(root, tmp_path):
    ids = [line.split("\t")[0] for line in run(root, "presets").stdout.splitlines()]
    assert "seed-case2-24xA100" in ids and len(ids) >= 4
    scenario = run(root, "preset", "seed-case2-24xA100").stdout
    path = tmp_path / "s.json"
    path.write_text(scenario, encoding="utf-8")
    from_file = json.loads(run(root, "compare", str(path), "--format", "json").stdout)
    from_preset = json.loads(run(root, "compare", "--preset", "seed-case2-24xA100", "--format", "json").stdout)
    assert from_file == from_preset


def test_compare_json_contract(root):
    doc = json.loads(run(root, "compare", "--preset", "seed-intro-32xA100", "--format", "json").stdout)
    assert {"currency", "horizon_years", "scope", "baseline", "fabrics", "recommendation"} <= set(doc)
    assert {"rule", "cost_optimal", "reasons"} <= set(doc["recommendation"])
    assert doc["recommendation"]["reasons"]
    families = {f["family"] for f in doc["fabrics"]}
    assert families == {"tcp", "roce", "iwarp", "infiniband"}
    base = next(f for f in doc["fabrics"] if f["id"] == doc["baseline"])
    for f in doc["fabrics"]:
        assert FABRIC_KEYS <= set(f), FABRIC_KEYS - set(f)
        assert set(f["breakdown"]) == set(CATEGORIES)
        assert sum(f["breakdown"].values()) == pytest.approx(f["tco_total"], rel=1e-12)
        assert sum(y["total"] for y in f["yearly"]) == pytest.approx(f["tco_total"], rel=1e-12)
        assert [y["year"] for y in f["yearly"]] == list(range(doc["horizon_years"] + 1))
        assert f["delta_vs_baseline"] == pytest.approx(f["tco_total"] - base["tco_total"], abs=1e-6)
    assert base["payback_years"] is None


def test_compare_table_and_csv(root):
    table = run(root, "compare", "--preset", "seed-case1-8xA10").stdout
    assert "TCO 5 y" in table and "roce-100" in table and "seed rule" in table
    rows = list(csv.DictReader(io.StringIO(run(root, "compare", "--preset", "seed-case1-8xA10",
                                               "--format", "csv").stdout)))
    assert [r["id"] for r in rows] == ["tcp-100", "roce-100", "iwarp-100", "ib-hdr-200"]


def test_sweep_rows_and_bad_nodes(root):
    out = run(root, "sweep", "--preset", "seed-case1-8xA10", "--nodes", "2:4096").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 4095 * 4
    assert {int(r["nodes"]) for r in rows} == set(range(2, 4097))
    bad = run(root, "sweep", "--preset", "seed-case1-8xA10", "--nodes", "0:10", check=False)
    assert bad.returncode == 2 and "nodes" in bad.stderr and "100000" in bad.stderr
    bad = run(root, "sweep", "--preset", "seed-case1-8xA10", "--nodes", "abc", check=False)
    assert bad.returncode == 2 and "--nodes" in bad.stderr


def test_claims_table_covers_every_case(root):
    out = run(root, "claims").stdout
    for pid in ("seed-intro-32xA100", "seed-case1-8xA10", "seed-case2-24xA100", "seed-case3-128xH100"):
        assert f"[{pid}]" in out
    assert "run_days_ratio" in out and "NOT reproduced" in out and "reproduced (±25 %)" in out
    doc = json.loads(run(root, "claims", "--format", "json").stdout)
    ratios = [c for c in doc if c["metric"] == "run_days_ratio"]
    assert len(ratios) == 4 and all(c["explanation"] for c in ratios)


def test_unknown_preset_and_missing_file(root, tmp_path):
    for args in (["compare", "--preset", "nope"], ["compare", str(tmp_path / "missing.json")], ["compare"]):
        proc = run(root, *args, check=False)
        assert proc.returncode == 2
        assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1


def test_risk_command(root):
    out = run(root, "risk", "--preset", "seed-case2-24xA100", "--draws", "2000", "--seed", "3").stdout
    assert "p10" in out and "prob_cheaper_than_baseline" in out and "Tornado" in out


def test_validation_doc_shows_the_current_claims_table(root):
    """docs/validation.md embeds `claims --format markdown`; regenerate it when this fails."""
    doc = (root / "docs" / "validation.md").read_text(encoding="utf-8")
    embedded = doc.split("<!-- claims:begin -->\n", 1)[1].split("<!-- claims:end -->", 1)[0].strip()
    assert embedded == run(root, "claims", "--format", "markdown").stdout.strip()
