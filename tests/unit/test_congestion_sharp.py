"""Congestion at scale (costmodel/physics/congestion.py) and in-network reduction (SHARP) in the step time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.physics import congestion, performance

CAT = load_catalog()
SPINE = sorted({f.spine_efficiency.typical for f in CAT.fabrics.values()}
               | {CAT.fabrics["roce-400"].spine_efficiency.lo})


@pytest.mark.parametrize("spine", SPINE)
@pytest.mark.parametrize("radix, rails, o", [(32, 8, 1.0), (64, 8, 1.0), (128, 8, 2.0), (144, 8, 1.0), (64, 1, 3.0)])
def test_factor_never_rises_with_cluster_size(spine, radix, rails, o):
    nodes = np.arange(1.0, 4097.0)
    n_leaf = congestion.leaf_nodes(nodes, rails, radix, o)
    f = congestion.allreduce_factor(nodes, n_leaf, o, spine)
    assert np.all((f > 0) & (f <= 1.0))
    assert np.all(np.diff(f) <= 1e-12)
    a2a = congestion.alltoall_factor(nodes, n_leaf, o, spine)
    assert np.all(np.diff(a2a) <= 1e-12)


@given(nodes=st.integers(2, 20000), n_leaf=st.integers(1, 200), spine=st.floats(0.05, 1.0),
       o=st.floats(1.0, 16.0), more=st.floats(0.0, 8.0))
@settings(max_examples=200, deadline=None)
def test_factor_never_rises_with_oversubscription_for_the_same_leaves(nodes, n_leaf, spine, o, more):
    n_leaf = min(n_leaf, nodes)
    f1 = congestion.collective_factor(nodes, n_leaf, o, spine)
    f2 = congestion.collective_factor(nodes, n_leaf, o + more, spine)
    assert 0 < f2 <= f1 <= 1.0


def test_oversubscription_cuts_traffic_that_crosses_the_leaf_only():
    # 128 nodes, 32 per leaf: 96 of 127 peers beyond the leaf, uplinks ⌈32/o⌉
    x = 96 / 127
    assert float(congestion.collective_factor(128, 32, 2.0, 1.0)) == pytest.approx(1 / (2 * x))
    assert float(congestion.collective_factor(128, 32, 1.0, 1.0)) == 1.0
    assert float(congestion.collective_factor(32, 32, 4.0, 0.5)) == 1.0  # the rail fits one leaf


@pytest.mark.parametrize("fid", sorted(CAT.fabrics))
def test_one_switch_or_one_leaf_per_rail_keeps_everything(fid):
    spec = CAT.fabrics[fid]
    k = spec.switch_radix.typical
    for nodes, rails in ((1, 8), (k // 8, 8), (k, 1), (k // 2, 8)):  # single switch, or a rail on one leaf
        n_leaf = congestion.leaf_nodes(float(nodes), float(rails), k, 1.0)
        assert n_leaf == nodes
        assert float(congestion.allreduce_factor(float(nodes), n_leaf, 1.0, spec.spine_efficiency.typical)) == 1.0


def _effective(fid: str, nodes: int, **cluster) -> float:
    scenario = costmodel.scenario_from_dict({
        "cluster": {"nodes": nodes, "gpu": "h100", **cluster}, "fabrics": [fid], "baseline": fid})
    return costmodel.evaluate(scenario).fabric(fid).metrics["effective_efficiency"]


def test_at_scale_ecmp_roce_is_below_adaptive_roce_which_is_near_infiniband():
    """Meta (ECMP ≈ 0.71 of tuned), the Spectrum-X vendor claim (95 %) and InfiniBand's ~0.93."""
    nodes = 512  # 8 rails, several leaves per rail on every 400G fabric
    ecmp, ar, ib = (_effective(f, nodes) for f in ("roce-400", "roce-ar-400", "ib-ndr-400"))
    assert ecmp < ar <= ib * 1.05
    assert ib - ar < ar - ecmp
    small = [_effective(f, 4) for f in ("roce-400", "roce-ar-400")]  # one switch: no difference
    assert small[0] == small[1] == pytest.approx(CAT.fabrics["roce-400"].efficiency.typical, rel=1e-3)
    assert _effective("roce-400", nodes, oversubscription=3.0) < ecmp


NO_LATENCY = dict(alpha_base_s=0.0, fabric_latency_s=0.0)


def _dp_args(**over):
    args = dict(nodes=64.0, gpus_per_node=8.0, tp=8.0, pp=1.0, vp=1.0, zero=1.0, recompute=0.0, micro_seqs=1.0,
                seq_len=4096.0, batch_tokens=4e6, params=70e9, n_layers=80.0, hidden=8192.0, peak_flops=989e12,
                compute_eff=0.5, grad_bytes=2.0, param_bytes=2.0, act_bytes=2.0, bucket_bytes=25 * 2**20,
                node_bw_Bps=8 * 50e9 * 0.9, intra_node_Bps=450e9, nvlink_eff=0.8, alpha_base_s=8e-6,
                fabric_latency_s=7e-6, nvlink_latency_s=1e-6, sm_share_net=0.02, fsdp_eff=1.0)
    return args | over


