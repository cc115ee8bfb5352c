"""The PDF service of a server process: one Chromium, one bounded job queue, one job per session.

Printing a report costs seconds of CPU and a few hundred MiB in Chromium, so the app never starts
a browser per request. Jobs wait in one queue per process and are run by ``workers`` threads
(default 1: the container has 2 cores, the other one serves pages and the XLSX/CSV downloads).
Each worker owns one Chromium, driven over its DevTools pipe (:mod:`webui.reports.cdp`: no Node driver),
started on its first job, reused for every later job (a fresh browser context per job, disposed
after it), restarted when it has died and, after a job, when its processes hold more than
``chromium_restart_mib``. The same Chromium draws the charts (plotly.js, see
:mod:`webui.reports.html`): no second browser.

Limits, so a few sessions cannot take the server down, come from ``pdf_service.yaml`` (with their
reasons); two can be set per deployment: ``FABRIC_TCO_PDF_MAX_JOBS`` (jobs queued or running, all
sessions) and ``FABRIC_TCO_PDF_WORKERS``. One session has at most ``per_session`` jobs in flight, one
client address at most ``per_client`` (all its sessions), and customers' sessions leave
``sales_reserved`` slots to signed-in sales engineers; a finished PDF is kept ``keep_s`` seconds for
its session to download, then dropped.

Workers run ``nice`` steps below the server's priority and their Chromiums under ``SCHED_IDLE``:
when the CPU is short, pages and the Excel/CSV downloads of other sessions go first.
"""

from __future__ import annotations

