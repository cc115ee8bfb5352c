"""The printing Chromium's priority: SCHED_IDLE by default, off by FABRIC_TCO_PDF_IDLE=0, a bad value named."""

from __future__ import annotations

import pytest

from webui.reports import pdf_service


@pytest.mark.parametrize(("raw", "want"), [("", pdf_service.LIMITS["chromium_sched_idle"]), ("0", False), ("1", True)])
def test_the_environment_sets_the_printers_priority(monkeypatch, raw, want):
    monkeypatch.setenv("FABRIC_TCO_PDF_IDLE", raw)
    assert pdf_service.sched_idle() is bool(want)


def test_a_bad_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("FABRIC_TCO_PDF_IDLE", "yes")
    with pytest.raises(ValueError, match="FABRIC_TCO_PDF_IDLE must be 0 or 1"):
        pdf_service.sched_idle()
