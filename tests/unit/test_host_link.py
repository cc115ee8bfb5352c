"""The host PCIe slot bounds a NIC: its useful rate is the lesser of its port and its slot, so the
scale-out bandwidth per GPU never exceeds what the slot carries, on every GPU of the catalog."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.physics import host_link
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages import batch, step_time, topology

CAT = load_catalog()


def _port(fabric: str) -> float:
    return CAT.fabrics[fabric].port_gbps.typical


def _extremes(gpu_id: str) -> tuple[str, str]:
    """The slowest and the fastest fabric the GPU's server carries (gpus.yaml ``fabrics``)."""
    carried = sorted((f for f in CAT.fabrics if CAT.gpus[gpu_id].carries(f)), key=lambda f: (_port(f), f))
    return carried[0], carried[-1]


def _slot_Bps(gpu_id: str) -> float:
    gpu = CAT.gpus[gpu_id]
    return float(host_link.slot_bytes_s(gpu.nic_pcie_gen.typical, gpu.nic_pcie_lanes.typical,
                                    CAT.model["pcie_efficiency"].typical))


def _scenario(gpu_id: str, nics: int | None = None):
    data = costmodel.load_preset("seed-case3-128xH100").model_dump(mode="json")
    data["cluster"].update(gpu=gpu_id, gpus_per_node=None, nics_per_node=nics)
    slowest, fastest = _extremes(gpu_id)
    data["fabrics"], data["baseline"] = [slowest, fastest], slowest
    return costmodel.scenario_from_dict(data)


def _step(scenario, **changes):
    p = batch.broadcast_inputs(build(scenario).inputs)
    p = p.replace(**changes) if changes else p
    _, _, node_bw, args = step_time.step_args(p, topology.topology(p))
    return p, node_bw, args["a2a_bw_gpu_Bps"]


def test_every_gpu_server_names_its_nic_host_link():
    for gid, gpu in CAT.gpus.items():
        assert gpu.nic_pcie_gen.typical in (3, 4, 5, 6, 7), gid
        assert gpu.nic_pcie_lanes.typical > 0, gid
    assert 0.7 < CAT.model["pcie_efficiency"].typical < 1.0


@pytest.mark.parametrize("gpu_id", sorted(CAT.gpus))
def test_scale_out_bandwidth_per_gpu_never_exceeds_the_host_slot(gpu_id):
    """The fastest fabric each GPU's reference server carries: what the model reports per GPU (and per
    NIC, and the all-to-all rate per GPU) stays within the slot's achieved rate."""
    scenario = _scenario(gpu_id)
    top = _extremes(gpu_id)[1]
    slot = _slot_Bps(gpu_id)
    res = costmodel.evaluate(scenario)
    m = res.fabric(top).metrics
    g, nics = CAT.gpus[gpu_id].default_gpus_per_node.typical, CAT.gpus[gpu_id].default_nics_per_node.typical
    assert m["host_slot_gbs"] == pytest.approx(slot / 1e9)
    assert m["scaleout_gbs_per_gpu"] * g / nics <= slot / 1e9 * (1 + 1e-12)  # per NIC
    assert m["scaleout_gbs_per_gpu"] <= slot / 1e9 * max(1.0, nics / g) * (1 + 1e-12)
    assert m["allreduce_busbw_gbs"] <= nics * slot / 1e9 * (1 + 1e-12)
    port_Bps = CAT.fabrics[top].port_gbps.typical * 1e9 / 8
    assert m["slot_limited"] == float(port_Bps > slot)
    _, node_bw, a2a = _step(scenario)
    fastest = list(scenario.fabrics).index(top)
    assert float(node_bw[0, fastest]) / nics <= slot * (1 + 1e-12)
    assert float(a2a[0, fastest]) <= slot * (1 + 1e-12)


def test_an_800g_port_in_a_gen5_slot_gets_the_slot_not_the_port():
    """H100 with 8 XDR NICs: ≈ 52 GB/s of slot per NIC, not 100 GB/s of port; the same server with
    NDR 400G NICs is port-bound and unchanged."""
    slot = _slot_Bps("h100")
    assert 50e9 < slot < 56e9
    scenario = _scenario("h100")
    p, node_bw, _ = _step(scenario)
    ports = p.port_bps[0] / 8
    assert (ports > slot).any() and (ports <= slot).any()
    unlimited = p.replace(pcie_eff=np.full_like(p.pcie_eff, 10.0))
    _, _, free_bw, _ = step_time.step_args(unlimited, topology.topology(unlimited))
    per_nic = node_bw[0] / p.nics_per_node[0, 0]
    for k, port in enumerate(ports):
        if port > slot:
            assert per_nic[k] < free_bw[0, k] / p.nics_per_node[0, 0]
        else:
            assert per_nic[k] == pytest.approx(free_bw[0, k] / p.nics_per_node[0, 0])


@settings(max_examples=40, deadline=None)
@given(gpu_id=st.sampled_from(sorted(CAT.gpus)), above=st.floats(1.0, 8.0), more=st.floats(1.0, 4.0))
def test_raising_the_port_beyond_the_slot_never_raises_the_bandwidth(gpu_id, above, more):
    scenario = _scenario(gpu_id)
    slot_bps = _slot_Bps(gpu_id) * 8
    p0 = batch.broadcast_inputs(build(scenario).inputs)
    low, high = slot_bps * above, slot_bps * above * more
    _, bw_low, a2a_low = _step(scenario, port_bps=np.full_like(p0.port_bps, low))
    _, bw_high, a2a_high = _step(scenario, port_bps=np.full_like(p0.port_bps, high))
    assert (bw_high <= bw_low * (1 + 1e-12)).all()
    assert (a2a_high <= a2a_low * (1 + 1e-12)).all()


@settings(max_examples=40, deadline=None)
@given(gen=st.integers(3, 7), lanes=st.sampled_from([1, 2, 4, 8, 16, 32]), share=st.floats(0.5, 1.0),
       port_gbps=st.floats(10.0, 3200.0))
def test_a_nic_gets_the_lesser_of_port_and_slot(gen, lanes, share, port_gbps):
    slot = host_link.slot_bytes_s(gen, lanes, share)
    rate = float(host_link.nic_bytes_s(port_gbps * 1e9, slot))
    assert rate <= float(slot) * (1 + 1e-12) and rate <= port_gbps * 1e9 / 8 * (1 + 1e-12)
    assert rate == pytest.approx(min(float(slot), port_gbps * 1e9 / 8))
    raw = host_link.pcie_raw_bytes_s
    assert float(raw(gen + 1, lanes)) == pytest.approx(2 * float(raw(gen, lanes)))
