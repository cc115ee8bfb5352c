"""The serving model (costmodel/serving): its laws as property tests, the SLA it can and cannot meet,
and one code path for one scenario and a sweep."""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costmodel.scenario.schema import Scenario
from costmodel.serving.compare import equal_sla
from costmodel.serving.from_scenario import serving_inputs
from costmodel.serving.sizing import serve

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: (model of serving.yaml, GPU, precision): a dense model in one server, an MoE across servers, an MoE in one
CASES = (("llama-3.1-70b", "h100", "bf16"), ("deepseek-v3", "h800", "fp8"), ("deepseek-v3", "h20", "fp8"),
         ("qwen3-235b-a22b", "h100", "fp8"))


@functools.cache
def base(case: int):
    model, gpu, precision = CASES[case]
    s = Scenario()
    s = s.model_copy(update={"cluster": s.cluster.model_copy(update={"gpu": gpu})})
    return serving_inputs(s, model, precision=precision, peak_rps=10.0, avg_rps=5.0, prompt=2000.0, output=400.0,
                          ttft_s=2.0, tpot_s=0.05)


def workloads():
    return st.fixed_dictionaries({
        "case": st.integers(0, len(CASES) - 1),
        "prompt": st.floats(16.0, 32_000.0), "output": st.floats(8.0, 4_000.0),
        "ttft_s": st.floats(0.05, 10.0), "tpot_s": st.floats(0.005, 0.3),
        "disaggregated": st.sampled_from([0.0, 1.0]), "instance_servers": st.integers(0, 4).map(float),
        "avg_share": st.floats(0.0, 1.0),
    })


def inputs(w, **changes):
    x = base(w["case"])
    values = {k: w[k] for k in ("prompt", "output", "ttft_s", "tpot_s", "disaggregated", "instance_servers")}
    return x.replace(**{**values, **changes})


@SETTINGS
@given(workloads(), st.floats(0.0, 1e4), st.floats(0.0, 1e4))
def test_more_demand_never_needs_fewer_servers(w, a, b):
    lo, hi = sorted((a, b))
    n_lo = serve(inputs(w, peak_rps=lo, avg_rps=lo))["servers"]
    n_hi = serve(inputs(w, peak_rps=hi, avg_rps=hi))["servers"]
    assert np.all(n_hi >= n_lo), (n_lo, n_hi)


@SETTINGS
@given(workloads(), st.floats(0.002, 0.5), st.floats(0.002, 0.5), st.floats(0.01, 1e3))
def test_a_tighter_tpot_never_lowers_cost_per_token(w, a, b, rps):
    tight, loose = sorted((a, b))
    r_tight = serve(inputs(w, tpot_s=tight, peak_rps=rps, avg_rps=rps * max(w["avg_share"], 1e-3)))
    r_loose = serve(inputs(w, tpot_s=loose, peak_rps=rps, avg_rps=rps * max(w["avg_share"], 1e-3)))
    for key in ("cost_per_mtok", "cost_per_mtok_output", "cost_per_hour"):
        assert np.all(r_tight[key] >= r_loose[key] * (1 - 1e-12)), (key, r_tight[key], r_loose[key])


@SETTINGS
@given(workloads(), st.floats(1.0, 100.0), st.floats(0.0, 1e-3))
def test_raising_a_fabrics_latency_never_lowers_its_ttft(w, factor, extra_s):
    x = inputs(w, peak_rps=1.0, avg_rps=1.0)
    slower = x.replace(latency_s=x.latency_s * factor + extra_s)
    assert np.all(serve(slower)["ttft_s"] >= serve(x)["ttft_s"])


@SETTINGS
@given(workloads(), st.floats(1e-3, 1e4))
def test_zero_demand_costs_the_idle_cluster(w, rps):
    """The idle cluster: the minimum deployment, one instance (one of each role when disaggregated) at the
    fabric's cost of a server-hour; any demand costs at least that per hour."""
    x = inputs(w, peak_rps=0.0, avg_rps=0.0)
    idle = serve(x)
    reachable = idle["reachable"]
    roles = np.where(idle["disaggregated"], 2.0, 1.0)
    expected = roles * idle["instance_servers"] * x.cost_per_server_hour
    assert np.allclose(idle["cost_per_hour"][reachable], np.broadcast_to(expected, reachable.shape)[reachable])
    assert np.array_equal(idle["cost_per_hour"][reachable], idle["idle_cost_per_hour"][reachable])
    busy = serve(inputs(w, peak_rps=rps, avg_rps=rps))["cost_per_hour"]
    assert np.all(busy >= idle["cost_per_hour"])


@SETTINGS
@given(workloads())
def test_the_chosen_batch_meets_the_sla_and_fits_memory(w):
    x = inputs(w, peak_rps=5.0, avg_rps=5.0)
    r = serve(x)
    ok = r["reachable"]
    assert np.all(r["tpot_s"][ok] <= np.broadcast_to(x.tpot_s, ok.shape)[ok])
    assert np.all(r["ttft_s"][ok] <= np.broadcast_to(x.ttft_s, ok.shape)[ok])
    free = r["instance_gpus"] * x.memory_bytes * x.memory_utilization - x.total_params * x.weight_bytes
    kv = r["batch"] * r["kv_bytes_per_token"] * (x.prompt + x.output)
    assert np.all(kv[ok] <= np.broadcast_to(free, ok.shape)[ok] * (1 + 1e-12))
    assert np.all(np.isinf(r["servers"][~ok])) and np.all(np.isinf(r["cost_per_mtok"][~ok]))


