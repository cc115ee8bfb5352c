"""The all-to-all calibration slot (scenario.alltoall_measurements): an alltoall_perf log sets the fabric's
all-to-all efficiency from the network's share of its busbw, the model uses it for the mixture-of-experts
all-to-all, bad logs get coded refusals in en and zh, and older scenarios open unchanged."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from zh_words import latin_words

import costmodel
from costmodel.analysis.uncertainty import _draw
from costmodel.errors import NcclLogError, ScenarioError
from costmodel.physics import calibration, nccl_tests
from costmodel.pipeline.inputs import build
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import Scenario
from store import documents
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.session import share

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
#: alltoall_perf, 4 × H20-3e on 2 VMs over RoCE, NCCL 2.26.5: https://github.com/NVIDIA/nccl-tests/issues/321
A2A_LOG = (DATA / "alltoall_h20_2nodes_roce_nccl-tests-321.log").read_text()
AR_LOG = (DATA / "allreduce_h100_4nodes_nccl-tests-309.log").read_text()
FID = "ib-ndr-400"
SUMMARY = "alltoall_perf · 4 ranks on 2 hosts · NCCL 2.26.5 · H20-3e"


def table(text: str) -> list[list[str]]:
    """The result rows of a plain nccl-tests log (size first), read here independently of the importer."""
    return [line.split() for line in text.splitlines() if re.match(r"^\s+\d+\s+\d+\s+float\s", line)]


def ranks_and_hosts(text: str) -> tuple[int, int]:
    rank_lines = re.findall(r"#\s+Rank\s+(\d+)\s.*?\bon\s+(\S+)", text)
    return len(rank_lines), len({host for _, host in rank_lines})


def expected_efficiency(text: str, port_gbps: float, nics: float, gpus: float) -> float:
    """busbw at large sizes (the median of the out-of-place rows within 10 % of the largest) times the share
    that crossed the network, (n − g)/(n − 1), over one GPU's NIC line rate."""
    busbw = [float(row[7]) for row in table(text)]
    large = [b for b in busbw if b >= 0.9 * max(busbw)]
    n, hosts = ranks_and_hosts(text)
    g = n / hosts
    return statistics.median(large) * (n - g) / (n - 1) / (port_gbps / 8 * min(1.0, nics / gpus))


def moe_scenario(**changes) -> Scenario:
    """8 H100 and 8 × 400G NICs per node, a 671 B mixture of experts (256 experts, top 8, 37 B active)."""
    s = Scenario()
    for path, value in {"cluster.gpu": "h100", "cluster.nics_per_node": 8, "workload.model_params_b": 671,
                        "workload.experts": 256, "workload.top_k": 8, "workload.active_params_b": 37,
                        **changes}.items():
        s = with_change(s, path, value).scenario
    return s


def a2a_doc(text: str = A2A_LOG) -> dict:
    return calibration.alltoall_measurement(nccl_tests.fit(nccl_tests.parse(text)))


def column(built, fid: str) -> int:
    return built.structure.fabric_ids.index(fid)


def test_the_network_share_of_alltoall_busbw():
    # nccl-tests #130: on 2 nodes of 8 GPUs busbw is about twice the network bandwidth per GPU
    assert nccl_tests.alltoall_network_share(16, 2) == pytest.approx(8 / 15)
    assert nccl_tests.alltoall_network_share(4, 2) == pytest.approx(2 / 3)
    assert nccl_tests.alltoall_network_share(8, 1) == 0.0  # one host: nothing crosses the network
    assert nccl_tests.alltoall_network_share(64, 64) == 1.0  # one GPU per node: all of it
    assert nccl_tests.alltoall_network_share(1024, 128) == pytest.approx(1016 / 1023)


