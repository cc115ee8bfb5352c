"""The PDF queue's fairness (webui/reports/pdf_service.py, pdf_service.yaml): one client address cannot fill
the queue however many sessions it opens, and customers' sessions always leave a slot to signed-in
sales engineers. The printer is a stand-in that holds each job until released: what is tested is
who gets a slot, not printing (tests/e2e/test_pdf_service.py prints for real)."""

from __future__ import annotations

import threading

import pytest
from held_printer import HeldPrinter

from webui.reports import pdf_service
from webui.reports.pdf_service import LIMITS, ClientBusyError, PdfService, QueueFullError


@pytest.fixture
def held():
    release = threading.Event()
    svc = PdfService(printer_factory=lambda: HeldPrinter(release))  # the shipped limits
    yield svc
    release.set()
    svc.close()


def _page() -> str:
    return "<html>report</html>"


def test_the_shipped_limits_leave_room_for_others():
    assert LIMITS["per_client"] < LIMITS["max_jobs"] - LIMITS["sales_reserved"]
    assert LIMITS["sales_reserved"] >= 1


def test_one_client_opening_twelve_sessions_holds_only_its_cap(held):
    attacker = "203.0.113.66"
    refused = 0
    for i in range(LIMITS["max_jobs"]):
        try:
            held.submit(f"attacker-{i}", "k", _page, client=attacker)
        except ClientBusyError as exc:
            assert exc.args[0] == LIMITS["per_client"]
            refused += 1
    assert held.pending() == LIMITS["per_client"] and refused == LIMITS["max_jobs"] - LIMITS["per_client"]
    # everyone else still gets in
    for i in range(3):
        assert held.submit(f"customer-{i}", "k", _page, client=f"198.51.100.{i}").pending


def test_customers_leave_the_reserved_slot_to_sales(held):
    public_slots = LIMITS["max_jobs"] - LIMITS["sales_reserved"]
    for i in range(public_slots):  # many customers, one job each
        held.submit(f"c{i}", "k", _page, client=f"10.0.0.{i}")
    with pytest.raises(QueueFullError):
        held.submit("late-customer", "k", _page, client="10.0.1.1")
    job = held.submit("sales", "k", _page, client="10.0.2.2", sales=True)  # the reserved slot
    assert job.pending and job.sales and held.pending() == LIMITS["max_jobs"]
    with pytest.raises(QueueFullError):  # and then the queue is full for everyone
        held.submit("sales-2", "k", _page, client="10.0.2.3", sales=True)


def test_a_sales_engineer_is_capped_per_address_like_anyone(held):
    for i in range(LIMITS["per_client"]):
        held.submit(f"tab-{i}", "k", _page, client="10.0.3.3", sales=True)
    with pytest.raises(ClientBusyError):
        held.submit("tab-x", "k", _page, client="10.0.3.3", sales=True)


def test_an_unknown_address_is_not_capped(held):
    for i in range(LIMITS["per_client"] + 2):
        assert held.submit(f"local-{i}", "k", _page, client="").pending


def test_a_finished_job_frees_its_clients_slot():
    release = threading.Event()
    svc = PdfService(max_jobs=4, per_client=1, sales_reserved=1, printer_factory=lambda: HeldPrinter(release))
    try:
        first = svc.submit("a", "k", _page, client="10.0.4.4")
        with pytest.raises(ClientBusyError):
            svc.submit("b", "k", _page, client="10.0.4.4")
        release.set()
        for _ in range(200):
            if not first.pending:
                break
            threading.Event().wait(0.05)
        assert first.state == pdf_service.DONE
        assert svc.submit("b", "k", _page, client="10.0.4.4").pending is not None
    finally:
        release.set()
        svc.close()


@pytest.mark.parametrize("kwargs", [{"per_client": 0}, {"sales_reserved": 12}, {"sales_reserved": -1}])
def test_bad_limits_are_refused(kwargs):
    with pytest.raises(ValueError, match="per_client ≥ 1 and 0 ≤ sales_reserved < max_jobs"):
        PdfService(**{"max_jobs": 12, **kwargs})
