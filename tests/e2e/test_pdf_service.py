"""The PDF service with Debian's Chromium: one browser per process reused for every job, restarted
when it dies; a bounded queue with positions; at most one job in flight per session."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from browser_helpers import require_browser

from webui import pdf_service

PAGE = "<html><head><meta charset='utf-8'><title>t</title></head><body><h1>{}</h1></body></html>"


def _chromium_pids() -> set[int]:
    """Browser (main) processes of Chromium among this process's descendants."""
    me, children = os.getpid(), {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            cmdline = (status.parent / "cmdline").read_bytes()  # Chromium may rewrite it as one string
        except OSError:
            continue
        children[int(status.parent.name)] = (int(fields["PPid"]), cmdline)
    out = set()
    for pid, (_, cmd) in children.items():
        if not cmd.split(b"\0")[0].split(b" ")[0].endswith(b"/chromium") or b"--type=" in cmd:
            continue
        p = pid
        while p in children and p != me:
            p = children[p][0]
        if p == me:
            out.add(pid)
    return out


def _wait(job: pdf_service.Job, timeout: float = 120) -> pdf_service.Job:
    deadline = time.monotonic() + timeout
    while job.pending and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not job.pending, f"job still {job.state} after {timeout} s"
    return job


@pytest.fixture
def service():
    require_browser()
    svc = pdf_service.PdfService(workers=1, max_jobs=3, per_session=1)
    yield svc
    svc.close()


def test_one_niced_chromium_serves_every_job_and_is_restarted_when_it_dies(service):
    before = _chromium_pids()
    jobs = [_wait(service.submit(f"s{i}", "k", lambda i=i: PAGE.format(f"report {i}"))) for i in range(3)]
    assert all(j.state == pdf_service.DONE and j.pdf[:5] == b"%PDF-" for j in jobs), [j.error for j in jobs]
    browsers = _chromium_pids() - before
    assert len(browsers) == 1, browsers  # one browser for three jobs (charts included), still running
    assert service.launches() == 1
    (pid,) = browsers
    # Playwright's driver, started by the worker, inherits its nice value and passes it to Chromium
    # (Chromium running as root raises some display threads again; as the image's user it cannot)
    driver = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    nice = int(Path(f"/proc/{driver}/stat").read_text().rsplit(")", 1)[1].split()[16])
    assert nice >= min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)  # pages of other sessions go first
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    job = _wait(service.submit("s9", "k", lambda: PAGE.format("after the crash")))
    assert job.state == pdf_service.DONE and job.pdf[:5] == b"%PDF-", job.error
    assert service.launches() == 2


def test_queue_positions_limits_and_the_session_cap(service):
    gate = threading.Event()

    def slow() -> str:
        gate.wait(60)
        return PAGE.format("slow")

    first = service.submit("a", "k", slow)
    deadline = time.monotonic() + 30
    while first.state != pdf_service.RUNNING and time.monotonic() < deadline:
        time.sleep(0.02)
    second = service.submit("b", "k", lambda: PAGE.format("b"))
    third = service.submit("c", "k", lambda: PAGE.format("c"))
    assert (service.ahead(first), service.ahead(second), service.ahead(third)) == (0, 1, 2)
    with pytest.raises(pdf_service.SessionBusyError):
        service.submit("b", "k", lambda: PAGE.format("b again"))
    with pytest.raises(pdf_service.QueueFullError):
        service.submit("d", "k", lambda: PAGE.format("d"))
    service.cancel(third.id)
    assert service.job(third.id) is None and service.pending() == 2
    gate.set()
    assert _wait(first).state == _wait(second).state == pdf_service.DONE
    assert service.expected_wait(service.submit("b", "k", lambda: PAGE.format("b, next one"))) > 0


def test_a_failing_job_is_reported_and_the_next_one_runs(service):
    def broken() -> str:
        raise ValueError("no such scenario")

    bad = _wait(service.submit("a", "k", broken))
    assert bad.state == pdf_service.FAILED and "no such scenario" in bad.error
    good = _wait(service.submit("a", "k", lambda: PAGE.format("fine")))
    assert good.state == pdf_service.DONE


def test_limits_from_the_environment_are_checked(monkeypatch):
    monkeypatch.setenv("FABRIC_TCO_PDF_MAX_JOBS", "0")
    with pytest.raises(ValueError, match="FABRIC_TCO_PDF_MAX_JOBS must be an integer from 1 to 200"):
        pdf_service._env_int("FABRIC_TCO_PDF_MAX_JOBS", 12, 1, 200)
