"""Optics counted as built: modules = links × ends ÷ ports per module, per fabric and tier; compute
links optical where the fabric's reference design cables them so; the 100G fabric on 12.8 T switches
in breakout; failures follow modules. Expected counts are computed here from the catalog's module
ports and the topology's links, not read back from the stage's own module counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import broadcast_inputs
from costmodel.pipeline.stages.reliability import reliability
from costmodel.pipeline.stages.topology import topology
from costmodel.scenario.schema import Scenario

CAT = load_catalog()
FABRICS = sorted(CAT.fabrics)
NODES = (1, 4, 31, 32, 100, 128, 513, 2048)
ETHERNET_100G = ("tcp-100", "roce-100", "iwarp-100")


def _ports(fid: str) -> tuple[float, float]:
    optics = CAT.fabrics[fid].optics
    return CAT.modules[optics.switch_module].ports.typical, CAT.modules[optics.node_module].ports.typical


def _scenario(nodes: int, fabrics, rails: int = 8) -> Scenario:
    return Scenario.model_validate({
        "cluster": {"nodes": nodes, "gpu": "h100", "gpus_per_node": 8, "nics_per_node": rails},
        "fabrics": list(fabrics), "baseline": fabrics[0]})


def _stages(sc: Scenario, **replace):
    p = broadcast_inputs(build(sc).inputs)
    if replace:
        p = p.replace(**{k: np.asarray(v, dtype=float) for k, v in replace.items()})
    topo = topology(p)
    return p, topo, reliability(p, topo)


@pytest.mark.parametrize("fid", FABRICS)
@pytest.mark.parametrize("nodes", NODES)
def test_modules_are_links_times_ends_over_ports_per_module(fid, nodes):
    """Node links: one end in a leaf, one in a server; switch links: two ends in switches; each side
    rounded up to whole modules of the fabric's module type."""
    _, topo, _ = _stages(_scenario(nodes, [fid]))
    b = {k: float(v[0, 0]) for k, v in topo.bom.items()}
    p_sw, p_node = _ports(fid)
    in_switches = math.ceil(b["node_fibre"] * 1 / p_sw) + math.ceil(b["switch_fibre"] * 2 / p_sw)
    in_servers = math.ceil(b["node_fibre"] * 1 / p_node)
    assert b["switch_modules"] == in_switches
    assert b["node_modules"] == in_servers
    assert b["transceivers"] == in_switches + in_servers
    # never fewer modules than lanes need, never a module more than one per end
    ends = 2 * (b["node_fibre"] + b["switch_fibre"])
    assert b["transceivers"] <= ends
    assert b["switch_modules"] * p_sw >= b["node_fibre"] + 2 * b["switch_fibre"]


def test_twin_port_fabrics_buy_half_the_modules_of_one_per_end():
    """NDR InfiniBand and 51.2 T Ethernet at 400G: twin-port 800G OSFP cages, two 400G links a module."""
    for fid in ("ib-ndr-400", "roce-400", "tcp-400", "roce-ar-400"):
        assert _ports(fid)[0] == 2, fid
        assert CAT.fabrics[fid].optics.switch_module == "osfp-2x400g"
    _, topo, _ = _stages(_scenario(128, ["ib-ndr-400"]))
    b = {k: float(v[0, 0]) for k, v in topo.bom.items()}
    per_end = 2 * (b["node_fibre"] + b["switch_fibre"])
    assert b["transceivers"] == per_end / 2 == 2048  # 1,024 node and 1,024 leaf-spine links


@pytest.mark.parametrize("nodes", (16, 128, 1024))
def test_compute_links_are_optical_where_the_reference_design_says_so(nodes):
    """DGX SuperPOD (H100 NDR, B300 XDR) and a co-packaged-optics switch (no copper ports): every node link
    is a transceiver pair and fibre, however short; elsewhere a short node link stays copper where its reach
    allows."""
    designs = {fid: CAT.fabrics[fid].optics for fid in FABRICS}
    optical = sorted(fid for fid, o in designs.items() if o.node_links == "optical")
    assert optical == ["ib-ndr-400", "ib-xdr-800", "roce-ar-800-cpo"]
    assert designs["roce-ar-800-cpo"].switch_module == "cpo-800g"
    assert designs["ib-ndr-400"].source == "nvidia-superpod-h100"
    for fid, o in designs.items():
        assert o.source in CAT.references and o.as_of, fid
    for chunk in (FABRICS[i:i + 12] for i in range(0, len(FABRICS), 12)):  # a scenario compares at most 12
        _, topo, _ = _stages(_scenario(nodes, chunk))
        b = topo.bom
        for j, fid in enumerate(chunk):
            copper_or_aoc = float(b["node_dac"][0, j] + b["node_aec"][0, j] + b["node_aoc"][0, j])
            if fid in optical:
                assert copper_or_aoc == 0 and float(b["node_fibre"][0, j]) == nodes * 8, fid
                assert float(b["node_modules"][0, j]) > 0, fid
            else:  # the nearest racks are within active-copper reach at every rate
                assert float(b["node_dac"][0, j] + b["node_aec"][0, j]) > 0, fid


