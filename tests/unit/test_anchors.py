"""Default figures agree with the published measurements they cite (DESIGN.md §2.3–2.4)."""

import pytest

import costmodel
from costmodel.evidence.anchors import _a100_scenario, busbw_gbs, llama3_metrics


def test_dgx_a100_8x_hdr_busbw_matches_nccl_tests():
    """nccl-tests: DGX A100 nodes with 8 × HDR 200 Gb/s reach ≈ 192 GB/s all-reduce busbw."""
    scenario = _a100_scenario(16, 8)
    large = busbw_gbs(scenario)["ib-hdr-200"]
    assert 185 <= large <= 195
    # at DDP's 25 MiB buckets NCCL's latency (8.4 µs per collective + 6.6 µs per ring step over
    # the network, tuning.cc) costs a few per cent on 16 nodes. (Format 3 charged the base latency
    # on every ring step (an earlier defect), and expected 100–185 GB/s here.)
    small = costmodel.evaluate(scenario).fabric("ib-hdr-200").metrics["allreduce_busbw_gbs"]
    assert 0.85 * large < small < 0.99 * large


def test_one_100g_ib_nic_equivalent_and_tcp_sockets():
    """One 100 Gb/s NIC: IB ≈ 12.2 GB/s; NCCL over TCP sockets on 100 GbE: 4–6 GB/s."""
    busbw = busbw_gbs(_a100_scenario(4, 1))
    assert 4.0 <= busbw["tcp-100"] <= 6.0
    # HDR 200 at one NIC, per 100 Gb/s of wire: ≈ 12 GB/s
    assert 11.5 <= busbw["ib-hdr-200"] / 2 <= 12.5


def test_llama3_interruption_statistics():
    """16,384 H100 for 54 days on 400G RoCE (8 rails): 419 unexpected interruptions, ≈ 10 % network."""
    m = llama3_metrics()
    assert m["interruptions"] == pytest.approx(419, rel=0.03)
    assert m["network_share"] == pytest.approx(42 / 419, rel=0.05)
    # and Llama 3's ">90 % effective training time" is consistent with the goodput model
    assert m["goodput"] > 0.9


def test_anchor_table_is_computed():
    from costmodel.evidence.anchors import anchors

    rows = {a.key: a for a in anchors()}
    assert 185 <= rows["nccl_ib"].model <= 195 and 4 <= rows["nccl_tcp"].model <= 6
