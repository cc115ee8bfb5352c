"""PDF reports under load, through the running app: N sessions (default 10) ask for a PDF at once
while another session downloads the Excel workbook; measured in one run.

What it does: starts ``streamlit run server.py`` (the app as the container serves it) on a free
port, opens N+1 browser tabs (Debian's Chromium through Playwright, in this process: not counted
as server memory), clicks "Prepare the PDF" in N of them, and while they wait downloads the XLSX
from the first tab ``--xlsx-repeat`` times (click to finished file). Meanwhile it samples the
memory of the server: the app process
and every descendant (its one Chromium and helpers), as the sum of RSS
(pages shared between Chromium processes counted once per process: an upper bound) and the sum
of PSS (shared pages divided among their users: what a container's memory limit sees), read from
``/proc`` every 0.2 s.

Targets: peak memory under 1 GiB and an XLSX download under 1 s while 10 PDFs wait.
``--build-times`` instead prints the time of one PDF build in this process, cold (Chromium and
(Chromium starts) and warm (reused), the old issue-5 figure (target: warm under 5 s).

Usage: ``PYTHONPATH=. python bench/pdf_bench.py [--pdfs 10] [--preset ID] [--lang zh|en]``.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
PREPARE = {"en": "Prepare the PDF", "zh": "生成 PDF"}
READY = {"en": "Your PDF is ready.", "zh": "PDF 已生成。"}
DOWNLOAD = {"en": "Download", "zh": "下载"}
MIB = 1024 * 1024


def _tree(root: int) -> list[int]:
    """``root`` and all its descendants, from /proc."""
    parent: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("PPid:"):
                    parent[int(status.parent.name)] = int(line.split()[1])
                    break
        except OSError:
            continue
    out, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, pp in parent.items() if pp in frontier]
        out += frontier
    return out


def _kib(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class MemorySampler(threading.Thread):
    """Peak of the summed RSS and PSS of a process tree, sampled every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_rss = self.peak_pss = 0
        self.peak_procs = 0
        self.peak_parts: dict[str, int] = {}  # PSS by kind of process at the PSS peak
        self._halt = threading.Event()

    @staticmethod
    def _kind(pid: int) -> str:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return "gone"
        if b"chromium" not in cmd:
            return "python/node"
        return "chromium"

    def sample(self) -> tuple[int, int, int]:
        pids = _tree(self.pid)
        rss = sum(_kib(Path(f"/proc/{p}/status"), "VmRSS:") for p in pids) * 1024
        pss_by_pid = {p: _kib(Path(f"/proc/{p}/smaps_rollup"), "Pss:") * 1024 for p in pids}
        self._last_pss = pss_by_pid
        return rss, sum(pss_by_pid.values()), len(pids)

    def run(self) -> None:
        while not self._halt.is_set():
            rss, pss, n = self.sample()
            if pss > self.peak_pss:
                parts: dict[str, int] = {}
                for pid, value in self._last_pss.items():
                    kind = self._kind(pid)
                    parts[kind] = parts.get(kind, 0) + value
                self.peak_parts = parts
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self.peak_procs = max(self.peak_procs, n)
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_app(port: int, log: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "server.py", "--server.port", str(port), "--server.address",
           "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"the app did not start; see {log}")


def _open(browser, url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url)
    page.wait_for_selector("h1")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")
    return context, page


def _xlsx_seconds(page, lang: str) -> float:
    """Click the workbook's download button; seconds until the file is complete."""
    page.bring_to_front()  # a background tab's timers are throttled, as in a real browser
    button = page.get_by_role("button", name=DOWNLOAD[lang]).first  # Excel (this tab prepares no PDF)
    button.wait_for()
    t0 = time.perf_counter()
    with page.expect_download(timeout=120_000) as info:
        button.click()
    assert info.value.path().read_bytes()[:2] == b"PK", "not an xlsx"
    return time.perf_counter() - t0


def through_the_app(args) -> None:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    (ROOT / "out").mkdir(exist_ok=True)
    app = _start_app(port, ROOT / "out" / f"pdf-bench-{port}.log")
    url = f"http://127.0.0.1:{port}/report?p={args.preset}&lang={args.lang}"
    sampler = MemorySampler(app.pid)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            _, watcher = _open(browser, url)
            idle = [_xlsx_seconds(watcher, args.lang) for _ in range(args.xlsx_repeat)]
            rss0, pss0, _ = sampler.sample()
            pages = [_open(browser, url)[1] for _ in range(args.pdfs)]
            sampler.start()
            t0 = time.perf_counter()
            for page in pages:  # as fast as a user can click: all within a few seconds
                page.bring_to_front()  # hidden tabs draw no frames: Playwright's click would wait
                page.get_by_role("button", name=PREPARE[args.lang]).click()
            print(f"{args.pdfs} PDFs asked for in {time.perf_counter() - t0:.1f} s", flush=True)
            busy = []
            for _ in range(args.xlsx_repeat):
                busy.append(_xlsx_seconds(watcher, args.lang))
                print(f"XLSX under load: {busy[-1]:.2f} s", flush=True)
                time.sleep(args.gap)
            for page in pages:
                page.get_by_text(READY[args.lang]).wait_for(timeout=int(60_000 * args.pdfs))
            total = time.perf_counter() - t0
            sampler.stop()
            browser.close()
    finally:
        if sampler.is_alive():
            sampler.stop()
        app.terminate()
        app.wait(20)
    print(f"{args.pdfs} PDF requests at once ({args.lang}, {args.preset}) through the app, 1 worker: "
          f"all ready after {total:.1f} s ({total / args.pdfs:.1f} s per report)")
    print(f"server memory (app + its Chromium processes): idle RSS {rss0 / MIB:.0f} MiB / PSS {pss0 / MIB:.0f} MiB; "
          f"peak RSS sum {sampler.peak_rss / MIB:.0f} MiB, peak PSS sum {sampler.peak_pss / MIB:.0f} MiB "
          f"({sampler.peak_procs} processes at most); target < 1024 MiB")
    print("  PSS at its peak by process kind: " + ", ".join(f"{k} {v / MIB:.0f} MiB"
                                                          for k, v in sorted(sampler.peak_parts.items())))
    print(f"XLSX download (click to file): idle median {statistics.median(idle):.2f} s; while the PDFs run "
          f"median {statistics.median(busy):.2f} s, max {max(busy):.2f} s; target < 1 s")


def build_times(args) -> None:
    import costmodel
    from webui.reports.html import report_html
    from webui.reports.pdf_service import Printer

    scenario = costmodel.load_preset(args.preset)
    with Printer() as printer:
        t0 = time.perf_counter()
        size = len(printer.print(report_html(scenario, args.lang, args.preset)))
        cold = time.perf_counter() - t0
        warm = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            printer.print(report_html(scenario, args.lang, args.preset))
            warm.append(time.perf_counter() - t0)
    print(f"PDF report ({args.lang}, {args.preset}, {size:,} bytes): cold {cold:.2f} s, "
          f"warm median {statistics.median(warm):.2f} s over {args.repeat} (target < 5 s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="seed-intro-32xA100")
    ap.add_argument("--lang", default="zh", choices=("en", "zh"))
    ap.add_argument("--pdfs", type=int, default=10, help="sessions asking for a PDF at once")
    ap.add_argument("--xlsx-repeat", type=int, default=5, help="XLSX downloads timed, idle and under load")
    ap.add_argument("--gap", type=float, default=2.0, help="seconds between the XLSX downloads under load")
    ap.add_argument("--build-times", action="store_true", help="time PDF builds in this process instead")
    ap.add_argument("--repeat", type=int, default=3, help="warm builds for --build-times")
    args = ap.parse_args()
    if not 1 <= args.pdfs <= 50:
        raise SystemExit("--pdfs: allowed 1 to 50")
    (build_times if args.build_times else through_the_app)(args)


if __name__ == "__main__":
    main()