def test_a_dense_model_in_one_server_is_the_same_on_every_fabric():
    """Colocated in one scale-up domain, nothing crosses the fabric: servers and latencies match; only the
    price of a server-hour differs by fabric."""
    r = serve(base(0).replace(disaggregated=0.0))
    assert np.all(r["instance_servers"] == 1)
    for key in ("servers", "ttft_s", "tpot_s", "batch"):
        assert np.ptp(r[key]) == 0, (key, r[key])


def test_a_wide_expert_parallel_model_reaches_a_tighter_tpot_on_infiniband_than_on_tcp():
    """DeepSeek-V3 in FP8 needs two H800 servers: every MoE layer's all-to-all crosses the fabric, so the
    tightest TPOT a fabric can meet follows its latency, bandwidth and per-message cost."""
    x = base(1)
    fabrics = list(Scenario().fabrics)
    tpots = np.geomspace(0.002, 0.2, 200)[:, None]
    reach = serve(x.replace(tpot_s=tpots, peak_rps=1.0, avg_rps=1.0))["reachable"]
    tightest = {f: tpots[reach[:, i], 0].min() if reach[:, i].any() else np.inf for i, f in enumerate(fabrics)}
    assert tightest["ib-ndr-400"] < tightest["tcp-100"], tightest
    assert np.all(serve(x)["instance_servers"] == 2)


def test_a_demand_sweep_is_the_same_code_path_as_one_scenario():
    x = base(1)
    levels = np.array([0.0, 0.5, 7.0, 300.0])[:, None]
    swept = serve(x.replace(peak_rps=levels, avg_rps=levels))
    for i, level in enumerate(levels[:, 0]):
        one = serve(x.replace(peak_rps=level, avg_rps=level))
        for key in ("servers", "cost_per_mtok", "ttft_s", "tpot_s"):
            assert np.array_equal(swept[key][i], one[key].reshape(-1)), key


def test_equal_sla_compares_each_fabric_with_the_baseline():
    r = serve(base(1).replace(peak_rps=50.0, avg_rps=30.0))
    cmp = equal_sla(r, baseline=0)
    assert cmp["cost_per_mtok_ratio"][..., 0] == 1.0
    expect = r["servers"] - r["servers"][..., :1]
    assert np.array_equal(cmp["servers_delta"], expect)


def test_a_sweep_of_100k_demand_levels_is_one_vectorised_call():
    """bench/bench_serving.py measures the time (target < 1 s); here only a generous sanity bound that
    fails on a per-level Python loop (≈ 1 ms a level: ~100 s), and the sweep's shape and order."""
    import time

    x = base(1)
    demand = np.linspace(0.0, 1000.0, 100_000)[:, None]
    t0 = time.process_time()
    r = serve(x.replace(peak_rps=demand, avg_rps=demand))
    elapsed = time.process_time() - t0
    assert r["servers"].shape == (100_000, 4)
    assert np.all(np.diff(r["servers"], axis=0) >= 0)
    assert elapsed < 10.0, elapsed


def test_the_price_of_a_server_hour_is_the_training_models_cluster_hour():
    """No second cost model: a server-hour is the scenario's cost per cluster-hour over its servers, and
    the fabric's share is the fabric-scope figure over the cluster-scope one."""
    import costmodel

    s = Scenario()
    s = s.model_copy(update={"cluster": s.cluster.model_copy(update={"gpu": "h800"})})
    x = base(1)
    cluster = costmodel.evaluate(s.model_copy(update={"scope": "cluster"}))
    fabric = costmodel.evaluate(s.model_copy(update={"scope": "fabric"}))
    for i, (c, f) in enumerate(zip(cluster.fabrics, fabric.fabrics, strict=True)):
        assert np.isclose(x.cost_per_server_hour[0, i], c.metrics["cost_per_cluster_hour"] / s.cluster.nodes)
        assert np.isclose(x.fabric_share[0, i], f.metrics["cost_per_cluster_hour"] / c.metrics["cost_per_cluster_hour"])
        assert 0 < x.fabric_share[0, i] < 1


def test_a_monte_carlo_batch_is_the_same_code_path_as_one_draw():
    x = base(1)
    rng = np.random.default_rng(7)
    hbm = rng.uniform(0.6, 0.9, size=(5, 1))
    mfu = rng.uniform(0.3, 0.6, size=(5, 1))
    batch = serve(x.replace(hbm_efficiency=hbm, prefill_mfu=mfu, peak_rps=40.0, avg_rps=20.0))
    for i in range(5):
        one = serve(x.replace(hbm_efficiency=hbm[i, 0], prefill_mfu=mfu[i, 0], peak_rps=40.0, avg_rps=20.0))
        for key in ("servers", "cost_per_mtok_output", "batch", "ttft_s"):
            assert np.array_equal(batch[key][i], one[key].reshape(-1), equal_nan=True), key
