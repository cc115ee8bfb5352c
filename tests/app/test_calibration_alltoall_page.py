"""The all-to-all slot of the Assumptions page's "Measured fabrics" section in AppTest: a pasted
alltoall_perf log becomes the fabric's all-to-all measurement (Compare labels it), a log of another
collective gets one coded message and changes nothing, and the Chinese page shows no stray English."""

from __future__ import annotations

from pathlib import Path

from apptest_helpers import go, open_details, open_page
from test_chinese import _page_texts
from zh_words import latin_words

from costmodel.physics import calibration, nccl_tests
from costmodel.scenario.changes import with_change
from webui.session import share

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
#: alltoall_perf, 4 × H20-3e on 2 VMs over RoCE: https://github.com/NVIDIA/nccl-tests/issues/321
A2A_LOG = (DATA / "alltoall_h20_2nodes_roce_nccl-tests-321.log").read_text()
AR_LOG = (DATA / "allreduce_h100_4nodes_nccl-tests-309.log").read_text()
PRESET = "seed-intro-32xA100"
FID = "ib-ndr-400"
SUMMARY = "alltoall_perf · 4 ranks on 2 hosts · NCCL 2.26.5 · H20-3e"


def _paste(at, fid: str, text: str):
    at.text_area(key=f"calib_text_a2a_{fid}").set_value(text).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _captions(at, needle: str) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption if needle in c.value.replace("\\", "")]


def test_a_pasted_alltoall_log_is_stored_in_its_own_slot_and_labelled_on_compare():
    at = open_page("assumptions", "en", p=PRESET)
    _paste(at, FID, A2A_LOG)
    assert any("Fit of this log" in i.value and "crossed the network" in i.value for i in at.info)
    at.button(key=f"calib_use_a2a_{FID}").click().run()
    assert not at.exception
    scenario = at.session_state["scenario"]
    assert list(scenario.alltoall_measurements) == [FID] and scenario.measurements == {}
    assert scenario.alltoall_measurements[FID].summary == SUMMARY
    assert any("all-to-all efficiency" in s.value for s in at.success)
    assert any(SUMMARY in c for c in _captions(at, "measured all-to-all (used instead of its all-to-all efficiency)"))
    assert at.text_area(key=f"calib_text_a2a_{FID}").value == ""  # the log is not kept
    at = go(at, "compare")
    assert any(SUMMARY in c for c in _captions(at, "measured all-to-all:")), _captions(at, "measured")
    assert not _captions(at, "All-to-all measured on the fabric")  # the specifications tab is closed
    assert _captions(open_details(at, "specs"), "All-to-all measured on the fabric")
    at = go(at, "assumptions")
    at.button(key=f"calib_remove_a2a_{FID}").click().run()
    assert not at.exception and at.session_state["scenario"].alltoall_measurements == {}
    assert not _captions(go(at, "compare"), "measured all-to-all:")


def test_an_all_reduce_log_in_the_alltoall_box_gets_one_message_and_keeps_what_was_stored():
    doc = calibration.alltoall_measurement(nccl_tests.fit(nccl_tests.parse(A2A_LOG)))
    scenario = with_change(share.preset_scenario(PRESET), "alltoall_measurements", {FID: doc}).scenario
    at = open_page("assumptions", "en", p=PRESET, s=share.encode(scenario, PRESET))
    _paste(at, FID, AR_LOG)
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and "takes an alltoall_perf log, not all_reduce_perf" in errors[0], errors
    assert not any(b.key == f"calib_use_a2a_{FID}" for b in at.button)
    assert at.session_state["scenario"] == scenario


def test_the_chinese_alltoall_slot_has_no_stray_english():
    doc = calibration.alltoall_measurement(nccl_tests.fit(nccl_tests.parse(A2A_LOG)))
    scenario = with_change(share.preset_scenario(PRESET), "alltoall_measurements", {FID: doc}).scenario
    at = open_page("assumptions", "zh", p=PRESET, s=share.encode(scenario, PRESET))
    _paste(at, "roce-200", A2A_LOG)
    stray = {w: t[:80] for texts in _page_texts(at).values() for t in texts for w in latin_words(t)}
    assert not stray, stray
    assert any("全交换效率" in s.value for s in at.success) and any("经由网络" in i.value for i in at.info)
    previews = [i.value.replace("\\", "") for i in at.info]
    assert any("实测：alltoall_perf · 2 台主机上 4 个进程" in v for v in previews), previews  # not "4 ranks on"
    assert not any("ranks" in v for v in previews)
    assert any("实测全交换：alltoall\\_perf · 2 台主机上 4 个进程" in e.label for e in at.expander), \
        [e.label for e in at.expander]
    _paste(at, "roce-200", AR_LOG)
    assert [e.value for e in at.error] and all("全交换一栏只接受" in e.value for e in at.error)
    at = go(at, "compare")
    assert any("实测全交换" in c.value for c in at.caption)
