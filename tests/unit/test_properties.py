"""Property tests over random valid scenarios (hypothesis)."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import extreme_scenarios, scenarios

import costmodel
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import CATEGORIES, compute

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REL = 1e-9


def _with(scenario, group: str, **changes):
    data = scenario.model_dump()
    data[group].update(changes)
    return costmodel.Scenario.model_validate(data)


@SETTINGS
@given(scenarios(), st.lists(st.integers(1, 20_000), min_size=2, max_size=12, unique=True))
def test_tco_grows_with_nodes(scenario, nodes):
    nodes = sorted(nodes)
    df = costmodel.sweep(scenario, nodes=nodes)
    for _, grp in df.groupby("fabric"):
        tco = grp.sort_values("nodes")["tco_total"].to_numpy()
        assert np.all(np.diff(tco) >= -REL * tco[:-1]), tco


@SETTINGS
@given(scenarios(), st.floats(1.0, 3.0), st.floats(1.0, 3.0))
def test_tco_grows_with_pue(scenario, a, b):
    lo, hi = sorted((a, b))
    t_lo = [f.tco_total for f in costmodel.evaluate(_with(scenario, "facility", pue=lo)).fabrics]
    t_hi = [f.tco_total for f in costmodel.evaluate(_with(scenario, "facility", pue=hi)).fabrics]
    assert all(h >= x * (1 - REL) for x, h in zip(t_lo, t_hi, strict=False))


@SETTINGS
@given(scenarios(), st.floats(0.0, 10.0), st.floats(0.0, 10.0))
def test_tco_grows_with_electricity_price(scenario, a, b):
    lo, hi = sorted((a, b))
    r_lo = costmodel.evaluate(_with(scenario, "facility", electricity_price_per_kwh=lo))
    r_hi = costmodel.evaluate(_with(scenario, "facility", electricity_price_per_kwh=hi))
    for x, h in zip(r_lo.fabrics, r_hi.fabrics, strict=False):
        assert h.tco_total >= x.tco_total * (1 - REL)
        if hi > lo:
            assert h.breakdown["energy"] >= x.breakdown["energy"]


@SETTINGS
@given(scenarios(), st.floats(1.0, 100.0), st.floats(0.0, 0.05))
def test_run_days_never_shrink_with_latency_or_loss(scenario, latency_factor, extra_loss):
    built = build(scenario)
    p = built.inputs
    worse = p.replace(
        latency_s=p.latency_s * latency_factor,
        hop_latency_s=p.hop_latency_s * latency_factor,
        loss_rate=np.minimum(p.loss_rate + extra_loss, 1.0),
    )
    base = compute(p, built.structure).metrics["run_days"]
    slow = compute(worse, built.structure).metrics["run_days"]
    assert np.all(slow >= base * (1 - REL))


@SETTINGS
@given(scenarios())
def test_no_negative_cost_and_breakdown_adds_up(scenario):
    res = costmodel.evaluate(scenario)
    for f in res.fabrics:
        assert f.tco_total >= 0
        assert all(v >= 0 for v in f.breakdown.values()), f.breakdown
        assert np.isclose(sum(f.breakdown.values()), f.tco_total, rtol=1e-12, atol=1e-6)
        assert np.isclose(sum(y["total"] for y in f.yearly), f.tco_total, rtol=1e-12, atol=1e-6)
        for y in f.yearly:
            assert np.isclose(sum(y[c] for c in CATEGORIES), y["total"], rtol=1e-12, atol=1e-6)
        assert [y["year"] for y in f.yearly] == list(range(res.horizon_years + 1))


@SETTINGS
@given(scenarios(max_nodes=512), st.lists(st.integers(1, 4096), min_size=1, max_size=4, unique=True))
def test_sweep_agrees_with_evaluate(scenario, nodes):
    df = costmodel.sweep(scenario, nodes=nodes)
    assert len(df) == len(nodes) * len(scenario.fabrics)
    stages = scenario.workload.pipeline_stages if scenario.workload.parallelism == "pipeline" else 1
    for n in nodes:
        if n < stages:  # not a valid scenario on its own; the sweep clamps the stages to the nodes
            continue
        res = costmodel.evaluate(_with(scenario, "cluster", nodes=n))
        rows = df[df["nodes"] == n].set_index("fabric")
        for f in res.fabrics:
            row = rows.loc[f.id]
            assert np.isclose(row["tco_total"], f.tco_total, rtol=1e-12)
            assert np.isclose(row["npv"], f.npv, rtol=1e-12)
            assert np.isclose(row["run_days"], f.metrics["run_days"], rtol=1e-12)
            assert np.isclose(row["delta_vs_baseline"], f.delta_vs_baseline, rtol=1e-9, atol=1e-6)
            for cat in CATEGORIES:  # a sweep sums each distinct node count's terms in a batch of its own
                # length, evaluate in one of length 1: numpy's pairwise sums round differently, ~1e-12
                assert np.isclose(row[cat], f.breakdown[cat], rtol=1e-10, atol=1e-9)


@SETTINGS
@given(scenarios())
def test_npv_agrees_with_numpy_financial(scenario):
    res = costmodel.evaluate(scenario)
    rate = scenario.finance.discount_rate
    for f in res.fabrics:
        flows = [-y["total"] for y in f.yearly]
        assert np.isclose(f.npv, npf.npv(rate, flows), rtol=1e-10, atol=1e-6)
        assert np.isclose(f.pv_cost, -f.npv)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_scenarios())
def test_every_output_is_finite_at_the_edges_of_the_bounds(scenario):
    import json
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = costmodel.evaluate(scenario)
    doc = json.dumps(res.to_dict(), allow_nan=False)  # the CLI's JSON must always serialise
    assert doc
    for f in res.fabrics:
        assert np.isfinite(f.tco_total) and np.isfinite(f.npv)
        assert all(np.isfinite(v) for v in f.breakdown.values())
        assert all(np.isfinite(y["total"]) for y in f.yearly)
