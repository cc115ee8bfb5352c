"""Reliability by fabric: failures per component, restart by cause and size, hot spares,
soft failures and setup hours. Expected values are computed here from the definitions, not read
back from the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.api import evaluate
from costmodel.catalog.loader import load_catalog
from costmodel.physics import reliability as rel
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import broadcast_inputs
from costmodel.pipeline.stages.reliability import reliability
from costmodel.pipeline.stages.topology import topology
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario

CAT = load_catalog()
LLAMA_HOURS = 54 * 24  # Llama 3's snapshot [h]
#: Meta's 400G RoCE fabric of Llama 3: one single-port optical module per link end
META_MODULES = {"switch_module_ports": np.array([[1.0]]), "node_module_ports": np.array([[1.0]])}


def _poisson_tail(mu: float, s: int) -> float:
    """P(K ≥ s) for K ~ Poisson(mu), by the textbook sum."""
    return 1.0 - sum(math.exp(-mu) * mu**k / math.factorial(k) for k in range(s))


def _scenario(nodes=32, fabrics=("tcp-100", "roce-200", "ib-ndr-400"), spare=0.0, repair_h=24.0, **cluster):
    return Scenario.model_validate({
        "cluster": {"nodes": nodes, "gpu": "h100", "gpus_per_node": 8, "nics_per_node": 8,
                    "hot_spare_node_frac": spare, **cluster},
        "operations": {"node_repair_hours": repair_h},
        "workload": {"schedule": "always_busy", "model_params_b": 70},
        "fabrics": list(fabrics), "baseline": fabrics[0],
    })


def _ports(fabrics) -> tuple[np.ndarray, np.ndarray]:
    """Links per switch-side and per server-side optical module of each fabric, from the catalog [count]."""
    mods = CAT.modules
    return (np.array([mods[CAT.fabrics[f].optics.switch_module].ports.typical for f in fabrics]),
            np.array([mods[CAT.fabrics[f].optics.node_module].ports.typical for f in fabrics]))


def _node_link_modules(b, fabrics, row=0) -> np.ndarray:
    """Optical modules of the node links: one end in a leaf, one in a server, ⌈links / ports⌉ per side."""
    ps, pn = _ports(fabrics)
    return np.ceil(b["node_fibre"][row] / ps) + np.ceil(b["node_fibre"][row] / pn)


def _stages(scenario: Scenario, **replace):
    p = broadcast_inputs(build(scenario).inputs)
    if replace:
        p = p.replace(**{k: np.asarray(v, dtype=float) for k, v in replace.items()})
    topo = topology(p)
    return p, topo, reliability(p, topo)


# --- unit terms


def test_link_failures_count_every_media_class_and_both_transceivers_of_a_fibre_link():
    counts = {"dac": 100.0, "aec": 20.0, "aoc": 8.0}
    rates = {"dac": 1e-8, "aec": 2e-7, "aoc": 6e-7}
    expected = 100 * 1e-8 + 20 * 2e-7 + 8 * 6e-7 + 2 * 50 * 3e-7  # 50 fibre links, two optics each
    assert rel.link_failure_rate(counts, rates, 100.0, 3e-7) == pytest.approx(expected)


@pytest.mark.parametrize("mu,s", [(0.2, 1), (0.5, 2), (3.0, 2), (3.0, 8), (40.0, 35), (0.0, 1)])
def test_no_spare_probability_is_the_poisson_tail(mu, s):
    assert float(rel.no_spare_probability(mu, s)) == pytest.approx(_poisson_tail(mu, s), abs=1e-12)


def test_no_spares_means_every_replacement_waits_and_spares_round_up():
    assert float(rel.no_spare_probability(1e-6, 0)) == 1.0
    assert rel.hot_spares(np.array([1.0, 8.0, 50.0, 51.0]), 0.02).tolist() == [1.0, 1.0, 1.0, 2.0]


def test_every_cause_is_counted_from_the_topology_and_the_rates():
    p, topo, r = _stages(_scenario())
    n, g = 32.0, 8.0
    links, b = topo.links, topo.bom
    ps = _ports(("tcp-100", "roce-200", "ib-ndr-400"))[0]
    modules = _node_link_modules(b, ("tcp-100", "roce-200", "ib-ndr-400")) + np.ceil(2 * b["switch_fibre"][0] / ps)
    np.testing.assert_array_equal(topo.transceivers[0], modules)
    assert r.rates["gpu"][0] == pytest.approx(n * g * p.gpu_fail_per_hour[0, 0])
    assert r.rates["host"][0] == pytest.approx(n * p.node_fail_per_hour[0, 0])
    assert r.rates["nic"][0] == pytest.approx(topo.endpoints[0] * p.net_fail_per_endpoint_hour[0])
    expected_links = (links["dac"][0] * p.dac_fail_per_hour[0, 0] + links["aec"][0] * p.aec_fail_per_hour[0, 0]
                      + links["aoc"][0] * p.aoc_fail_per_hour[0, 0]
                      + modules * p.xcvr_fail_per_hour[0, 0])
    assert r.rates["links"][0] == pytest.approx(expected_links)
    assert r.rates["switches"][0] == pytest.approx(topo.switches[0] * p.switch_fail_per_hour[0, 0])
    assert r.rates["soft"][0] == pytest.approx(n * g * p.soft_fail_per_gpu_hour[0])
    assert r.rate_total[0] == pytest.approx(sum(r.rates[c][0] for c in rel.CAUSES))
    assert r.rate_net[0] == pytest.approx(r.rates["nic"][0] + r.rates["links"][0] + r.rates["switches"][0])


def test_restart_by_cause_adds_start_up_with_size_the_wait_for_a_repair_and_the_watchdog():
    p, topo, r = _stages(_scenario(spare=0.0, repair_h=10.0))
    base = p.restart_s[0, 0] + p.init_s_per_gpu[0, 0] * 32 * 8
    wait = 10 * 3600.0  # no spare: every server-replacing failure waits the whole repair
    assert r.restart_by_cause["gpu"][0] == pytest.approx(base + wait)
    assert r.restart_by_cause["nic"][0] == pytest.approx(base + wait)
    assert r.restart_by_cause["host"][0] == pytest.approx(base + p.node_hw_share[0, 0] * wait)
    assert r.restart_by_cause["switches"][0] == pytest.approx(base)
    assert r.restart_by_cause["soft"][0] == pytest.approx(base + p.hang_detect_s[0, 0])
    # the node links' share of link failures takes a server out; the rest (switch links) do not
    b = topo.bom
    node = (b["node_dac"][0] * p.dac_fail_per_hour[0, 0] + b["node_aec"][0] * p.aec_fail_per_hour[0, 0]
            + b["node_aoc"][0] * p.aoc_fail_per_hour[0, 0]
            + _node_link_modules(b, ("tcp-100", "roce-200", "ib-ndr-400")) * p.xcvr_fail_per_hour[0, 0])
    assert r.restart_by_cause["links"][0] == pytest.approx(base + node / r.rates["links"][0] * wait)
    mean = sum(r.rates[c] * r.restart_by_cause[c] for c in rel.CAUSES) / r.rate_total
    np.testing.assert_allclose(r.restart_s, mean)


def test_the_spare_pool_waits_by_the_poisson_tail_of_servers_in_repair():
    p, topo, r = _stages(_scenario(nodes=100, spare=0.02, repair_h=48.0))
    b = topo.bom
    node_links = (b["node_dac"][0, 0] * p.dac_fail_per_hour[0, 0] + b["node_aec"][0, 0] * p.aec_fail_per_hour[0, 0]
                  + b["node_aoc"][0, 0] * p.aoc_fail_per_hour[0, 0]
                  + _node_link_modules(b, ("tcp-100",))[0] * p.xcvr_fail_per_hour[0, 0])
    replacing = (100 * 8 * p.gpu_fail_per_hour[0, 0] + p.node_hw_share[0, 0] * 100 * p.node_fail_per_hour[0, 0]
                 + topo.endpoints[0, 0] * p.net_fail_per_endpoint_hour[0, 0] + node_links)
    assert r.spare_nodes[0, 0] == 2.0
    assert float(r.no_spare_prob[0, 0]) == pytest.approx(_poisson_tail(float(replacing) * 48.0, 2), rel=1e-9)


def test_start_up_grows_with_the_cluster():
    small = _stages(_scenario(nodes=16, spare=1.0))[2]
    large = _stages(_scenario(nodes=1024, spare=1.0))[2]
    assert (large.restart_by_cause["switches"] > small.restart_by_cause["switches"]).all()


def test_setup_hours_lengthen_the_run_by_exactly_the_setup():
    s = _scenario(fabrics=("roce-200",))
    base = evaluate(s).fabric("roce-200").metrics
    setup_h = CAT.fabrics["roce-200"].setup_hours_per_run.typical
    s0 = s.model_copy(update={"overrides": s.overrides.model_copy(
        update={"fabrics": {"roce-200": {"setup_hours_per_run": 0.0}}})})
    none = evaluate(s0).fabric("roce-200").metrics
    assert base["run_days"] * 24 - none["run_days"] * 24 == pytest.approx(setup_h, rel=1e-9)
    assert base["setup_share_of_run"] == pytest.approx(setup_h / (base["run_days"] * 24))


def test_hot_spares_are_servers_in_compute_capex_in_cluster_scope_only():
    s = _scenario(nodes=50, spare=0.1, fabrics=("roce-200",))
    none = _scenario(nodes=50, spare=0.0, fabrics=("roce-200",))
    price = build(s).inputs.server_price[0, 0]
    a, b = evaluate(s).fabric("roce-200"), evaluate(none).fabric("roce-200")
    assert a.compute_capex_purchase - b.compute_capex_purchase == pytest.approx(5 * price)  # ⌈0.1 · 50⌉
    assert a.compute_capex_purchase == pytest.approx(55 * price)
    fab = s.model_copy(update={"scope": "fabric"})
    assert evaluate(fab).fabric("roce-200").compute_capex_purchase == 0.0


# --- the data: calibration and sources


def test_the_optic_rate_is_llama3s_switch_and_cable_interruptions_over_the_models_own_count():
    """defaults.yaml derives λ_x from Llama 3's 35 switch/cable interruptions on the model's count of
    Meta's fabric (2,048 nodes × 8 rails of 400G RoCE, one single-port module per link end as in
    that 12.8 T generation); a topology change that moves the count moves the calibration, and this
    test says so. λ_x is per module: the model's roce-400 of twin-port 51.2 T switches has fewer."""
    sc = Scenario.model_validate({
        "cluster": {"nodes": 2048, "gpu": "h100", "gpus_per_node": 8, "nics_per_node": 8},
        "fabrics": ["roce-400"], "baseline": "roce-400"})
    p = broadcast_inputs(build(sc).inputs).replace(**META_MODULES)
    topo = topology(p)
    m = CAT.model
    sw = float(topo.switches[0, 0]) * m["switch_failure_rate_per_hour"].typical * LLAMA_HOURS
    ends = (float(topo.transceivers[0, 0]) + 2 * float(topo.links["aoc"][0, 0])
            + 0.5 * float(topo.links["aec"][0, 0]) + 0.1 * float(topo.links["dac"][0, 0]))
    derived = (35 - sw) / (LLAMA_HOURS * ends)
    assert m["transceiver_failure_rate_per_hour"].typical == pytest.approx(derived, rel=0.02)
    # and the media rates keep the stated ratios to it
    x = m["transceiver_failure_rate_per_hour"].typical
    assert m["aoc_failure_rate_per_hour"].typical == pytest.approx(2 * x)
    assert m["aec_failure_rate_per_hour"].typical == pytest.approx(0.5 * x)
    assert m["dac_failure_rate_per_hour"].typical == pytest.approx(0.1 * x)


