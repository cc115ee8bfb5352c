"""Bandwidth sensitivity (costmodel/evidence/sensitivity.py): the curve of a published run against the
achievable inter-node bandwidth per GPU, its limit, its knee, and the catalog fabrics on it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import costmodel.evidence.sensitivity as sens
from costmodel import evaluate
from costmodel.errors import ScenarioError
from costmodel.evidence.runs import catalog_of, check_runs, load_runs, scenario_of
from costmodel.pipeline import tco

RUNS = {r["id"]: r for r in load_runs()}
REFS = list(sens.settings()["references"])


@pytest.fixture(scope="module", params=REFS)
def ref(request):
    return request.param, sens.curve(request.param)


def test_the_data_file_names_published_runs_and_catalog_fabrics():
    from costmodel.catalog.loader import load_catalog

    assert REFS and set(REFS) <= set(RUNS)
    assert set(sens.settings()["markers"]) <= set(load_catalog().fabrics)


def test_more_bandwidth_never_slows_a_step(ref):
    _, c = ref
    assert np.all(np.diff(c.gbs_per_gpu) > 0)
    assert np.all(np.diff(c.step_time_s) <= 1e-12 * c.step_time_s[:-1])
    assert np.all(np.diff(c.mfu) >= -1e-15) and np.all(np.diff(c.compute_share) >= -1e-15)
    assert np.all(np.diff(c.exposed_share) <= 1e-15)


def test_the_curve_saturates_at_its_value_with_unlimited_bandwidth(ref):
    _, c = ref
    assert np.all(c.mfu <= c.unbounded_mfu * (1 + 1e-12))
    assert c.mfu[-1] == pytest.approx(c.unbounded_mfu, rel=0.01)  # 400 GB/s per GPU: within 1 %
    assert c.compute_share[-1] == pytest.approx(c.unbounded_compute_share, rel=0.01)
    assert c.mfu[0] < c.mfu[-1]  # and 1 GB/s per GPU does cost something
    assert c.exposed_share[-1] < 0.005
    # the unlimited-bandwidth value is the step without network bandwidth terms: the MFU a
    # thousand-times-faster network gives, to within the latency terms both keep
    far = sens.curve(ref[0], [c.gbs_per_gpu[-1] * 1000])
    assert far.mfu[0] == pytest.approx(c.unbounded_mfu, rel=1e-4)


def test_the_knee_is_where_mfu_first_reaches_its_share_of_the_limit(ref):
    _, c = ref
    target = c.knee_share * c.unbounded_mfu
    assert c.gbs_per_gpu[0] <= c.knee_gbs <= c.gbs_per_gpu[-1]
    assert np.all(c.mfu[c.gbs_per_gpu < c.knee_gbs * (1 - 1e-9)] < target)
    assert np.all(c.mfu[c.gbs_per_gpu > c.knee_gbs * (1 + 1e-9)] >= target)
    at = sens.curve(ref[0], [c.knee_gbs])
    assert at.mfu[0] == pytest.approx(target, rel=2e-3)  # log-linear interpolation between grid points


@pytest.mark.parametrize("run_id", REFS)
def test_each_marker_is_a_direct_evaluation_of_that_fabrics_scenario(run_id):
    run = RUNS[run_id]
    eff = check_runs()[1].get(run["gpu"])
    for mk in sens.markers(run_id):
        direct = evaluate(scenario_of({**run, "fabric": mk.fabric}, eff), catalog=catalog_of(run)).fabrics[0].metrics
        assert mk.mfu == pytest.approx(direct["mfu"], rel=1e-12)
        assert mk.step_time_s == pytest.approx(direct["step_time_s"], rel=1e-12)
        assert mk.compute_share == pytest.approx(direct["gpu_utilization"], rel=1e-12)
        line = direct["nic_gbps"] / 8 / 8  # Gb/s per node → GB/s per GPU (8 GPUs per node)
        assert mk.line_gbs_per_gpu == pytest.approx(line)
        # the achievable rate: line × efficiency, unless the NIC's host slot binds first
        assert mk.gbs_per_gpu == pytest.approx(direct["scaleout_gbs_per_gpu"])
        expected = min(line, direct["host_slot_gbs"]) * direct["effective_efficiency"]
        assert mk.gbs_per_gpu == pytest.approx(expected)


@pytest.mark.parametrize("run_id", REFS)
def test_the_curve_at_the_runs_own_bandwidth_is_the_published_run_as_evaluated(run_id):
    """Same fabric latencies, same bandwidth: the curve point is the run's own evaluation."""
    own = next(m for m in sens.markers(run_id) if m.fabric == RUNS[run_id]["fabric"])
    c = sens.curve(run_id, [own.gbs_per_gpu])
    assert c.mfu[0] == pytest.approx(own.mfu, rel=1e-9)
    assert c.step_time_s[0] == pytest.approx(own.step_time_s, rel=1e-9)