@given(speedup=st.floats(1.0, 2.0), nodes=st.sampled_from([2.0, 16.0, 128.0, 1024.0]),
       bw=st.floats(1e9, 1e12), batch=st.floats(1e5, 3e7))
@settings(max_examples=150, deadline=None)
def test_sharp_at_most_halves_the_all_reduce_network_time(speedup, nodes, bw, batch):
    """The all-reduce's bandwidth time falls to no less than half (latencies set to 0 here: SHARP's
    fixed 2 steps can cut the latency term by more, see below); what is exposed never grows (it may
    fall by more than half: a shorter all-reduce hides better behind the last backward)."""
    args = _dp_args(nodes=nodes, node_bw_Bps=bw, batch_tokens=batch, **NO_LATENCY)
    base, sharp = performance.step_time(**args), performance.step_time(**args, ar_speedup=speedup)
    t0, t1 = float(base["t_comm"]), float(sharp["t_comm"])  # data parallel only (no pipeline, ZeRO-1)
    assert 0.5 * t0 * (1 - 1e-12) <= t1 <= t0 * (1 + 1e-12)
    assert float(sharp["t_dp_exposed"]) <= float(base["t_dp_exposed"]) * (1 + 1e-12)
    assert float(sharp["t_compute"]) == float(base["t_compute"])


def test_sharp_latency_does_not_grow_with_the_node_count():
    """A tiny all-reduce on a fast network is all latency: with SHARP it takes the same time on 4 or
    4096 nodes; a ring or tree takes longer on more."""
    tiny = dict(params=1e6, n_layers=2.0, hidden=256.0, batch_tokens=4096 * 8192.0, node_bw_Bps=1e18)
    t = [float(performance.step_time(**_dp_args(nodes=n, **tiny), ar_speedup=1.5)["t_comm"]) for n in (4.0, 4096.0)]
    ring = [float(performance.step_time(**_dp_args(nodes=n, **tiny))["t_comm"]) for n in (4.0, 4096.0)]
    assert t[1] == pytest.approx(t[0], rel=1e-6)
    assert ring[1] > ring[0] * 2


def _evaluate(fabrics: list[str], sharp: bool, nodes: int = 64):
    scenario = costmodel.scenario_from_dict({
        "cluster": {"nodes": nodes, "gpu": "h100", "in_network_reduction": sharp},
        "workload": {"model_params_b": 70, "global_batch_tokens_m": 2},
        "fabrics": fabrics, "baseline": fabrics[0]})
    return costmodel.evaluate(scenario)


def test_sharp_is_ignored_on_fabrics_without_it_and_helps_where_the_switches_have_it():
    fabrics = ["tcp-400", "roce-400", "roce-ar-400", "ib-hdr-200", "ib-ndr-400", "ib-xdr-800"]
    off, on = _evaluate(fabrics, False), _evaluate(fabrics, True)
    for fid in fabrics:
        a, b = off.fabric(fid).metrics, on.fabric(fid).metrics
        if CAT.fabrics[fid].in_network_reduction:
            assert b["exposed_comm_s"] < a["exposed_comm_s"], fid
            assert 0.5 * a["comm_time_s"] <= b["comm_time_s"] < a["comm_time_s"], fid
            assert b["bytes_per_node_step"] < a["bytes_per_node_step"], fid
        else:
            assert b == a, fid
    assert {f for f, s in CAT.fabrics.items() if s.in_network_reduction} == {"ib-ndr-400", "ib-xdr-800"}


def test_new_fabrics_are_in_the_catalog_and_every_price_book():
    for fid, rate, radix in (("roce-ar-400", 400, 128), ("roce-ar-800", 800, 64)):
        spec = CAT.fabrics[fid]
        assert (spec.family, spec.routing, spec.in_network_reduction) == ("roce", "adaptive", False)
        assert (spec.port_gbps.typical, spec.switch_radix.typical) == (rate, radix)
        assert CAT.references[spec.spine_efficiency.source].kind == "vendor-claim"
        assert spec.spine_efficiency.hi - spec.spine_efficiency.lo >= 0.1  # a vendor claim keeps a wide range
        for book in CAT.price_books.values():
            assert fid in book.fabrics
    kinds = {CAT.fabrics[f].routing: CAT.references[CAT.fabrics[f].spine_efficiency.source].kind
             for f in ("roce-400", "ib-ndr-400")}
    assert kinds == {"ecmp": "measurement", "ib_adaptive": "assumption"}
