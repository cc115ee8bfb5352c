"""The Report page shows a PDF job's progress: its place in the queue, then its stage and the
seconds since it was asked for (the job's stage is set by the PDF service's worker)."""

from __future__ import annotations

import threading
import time

from apptest_helpers import open_page

from webui.i18n.translator import Translator
from webui.reports import pdf_service


def _progress_texts(at) -> list[str]:
    return [el.value for el in at.info]


def _wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert predicate()


def test_a_building_job_shows_its_stage_and_elapsed_seconds_then_a_queued_one_its_place():
    t = Translator("zh")
    service = pdf_service.service()
    gate = threading.Event()

    def blocked() -> str:
        gate.wait(60)
        raise RuntimeError("stopped by the test")  # fails before any Chromium is started

    first = service.submit("progress-test-a", "k", blocked)
    try:
        _wait_for(lambda: first.stage == pdf_service.BUILDING)
        at = open_page("report", "zh")
        at.session_state["report_pdf_job"] = first.id
        at.run()
        (text,) = _progress_texts(at)
        assert text.startswith(t("progress.pdf_stage_building"))
        assert any(t("progress.pdf_elapsed", s=n) in text for n in range(int(first.elapsed()) + 1))
        assert next(b.key for b in at.button) == "pdf_cancel"
        second = service.submit("progress-test-b", "k", blocked)
        other = open_page("report", "zh")
        other.session_state["report_pdf_job"] = second.id
        other.run()
        (text,) = _progress_texts(other)
        assert text.startswith(t("progress.pdf_queued", ahead=t("rpt.pdf_queued_one")))
        service.cancel(second.id)
    finally:
        gate.set()
    _wait_for(lambda: not first.pending)
    assert first.state == pdf_service.FAILED and first.elapsed() > 0