def test_infiniband_markers_sit_on_the_curve_up_to_their_latencies():
    run_id = "megatron-175b-1536"
    c = sens.curve(run_id)
    for mk in sens.markers(run_id):
        if mk.fabric.startswith("ib-"):
            on_curve = np.interp(np.log(mk.gbs_per_gpu), np.log(c.gbs_per_gpu), c.mfu)
            assert mk.mfu == pytest.approx(on_curve, rel=0.01)


def test_the_whole_grid_is_one_model_evaluation(monkeypatch):
    calls = []
    real = tco.compute

    def counting(p, st):
        calls.append(np.shape(p.port_bps))
        return real(p, st)

    monkeypatch.setattr(sens, "compute", counting)
    grid = sens.bandwidth_grid()
    c = sens.curve(REFS[0], grid)
    assert len(calls) == 1 and calls[0][0] == grid.size + 1  # the grid and the unlimited row
    assert c.mfu.shape == grid.shape


def test_the_grid_comes_from_the_data_file_and_bad_grids_are_refused():
    g = sens.settings()["grid"]
    grid = sens.bandwidth_grid()
    assert grid[0] == pytest.approx(g["low_gbs_per_gpu"]) and grid[-1] == pytest.approx(g["high_gbs_per_gpu"])
    assert grid.size == g["points"] and np.allclose(np.diff(np.log(grid)), np.log(grid[1] / grid[0]))
    with pytest.raises(ScenarioError, match="bandwidth grid"):
        sens.bandwidth_grid(10.0, 1.0)
    with pytest.raises(ScenarioError, match="bandwidth"):
        sens.curve(REFS[0], [0.0, 10.0])
    with pytest.raises(ScenarioError, match="unknown run"):
        sens.curve("no-such-run")


def test_calculon_inputs_are_the_system_files_and_the_curve_is_cited():
    c = sens.calculon_inputs()
    assert c["gbs_per_gpu"] == pytest.approx(c["line_gbs_per_gpu"] * c["efficiency"])
    from costmodel.catalog.loader import load_catalog

    refs = load_catalog().references
    assert c["source"] in refs and c["curve_source"] in refs
    assert "not the paper" in refs[c["curve_source"]].title  # labelled as our run of Calculon
    curve = c["curve"]
    assert curve is not None and all(len(p) == 2 and p[0] > 0 and 0 < p[1] <= 1 for p in curve)


def test_calculons_curve_spans_our_grid_and_never_falls_as_bandwidth_grows():
    c = sens.calculon_inputs("megatron-175b-1536")
    x, y = np.array(c["curve"], dtype=float).T
    grid = sens.bandwidth_grid()
    assert len(x) >= 12 and x[0] <= grid[0] * 1.01 and x[-1] >= grid[-1] * 0.99
    assert np.all(np.diff(x) > 0)
    assert np.all(np.diff(y) >= 0), "Calculon's efficiency fell with more bandwidth"
    assert y[-1] <= c["unbounded"] <= 1  # unlimited bandwidth is the ceiling
    # its knee is where its own values cross knee_share of its ceiling
    share = sens.settings()["knee_share"]["typical"]
    k = c["knee_gbs"]
    below, above = y[x < k], y[x >= k]
    assert below.size and above.size
    assert below.max() < share * c["unbounded"] <= above.min()


def test_calculons_curve_belongs_to_its_run_only():
    run = sens.settings()["calculon"]["run"]
    assert run in sens.settings()["references"]
    assert sens.calculon_inputs(run)["curve"]
    for other in sens.settings()["references"]:
        if other != run:
            c = sens.calculon_inputs(other)
            assert c["curve"] is None and not np.isfinite(c["knee_gbs"])


def test_the_docs_table_is_the_models():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "validation.md").read_text(encoding="utf-8")
    embedded = doc.split("<!-- sensitivity:begin -->\n", 1)[1].split("<!-- sensitivity:end -->", 1)[0].strip()
    assert embedded == sens.markdown().strip(), "run docs/regen_claims.sh"
    shots = re.findall(r"\((screenshots/method-bandwidth-[\w-]+\.png)\)", doc)
    assert shots and all((Path(__file__).resolve().parents[2] / "docs" / s).is_file() for s in shots)


def test_the_docs_quote_calculons_run_as_stored():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "validation.md").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in doc.splitlines()]
    head = next(ln for ln in lines if ln.startswith("| achievable GB/s per GPU |"))
    row = next(ln for ln in lines if ln.startswith("| Calculon (run by us), total efficiency |"))
    xs = [float(v) for v in [c.strip() for c in head.strip("|").split("|")][1:-2]]
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    cal = sens.calculon_inputs("megatron-175b-1536")
    x, y = np.array(cal["curve"], dtype=float).T
    for xv, cell in zip(xs, cells[:-2], strict=True):
        i = int(np.argmin(np.abs(np.log(x / xv))))
        assert abs(np.log(x[i] / xv)) < 0.05 and cell == f"{100 * y[i]:.1f} %", (xv, cell)
    assert cells[-2] == f"{100 * cal['unbounded']:.1f} %" and cells[-1] == f"{cal['knee_gbs']:.3g} GB/s"