def test_a_real_alltoall_log_gives_the_efficiency_its_rows_give():
    doc = a2a_doc()
    assert (doc["collective"], doc["ranks"], doc["hosts"], doc["summary"]) == ("alltoall", 4, 2, SUMMARY)
    s = moe_scenario()
    m = with_change(s, "alltoall_measurements", {FID: doc}).scenario.alltoall_measurements[FID]
    want = expected_efficiency(A2A_LOG, 400, 8, 8)  # ≈ 49.6 GB/s · 2/3 over 50 GB/s
    assert 0.6 < want < 0.7
    assert calibration.alltoall_efficiency(m, 400, 8, 8) == pytest.approx(want, rel=0.02)
    # half a NIC per GPU halves the line rate one GPU reaches; more NICs than GPUs do not add any
    assert calibration.alltoall_efficiency(m, 400, 4, 8) == pytest.approx(min(1.0, 2 * want), rel=0.02)
    assert calibration.alltoall_efficiency(m, 400, 16, 8) == pytest.approx(want, rel=0.02)
    # the importer's preview gives the same figure
    fit = nccl_tests.fit(nccl_tests.parse(A2A_LOG))
    assert nccl_tests.efficiency(fit, 400, 8, 8) == pytest.approx(want, rel=0.02)


def test_the_model_uses_the_measured_alltoall_efficiency_for_the_experts_all_to_all():
    s = moe_scenario()
    doc = a2a_doc()
    measured = with_change(s, "alltoall_measurements", {FID: doc}).scenario
    built, plain = build(measured), build(s)
    j = column(built, FID)
    want = expected_efficiency(A2A_LOG, 400, 8, 8)
    assert built.inputs.a2a_efficiency[0, j] == pytest.approx(want, rel=0.02)
    assert built.inputs.a2a_efficiency[0, j] != plain.inputs.a2a_efficiency[0, j]
    others = [k for k in range(len(s.fabrics)) if k != j]
    assert np.array_equal(built.inputs.a2a_efficiency[0, others], plain.inputs.a2a_efficiency[0, others])
    assert np.array_equal(built.inputs.efficiency, plain.inputs.efficiency)  # the ring efficiency stays
    assert np.array_equal(built.inputs.measured_alpha_s, plain.inputs.measured_alpha_s, equal_nan=True)
    # the same step time as the catalog's all-to-all efficiency overridden with the measured figure
    eta = float(built.inputs.a2a_efficiency[0, j])
    same = with_change(s, "overrides.fabrics", {FID: {"alltoall_efficiency": eta}}).scenario
    got = costmodel.evaluate(measured).fabric(FID)
    assert got.metrics["step_time_s"] == pytest.approx(costmodel.evaluate(same).fabric(FID).metrics["step_time_s"],
                                                       rel=1e-12)
    before = costmodel.evaluate(s).fabric(FID)
    assert eta < plain.inputs.a2a_efficiency[0, j]  # 0.67 measured below the catalog's 0.88: slower
    assert got.metrics["comm_time_s"] > before.metrics["comm_time_s"]
    assert got.metrics["step_time_s"] > before.metrics["step_time_s"]
    assert got.measured_alltoall == SUMMARY and got.measured is None
    assert got.to_dict()["measured_alltoall"] == SUMMARY
    # Monte Carlo leaves the measured column alone and still draws the others
    drawn = _draw(built.uncertain, 300, np.random.default_rng(5))["a2a_efficiency"]
    assert np.all(drawn[:, j] == eta) and np.ptp(drawn[:, column(built, "roce-200")]) > 0


def test_a_dense_model_does_not_move():
    s = moe_scenario(**{"workload.experts": None, "workload.top_k": 2, "workload.active_params_b": None})
    measured = with_change(s, "alltoall_measurements", {FID: a2a_doc()}).scenario
    assert costmodel.evaluate(measured).fabric(FID).metrics == costmodel.evaluate(s).fabric(FID).metrics


def one_host(text: str) -> str:
    return re.sub(r"(Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on)\s+\S+", r"\1 vm-host40", text)


def no_rank_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "Rank " not in line)