import collections
import itertools
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from webui.reports import cdp, pdf_text

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
#: what a running job is doing, in order: its HTML is built, Chromium draws the charts, then prints
BUILDING, CHARTS, PRINTING = "building", "charts", "printing"
STAGES = (BUILDING, CHARTS, PRINTING)
CHARTS_FLAG = "__chartsDone"  # set by the report's script once every chart is drawn
LIMITS: dict = yaml.load((Path(__file__).with_name("pdf_service.yaml")).read_text(encoding="utf-8"),
                         Loader=yaml.CSafeLoader)["pdf_service"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# headless printing on a server: no GPU, no sandbox (the container is the boundary; Chromium's
# sandbox needs user namespaces), /tmp instead of a small /dev/shm, no background traffic, no
# throttling of the page's chart drawing, sRGB colours as on screen
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--disable-default-apps", "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--hide-scrollbars", "--mute-audio", "--force-color-profile=srgb"]


class QueueFullError(Exception):
    """The service already holds its maximum number of jobs."""


class SessionBusyError(Exception):
    """This session already has a job queued or running."""


class ClientBusyError(Exception):
    """This client address already has its maximum number of jobs queued or running."""


@dataclass
class Job:
    """One PDF to print: ``build`` returns the report's HTML (run on the worker thread)."""

    id: str
    session: str
    key: str  # what the PDF is of (scenario, language, currency), so a page can tell a stale one
    build: Callable[[], str] = field(repr=False)
    seq: int = 0
    client: str = ""  # the client's address ('' unknown); jobs per address are capped
    sales: bool = False  # submitted by a signed-in sales engineer (may take the reserved slots)
    state: str = QUEUED
    pdf: bytes | None = field(default=None, repr=False)
    error: str | None = None
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    stage: str | None = None  # one of STAGES while running, set by the worker

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since the job was submitted (until it finished)."""
        end = self.finished if self.finished is not None else (time.monotonic() if now is None else now)
        return max(0.0, end - self.submitted)

    @property
    def pending(self) -> bool:
        return self.state in (QUEUED, RUNNING)


class Printer:
    """One Chromium for the calling thread: started lazily, reused, restarted after a crash or growth.

    Chromium is driven over its DevTools pipe (:mod:`webui.reports.cdp`), without Playwright's Node driver.
    After a job, a Chromium whose processes hold more than ``restart_mib`` MiB (PSS) is closed; the
    next job starts a fresh one.
    """

    def __init__(self, executable: str | None = None, flags: list[str] | None = None,
                 restart_mib: float | None = None, chart_timeout_s: float | None = None):
        self.executable = executable or CHROMIUM
        self.flags = flags or FLAGS
        self.restart_mib = LIMITS["chromium_restart_mib"] if restart_mib is None else restart_mib
        self.chart_timeout_s = LIMITS["chart_timeout_s"] if chart_timeout_s is None else chart_timeout_s
        self._chromium: cdp.Chromium | None = None
        self.launches = 0  # how many Chromiums this printer has started
        self.restarts = 0  # how many of them were closed for holding more than restart_mib

    def _ensure(self) -> cdp.Chromium:
        if self._chromium is not None and self._chromium.alive():
            return self._chromium
        if self._chromium is not None:
            self._discard()
        self._chromium = cdp.Chromium(self.executable, self.flags, idle=sched_idle())
        self.launches += 1
        return self._chromium

    @property
    def pid(self) -> int | None:
        """The running Chromium's process id (None before the first job)."""
        return self._chromium.pid if self._chromium is not None and self._chromium.alive() else None

    def print(self, document: str, on_stage: Callable[[str], None] | None = None) -> bytes:
        """``document`` (HTML) printed to A4 PDF bytes; one retry on a fresh Chromium if it died.
        ``on_stage`` hears :data:`CHARTS` and :data:`PRINTING` as Chromium reaches them."""
        flag = CHARTS_FLAG if CHARTS_FLAG in document else None
        for attempt in (1, 2):
            chromium = self._ensure()
            try:
                pdf = cdp.print_pdf(chromium, document, flag, int(self.chart_timeout_s * 1000), on_stage=on_stage)
            except (cdp.ChromiumGoneError, TimeoutError):
                if attempt == 2:
                    raise
                log.warning("Chromium died or hung while printing; starting a new one")
                self._discard()
                continue
            if memory_mib(chromium.pid) > self.restart_mib:
                log.info("Chromium holds more than %s MiB after a job: restarting it", self.restart_mib)
                self.close()
                self.restarts += 1
            return pdf_text.real_text(pdf)  # search and copy find the real characters (网, not ⽹)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._chromium is not None:
            chromium, self._chromium = self._chromium, None
            chromium.close()

    def _discard(self) -> None:
        """Forget a Chromium that failed: kill it and wait for it. A killed process under SCHED_IDLE
        may close its pipe long before it can be reaped, so ``alive()`` alone cannot tell it is gone."""
        if self._chromium is not None:
            chromium, self._chromium = self._chromium, None
            chromium.kill()

    def __enter__(self) -> Printer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def memory_mib(pid: int) -> float:
    """Proportional set size (PSS) of process ``pid`` and its descendants, MiB (Linux ``/proc``)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    total_kib, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kib += int(line.split()[1])
                    break
        except OSError:
            continue
    return total_kib / 1024


class PdfService:
    """A bounded queue of PDF jobs printed by ``workers`` threads, each with its own Chromium."""

    def __init__(self, workers: int = LIMITS["workers"], max_jobs: int = LIMITS["max_jobs"],
                 per_session: int = LIMITS["per_session"], keep_s: float = LIMITS["keep_s"],
                 nice: int = LIMITS["nice"], printer_factory: Callable[[], Printer] = Printer,
                 per_client: int = LIMITS["per_client"], sales_reserved: int = LIMITS["sales_reserved"]):
        if workers < 1 or max_jobs < workers or per_session < 1 or per_client < 1 \
                or sales_reserved < 0 or sales_reserved >= max_jobs:
            raise ValueError("workers ≥ 1, max_jobs ≥ workers, per_session ≥ 1, per_client ≥ 1 and "
                             "0 ≤ sales_reserved < max_jobs")
        self.workers, self.max_jobs, self.per_session, self.keep_s = workers, max_jobs, per_session, keep_s
        self.per_client, self.sales_reserved = per_client, sales_reserved
        self.nice = nice
        self._printer_factory = printer_factory
        self._cv = threading.Condition()
        self._queue: collections.deque[Job] = collections.deque()
        self._jobs: dict[str, Job] = {}
        self._seq = itertools.count(1)
        self._threads: list[threading.Thread] = []
        self._printers: list[Printer] = []
        self._closing = False
        self._durations: collections.deque[float] = collections.deque(maxlen=10)  # seconds per job, latest

    # --- what the pages call

    def submit(self, session: str, key: str, build: Callable[[], str], client: str = "", sales: bool = False) -> Job:
        """Queue a job for ``session`` from the client address ``client`` ('' unknown), by a signed-in
        sales engineer when ``sales``; :class:`SessionBusyError`, :class:`ClientBusyError` or
        :class:`QueueFullError` when a limit is reached (customers' jobs leave ``sales_reserved`` slots)."""
        with self._cv:
            self._purge()
            pending = [j for j in self._jobs.values() if j.pending]
            if sum(j.session == session for j in pending) >= self.per_session:
                raise SessionBusyError(session)
            if self._closing or len(pending) >= self.max_jobs - (0 if sales else self.sales_reserved):
                raise QueueFullError(len(pending))
            if client and sum(j.client == client for j in pending) >= self.per_client:
                raise ClientBusyError(self.per_client)
            job = Job(uuid.uuid4().hex, session, key, build, next(self._seq), client=client, sales=sales)
            self._jobs[job.id] = job
            self._queue.append(job)
            self._start_workers()
            self._cv.notify()
            return job

    def job(self, job_id: str | None) -> Job | None:
        with self._cv:
            self._purge()
            return self._jobs.get(job_id or "")

    def ahead(self, job: Job) -> int:
        """How many jobs will finish before ``job`` starts (running ones and those queued before it)."""
        with self._cv:
            if job.state != QUEUED:
                return 0
            running = sum(j.state == RUNNING for j in self._jobs.values())
            return running + sum(j.seq < job.seq for j in self._queue)

    def expected_wait(self, job: Job) -> float | None:
        """Seconds until ``job`` is done, from the last jobs' durations (None before the first)."""
        with self._cv:
            if not self._durations:
                return None
            per_job = sum(self._durations) / len(self._durations)
        return per_job * (self.ahead(job) / self.workers + 1)

    def cancel(self, job_id: str) -> None:
        """Drop a queued job (a running one finishes; its result is then dropped)."""
        with self._cv:
            job = self._jobs.pop(job_id, None)
            if job is not None and job.state == QUEUED:
                self._queue.remove(job)

    def pending(self) -> int:
        with self._cv:
            return sum(j.pending for j in self._jobs.values())

    def launches(self) -> int:
        """How many Chromiums the workers have started so far (one per worker unless one died)."""
        with self._cv:
            return sum(p.launches for p in self._printers)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the workers after their current job; their Chromiums close with them."""
        with self._cv:
            self._closing = True
            self._cv.notify_all()
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)

    # --- the workers

    def _purge(self) -> None:
        now = time.monotonic()
        for jid in [jid for jid, j in self._jobs.items() if j.finished and now - j.finished > self.keep_s]:
            del self._jobs[jid]

    def _start_workers(self) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        for i in range(len(self._threads), self.workers):
            thread = threading.Thread(target=self._work, name=f"pdf-worker-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        try:  # Linux: the nice value is per thread, and the Chromium it starts inherits it
            os.setpriority(os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + self.nice))
        except (AttributeError, OSError) as exc:
            log.warning("PDF worker runs at normal priority: %s", exc)
        printer = self._printer_factory()
        with self._cv:
            self._printers.append(printer)
        try:
            while True:
                with self._cv:
                    while not self._queue and not self._closing:
                        self._cv.wait()
                    if self._closing:
                        return
                    job = self._queue.popleft()
                    job.state, job.started, job.stage = RUNNING, time.monotonic(), BUILDING
                try:
                    pdf, error = printer.print(job.build(), on_stage=lambda stage, j=job: _set_stage(j, stage)), None
                except Exception as exc:  # reported to the page; the worker goes on with the next job
                    log.exception("PDF job %s failed", job.id)
                    pdf, error = None, f"{type(exc).__name__}: {exc}"[:300]
                with self._cv:
                    job.finished = time.monotonic()
                    job.pdf, job.error, job.state = pdf, error, DONE if error is None else FAILED
                    job.build = _built  # drop the scenario it captured
                    if error is None:
                        self._durations.append(job.finished - job.started)
        finally:
            printer.close()


def _set_stage(job: Job, stage: str) -> None:
    job.stage = stage  # one attribute write: read by the page's polls without the lock


def _built() -> str:
    raise RuntimeError("this job has already been built")


_service: PdfService | None = None
_service_lock = threading.Lock()


def sched_idle() -> bool:
    """Whether the printing Chromium runs under SCHED_IDLE: ``FABRIC_TCO_PDF_IDLE`` (``1`` or ``0``), else
    ``chromium_sched_idle``. Off where the CPU is never idle (a saturated test run), which would starve it."""
    raw = os.environ.get("FABRIC_TCO_PDF_IDLE", "")
    if raw not in ("", "0", "1"):
        raise ValueError(f"FABRIC_TCO_PDF_IDLE must be 0 or 1 (got {raw!r})")
    return bool(LIMITS["chromium_sched_idle"]) if raw == "" else raw == "1"


def _env_int(name: str, default: int, low: int, high: int) -> int:
    raw = os.environ.get(name, "")
    try:
        value = int(raw) if raw else default
    except ValueError:
        value = -1
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high} (got {raw!r})")
    return value


def service() -> PdfService:
    """The process's PDF service (created on first use, configured from the environment)."""
    global _service
    with _service_lock:
        if _service is None:
            _service = PdfService(workers=_env_int("FABRIC_TCO_PDF_WORKERS", LIMITS["workers"], 1, 8),
                                  max_jobs=_env_int("FABRIC_TCO_PDF_MAX_JOBS", LIMITS["max_jobs"], 1, 200))
        return _service
