"""The Assumptions page's "Measured fabrics" section in AppTest: a pasted nccl-tests log becomes the
fabric's measurement (Compare labels it and its figures change), a bad log gets one message and
changes nothing, and the Chinese page shows no stray English."""

from __future__ import annotations

from pathlib import Path

from apptest_helpers import go, open_page
from test_chinese import _page_texts
from zh_words import latin_words

from costmodel.physics import calibration, nccl_tests
from costmodel.scenario.changes import with_change
from webui.session import share

DATA = Path(__file__).resolve().parents[1] / "data" / "nccl"
LOG = (DATA / "allreduce_h100_4nodes_nccl-tests-309.log").read_text()
PRESET = "seed-intro-32xA100"
FID = "ib-ndr-400"
SUMMARY = "all_reduce_perf · 32 ranks on 4 hosts · NCCL 2.26.2 · H100"


def _markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def _use(at, fid: str, text: str):
    at.text_area(key=f"calib_text_{fid}").set_value(text).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_pasted_log_labels_the_fabric_measured_on_compare_and_changes_its_figures():
    at = open_page("compare", "en", p=PRESET)
    before = _markdown(at)
    assert not [c.value for c in at.caption if "measured:" in c.value]
    at = go(at, "assumptions")
    _use(at, FID, LOG)
    assert any("Fit of this log" in i.value for i in at.info)
    at.button(key=f"calib_use_{FID}").click().run()
    assert not at.exception
    stored = at.session_state["scenario"].measurements
    assert list(stored) == [FID] and stored[FID].summary == SUMMARY
    assert any("In use" in s.value for s in at.success)
    assert at.text_area(key=f"calib_text_{FID}").value == ""  # the log is not kept
    at = go(at, "compare")
    labels = [c.value.replace("\\", "") for c in at.caption if "measured:" in c.value]
    assert any(SUMMARY in c for c in labels), labels
    assert _markdown(at) != before  # the InfiniBand card's figures moved
    at = go(at, "assumptions")
    at.button(key=f"calib_remove_{FID}").click().run()
    assert not at.exception and at.session_state["scenario"].measurements == {}
    assert _markdown(go(at, "compare")) == before


def test_a_log_it_cannot_read_gets_one_message_and_keeps_what_was_stored():
    fit = nccl_tests.fit(nccl_tests.parse(LOG))
    scenario = with_change(share.preset_scenario(PRESET), "measurements", {FID: calibration.measurement(fit)}).scenario
    at = open_page("assumptions", "en", p=PRESET, s=share.encode(scenario, PRESET))
    for garbage in ("<html><body>nothing here</body></html>", "size time busbw\n1 2 3\n", "\x00\x01binary"):
        _use(at, FID, garbage)
        errors = [e.value.replace("\\", "") for e in at.error]
        assert len(errors) == 1 and "nccl_log" in errors[0], errors
        assert not any(b.key == f"calib_use_{FID}" for b in at.button)
        assert at.session_state["scenario"] == scenario  # nothing stored changed
    _use(at, FID, (DATA / "alltoall_h20_2nodes_roce_nccl-tests-321.log").read_text())
    assert any("not used" in w.value for w in at.warning)
    assert not any(b.key == f"calib_use_{FID}" for b in at.button)


def test_the_chinese_section_has_no_stray_english_and_translates_refusals_and_notes():
    fit = nccl_tests.fit(nccl_tests.parse((DATA / "allreduce_h100_2nodes_nccl-tests-309.log").read_text()))
    assert fit.warnings  # two nodes: the tree note
    scenario = with_change(share.preset_scenario(PRESET), "measurements", {FID: calibration.measurement(fit)}).scenario
    at = open_page("assumptions", "zh", p=PRESET, s=share.encode(scenario, PRESET))
    _use(at, "roce-200", LOG)
    stray = {w: t[:80] for texts in _page_texts(at).values() for t in texts for w in latin_words(t)}
    assert not stray, stray
    assert any("使用中" in s.value for s in at.success) and any("此日志的拟合" in i.value for i in at.info)
    assert any("实测：all\\_reduce\\_perf · 2 台主机上 16 个进程" in e.label for e in at.expander), \
        [e.label for e in at.expander]
    notes = " ".join(m.value for m in at.markdown if "关于此日志的提示" in m.value)
    assert "双节点" in notes
    _use(at, "roce-200", "garbage")
    assert [e.value for e in at.error] and all("未找到" in e.value for e in at.error)
