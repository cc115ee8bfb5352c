"""Importing nccl-tests logs (costmodel/physics/nccl_tests/): real logs from public threads are read with
their ranks, hosts, GPU and NCCL version; the α–β fit recovers the bandwidth the log measured at its
largest sizes and the bandwidth and latency of synthetic logs; two-node and single-node runs are
flagged; anything else gets one clear error naming the field ``nccl_log``.

Fixtures: tests/data/nccl/ (README.md there cites each log's source).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel.errors import CodedError, InputError, NcclLogError
from costmodel.physics import nccl_tests as nt

DATA = Path(__file__).parents[1] / "data" / "nccl"
LOGS = {p.name: p.read_text(encoding="utf-8") for p in DATA.glob("*.log")}
TWO = "allreduce_h100_2nodes_nccl-tests-309.log"
FOUR = "allreduce_h100_4nodes_nccl-tests-309.log"
EIGHT = "allreduce_h100_8nodes_nccl-tests-309.log"
A2A = "alltoall_h20_2nodes_roce_nccl-tests-321.log"
OCI = "allreduce_a100_2nodes_oci-hpc-oke.log"
OLD = "allreduce_256gpus_nccl2.8_nccl-tests-78.log"


# ------------------------------------------------------------------------------ real logs: parse

# what each log says, read off the files by eye: collective, ranks, hosts, GPU name, NCCL version,
# rows (size > 0), first and last size [B], first row's out-of-place time [µs]
EXPECTED = {
    TWO: ("all_reduce", 16, 2, "NVIDIA H100 80GB HBM3", "2.26.2", 32, 8, 17179869184, 68.52),
    FOUR: ("all_reduce", 32, 4, "NVIDIA H100 80GB HBM3", "2.26.2", 32, 8, 17179869184, 83.42),
    EIGHT: ("all_reduce", 64, 8, "NVIDIA H100 80GB HBM3", None, 14, 1048576, 8589934592, 117.0),
    A2A: ("alltoall", 4, 2, "NVIDIA H20-3e", "2.26.5", 13, 1048576, 4294967296, 52.94),
    OCI: ("all_reduce", 16, 2, "NVIDIA A100-SXM4-40GB", None, 31, 8, 8589934592, 36.47),
    OLD: ("all_reduce", None, None, None, "2.8.4", 6, 33554432, 1073741824, 1464.2),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_logs_are_read_with_their_ranks_hosts_and_rows(name):
    coll, ranks, hosts, gpu, version, n_rows, first, last, t0 = EXPECTED[name]
    log = nt.parse(LOGS[name])
    assert (log.collective, log.ranks, log.hosts, log.gpu, log.nccl_version) == (coll, ranks, hosts, gpu, version)
    assert len(log.rows) == n_rows
    assert (log.rows[0].size, log.rows[-1].size) == (first, last)
    assert log.rows[0].time_us == t0  # the out-of-place column, not the in-place one beside it
    assert log.placement == "out-of-place"


def test_the_summary_names_collective_ranks_hosts_version_and_gpu():
    assert nt.parse(LOGS[FOUR]).summary == "all_reduce_perf · 32 ranks on 4 hosts · NCCL 2.26.2 · H100"
    assert nt.parse(LOGS[A2A]).summary == "alltoall_perf · 4 ranks on 2 hosts · NCCL 2.26.5 · H20-3e"


def test_the_bus_factor_is_the_logs_own_busbw_over_algbw():
    # all-reduce on n ranks: 2(n-1)/n; alltoall: (n-1)/n (nccl-tests doc/PERFORMANCE.md)
    assert nt.parse(LOGS[FOUR]).bus_factor == pytest.approx(2 * 31 / 32, rel=0.01)
    assert nt.parse(LOGS[A2A]).bus_factor == pytest.approx(3 / 4, rel=0.01)
    assert nt.parse(LOGS[OLD]).bus_factor == pytest.approx(2 * 255 / 256, rel=0.01)


def test_mpi_tags_crlf_and_a_byte_order_mark_read_the_same():
    plain = nt.parse(LOGS[FOUR])
    tagged = "\ufeff" + "\r\n".join("[1,0]<stdout>:" + line for line in LOGS[FOUR].splitlines())
    log = nt.parse(tagged.encode("utf-8"))
    assert (log.ranks, log.hosts, log.nccl_version, log.rows) == (plain.ranks, plain.hosts, plain.nccl_version,
                                                                  plain.rows)


def test_old_format_without_rank_lines_says_the_host_count_is_unknown():
    log = nt.parse(LOGS[OLD])
    assert "nccl_note_no_rank_lines" in [n.code for n in log.notes]
    assert [r.wrong for r in log.rows] == [None] * 6  # the "error" column is not a count of wrong values


# -------------------------------------------------------------------------------- real logs: fit

# largest-size busbw [GB/s] of each log's out-of-place column, read off the files
LARGEST_BUSBW = {TWO: 469.21, FOUR: 365.84, EIGHT: 320.70, A2A: 50.25}


@pytest.mark.parametrize("name", sorted(LARGEST_BUSBW))
def test_the_fit_recovers_the_large_message_busbw_of_real_logs(name):
    fit = nt.fit(nt.parse(LOGS[name]))
    assert fit.busbw_GBps == pytest.approx(LARGEST_BUSBW[name], rel=0.03)
    assert fit.busbw_max_GBps == pytest.approx(max(LARGEST_BUSBW[name], fit.busbw_max_GBps))
    assert 0 < fit.alpha_us < 200 and fit.rows_used == len(fit.log.rows)


def test_latency_of_a_full_sweep_sits_on_its_small_message_times():
    # the 4-node run's 8 B .. 512 KiB rows take 34.6-72.9 µs (outliers 83.4 and 107.5 µs aside)
    fit = nt.fit(nt.parse(LOGS[FOUR]))
    assert 34 <= fit.alpha_us <= 60
    small = [r.time_us for r in fit.log.rows if r.size <= 4096]
    assert min(small) - 1 <= fit.alpha_us <= np.median(small) + 10


def test_a_stray_slow_row_does_not_move_the_latency():
    # the 8-node log's 8 MiB row took 1272 µs (6.6 GB/s) between rows of 204 and 378 µs
    fit = nt.fit(nt.parse(LOGS[EIGHT]))
    assert fit.alpha_us < 117.0  # below the smallest row's time, not pulled up towards 1272 µs


def test_two_node_all_reduce_warns_that_tree_or_nvls_overstates_the_network():
    codes = {w.code for w in nt.fit(nt.parse(LOGS[TWO])).warnings}
    assert "nccl_note_two_nodes_tree" in codes
    message = next(w.message for w in nt.fit(nt.parse(LOGS[TWO])).warnings if w.code == "nccl_note_two_nodes_tree")
    assert "NCCL_ALGO=Ring" in message and "#196" in message
    for name in (FOUR, EIGHT):
        assert not {w.code for w in nt.fit(nt.parse(LOGS[name])).warnings} & {"nccl_note_two_nodes_tree",
                                                                                 "nccl_note_single_node"}


def test_two_nodes_with_ring_forced_are_not_flagged_as_tree():
    ring = LOGS[TWO].replace("-x NCCL_DEBUG=VERSION", "-x NCCL_ALGO=Ring -x NCCL_DEBUG=VERSION")
    log = nt.parse(ring)
    assert log.algorithm == "ring"
    assert "nccl_note_two_nodes_tree" not in {w.code for w in nt.fit(log).warnings}


def test_two_node_alltoall_warns_about_nvlink_peers():
    assert "nccl_note_two_nodes_nvlink" in {w.code for w in nt.fit(nt.parse(LOGS[A2A])).warnings}


def test_a_single_node_log_is_flagged_as_measuring_nvlink():
    one = LOGS[TWO].replace("bm-h100-02", "bm-h100-01")
    log = nt.parse(one)
    assert log.hosts == 1
    assert "nccl_note_single_node" in {w.code for w in nt.fit(log).warnings}


def test_to_dict_is_json_safe_and_carries_what_a_scenario_stores():
    fit = nt.fit(nt.parse(LOGS[FOUR]))
    d = json.loads(json.dumps(fit.to_dict(), allow_nan=False))
    assert {"collective", "ranks", "hosts", "gpu", "nccl_version", "alpha_us", "busbw_GBps", "summary"} <= set(d)
    assert (d["collective"], d["ranks"], d["hosts"]) == ("all_reduce", 32, 4)
    assert d["summary"] == fit.summary and d["busbw_GBps"] == pytest.approx(fit.busbw_GBps, abs=1e-3)


def test_efficiency_of_4_nodes_with_8_ndr_nics_each():
    # nccl-tests #309: 8 x CX-7 400G per HGX node; ring busbw is bounded by the node's 8 x 50 GB/s
    fit = nt.fit(nt.parse(LOGS[FOUR]))
    assert nt.efficiency(fit, 400, 8, 8) == pytest.approx(365.84 / 400, rel=0.03)
    # the same NICs shared by 16 GPUs: per-GPU busbw and per-GPU line rate both halve
    assert nt.efficiency(fit, 400, 8, 16) == pytest.approx(nt.efficiency(fit, 400, 8, 8))
    assert nt.efficiency(fit, 200, 8, 8) == pytest.approx(2 * nt.efficiency(fit, 400, 8, 8))


def test_alltoall_efficiency_is_the_network_share_against_one_nic_per_gpu():
    fit = nt.fit(nt.parse(LOGS[A2A]))  # 4 ranks on 2 hosts: (4 − 2)/(4 − 1) of busbw crossed the network
    net = fit.busbw_GBps * 2 / 3
    assert nt.efficiency(fit, 400, 8, 8) == pytest.approx(net / 50)
    assert nt.efficiency(fit, 400, 4, 8) == pytest.approx(net / 25)  # half a NIC per GPU
    assert nt.efficiency(fit, 400, 16, 8) == pytest.approx(net / 50)  # alltoall uses one NIC per peer


@pytest.mark.parametrize("args", [(0, 8, 8), (400, -1, 8), (400, 8, float("nan")), ("400", 8, 8), (True, 8, 8)])
def test_efficiency_refuses_non_positive_hardware(args):
    fit = nt.fit(nt.parse(LOGS[FOUR]))
    with pytest.raises(InputError):
        nt.efficiency(fit, *args)


# -------------------------------------------------------------------------- synthetic α–β logs

def synthetic_log(alpha_us: float, busbw: float, ranks: int, hosts: int, *, noise: float = 0.0, seed: int = 0,
                  collective: str = "all_reduce", header: bool = True, sizes=None) -> str:
    """The text nccl-tests would print for an exact α–β fabric (times × lognormal noise)."""
    rng = np.random.default_rng(seed)
    factor = {"all_reduce": 2 * (ranks - 1) / ranks, "alltoall": (ranks - 1) / ranks,
              "all_gather": (ranks - 1) / ranks}[collective]
    redop = "sum" if collective == "all_reduce" else "none"
    sizes = [8 << k for k in range(31)] if sizes is None else sizes  # 8 B .. 8 GiB
    out = []
    if header:
        out += ["# nccl-tests version 2.18.3 nccl-headers=23003 nccl-library=23003",
                f"# Collective test starting: {collective}_perf",
                "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
                "agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
        per = ranks // hosts
        out += [f"#  Rank {r:2d} Group  0 Pid {1000 + r:6d} on node{r // per:03d} device  {r % per} [0x{r:02x}] "
                "NVIDIA H100 80GB HBM3" for r in range(ranks)]
    out += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
            "algbw   busbw #wrong", "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
            "            (us)  (GB/s)  (GB/s)"]
    for s in sizes:
        cells = []
        for _ in range(2):
            t = (alpha_us + s * factor / (busbw * 1e3)) * float(np.exp(rng.normal(0, noise)))
            shown = f"{t:7.0f}" if t >= 10000 else f"{t:7.1f}" if t >= 100 else f"{t:7.2f}"
            a = s / float(shown) / 1e3
            cells.append(f"{shown} {a:7.2f} {a * factor:7.2f}      0")
        out.append(f"{s:12d}  {s // 4:12d}     float    {redop}      -1  " + "  ".join(cells))
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 1.0", "#"]
    return "\n".join(out)


def test_an_exact_synthetic_log_is_recovered():
    fit = nt.fit(nt.parse(synthetic_log(25.0, 380.0, 32, 4)))
    assert fit.busbw_GBps == pytest.approx(380.0, rel=0.005)
    assert fit.alpha_us == pytest.approx(25.0, rel=0.01)
    assert fit.rel_rms < 0.01 and not fit.warnings
    factor = 2 * 31 / 32
    assert fit.time_us([8, 1 << 30]) == pytest.approx([25.0 + 8 * factor / 380e3, 25.0 + (1 << 30) * factor / 380e3],
                                                      rel=0.01)


def test_a_noisy_synthetic_log_is_recovered_within_tolerance():
    fit = nt.fit(nt.parse(synthetic_log(40.0, 190.0, 64, 8, noise=0.05, seed=3)))
    assert fit.busbw_GBps == pytest.approx(190.0, rel=0.04)
    assert fit.alpha_us == pytest.approx(40.0, rel=0.1)


@settings(max_examples=60, deadline=None)
@given(alpha=st.floats(2.0, 300.0), busbw=st.floats(1.0, 900.0), hosts=st.integers(3, 64),
       per_host=st.sampled_from([1, 2, 4, 8]), noise=st.floats(0.0, 0.03), seed=st.integers(0, 2**31 - 1),
       collective=st.sampled_from(["all_reduce", "alltoall", "all_gather"]))
def test_any_alpha_beta_fabric_is_recovered(alpha, busbw, hosts, per_host, noise, seed, collective):
    ranks = hosts * per_host
    log = nt.parse(synthetic_log(alpha, busbw, ranks, hosts, noise=noise, seed=seed, collective=collective))
    fit = nt.fit(log)
    assert (log.collective, log.ranks, log.hosts, log.nccl_version) == (collective, ranks, hosts, "2.30.3")
    assert fit.busbw_GBps == pytest.approx(busbw, rel=0.03 + 2 * noise)
    assert fit.alpha_us == pytest.approx(alpha, rel=0.05 + 3 * noise, abs=0.05)


def test_collective_is_inferred_from_the_columns_or_taken_from_the_users_choice():
    bare = synthetic_log(20, 100, 16, 4, header=False)
    assert nt.parse(bare).collective == "all_reduce"  # a reduction with busbw/algbw ≈ 2(n-1)/n
    a2a = synthetic_log(20, 50, 16, 4, header=False, collective="alltoall")
    assert nt.parse(a2a).collective is None  # alltoall and all_gather print the same columns
    assert nt.parse(a2a, collective="alltoall_perf").collective == "alltoall"
    named = nt.parse(synthetic_log(20, 50, 16, 4, collective="alltoall"), collective="all_reduce")
    assert named.collective == "alltoall"  # the log's own name wins, with a note
    assert "nccl_note_collective_differs" in {n.code for n in named.notes}


def test_the_first_of_several_runs_is_read():
    log = nt.parse(LOGS[TWO] + "\n" + LOGS[FOUR])
    assert (log.ranks, log.hosts, len(log.rows)) == (16, 2, 32)
    assert "nccl_note_several_tables" in {n.code for n in log.notes}


def test_rows_with_wrong_results_are_left_out():
    bad = re.sub(r"(1073741824 +268435456 +float +sum +-1 +\S+ +\S+ +\S+) +0 ", r"\1      3 ", LOGS[FOUR])
    assert bad != LOGS[FOUR]
    log = nt.parse(bad)
    assert len(log.rows) == 31 and 1073741824 not in [r.size for r in log.rows]
    assert "nccl_note_wrong_rows" in {n.code for n in log.notes}


def test_few_rows_are_flagged():
    log = nt.parse(synthetic_log(20, 100, 16, 4, sizes=[1 << 20, 1 << 24, 1 << 28, 1 << 32]))
    assert "nccl_note_few_rows" in {w.code for w in nt.fit(log).warnings}


# ---------------------------------------------------------------------------------------- refusals

def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\s+\d+\s+\d+\s+float", line)]


def refusals():
    limit = nt.settings()["max_log_bytes"]
    rows = table_rows(LOGS[FOUR])
    head = LOGS[FOUR].split(rows[0])[0]
    scrambled = head + "\n".join(re.sub(r"(float +sum +-1 +\S+) +\S+", r"\1    9.99", r) for r in rows)
    return {
        "empty": ("", "nccl_log_empty"),
        "blank": ("  \r\n\t \n", "nccl_log_empty"),
        "huge": (LOGS[FOUR] * (limit // len(LOGS[FOUR]) + 1), "nccl_log_too_large"),
        "html": ("<!DOCTYPE html><html><head><title>Issue #309</title></head><body><pre>"
                 "all_reduce_perf results attached as screenshot</pre></body></html>", "nccl_log_no_table"),
        "csv": ("size,time_us,algbw,busbw\n8,30.1,0,0\n1048576,80.2,13.1,25.4\n1073741824,5800,185,358\n",
                "nccl_log_no_table"),
        "garbage": ("lorem ipsum dolor sit amet\n42 is the answer\n", "nccl_log_no_table"),
        "json": ('{"size": [8, 16], "busbw": [0.1, 0.2]}', "nccl_log_no_table"),
        "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "nccl_log_not_text"),
        "latin1": ("# nThread 1 größe".encode("latin-1"), "nccl_log_not_text"),
        "nul": (LOGS[FOUR][:200] + "\x00", "nccl_log_not_text"),
        "header only": (head, "nccl_log_no_table"),
        "two rows": (head + "\n".join(rows[-2:]), "nccl_log_few_rows"),
        "all wrong": (re.sub(r"(float +sum +-1 +\S+ +\S+ +\S+) +0 ", r"\1      1 ", LOGS[FOUR]), "nccl_log_few_rows"),
        "sizes shuffled": (head + "\n".join(rows[::-1]), "nccl_log_not_increasing"),
        "algbw made up": (scrambled, "nccl_log_inconsistent"),
        "not a number": (head + "\n".join(re.sub(r"(float +sum +-1) +\S+ (.*?0) +\S+ ", r"\1    nan \2    inf ", r)
                                         for r in rows), "nccl_log_no_rows"),
        "shifted columns": (head + "\n".join(r.replace("float", "float  x") for r in rows), "nccl_log_few_rows"),
        "tiny sizes only": (synthetic_log(20, 100, 16, 4, sizes=[8, 16, 32, 64]), "nccl_log_no_bandwidth"),
    }


@pytest.mark.parametrize("case", sorted(refusals()))
def test_unreadable_logs_get_one_clear_error_naming_the_field(case):
    text, code = refusals()[case]
    with pytest.raises(NcclLogError) as err:
        nt.fit(nt.parse(text))
    e = err.value
    assert isinstance(e, CodedError) and isinstance(e, ValueError)
    assert e.code == code, (case, str(e))
    assert e.field == "nccl_log" and "all_reduce_perf" in e.allowed
    assert str(e).startswith("nccl_log: ") and "\n" not in str(e)


def test_the_no_table_error_says_what_was_expected_and_what_it_looks_like():
    text, _ = refusals()["html"]
    with pytest.raises(NcclLogError) as err:
        nt.parse(text)
    assert "no nccl-tests result table found" in str(err.value) and "busbw" in str(err.value)
    assert err.value.values["hint"] == "html"
    with pytest.raises(NcclLogError) as err:
        nt.parse(refusals()["csv"][0])
    assert err.value.values["hint"] == "csv"


def test_the_size_limit_comes_from_the_data_file():
    limit = nt.settings()["max_log_bytes"]
    text = LOGS[FOUR] + "#" * (limit - len(LOGS[FOUR].encode("utf-8")))
    assert nt.parse(text).ranks == 32  # exactly at the limit: read
    with pytest.raises(NcclLogError) as err:
        nt.parse(text + "#")
    assert err.value.values == {"size": limit + 1, "limit": limit}


@pytest.mark.parametrize("name", ["broadcast", "all_reduce; rm -rf /", ""])
def test_an_unknown_collective_is_refused(name):
    with pytest.raises(NcclLogError) as err:
        nt.parse(LOGS[FOUR], collective=name or " ")
    assert err.value.code == "nccl_log_collective"


def test_a_broadcast_log_is_refused_by_name():
    with pytest.raises(NcclLogError) as err:
        nt.parse(LOGS[FOUR].replace("all_reduce_perf_mpi", "broadcast_perf"))
    assert err.value.code == "nccl_log_collective" and "broadcast" in str(err.value)


def test_in_place_printed_first_is_still_read_as_out_of_place():
    # microsoft/mscclpp #114 prints "in-place ... out-of-place" over its columns
    text = synthetic_log(20, 100, 16, 4).replace("#       size", "#   in-place     out-of-place\n#       size", 1)
    rows = table_rows(text)
    swapped = [re.sub(r"(-1\s+)(\S+ +\S+ +\S+ +0)(\s+)(\S+ +\S+ +\S+ +0)", r"\1\4\3\2", r) for r in rows]
    swapped[0] = re.sub(r"(-1\s+)\S+", r"\g<1>9999.0", swapped[0])  # only the in-place time of row 0 is odd
    log = nt.parse(text.replace("\n".join(rows), "\n".join(swapped)))
    assert log.placement == "out-of-place"
    assert [r.time_us for r in log.rows] == [r.time_us for r in nt.parse(text).rows]


def test_a_sweep_that_stops_while_busbw_still_rises_is_flagged():
    sizes = [8 << k for k in range(20)]  # 8 B .. 4 MiB: busbw is still far below the fabric's 400 GB/s
    fit = nt.fit(nt.parse(synthetic_log(50, 400, 32, 4, sizes=sizes)))
    assert fit.busbw_max_GBps < 0.5 * 400
    assert "nccl_note_extrapolated" in {w.code for w in fit.warnings}
