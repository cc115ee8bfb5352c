"""The Report page under the PDF queue's per-address cap: a session from an address that already has
its share of jobs is told so, in its language, and nothing is queued for it."""

from __future__ import annotations

import threading

import pytest
from apptest_helpers import open_page
from held_printer import HeldPrinter

from webui.i18n.translator import catalog
from webui.reports import pdf_service
from webui.session import storage

ADDRESS = "203.0.113.66"



@pytest.fixture
def busy_address(monkeypatch):
    """The process's PDF service with the address's share of jobs already queued by other sessions."""
    release = threading.Event()
    svc = pdf_service.PdfService(printer_factory=lambda: HeldPrinter(release))
    for i in range(pdf_service.LIMITS["per_client"]):
        svc.submit(f"other-tab-{i}", "k", lambda: "<html></html>", client=ADDRESS)
    monkeypatch.setattr(pdf_service, "_service", svc)
    monkeypatch.setattr(storage, "client_address", lambda: ADDRESS)
    yield svc
    release.set()
    svc.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_session_of_a_busy_address_is_told_and_nothing_is_queued(busy_address, lang):
    at = open_page("report", lang, cur="USD")
    before = busy_address.pending()
    at.button(key="pdf_prepare").click().run()
    assert not at.exception
    expected = catalog(lang)["pdf.busy_client"].format(n=pdf_service.LIMITS["per_client"])
    assert [w.value for w in at.warning] == [expected]
    assert busy_address.pending() == before
