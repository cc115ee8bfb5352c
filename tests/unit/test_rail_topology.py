"""Rail-optimised leaves, oversubscription, tiers and link media (costmodel.physics.rails, costmodel.physics.media,
stages.topology), checked against NVIDIA's published SuperPOD component counts and by properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.physics import media, rails, topology
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import broadcast_inputs
from costmodel.pipeline.stages.topology import BOM_KEYS
from costmodel.pipeline.stages.topology import topology as topo_stage
from costmodel.scenario.schema import Scenario

A = np.array


def fabric(nodes, rails_, radix, over=1.0):
    return rails.rail_fabric(A(float(nodes)), A(float(rails_)), A(float(radix)), A(float(over)))


# --- NVIDIA's reference counts ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nodes", "radix", "tiers", "leaves", "spines", "cores", "links_per_boundary"),
    [
        # DGX H100 SuperPOD (RA-11333-001, Table 4), QM9700 64 ports, 8 rails, 1:1. One SU = 32 nodes:
        # each rail's 32 NICs fill the 32 down-ports of one leaf -> 8 leaves; each leaf 32 up ->
        # 8 x 32 = 256 leaf-spine cables; 256 / 64 ports = 4 spines. (NVIDIA lists 31 nodes + 1 UFM slot.)
        (32, 64, 2, 8, 4, 0, 256),
        # 2 SU: 16 leaves, 512 uplinks / 64 = 8 spines (H100 and B200 tables).
        (64, 64, 2, 16, 8, 0, 512),
        # 4 SU (128 nodes): 32 leaves, 1024 / 64 = 16 spines (H100 and B200 tables).
        (128, 64, 2, 32, 16, 0, 1024),
        # 8 SU (256 nodes): 64 leaves = k, the largest two-tier fabric: 32 spines (B200 table).
        (256, 64, 2, 64, 32, 0, 2048),
        # 16 SU (512 nodes): 128 leaves > 64 -> three tiers: spines 4096 / 32 = 128, cores 4096 / 64 = 64.
        (512, 64, 3, 128, 128, 64, 4096),
        # 32 SU (1024 nodes): 256 leaf, 256 spine, 128 core, 8192 cables per boundary (B200 table).
        (1024, 64, 3, 256, 256, 128, 8192),
        # DGX B300 XDR SuperPOD, Q3400 144 ports: 1 SU = 72 nodes -> 8 leaves, 576 / 144 = 4 spines.
        (72, 144, 2, 8, 4, 0, 576),
    ],
)
def test_counts_match_nvidia_superpod_tables(nodes, radix, tiers, leaves, spines, cores, links_per_boundary):
    b = fabric(nodes, 8, radix)
    assert b["tiers"] == tiers
    assert (b["leaves"], b["spines"], b["cores"]) == (leaves, spines, cores)
    assert b["endpoints"] == 8 * nodes  # node-to-leaf cables
    assert b["uplinks"] == links_per_boundary
    assert b["switch_links"] == (tiers - 1) * links_per_boundary


@pytest.mark.parametrize("k", [32.0, 40.0, 64.0, 144.0])
def test_one_rail_non_blocking_is_the_fat_tree(k):
    """r = 1, o = 1 reduces to the k-ary fat tree of costmodel.physics.topology (tiers, switches, links)."""
    e = np.array([1, 2, 31, 32, 33, 64, 65, 100, 1000, 2048, 2049, 5000, 30000, 65536, 70000], dtype=float)
    new = rails.rail_fabric(e, A(1.0), A(k), A(1.0))
    old = topology.bill_of_materials(e, A(k))
    for key in ("tiers", "switches", "switch_links"):
        np.testing.assert_array_equal(new[key], old[key], err_msg=key)


def test_small_clusters_pack_whole_rails_on_one_leaf():
    # 16 nodes x 8 rails on 64 ports: a rail needs 16 of a leaf's 32 down-ports, so two rails share
    # a leaf: 4 leaves, 128 uplinks, 2 spines (the same switch count as the fat tree of 128 ports).
    b = fabric(16, 8, 64)
    assert (b["tiers"], b["leaves"], b["spines"], b["uplinks"]) == (2, 4, 2, 128)
    # 8 nodes x 8 rails = 64 ports: one switch, no switch links.
    one = fabric(8, 8, 64)
    assert (one["tiers"], one["switches"], one["switch_links"]) == (1, 1, 0)


# --- oversubscription ---------------------------------------------------------------------------


def test_oversubscription_two_halves_the_uplinks_and_spines():
    full, half = fabric(32, 8, 64, 1.0), fabric(32, 8, 64, 2.0)
    assert half["uplinks"] == full["uplinks"] / 2 == 128
    assert half["spines"] == full["spines"] / 2 == 2
    # more down-ports per leaf (42 of 64 at 2:1): 1024 nodes need 25 leaves per rail, not 32
    assert fabric(1024, 8, 64, 2.0)["leaves"] == 8 * 25 < fabric(1024, 8, 64, 1.0)["leaves"]


def test_leaf_ports_never_exceed_the_radix():
    k = np.arange(4.0, 300.0)[:, None]
    o = np.array([1.0, 1.5, 2.0, 3.0, 7.0, 16.0])[None, :]
    d = rails.leaf_down_ports(k, o)
    assert np.all(d >= 1)
    assert np.all(d + np.ceil(d / o - 1e-9) <= k)
    assert np.all(d / np.ceil(d / o - 1e-9) <= o + 1e-9)  # never more oversubscribed than asked


# --- tiers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "r", "o"), [(64, 8, 1), (64, 8, 2), (128, 8, 1), (144, 8, 1), (32, 1, 1), (40, 4, 3)])
def test_tiers_and_switches_never_fall_as_nodes_grow(k, r, o):
    n = np.arange(1.0, 20001.0)
    b = rails.rail_fabric(n, A(float(r)), A(float(k)), A(float(o)))
    assert np.all(np.diff(b["tiers"]) >= 0)
    assert np.all(np.diff(b["switches"]) >= 0)
    assert np.all(np.diff(b["uplinks"]) >= 0)


# --- media ---------------------------------------------------------------------------------------

LAY = media.Layout(rack_pitch_m=0.6, row_pitch_m=2.4, racks_per_row=20, vertical_run_m=1.0, service_loop_m=0.5)
REACH_400 = {"dac": A(3.0), "aec": A(5.0), "aoc": A(50.0)}


def test_superpod_row_media_by_rack_distance():
    # 32 nodes, 4 per rack: 4 racks each side of the leaf rack, links 3 + 0.6 j m = 3.6 .. 5.4 m.
    # 400G: DAC <= 3 m none; AEC <= 5 m: racks 1-3 each side = 24 nodes; AOC: the 8 nodes of rack 4.
    c = media.node_link_classes(A(32.0), A(8.0), A(32.0), A(4.0), REACH_400, LAY)
    assert {k: float(v) for k, v in c.items()} == {"dac": 0.0, "aec": 192.0, "aoc": 64.0, "fibre": 0.0}


def test_beyond_every_cable_reach_a_link_is_fibre_with_two_transceivers():
    """At 400G, links longer than the DAC's 3 m are never passive copper, and beyond the AOC's reach
    every link takes fibre and two transceivers (the stage counts them)."""
    long_layout = media.Layout(rack_pitch_m=60.0, row_pitch_m=2.4, racks_per_row=20, vertical_run_m=1.0,
                               service_loop_m=0.5)  # every rack > 50 m from its leaves
    c = media.node_link_classes(A(32.0), A(8.0), A(32.0), A(1.0), REACH_400, long_layout)
    assert float(c["fibre"]) == 256 and float(c["dac"] + c["aec"] + c["aoc"]) == 0
    beyond_dac = media.node_link_classes(A(32.0), A(8.0), A(32.0), A(4.0), REACH_400, LAY)
    assert float(beyond_dac["dac"]) == 0

    p = _inputs(nodes=32, fabric="ib-ndr-400", rack_pitch_m=60.0)
    t = topo_stage(p)
    assert float(t.links["fibre"].sum()) == float(t.node_links.sum() + t.switch_links.sum())
    # twin-port modules at the switches and (the DGX H100 design) at the servers: one module per link
    assert float(t.transceivers.sum()) == float(t.node_links.sum() + t.switch_links.sum())


@settings(max_examples=60, deadline=None)
@given(nodes=st.integers(1, 3000), npr=st.integers(1, 16), stretch=st.floats(1.0, 20.0),
       fewer=st.integers(0, 15), rate=st.sampled_from(["tcp-100", "roce-200", "ib-ndr-400", "ib-xdr-800"]))
def test_a_longer_layout_never_uses_fewer_transceivers(nodes, npr, stretch, fewer, rate):
    base = _inputs(nodes=nodes, fabric=rate, nodes_per_rack=npr)
    longer = _inputs(nodes=nodes, fabric=rate, nodes_per_rack=max(1, npr - fewer), rack_pitch_m=0.6 * stretch,
                     row_pitch_m=2.4 * stretch)
    a, b = topo_stage(base), topo_stage(longer)
    assert float(b.transceivers.sum()) >= float(a.transceivers.sum())
    # and never more links within passive-copper reach
    assert float(b.links["dac"].sum()) <= float(a.links["dac"].sum())


def test_switch_links_through_structured_cabling_take_no_aoc():
    p = _inputs(nodes=128, fabric="ib-ndr-400", nics=8)
    t = topo_stage(p)
    assert float(t.bom["switch_aoc"].sum()) == 0
    assert float(t.bom["switch_fibre"].sum()) == float(t.switch_links.sum()) == 1024
    assert float(t.transceivers.sum()) >= 2 * 1024


# --- properties of the whole stage --------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(nodes=st.integers(1, 20000), nics=st.integers(1, 16), radix=st.sampled_from([4, 8, 16, 32, 40, 64, 128, 144]),
       over=st.sampled_from([1.0, 1.5, 2.0, 3.0, 4.0, 16.0]), npr=st.integers(1, 72))
def test_counts_are_whole_non_negative_connected_and_within_ports(nodes, nics, radix, over, npr):
    b = fabric(nodes, nics, radix, over)
    for key, v in b.items():
        assert float(v) >= 0 and float(v) == round(float(v)), key
    e = nodes * nics
    assert b["endpoints"] == e
    k = float(radix)
    # every port in use fits a switch: node ports + both ends of every switch link
    assert e + 2 * b["switch_links"] <= b["switches"] * k
    if b["tiers"] == 1:
        assert e <= k and b["switches"] == 1
    else:
        d = rails.leaf_down_ports(A(k), A(over))
        assert b["leaves"] * d >= e  # the leaves' down-ports hold every NIC
        assert b["leaves"] <= 2 * (k / 2) ** (b["tiers"] - 1)  # the tiers above reach every leaf
        top = b["cores"] if b["tiers"] >= 3 else b["spines"]
        assert b["uplinks"] <= top * k
        assert b["uplinks"] >= e / over - 1e-9
    p = _inputs(nodes=nodes, fabric="ib-ndr-400", nics=nics, nodes_per_rack=npr, switch_radix=k, oversubscription=over)
    t = topo_stage(p)
    node_sum = sum(float(t.bom[f"node_{c}"].sum()) for c in media.CLASSES)
    sw_sum = sum(float(t.bom[f"switch_{c}"].sum()) for c in media.CLASSES)
    assert node_sum == e and sw_sum == float(t.switch_links.sum())
    for key in BOM_KEYS:
        v = float(t.bom[key].sum())
        assert v >= 0 and v == round(v), key


def test_spares_are_added_to_the_counts_bought_and_priced():
    p = _inputs(nodes=128, fabric="ib-ndr-400", nics=8, spare_switch_frac=0.1, spare_optic_frac=0.1,
                spare_cable_frac=0.1)
    t = topo_stage(p)
    assert float(t.switches_bought.sum()) == float(t.switches.sum()) + float(t.bom["spare_switches"].sum()) > float(
        t.switches.sum())
    assert float(t.bom["spare_transceivers"].sum()) == round(0.1 * float(t.transceivers.sum()))
    none = topo_stage(_inputs(nodes=128, fabric="ib-ndr-400", nics=8, spare_switch_frac=0.0, spare_optic_frac=0.0,
                              spare_cable_frac=0.0))
    assert float(none.switches_bought.sum()) == float(none.switches.sum())


def test_bill_of_materials_reaches_the_outputs_and_the_ledger_prices_media():
    sc = Scenario(fabrics=["ib-ndr-400"], baseline="ib-ndr-400",
                  cluster={"nodes": 128, "gpu": "h100", "nics_per_node": 8})
    b = build(sc)
    out = costmodel.pipeline.tco.compute(b.inputs, b.structure)
    assert set(out.bom) == set(BOM_KEYS)
    d, p = out.drivers, broadcast_inputs(b.inputs)
    expected = (d["dac_cables"] * p.cable_price + d["aec_cables"] * p.aec_price + d["aoc_cables"] * p.aoc_price
                + (d["switch_modules"] + d["node_modules"] * d["module_port_ratio"]) * p.optic_price
                + d["fibre_links"] * p.fibre_price)
    np.testing.assert_allclose(out.metrics["capex_links"], expected)
    # the media classes of the bill of materials add up to the drivers the ledger prices
    for c in ("dac", "aec", "aoc"):
        installed = out.bom[f"node_{c}"] + out.bom[f"switch_{c}"]
        np.testing.assert_allclose(d[f"{c}_cables"], installed + out.bom[f"spare_{c}"])
    np.testing.assert_allclose(d["fibre_links"], out.bom["node_fibre"] + out.bom["switch_fibre"])


def _inputs(nodes: int, fabric: str, nics: int = 8, **changes):
    sc = Scenario(fabrics=[fabric], baseline=fabric, cluster={"nodes": nodes, "gpu": "h100", "nics_per_node": nics})
    p = build(sc).inputs
    return broadcast_inputs(p.replace(**{k: A([[float(v)]]) for k, v in changes.items()}))


def test_each_fabric_result_carries_its_bill_of_materials():
    sc = Scenario(fabrics=["tcp-100", "ib-ndr-400"], baseline="tcp-100",
                  cluster={"nodes": 32, "gpu": "h100", "nics_per_node": 8})
    result = costmodel.evaluate(sc)
    ndr = result.fabric("ib-ndr-400")
    assert set(ndr.bom) == set(BOM_KEYS) and set(ndr.to_dict()["bom"]) == set(BOM_KEYS)
    # one SuperPOD scalable unit on 64-port NDR switches: 8 leaves, 4 spines, 256 NICs
    assert (ndr.bom["leaf_switches"], ndr.bom["spine_switches"], ndr.bom["nics"]) == (8, 4, 256)


def test_media_rows_are_taken_by_port_rate_and_must_order_their_reaches(tmp_path):
    import shutil

    import yaml

    from costmodel.catalog.loader import DATA_DIR, load_catalog
    from costmodel.errors import CatalogError

    cat = load_catalog()
    assert cat.media_for(100) is cat.media[100] and cat.media_for(150) is cat.media[200]
    assert cat.media_for(1600) is cat.media[max(cat.media)]
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    doc = yaml.safe_load((data / "media.yaml").read_text(encoding="utf-8"))
    doc["rates"]["400"]["aec_reach_m"]["typical"] = 2.0  # shorter than the DAC's 3 m
    (data / "media.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(CatalogError, match="dac <= aec <= aoc"):
        load_catalog(data)