def test_the_llama3_calibrated_rates_agree_with_independent_sources():
    """The Llama-3-derived optic rate lies within a factor 2 below the vendor MTBF range
    (0.5–2 M h → 5e-7–2e-6 /h) and its range covers it; the switch rate is Azure's hardware share
    of 2 % per 3 months."""
    m = CAT.model
    x = m["transceiver_failure_rate_per_hour"]
    assert 5e-7 / 2 <= x.typical <= 2e-6 and x.high >= 2e-6
    azure_all = 0.02 / (3 * 730)
    assert m["switch_failure_rate_per_hour"].typical == pytest.approx(0.32 * azure_all, rel=0.05)
    assert m["switch_failure_rate_per_hour"].high == pytest.approx(azure_all, rel=0.05)
    # NIC and the ECMP-RoCE soft rate: Llama 3's 7 and 7 of 16,384 GPUs/ports over 1,296 h
    anchor = 7 / (16384 * LLAMA_HOURS)
    assert CAT.fabrics["roce-400"].interruption_rate_per_endpoint_hour.typical == pytest.approx(anchor, rel=0.01)
    assert CAT.fabrics["roce-400"].collective_timeout_rate_per_gpu_hour.typical == pytest.approx(anchor, rel=0.01)


def test_llama3_counts_by_cause():
    """Llama 3 (Table 5): 268 GPU, 102 host/software, 7 NIC, 35 switch/cable, 7 NCCL watchdog."""
    sc = Scenario.model_validate({
        "cluster": {"nodes": 2048, "gpu": "h100", "gpus_per_node": 8, "nics_per_node": 8,
                    "hot_spare_node_frac": 0.5},
        "workload": {"schedule": "always_busy", "model_params_b": 405},
        "fabrics": ["roce-400"], "baseline": "roce-400"})
    built = build(sc)
    out = compute(built.inputs.replace(**META_MODULES), built.structure)
    m = {k: float(np.asarray(v)[0, 0]) for k, v in out.metrics.items()}
    share = LLAMA_HOURS / m["busy_hours_per_year"]
    per_run = {c: m[f"interruptions_{c}_per_year"] * share for c in rel.CAUSES}
    assert per_run["gpu"] == pytest.approx(268, rel=0.01)
    assert per_run["host"] == pytest.approx(102, rel=0.01)
    assert per_run["nic"] == pytest.approx(7, rel=0.02)
    assert per_run["links"] + per_run["switches"] == pytest.approx(35, rel=0.03)
    assert per_run["soft"] == pytest.approx(7, rel=0.02)


