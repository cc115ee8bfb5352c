"""The priced bill of materials (costmodel/money/bom.py): it adds up to the network capex, grows with the
cluster, reuse of existing switches zeroes only Ethernet switch capex, every price has a source."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.money import bom
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import compute
from costmodel.scenario.presets import list_presets, load_preset
from costmodel.scenario.schema import Scenario

CAT = load_catalog()
ALL_FABRICS = list(CAT.fabrics)
MAX_COMPARED = 12  # a scenario compares at most 12 fabrics (Scenario.fabrics)


def _groups(preset: str) -> list[list[str]]:
    """Every fabric the preset's part can carry, in scenarios of at most 12 fabrics."""
    part = CAT.gpus[load_preset(preset).cluster.gpu]
    usable = [f for f in ALL_FABRICS if part.carries(f)]
    return [usable[i:i + MAX_COMPARED] for i in range(0, len(usable), MAX_COMPARED)]


def _scenario(preset: str, fabrics=None, **cluster) -> Scenario:
    data = load_preset(preset).model_dump()
    data["cluster"].update(cluster)
    if fabrics is not None:
        data["fabrics"], data["baseline"] = list(fabrics), fabrics[0]
    return Scenario.model_validate(data)


@pytest.mark.parametrize("preset", list_presets())
def test_the_priced_bill_adds_up_to_the_network_capex_for_every_preset_and_fabric(preset):
    for sc in (load_preset(preset), *(_scenario(preset, g) for g in _groups(preset))):
        res = costmodel.evaluate(sc)
        for f in res.fabrics:
            assert set(f.bom_priced) == {k for k, _, _ in bom.LINES}
            for line in f.bom_priced.values():
                assert line["extended"] == pytest.approx(line["count"] * line["unit_price"], rel=1e-12)
                assert line["count"] >= 0 and line["unit_price"] >= 0
            total = sum(line["extended"] for line in f.bom_priced.values())
            assert total == pytest.approx(f.network_capex_purchase, rel=1e-12), (preset, f.id)


def test_the_bill_counts_are_the_topology_counts():
    """Media lines are the topology's installed links plus spares; fibre is one per fibre link."""
    fabrics = [f for g in _groups("seed-case3-128xH100") for f in costmodel.evaluate(
        _scenario("seed-case3-128xH100", g)).fabrics]
    for f in fabrics:
        b, lines = f.bom, f.bom_priced
        for cls in ("dac", "aec", "aoc"):
            assert lines[cls]["count"] == b[f"node_{cls}"] + b[f"switch_{cls}"] + b[f"spare_{cls}"]
        modules = lines["switch_modules"]["count"] + lines["node_modules"]["count"]
        assert modules == b["transceivers"] + b["spare_transceivers"]
        assert b["switch_modules"] + b["node_modules"] == b["transceivers"]
        assert lines["fibre"]["count"] == b["node_fibre"] + b["switch_fibre"]
        assert (lines["node_modules"]["count"] > 0) == (b["node_fibre"] > 0)
        switches = b["leaf_switches"] + b["spine_switches"] + b["core_switches"] + b["spare_switches"]
        assert lines["switches"]["count"] + lines["reused_switches"]["count"] == switches
        assert lines["nics"]["count"] == b["nics"]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 2000), st.integers(1, 400), st.sampled_from(ALL_FABRICS))
def test_more_nodes_never_cost_less(n, extra, fabric):
    sc = _scenario("seed-intro-32xA100", [fabric])
    built = build(sc)
    p = built.inputs.replace(nodes=np.array([[float(n)], [float(n + extra)]]))
    out = compute(p, built.structure)
    small, large = out.amounts["network_capex"][:, 0]
    assert large >= small
    bill = sum(line.extended for line in out.bom_priced.values())[:, 0]
    np.testing.assert_allclose(bill, out.amounts["network_capex"][:, 0], rtol=1e-12)
    assert out.amounts["operations"][1, 0] >= out.amounts["operations"][0, 0]