@pytest.mark.parametrize("text, code", [
    (AR_LOG, "nccl_log_not_alltoall"),  # an all_reduce_perf log in the all-to-all slot
    (one_host(A2A_LOG), "nccl_log_alltoall_hosts"),  # one host: NVLink, not the fabric
    (no_rank_lines(A2A_LOG), "nccl_log_alltoall_hosts"),  # no Rank lines: the network's share is unknown
])
def test_a_log_the_alltoall_slot_cannot_use_gets_a_coded_refusal_in_en_and_zh(text, code):
    with pytest.raises(NcclLogError) as err:
        a2a_doc(text)
    assert err.value.code == code and err.value.field == "nccl_log"
    en, zh = labels.error_text(Translator("en"), err.value), labels.error_text(Translator("zh"), err.value)
    assert "alltoall_perf" in en and "alltoall_perf" in zh and zh != en
    assert not latin_words(zh), zh


def test_garbage_is_refused_by_the_importer_and_an_alltoall_log_by_the_ring_slot():
    with pytest.raises(NcclLogError) as err:
        a2a_doc("<html><body>nothing</body></html>")
    assert err.value.code == "nccl_log_no_table"
    with pytest.raises(NcclLogError) as err:
        calibration.measurement(nccl_tests.fit(nccl_tests.parse(A2A_LOG)))
    assert err.value.code == "nccl_log_not_ring" and "all-to-all" in str(err.value)
    zh = labels.error_text(Translator("zh"), err.value)
    assert "全交换" in zh and not latin_words(zh), zh


@pytest.mark.parametrize("field, value, code", [("hosts", 1, "invalid"), ("hosts", 9, "alltoall_hosts"),
                                                ("collective", "all_reduce", None), ("busbw_GBps", 0.0, None),
                                                ("ranks", None, None)])
def test_a_stored_alltoall_measurement_out_of_its_bounds_is_refused_naming_the_field(field, value, code):
    doc = a2a_doc() | {field: value}
    with pytest.raises(ScenarioError) as err:
        with_change(moe_scenario(), "alltoall_measurements", {FID: doc})
    detail = err.value.details[0]
    assert detail["path"].startswith(f"alltoall_measurements.{FID}") and field in str(err.value)
    if code:
        assert detail["code"] == code
        zh = labels.error_text(Translator("zh"), err.value)
        assert not latin_words(zh) and zh != labels.error_text(Translator("en"), err.value), zh


def test_an_alltoall_measurement_belongs_to_a_compared_fabric_and_goes_with_it():
    s = moe_scenario()
    doc_json = s.model_dump(mode="json") | {"fabrics": ["tcp-100", "roce-200"], "baseline": "tcp-100",
                                            "alltoall_measurements": {FID: a2a_doc()}}
    with pytest.raises(ScenarioError) as err:
        costmodel.scenario.validation.validate_scenario(doc_json)
    assert err.value.details[0]["path"] == f"alltoall_measurements.{FID}"
    assert err.value.details[0]["code"] == "measurement_not_compared"
    done = with_change(with_change(s, "alltoall_measurements", {FID: a2a_doc()}).scenario, "fabrics",
                                                                                          ["tcp-100", "roce-200"])
    assert "alltoall_measurements" in done.repaired and done.scenario.alltoall_measurements == {}


def test_older_documents_with_only_the_ring_slot_open_unchanged_and_both_slots_round_trip():
    s = costmodel.load_preset("seed-intro-32xA100")
    fid = s.fabrics[-1]
    ring = calibration.measurement(nccl_tests.fit(nccl_tests.parse(AR_LOG)))
    old = with_change(s, "measurements", {fid: ring}).scenario
    saved = old.model_dump(mode="json")
    saved.pop("alltoall_measurements")  # as a document saved before this slot existed
    opened = costmodel.scenario.validation.validate_scenario(saved)
    assert opened == old and opened.alltoall_measurements == {}
    assert documents.import_scenario(documents.export_scenario(old)) == old
    both = with_change(old, "alltoall_measurements", {fid: a2a_doc()}).scenario
    assert share.decode("seed-intro-32xA100", share.encode(both, "seed-intro-32xA100")) == both
    again = documents.import_scenario(documents.export_scenario(both))
    assert again == both and again.alltoall_measurements[fid].summary == SUMMARY
    res = costmodel.evaluate(again).fabric(fid)
    assert res.measured == ring["summary"] and res.measured_alltoall == SUMMARY