def test_soft_failures_rank_lossy_fabrics_above_lossless_ones():
    f = CAT.fabrics
    soft = {k: f[k].collective_timeout_rate_per_gpu_hour.typical for k in ("tcp-100", "roce-400", "ib-ndr-400")}
    assert soft["tcp-100"] > soft["roce-400"] > soft["ib-ndr-400"]
    for k in f:  # a wide range everywhere: at least a factor 3 from low to high
        q = f[k].collective_timeout_rate_per_gpu_hour
        assert q.high >= 3 * q.low > 0


# --- properties


@settings(max_examples=30, deadline=None)
@given(nodes=st.integers(1, 3000), repair_h=st.floats(0.5, 200), f1=st.floats(0, 0.5), f2=st.floats(0, 0.5))
def test_more_spares_never_lengthen_restarts(nodes, repair_h, f1, f2):
    lo, hi = sorted((f1, f2))
    a = _stages(_scenario(nodes=nodes, spare=lo, repair_h=repair_h))[2]
    b = _stages(_scenario(nodes=nodes, spare=hi, repair_h=repair_h))[2]
    for c in rel.CAUSES:
        assert (b.restart_by_cause[c] <= a.restart_by_cause[c] * (1 + 1e-12)).all(), c
    assert (b.goodput >= a.goodput * (1 - 1e-12)).all()


