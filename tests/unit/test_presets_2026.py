"""The 2026 presets and parts against their reference designs: bills of materials an expert accepts,
the fabrics a part's server can carry, the tiers a radix allows (costmodel/data/presets, gpus.yaml).

Reference designs (references.yaml keys):
* GB200 / GB300 NVL72 (nvidia-nvl72-ra, nvidia-gb200-nvl72, nvidia-gb300-nvl72): 18 compute trays of 4 GPUs
  and 2 Grace CPUs per rack, 72 GPUs in one NVLink domain, one compute NIC per GPU (4 ConnectX per
  tray), up to 142 kW per liquid-cooled rack.
* HGX B300 (nvidia-hgx-b300): 8 GPUs, 8 ConnectX-8 800G. MI355X (amd-mi355x-datasheet): 8 OAM GPUs,
  one 400G NIC each. H20 (nvidia-h20-specs): HGX Hopper, 8 x 400G.
* Atlas 800T A2 (ascend-910b-specs): 8 Ascend 910B, 8 x 200G RoCE ports on the NPUs, no FP8.
* CloudMatrix 384 (cloudmatrix384-2025, semianalysis-cm384): 48 nodes of 8 Ascend 910C in 12 compute
  racks, 384 NPUs on one UB network, up to 400 Gb/s RoCE per NPU, 559 kW, 752 TFLOPS BF16 per NPU.
* Fat-tree tiers (Al-Fares et al., SIGCOMM 2008): k-port switches hold k endpoints in one tier,
  k^2/2 in two, k^3/4 in three.
"""

from __future__ import annotations

import math

import pytest

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.exports.csv import results_csv
from costmodel.scenario.changes import with_change
from costmodel.scenario.presets import get_preset, load_preset
from costmodel.scenario.validation import validate_scenario
from webui.i18n.translator import Translator

CAT = load_catalog()
#: preset → (GPUs in all, compute racks or None, NICs per GPU) of its reference design
DESIGNS = {
    "gb200-nvl72-8racks": (8 * 72, 8, 1),
    "gb300-nvl72-8racks": (8 * 72, 8, 1),
    "b300-128": (128 * 8, None, 1),
    "mi355x-64": (64 * 8, None, 1),
    "h20-64": (64 * 8, None, 1),
    "ascend910b-128": (128 * 8, None, 1),
    "cloudmatrix384-2": (2 * 384, 2 * 12, 1),
}


def _tiers(endpoints: float, radix: float) -> int:
    """The tiers a non-blocking fat tree of ``radix``-port switches needs (Al-Fares et al. 2008)."""
    return next(t for t in range(1, 8) if endpoints <= (radix if t == 1 else 2 * (radix / 2) ** t))


def _check_bill(f, nodes: int, nics_per_node: int) -> None:
    """NICs, switch ports, optics and tiers of one fabric's bill of materials."""
    b = {k: float(v) for k, v in f.bom.items()}
    spec = CAT.fabrics[f.id]
    assert b["nics"] == nodes * nics_per_node, f.id
    node_links = b["node_dac"] + b["node_aec"] + b["node_aoc"] + b["node_fibre"]
    switch_links = b["switch_dac"] + b["switch_aec"] + b["switch_aoc"] + b["switch_fibre"]
    assert node_links == b["nics"], f.id  # every NIC port is cabled to a leaf
    switches = b["leaf_switches"] + b["spine_switches"] + b["core_switches"]
    assert switches * spec.switch_radix.typical >= node_links + 2 * switch_links, f.id  # ports >= link ends
    sw_ports = CAT.modules[spec.optics.switch_module].ports.typical
    node_ports = CAT.modules[spec.optics.node_module].ports.typical
    assert b["switch_modules"] * sw_ports >= b["node_fibre"] + 2 * b["switch_fibre"], f.id
    assert b["node_modules"] * node_ports >= b["node_fibre"], f.id
    assert b["transceivers"] == b["switch_modules"] + b["node_modules"], f.id
    tiers = _tiers(b["nics"], spec.switch_radix.typical)
    assert f.metrics["tiers"] == tiers, f.id
    assert (b["core_switches"] > 0) == (tiers >= 3) and (b["spine_switches"] > 0) == (tiers >= 2), f.id


