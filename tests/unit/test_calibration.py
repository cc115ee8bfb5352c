"""Calibration in the model: a fabric's nccl-tests measurement (scenario.measurements) sets its efficiency
(no loss model, range collapsed) and NCCL latency; removing it restores the catalog; share links and
JSON files carry it (costmodel/physics/calibration.py, docs/calibration.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import costmodel
from costmodel.analysis.uncertainty import _draw
from costmodel.errors import NcclLogError, ScenarioError
from costmodel.physics import calibration, nccl_tests
from costmodel.physics.performance import LOSS_NONE
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import broadcast_inputs
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import Scenario
from store import documents
from webui.session import share

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"


def synthetic_log(busbw_GBps: float, alpha_us: float, hosts: int = 4, gpus: int = 8) -> str:
    """An all_reduce_perf run (8 B … 8 GiB) of ``hosts`` × ``gpus`` ranks whose times follow
    ``α + size·2(n−1)/n / busbw``, printed as nccl-tests prints them."""
    n = hosts * gpus
    factor = 2 * (n - 1) / n
    lines = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
             "agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    lines += [f"#  Rank {r:2d} Group  0 Pid {1000 + r:6d} on {f'node{r // gpus:02d}':>10} device {r % gpus:2d} "
              f"[0000:04:00] NVIDIA H100 80GB HBM3" for r in range(n)]
    lines += ["NCCL version 2.26.2+cuda12.8", "#",
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
              "   busbw #wrong"]
    for k in range(3, 34):
        size = 2 ** k
        t = alpha_us + size * factor / (busbw_GBps * 1e3)
        algbw = size / t / 1e3
        cols = f"{t:8.2f} {algbw:7.2f} {algbw * factor:7.2f}      0"
        lines.append(f"{size:12d} {size // 4:13d}     float     sum      -1 {cols} {cols}")
    return "\n".join(["# collective: all_reduce_perf -b 8 -e 8G -f 2", *lines, "# Avg bus bandwidth    : 1.0"])


def measured(text: str) -> dict:
    return calibration.measurement(nccl_tests.fit(nccl_tests.parse(text)))


def rail_scenario(**changes) -> Scenario:
    """8 H100 and 8 NICs per node, the four default fabrics."""
    s = Scenario()
    s = with_change(s, "cluster.gpu", "h100").scenario
    s = with_change(s, "cluster.nics_per_node", 8).scenario
    for path, value in changes.items():
        s = with_change(s, path, value).scenario
    return s


def column(built, fid: str) -> int:
    return built.structure.fabric_ids.index(fid)


def test_48_GBps_per_400G_nic_gives_an_efficiency_of_0_96_and_its_latency():
    s = rail_scenario()
    doc = measured(synthetic_log(busbw_GBps=8 * 48.0, alpha_us=30.0))  # 48 GB/s per 400G NIC
    built = build(with_change(s, "measurements", {"ib-ndr-400": doc}).scenario)
    j = column(built, "ib-ndr-400")
    assert built.inputs.efficiency[0, j] == pytest.approx(48.0 / 50.0, abs=0.005)
    assert built.inputs.measured_alpha_s[0, j] == pytest.approx(30e-6, rel=0.02)
    assert built.inputs.loss_model[0, j] == LOSS_NONE
    others = [k for k in range(len(s.fabrics)) if k != j]
    assert np.isnan(built.inputs.measured_alpha_s[0, others]).all()
    assert built.structure.measured[j] == doc["summary"] and built.structure.measured[others[0]] is None


def test_the_result_labels_the_measured_fabric_and_uses_its_latency():
    s = rail_scenario()
    doc = measured(synthetic_log(busbw_GBps=384.0, alpha_us=30.0))
    res = costmodel.evaluate(with_change(s, "measurements", {"ib-ndr-400": doc}).scenario)
    ib = res.fabric("ib-ndr-400")
    assert ib.measured == "all_reduce_perf · 32 ranks on 4 hosts · NCCL 2.26.2 · H100"
    assert ib.to_dict()["measured"] == ib.measured
    plain = costmodel.evaluate(s).fabric("ib-ndr-400")
    # α of a collective = NCCL base + fabric latency: the base moved from the catalog's to the measured
    # collective's latency less the min(2·3, 2·⌈log2 4⌉) = 4 steps across its 4 hosts the model adds itself
    cat = costmodel.catalog.loader.load_catalog()
    base_us = cat.model["nccl_base_latency_us"].typical
    step_us = max(cat.model["nccl_net_step_latency_us"].typical, ib.metrics["latency_us"] - base_us)
    own_us = max(0.0, doc["alpha_us"] - 4 * step_us)
    assert ib.metrics["latency_us"] - plain.metrics["latency_us"] == pytest.approx(own_us - base_us)
    assert all(f.measured is None for f in res.fabrics if f.id != "ib-ndr-400")


def test_a_slow_tcp_measurement_slows_the_fabric_and_removing_it_restores_the_catalog():
    s = rail_scenario()
    doc = measured(synthetic_log(busbw_GBps=5.0, alpha_us=300.0))  # 5 GB/s over 8 × 100G
    with_log = with_change(s, "measurements", {"tcp-100": doc}).scenario
    built = build(with_log)
    j = column(built, "tcp-100")
    assert built.inputs.efficiency[0, j] == pytest.approx(5.0 / (8 * 12.5), rel=0.01)
    before, after = costmodel.evaluate(s), costmodel.evaluate(with_log)
    assert after.fabric("tcp-100").metrics["run_days"] > 1.5 * before.fabric("tcp-100").metrics["run_days"]
    assert after.fabric("ib-ndr-400").tco_total == before.fabric("ib-ndr-400").tco_total
    removed = with_change(with_log, "measurements", {}).scenario
    assert removed == s
    assert costmodel.evaluate(removed).to_dict() == before.to_dict()


def test_monte_carlo_draws_neither_the_measured_efficiency_nor_the_measured_latency():
    s = rail_scenario()
    doc = measured(synthetic_log(busbw_GBps=384.0, alpha_us=30.0))
    built = build(with_change(s, "measurements", {"ib-ndr-400": doc}).scenario)
    j = column(built, "ib-ndr-400")
    drawn = _draw(built.uncertain, 400, np.random.default_rng(3))
    eff = drawn["efficiency"]
    assert np.all(eff[:, j] == built.inputs.efficiency[0, j])
    assert np.ptp(eff[:, column(built, "roce-200")]) > 0  # the catalog's fabrics are still drawn
    from costmodel.physics.performance import allreduce_steps
    from costmodel.pipeline.stages.step_time import base_latency

    p = broadcast_inputs(built.inputs.replace(**drawn))
    step = np.full_like(p.nccl_base_latency_s, 6.6e-6)
    base = base_latency(p, step)
    own = doc["alpha_us"] * 1e-6 - allreduce_steps(np.array(float(doc["hosts"] or 2))) * 6.6e-6
    assert np.all(base[:, j] == pytest.approx(max(0.0, float(own))))  # measured, less the model's own steps
    assert np.ptp(base[:, column(built, "roce-200")]) > 0
    mc = costmodel.monte_carlo(with_change(s, "measurements", {"ib-ndr-400": doc}).scenario, draws=200, seed=1)
    assert mc.tco.shape == (200, len(s.fabrics)) and np.isfinite(mc.tco).all()


def test_a_measured_efficiency_above_the_line_rate_is_held_at_one():
    s = rail_scenario(**{"cluster.nics_per_node": 1})
    doc = measured((DATA / "allreduce_h100_4nodes_nccl-tests-309.log").read_text())  # 8 NICs measured, 1 here
    built = build(with_change(s, "measurements", {"ib-ndr-400": doc}).scenario)
    assert built.inputs.efficiency[0, column(built, "ib-ndr-400")] == 1.0


def test_alltoall_and_unknown_collectives_are_refused_with_a_message_saying_why():
    fit = nccl_tests.fit(nccl_tests.parse((DATA / "alltoall_h20_2nodes_roce_nccl-tests-321.log").read_text()))
    with pytest.raises(NcclLogError) as err:
        calibration.measurement(fit)
    assert err.value.code == "nccl_log_not_ring" and err.value.field == "nccl_log"
    assert "alltoall" in str(err.value) and "all_reduce" in str(err.value)
    no_name = "\n".join(line for line in synthetic_log(384.0, 30.0).splitlines() if "perf" not in line)
    no_name = no_name.replace("     sum ", "    none ")  # columns of all-gather / alltoall: no reduction
    with pytest.raises(NcclLogError) as err:
        calibration.measurement(nccl_tests.fit(nccl_tests.parse(no_name)))
    assert err.value.code == "nccl_log_collective_unknown"
    chosen = calibration.measurement(nccl_tests.fit(nccl_tests.parse(no_name, "all_gather")))
    assert chosen["collective"] == "all_gather"


def test_a_measurement_must_belong_to_a_compared_fabric_and_goes_when_its_fabric_does():
    s = rail_scenario()
    doc = measured(synthetic_log(384.0, 30.0))
    doc_json = s.model_dump(mode="json") | {"fabrics": ["tcp-100", "roce-200"], "baseline": "tcp-100",
                                            "measurements": {"ib-ndr-400": doc}}
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario.validation.validate_scenario(doc_json)
    assert err.value.details[0]["path"] == "measurements.ib-ndr-400"
    assert err.value.details[0]["code"] == "measurement_not_compared"
    with_log = with_change(s, "measurements", {"ib-ndr-400": doc}).scenario
    done = with_change(with_log, "fabrics", ["tcp-100", "roce-200"])
    assert "measurements" in done.repaired and done.scenario.measurements == {}


@pytest.mark.parametrize("field, value", [("busbw_GBps", 0.0), ("alpha_us", -1.0), ("alpha_us", 2e5),
                                          ("collective", "alltoall"), ("warnings", ["<script>"]),
                                          ("summary", "a\nb"), ("log", "raw text")])
def test_a_measurement_out_of_its_bounds_is_refused_naming_the_field(field, value):
    doc = measured(synthetic_log(384.0, 30.0)) | {field: value}
    with pytest.raises(ScenarioError) as err:
        with_change(rail_scenario(), "measurements", {"ib-ndr-400": doc})
    assert err.value.details[0]["path"].startswith("measurements.ib-ndr-400")
    assert field in str(err.value)


def test_a_measured_scenario_round_trips_through_a_share_link_and_a_json_file():
    s = costmodel.load_preset("seed-intro-32xA100")
    doc = measured((DATA / "allreduce_h100_8nodes_nccl-tests-309.log").read_text())
    fid = s.fabrics[-1]
    with_log = with_change(s, "measurements", {fid: doc}).scenario
    token = share.encode(with_log, "seed-intro-32xA100")
    assert share.decode("seed-intro-32xA100", token) == with_log
    again = documents.import_scenario(documents.export_scenario(with_log))
    assert again == with_log and again.measurements[fid].summary == doc["summary"]
    assert costmodel.evaluate(again).fabric(fid).measured == doc["summary"]
    assert len(documents.export_scenario(with_log)) - len(documents.export_scenario(s)) < 1500  # the fit, not the log