@settings(max_examples=30, deadline=None)
@given(k1=st.floats(1.0, 4.0), k2=st.floats(1.0, 4.0), nodes=st.integers(1, 2048))
def test_more_optics_never_fewer_failures(k1, k2, nodes):
    """Scaling the transceiver and AOC counts up never lowers the link or total failure rate."""
    p, topo, _ = _stages(_scenario(nodes=nodes))
    lo, hi = sorted((k1, k2))
    out = []
    for k in (lo, hi):
        links = dict(topo.links)
        links["aoc"] = links["aoc"] * k
        links["fibre"] = links["fibre"] * k
        t = topo.__class__(**{**topo.__dict__, "links": links, "transceivers": topo.transceivers * k})
        out.append(reliability(p, t))
    assert (out[1].rates["links"] >= out[0].rates["links"]).all()
    assert (out[1].rate_total >= out[0].rate_total).all()


@settings(max_examples=25, deadline=None)
@given(nodes=st.integers(1, 4096), spare=st.floats(0, 1), repair=st.floats(0, 720),
       restart_min=st.floats(0, 1440), fabric=st.sampled_from(sorted(CAT.fabrics)))
def test_goodput_stays_in_zero_one(nodes, spare, repair, restart_min, fabric):
    sc = _scenario(nodes=nodes, spare=spare, repair_h=repair, fabrics=(fabric,))
    sc = sc.model_copy(update={"operations": sc.operations.model_copy(update={"restart_minutes": restart_min})})
    r = _stages(sc)[2]
    assert ((r.goodput > 0) & (r.goodput <= 1)).all()


def test_a_fabric_with_more_tiers_and_optics_fails_more_on_the_network():
    """At 512 nodes × 8 rails the 100G fabric on the 32-port boxes of 2016 needs three tiers and one
    module per port; on 12.8 T switches in 4 × 100G breakout two tiers and a quarter of the switch-side
    modules: fewer switches, fewer modules, fewer network failures."""
    sc = _scenario(nodes=512, fabrics=("tcp-100",))
    _, old_topo, old = _stages(sc, switch_radix=[[32.0]], switch_module_ports=[[1.0]])
    _, new_topo, new = _stages(sc)
    assert float(old_topo.tiers[0, 0]) == 3.0 and float(new_topo.tiers[0, 0]) == 2.0
    assert (old_topo.transceivers > new_topo.transceivers).all()
    assert (old.rates["links"] > new.rates["links"]).all()
    assert (old.rates["switches"] > new.rates["switches"]).all()


def test_presets_still_evaluate_with_goodput_in_range():
    for name in costmodel.list_presets():
        for f in evaluate(costmodel.load_preset(name)).fabrics:
            assert 0 < f.metrics["goodput"] <= 1
            assert f.metrics["restart_hours"] > 0