def test_optical_compute_links_cost_ndr_what_the_optics_cost():
    """At 128 nodes × 8 rails the NDR bill carries 1,024 node links as optics instead of AEC/AOC: its
    link capex is what the module and fibre counts at the book's prices make."""
    res = costmodel.evaluate(_scenario(128, ["ib-ndr-400"]))
    f = res.fabric("ib-ndr-400")
    lines, price = f.bom_priced, CAT.price_book("public").fabrics["ib-ndr-400"]
    assert lines["aec"]["count"] == lines["aoc"]["count"] == lines["dac"]["count"] == 0
    p_sw, p_node = _ports("ib-ndr-400")
    assert lines["switch_modules"]["unit_price"] == price.optic_price.typical
    assert lines["node_modules"]["unit_price"] == pytest.approx(price.optic_price.typical * p_node / p_sw)
    assert f.modules["switch_modules"]["id"] == "osfp-2x400g"
    assert lines["fibre"]["count"] == 2048


@pytest.mark.parametrize("fid", ETHERNET_100G)
def test_the_100g_fabric_at_1024_ports_is_two_tiers_of_12_8t_switches(fid):
    """A 2026 100G design: 12.8 Tb/s switches in 4 × 100G breakout (128 ports), two tiers and 16-24
    switches at 1,024 ports, where the 32-port boxes of 2016 needed three tiers and 160."""
    spec = CAT.fabrics[fid]
    assert spec.switch_radix.typical == 128 and spec.switch_radix.source == "ipinfusion-trident4"
    assert spec.switch_radix.as_of >= "2026-01"
    assert spec.optics.switch_module == "qsfpdd-400g-4x100g" and _ports(fid)[0] == 4
    _, topo, _ = _stages(_scenario(128, [fid]))
    assert float(topo.endpoints[0, 0]) == 1024
    assert float(topo.tiers[0, 0]) == 2
    assert 16 <= float(topo.switches[0, 0]) <= 24
    _, old, _ = _stages(_scenario(128, [fid]), switch_radix=[[32.0]])
    assert float(old.tiers[0, 0]) == 3 and float(old.switches[0, 0]) == 160


@settings(max_examples=30, deadline=None)
@given(nodes=st.integers(1, 3000), fid=st.sampled_from(FABRICS), ports=st.sampled_from([1.0, 2.0, 4.0]))
def test_optical_failures_scale_with_modules_not_link_ends(nodes, fid, ports):
    """Link failures = media terms + modules × λ_x: the same links in modules of more ports fail less,
    by exactly the modules saved × λ_x."""
    sc = _scenario(nodes, [fid])
    p1, t1, r1 = _stages(sc, switch_module_ports=[[1.0]], node_module_ports=[[1.0]])
    p2, t2, r2 = _stages(sc, switch_module_ports=[[ports]], node_module_ports=[[ports]])
    b = t1.bom
    assert float(t1.transceivers[0, 0]) == 2 * float(b["node_fibre"][0, 0] + b["switch_fibre"][0, 0])
    saved = float(t1.transceivers[0, 0] - t2.transceivers[0, 0])
    assert saved >= 0
    drop = float(r1.rates["links"][0, 0] - r2.rates["links"][0, 0])
    assert drop == pytest.approx(saved * float(p1.xcvr_fail_per_hour[0, 0]), rel=1e-9, abs=1e-18)
    media = sum(float(t2.links[c][0, 0]) * float(getattr(p2, f"{c}_fail_per_hour")[0, 0])
                for c in ("dac", "aec", "aoc"))
    expected = media + float(t2.transceivers[0, 0]) * float(p2.xcvr_fail_per_hour[0, 0])
    assert float(r2.rates["links"][0, 0]) == pytest.approx(expected, rel=1e-9, abs=1e-18)


def test_every_module_type_is_named_in_both_languages_and_used_by_a_fabric():
    """The bill names a module line's type (en + zh): every type has both names, the Chinese one with
    no stray English, and every type is some fabric's."""
    from zh_words import latin_words

    used = {m for f in CAT.fabrics.values() for m in (f.optics.switch_module, f.optics.node_module)}
    assert used == set(CAT.modules)
    for mid, module in CAT.modules.items():
        assert module.name and module.name_zh and module.name != module.name_zh, mid
        assert not latin_words(module.name_zh), (mid, latin_words(module.name_zh))
        assert module.ports.typical >= 1 and module.ports.source in CAT.references, mid