@pytest.mark.parametrize("preset", list_presets())
def test_reusing_existing_switches_zeroes_only_ethernet_switch_capex(preset):
    off, on = ([f for g in _groups(preset) for f in costmodel.evaluate(_scenario(
        preset, g, reuse_existing_switches=reuse, existing_switch_gbps=800)).fabrics] for reuse in (False, True))
    for a, b in zip(off, on, strict=True):
        switch_capex = a.bom_priced["switches"]["extended"]
        assert switch_capex > 0
        if a.family == "infiniband":
            assert b.bom_priced == a.bom_priced and b.network_capex_purchase == a.network_capex_purchase
        else:
            assert b.bom_priced["switches"]["extended"] == 0.0
            assert b.bom_priced["reused_switches"]["count"] == a.bom_priced["switches"]["count"]
            assert b.network_capex_purchase == pytest.approx(a.network_capex_purchase - switch_capex, rel=1e-12)
        # every other line is unchanged, and reused switches still draw power and need support
        others = {k: v for k, v in a.bom_priced.items() if k not in ("switches", "reused_switches")}
        assert others == {k: v for k, v in b.bom_priced.items() if k not in ("switches", "reused_switches")}
        assert b.metrics["network_power_kw"] == a.metrics["network_power_kw"]
        assert b.running["network_support"] == pytest.approx(a.running["network_support"], rel=1e-12)


def test_reuse_applies_only_up_to_the_existing_switches_port_rate():
    fabrics = ["tcp-100", "roce-200", "roce-400", "ib-ndr-400"]
    res = costmodel.evaluate(_scenario("seed-case3-128xH100", fabrics, reuse_existing_switches=True,
                                       existing_switch_gbps=200))
    reused = {f.id: f.bom_priced["switches"]["extended"] == 0.0 for f in res.fabrics}
    assert reused == {"tcp-100": True, "roce-200": True, "roce-400": False, "ib-ndr-400": False}


def test_case_1_keeps_its_existing_100_gbe_switches():
    res = costmodel.evaluate(load_preset("seed-case1-8xA10"))
    assert {f.id: f.bom_priced["switches"]["extended"] > 0 for f in res.fabrics} == {
        "tcp-100": False, "roce-100": False, "iwarp-100": False, "ib-hdr-200": True}


def test_the_front_end_is_the_same_for_every_fabric_and_only_in_cluster_scope():
    price = CAT.price_book("public").gpus["a100-80"].frontend_per_node.typical
    for g in _groups("seed-intro-32xA100"):
        res = costmodel.evaluate(_scenario("seed-intro-32xA100", g))
        front = {f.bom_priced["frontend"]["extended"] for f in res.fabrics}
        assert front == {res.nodes * price}
        off = costmodel.evaluate(_scenario("seed-intro-32xA100", g, frontend_network=False))
        fabric_scope = costmodel.evaluate(Scenario.model_validate(
            _scenario("seed-intro-32xA100", g).model_dump() | {"scope": "fabric"}))
        for a, b, c in zip(res.fabrics, off.fabrics, fabric_scope.fabrics, strict=True):
            assert b.bom_priced["frontend"]["extended"] == c.bom_priced["frontend"]["extended"] == 0.0
            assert a.network_capex_purchase - b.network_capex_purchase == pytest.approx(res.nodes * price)


def test_staff_has_a_floor_scaled_by_the_ops_factor():
    sc = _scenario("seed-case1-8xA10", ["tcp-100", "roce-100"])
    res = costmodel.evaluate(sc)
    op = sc.operations
    for f in res.fabrics:
        ops = CAT.fabrics[f.id].ops_factor.typical
        want = ops * (op.network_staff_fte * op.staff_cost_per_fte_year
                      + sc.cluster.nodes * op.network_ops_cost_per_node_year)
        assert f.running["network_staff"] == pytest.approx(want, rel=1e-12)
    one = costmodel.evaluate(_scenario("seed-case1-8xA10", ["tcp-100"], nodes=1)).fabrics[0]
    assert one.running["network_staff"] >= op.network_staff_fte * op.staff_cost_per_fte_year > 0


def test_every_price_of_the_bill_has_a_source_and_a_date():
    refs = CAT.references
    for book in CAT.price_books.values():
        for item in [*book.fabrics.values(), *book.gpus.values()]:
            for name in type(item).model_fields:
                q = getattr(item, name)
                assert q.source in refs and q.as_of, (book.id, name)
    for _, _, price in bom.LINES:  # the server-side module's: the switch-side one's per port
        assert price in (None, "node_module_price") or price in costmodel.pipeline.inputs.Inputs.__dataclass_fields__


def test_an_aoc_costs_less_than_the_optics_of_a_node_link_and_its_fibre():
    """The media class chosen by length is the cheaper one where both would reach: an AOC against a node
    link's share of a switch-side module, its server-side module (the same price per port) and fibre."""
    for fid, p in CAT.price_book("public").fabrics.items():
        assert p.cable_price.typical <= p.aec_price.typical <= p.aoc_price.typical, fid
        ports = CAT.modules[CAT.fabrics[fid].optics.switch_module].ports.typical
        per_link = p.optic_price.typical / ports * 2
        assert p.aoc_price.typical < per_link + p.fibre_price.typical, fid