@pytest.mark.parametrize("preset", DESIGNS)
def test_each_preset_is_its_reference_design(preset):
    gpus, racks, nics_per_gpu = DESIGNS[preset]
    sc = load_preset(preset)
    g, n = sc.cluster.gpus_per_node, sc.cluster.nodes
    part = CAT.gpus[sc.cluster.gpu]
    assert g == part.default_gpus_per_node.typical and n * g == gpus
    assert sc.cluster.nics_per_node == g * nics_per_gpu == part.default_nics_per_node.typical
    if racks is not None:
        assert n / sc.cluster.nodes_per_rack == racks
    assert all(part.carries(f) for f in sc.fabrics)
    assert get_preset(preset).title_zh and get_preset(preset).source in CAT.references


@pytest.mark.parametrize("preset", DESIGNS)
def test_each_preset_prices_a_bill_an_expert_accepts(preset):
    sc = load_preset(preset)
    res = costmodel.evaluate(sc)
    assert [f.id for f in res.fabrics] == list(sc.fabrics)
    for f in res.fabrics:
        _check_bill(f, sc.cluster.nodes, sc.cluster.nics_per_node)
        assert math.isfinite(f.tco_total) and f.tco_total > 0 and 0 < f.metrics["mfu"] < 1


@pytest.mark.parametrize(("gpu", "fabrics"), [("gb300-nvl72", ["ib-xdr-800", "roce-800", "roce-ar-800-cpo"]),
                                              ("b300", ["ib-xdr-800", "roce-ar-800", "roce-800-lpo"]),
                                              ("ascend-910b", ["roce-200-cn", "roce-200"]),
                                              ("mi325x", ["uec-400", "roce-400-cn"])])
@pytest.mark.parametrize("nodes", [1, 9, 72, 300, 2048])
def test_a_sweep_of_sizes_keeps_the_bill_consistent(gpu, fabrics, nodes):
    part = CAT.gpus[gpu]
    g, nics = int(part.default_gpus_per_node.typical), int(part.default_nics_per_node.typical)
    d = costmodel.Scenario().model_dump()
    d["cluster"].update(gpu=gpu, nodes=nodes, gpus_per_node=g, nics_per_node=nics)
    d["fabrics"], d["baseline"] = fabrics, fabrics[0]
    for f in costmodel.evaluate(validate_scenario(d)).fabrics:
        _check_bill(f, nodes, nics)


@pytest.mark.parametrize("fabric", ["ib-xdr-800", "roce-800", "roce-ar-800"])
def test_a_16k_gpu_cluster_prices_three_tiers(fabric):
    """2,048 HGX B300 servers = 16,384 GPUs and 800G NICs: past k^2/2 for 64-, 128- and 144-port switches."""
    d = costmodel.Scenario().model_dump()
    d["cluster"].update(gpu="b300", nodes=2048, gpus_per_node=8, nics_per_node=8)
    d["fabrics"], d["baseline"] = [fabric], fabric
    f = costmodel.evaluate(validate_scenario(d)).fabrics[0]
    assert f.metrics["tiers"] == 3 and float(f.bom["core_switches"]) > 0
    assert CAT.fabrics[fabric].switch_radix.typical ** 2 / 2 < 16384
    _check_bill(f, 2048, 8)


def test_a_102t_switch_keeps_two_tiers_where_a_51t_one_needs_three():
    """1,024 200G ports: a 51.2 Tb/s switch as 256 x 200G holds them in two tiers, a 32-port one needs three."""
    d = costmodel.load_preset("ascend910b-128").model_dump()
    res = costmodel.evaluate(validate_scenario(d))
    assert res.fabric("roce-200-cn").metrics["tiers"] == 2 and res.fabric("roce-200").metrics["tiers"] == 3


