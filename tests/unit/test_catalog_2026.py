"""The 2026 parts in 8-GPU servers (H800, H20, B300, MI300X, MI355X): each evaluates on its natural
fabric in USD and CNY, offers exactly the precisions its datasheet gives, and its figures keep the
relations the cited datasheets state (costmodel/data/gpus.yaml, references.yaml)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import costmodel
from costmodel.analysis import rent
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario.validation import validate_scenario

CAT = load_catalog()
#: part → (its natural fabrics: 400G parts on RoCE / InfiniBand NDR, ConnectX-8 on 800G)
PARTS = {
    "h800": ["roce-400", "ib-ndr-400"],
    "h20": ["roce-400", "ib-ndr-400"],
    "b300": ["roce-ar-800", "ib-xdr-800"],
    "mi300x": ["roce-400", "tcp-400"],
    "mi355x": ["roce-400", "tcp-400"],
}
FP4 = {"b300", "mi355x"}


def _doc(gpu: str, book: str = "public", precision: str = "bf16") -> dict:
    d = costmodel.Scenario().model_dump()
    d["cluster"].update(gpu=gpu, nodes=64, gpus_per_node=8, nics_per_node=8)
    d["fabrics"], d["baseline"] = PARTS[gpu], PARTS[gpu][0]
    d["price_book"] = book
    d["workload"]["precision"] = precision
    return d


@pytest.mark.parametrize("gpu", PARTS)
def test_a_64_node_cluster_evaluates_in_usd_and_cny(gpu):
    usd = costmodel.evaluate(validate_scenario(_doc(gpu)))
    cny = costmodel.evaluate(validate_scenario(_doc(gpu, "cn-2025")))
    assert (usd.currency, cny.currency) == ("USD", "CNY")
    for r in (usd, cny):
        assert [f.id for f in r.fabrics] == PARTS[gpu]
        for f in r.fabrics:
            assert np.isfinite(f.tco_total) and f.tco_total > 0
            assert 0 < f.metrics["mfu"] < 1
    # the 64 servers are bought at the book's server price, in each currency
    for r, book in ((usd, "public"), (cny, "cn-2025")):
        servers = 64 * CAT.price_book(book).gpus[gpu].server_price.typical
        assert r.fabrics[0].compute_capex_purchase == pytest.approx(servers, rel=0.25)
        assert r.fabrics[0].compute_capex_purchase >= servers


def test_the_b300s_800g_nic_is_not_held_back_by_its_gen6_slot():
    """ConnectX-8 on PCIe Gen6 x16 carries its 800 Gb/s; the Hopper parts' Gen5 x16 carries 400."""
    b300 = costmodel.evaluate(validate_scenario(_doc("b300"))).fabrics[0].metrics
    h20 = costmodel.evaluate(validate_scenario(_doc("h20"))).fabrics[0].metrics
    assert b300["nic_gbps"] == 8 * 800 and not b300["slot_limited"]
    assert h20["nic_gbps"] == 8 * 400 and not h20["slot_limited"]


@pytest.mark.parametrize("gpu", PARTS)
@pytest.mark.parametrize("precision", ["fp8", "fp4"])
def test_each_part_offers_the_precisions_it_has(gpu, precision):
    has = CAT.gpus[gpu].peak_tflops(precision) is not None
    assert has == (precision == "fp8" or gpu in FP4)
    if has:
        r = costmodel.evaluate(validate_scenario(_doc(gpu, precision=precision)))
        low = costmodel.evaluate(validate_scenario(_doc(gpu)))
        assert r.fabrics[0].metrics["compute_time_s"] < low.fabrics[0].metrics["compute_time_s"]
        return
    with pytest.raises(ScenarioError) as err:
        validate_scenario(_doc(gpu, precision=precision))
    assert CAT.gpus[gpu].name in str(err.value) and f"no {precision.upper()} tensor cores" in str(err.value)


def _peak(gpu: str, precision: str) -> float:
    return CAT.gpus[gpu].peak_tflops(precision)


def test_the_hopper_parts_keep_hoppers_ratios_and_the_h800_the_h100s_compute():
    for gpu in ("h800", "h20"):
        assert _peak(gpu, "fp8") == pytest.approx(2 * _peak(gpu, "bf16"), abs=1)  # 989.4 x 2, rounded
        assert CAT.kernels[gpu].arch == "hopper"
    assert (_peak("h800", "bf16"), _peak("h800", "fp8")) == (_peak("h100", "bf16"), _peak("h100", "fp8"))
    assert CAT.kernels["h800"].sm_count.typical == CAT.kernels["h100"].sm_count.typical == 132
    # export rules cut the H800's NVLink to 400 GB/s both ways; the H20 keeps the H100's 900
    h800, h20, h100 = (CAT.gpus[g].intra_node_gbs.typical for g in ("h800", "h20", "h100"))
    assert 2 * h800 == 400 and h20 == h100 == 450 > h800
    # the H20: 148 of the H100's 989 dense BF16 (about 15 %), 96 GB against 80
    assert _peak("h20", "bf16") == 148 and 0.14 < _peak("h20", "bf16") / _peak("h100", "bf16") < 0.16
    assert CAT.gpus["h20"].memory_gb.typical == 96 > CAT.gpus["h100"].memory_gb.typical


