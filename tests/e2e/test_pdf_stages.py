"""A PDF job passes through its stages in order — building, drawing the charts, printing — as
Debian's Chromium reaches them; the Report page shows the stage while the job runs."""

from __future__ import annotations

import time
from typing import ClassVar

from browser_helpers import require_browser

from webui.reports import pdf_service

PAGE = "<html><head><meta charset='utf-8'><title>t</title></head><body><h1>stages</h1></body></html>"


class RecordingPrinter(pdf_service.Printer):
    """The real printer, recording the job's stage each time Chromium reports a new one."""

    seen: ClassVar[list[str]] = []

    def print(self, document, on_stage=None):
        def record(stage: str) -> None:
            RecordingPrinter.seen.append(stage)
            on_stage(stage)

        return super().print(document, on_stage=record)


def test_a_job_reports_building_then_charts_then_printing():
    require_browser()
    RecordingPrinter.seen = []
    building: list[str | None] = []
    svc = pdf_service.PdfService(workers=1, max_jobs=2, per_session=1, printer_factory=RecordingPrinter)
    try:
        holder: dict = {}

        def build() -> str:
            building.append(holder["job"].stage)  # what the page sees while the HTML is built
            return PAGE

        job = holder["job"] = svc.submit("s", "k", build)
        deadline = time.monotonic() + 120
        while job.pending and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.state == pdf_service.DONE and job.pdf[:5] == b"%PDF-", job.error
        assert building == [pdf_service.BUILDING]
        assert RecordingPrinter.seen == [pdf_service.CHARTS, pdf_service.PRINTING]
        assert job.stage == pdf_service.PRINTING and job.elapsed() >= job.finished - job.started
    finally:
        svc.close()