def test_an_ascend_server_refuses_infiniband_naming_the_field():
    d = load_preset("ascend910b-128").model_dump()
    d["fabrics"], d["baseline"] = ["roce-200-cn", "ib-ndr-400"], "roce-200-cn"
    with pytest.raises(ScenarioError) as err:
        validate_scenario(d)
    detail = err.value.details[0]
    assert detail["path"] == "fabrics" and detail["code"] == "fabric_not_carried"
    assert "'ib-ndr-400'" in str(err.value) and CAT.gpus["ascend-910b"].name in str(err.value)
    for lang in ("en", "zh"):
        text = Translator(lang)("err.fabric_not_carried", **detail["values"])
        assert "ib-ndr-400" in text and "roce-200-cn" in text
    # asking for it through the fabrics field is refused, not repaired away
    with pytest.raises(ScenarioError):
        with_change(load_preset("ascend910b-128"), "fabrics", ["roce-200-cn", "ib-ndr-400"])


def test_switching_to_an_ascend_part_keeps_only_the_fabrics_it_can_carry():
    change = with_change(load_preset("seed-case3-128xH100"), "cluster.gpu", "ascend-910b")
    assert "fabrics" in change.repaired
    assert change.scenario.fabrics and all(CAT.gpus["ascend-910b"].carries(f) for f in change.scenario.fabrics)
    assert not any(CAT.fabrics[f].family == "infiniband" for f in change.scenario.fabrics)
    assert change.scenario.baseline in change.scenario.fabrics


def test_no_infiniband_in_an_ascend_server_and_roce_in_every_one():
    for gid in ("ascend-910b", "ascend-910c"):
        families = {CAT.fabrics[f].family for f in CAT.gpus[gid].fabrics}
        assert "infiniband" not in families and "roce" in families


def test_the_rack_scale_parts_follow_their_datasheets():
    gb200, gb300, cm = (CAT.gpus[g] for g in ("gb200-nvl72", "gb300-nvl72", "ascend-910c"))
    # NVL72: 18 trays of 4 in one 72-GPU NVLink domain; FP4 1,440 / 1,080 PFLOPS per rack (sparse / dense)
    for part in (gb200, gb300):
        assert part.default_gpus_per_node.typical * 18 == part.scaleup_domain_gpus.typical == 72
        assert part.default_nics_per_node.typical == part.default_gpus_per_node.typical
        rack_kw = 18 * (4 * part.tdp_w.typical / 1000 + part.host_power_kw.typical)
        assert 120 <= rack_kw <= 142
    assert 72 * gb200.peak_tflops("fp4") * 2 == 1_440_000 and 72 * gb300.peak_tflops("fp4") == 1_080_000
    assert 72 * gb300.peak_tflops("fp8") * 2 == 720_000 and gb300.nic_pcie_gen.typical == 6
    # CloudMatrix 384: 384 NPUs in one UB domain, about 300 PFLOPS BF16, 559 kW for 48 nodes
    assert cm.scaleup_domain_gpus.typical == 384 and cm.memory_gb.typical == 128
    assert 280_000 <= 384 * cm.peak_tflops("bf16") <= 300_000
    assert 48 * (8 * cm.tdp_w.typical / 1000 + cm.host_power_kw.typical) == pytest.approx(559, rel=0.05)
    # no FP8 on the Ascend parts (INT8 only): the precision is refused
    for gid in ("ascend-910b", "ascend-910c"):
        assert CAT.gpus[gid].peak_tflops("fp8") is None
    d = load_preset("ascend910b-128").model_dump()
    d["workload"]["precision"] = "fp8"
    with pytest.raises(ScenarioError, match="no FP8 tensor cores"):
        validate_scenario(d)


@pytest.mark.parametrize("preset", DESIGNS)
@pytest.mark.parametrize("book", ["public", "cn-2025"])
def test_each_preset_prices_in_both_books_and_exports(preset, book):
    d = load_preset(preset).model_dump()
    d["price_book"] = book
    res = costmodel.evaluate(validate_scenario(d))
    assert res.currency == ("CNY" if book == "cn-2025" else "USD")
    text = results_csv(res)
    for f in res.fabrics:
        assert f.id in text