def test_blackwell_ultra_and_cdna_follow_their_datasheets():
    # HGX B300 per 8 GPUs: 36 PFLOPS BF16 and 72 FP8 with sparsity (half dense), 108 FP4 dense
    assert 8 * _peak("b300", "bf16") * 2 == 36_000 and 8 * _peak("b300", "fp8") * 2 == 72_000
    assert 8 * _peak("b300", "fp4") == 108_000 and _peak("b300", "fp4") > _peak("b200", "fp4")
    assert CAT.gpus["b300"].memory_gb.typical == 288 and CAT.gpus["b300"].nic_pcie_gen.typical == 6
    # AMD: FP8 = 2 x BF16 on CDNA 3 and 4, FP4 = 2 x FP8 on CDNA 4
    for gpu in ("mi300x", "mi355x"):
        assert _peak(gpu, "fp8") == pytest.approx(2 * _peak(gpu, "bf16"), rel=1e-3)
    assert _peak("mi355x", "fp4") == pytest.approx(2 * _peak("mi355x", "fp8"), rel=1e-3)
    # Infinity Fabric: 7 links to the 7 peers, 128 GB/s (MI300X) and 153.6 (MI355X) both ways each
    assert 2 * CAT.gpus["mi300x"].intra_node_gbs.typical == pytest.approx(7 * 128)
    assert 2 * CAT.gpus["mi355x"].intra_node_gbs.typical == pytest.approx(7 * 153.6)
    assert (CAT.kernels["mi300x"].arch, CAT.kernels["mi355x"].arch) == ("cdna3", "cdna4")


@pytest.mark.parametrize("gpu", PARTS)
def test_each_part_is_an_8_gpu_server_with_a_nic_per_gpu_and_sourced_ranges(gpu):
    spec = CAT.gpus[gpu]
    assert spec.default_gpus_per_node.typical == spec.default_nics_per_node.typical == 8
    for name in type(spec).model_fields:
        q = getattr(spec, name)
        if hasattr(q, "typical") and q.low is not None:
            assert q.low <= q.typical <= q.high, (gpu, name)
    k = CAT.kernels[gpu]
    share = k.mamf_share
    assert 0 < (share.low or share.typical) <= share.typical <= (share.high or share.typical) < 1
    assert math.isfinite(k.hbm_gbs.typical) and k.hbm_gbs.typical >= 3350


@pytest.mark.parametrize("book", ["public", "cn-2025"])
@pytest.mark.parametrize("gpu", PARTS)
def test_every_price_book_prices_the_part_with_a_range(gpu, book):
    prices = CAT.price_book(book).gpus[gpu]
    for field in ("gpu_price", "server_price", "rental_per_gpu_hour", "frontend_per_node"):
        q = getattr(prices, field)
        assert q.typical > 0 and q.source and q.as_of
    # a server of 8 GPUs costs more than its 8 GPUs alone, in each currency
    assert prices.server_price.typical > 8 * prices.gpu_price.typical * 0.9


def test_the_china_book_prices_the_h20_and_h800_servers_from_china_street_prices():
    cn = CAT.price_book("cn-2025").gpus
    assert cn["h20"].server_price.source == "h20-server-cn-2024"
    assert cn["h800"].server_price.source == "reuters-h20-2024"
    # the H20 server sells for under the H800's, which sells for under the H100's grey-channel price
    assert cn["h20"].server_price.typical < cn["h800"].server_price.typical < cn["h100"].server_price.typical


def test_the_mi300x_rents_below_the_h100_at_specialist_clouds_and_below_the_h200_at_hyperscalers():
    """The rental listings cited (mi300x-rental-2026): specialists under the H100's, hyperscalers under the H200's."""
    table = rent.load_rental_table().gpus
    assert table["mi300x"]["specialist"].typical < table["h100"]["specialist"].typical
    assert table["mi300x"]["hyperscaler_on_demand"].typical < table["h200"]["hyperscaler_on_demand"].typical
    assert not {"h800", "h20", "b300", "mi355x"} & set(table)  # no published rental listing: none stored
