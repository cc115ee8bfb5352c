"""Time from a new Chromium session to the first meaningful content of the app, against a bare
Streamlit page served the same way, measured interleaved in one run.

Two servers run side by side, started by the same command (``python -m streamlit run … --server.headless
true``, the repo's ``.streamlit/config.toml``, no file watcher): the app (``server.py``, its default
page, Compare) and a bare page (a title and one line of text). Each sample opens a new browser
context (a new Streamlit session, nothing cached in the browser) in one Debian Chromium, goes to
the server's root URL and stops the clock when the first meaningful content is visible: the
app's first KPI value (``stMetricValue``: the page's answer), the bare page's title. The two
servers alternate, and which goes first alternates too, so background load on a shared machine
hits both alike. One untimed warm-up load each (the first session of a process imports the model).

Target: the app's median ≤ 1.5× the bare page's.
Usage: ``PYTHONPATH=. python bench/first_content_bench.py [--samples N] [--port P]`` (P and P+1, default two
free ports; Chromium at ``$CHROMIUM`` or /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
BARE = 'import streamlit as st\n\nst.title("Bare Streamlit page")\nst.write("One line of text.")\n'
APP_CONTENT = '[data-testid="stMetricValue"]'  # Compare's KPI values: the first answer on the page
BARE_CONTENT = "h1"
TIMEOUT_MS = 120_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(script: str, cwd: Path, port: int, log: Path) -> subprocess.Popen:
    """``streamlit run script`` on loopback ``port``, headless, no file watcher; output to ``log``."""
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.address",
           "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(cmd, cwd=cwd, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)


def wait_ready(port: int, proc: subprocess.Popen, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server on port {port} exited ({proc.returncode})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server on port {port} did not answer within {timeout_s:.0f} s")


def first_content(browser, url: str, selector: str) -> float:
    """Seconds from a new context's navigation to ``selector`` being visible."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000}, locale="en-US")
    try:
        page = context.new_page()
        t0 = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        page.locator(selector).first.wait_for(state="visible", timeout=TIMEOUT_MS)
        return time.perf_counter() - t0
    finally:
        context.close()


def measure(browser, app_url: str, bare_url: str, samples: int) -> tuple[list[float], list[float]]:
    """``samples`` interleaved first-content times [s] of the app and of the bare page."""
    first_content(browser, app_url, APP_CONTENT)  # warm-up: the process's first session imports the model
    first_content(browser, bare_url, BARE_CONTENT)
    app, bare = [], []
    for i in range(samples):
        pair = [(app, app_url, APP_CONTENT), (bare, bare_url, BARE_CONTENT)]
        for times, url, selector in pair if i % 2 == 0 else pair[::-1]:
            times.append(first_content(browser, url, selector))
    return app, bare


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--port", type=int, default=0, help="the app's port; the bare page's is the next (default: free)")
    args = ap.parse_args()
    ports = (args.port, args.port + 1) if args.port else (_free_port(), _free_port())
    from playwright.sync_api import sync_playwright

    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        bare_dir = Path(tmp)
        (bare_dir / "bare.py").write_text(BARE, encoding="utf-8")
        (bare_dir / ".streamlit").symlink_to(ROOT / ".streamlit")  # the same configuration
        servers = [start("server.py", ROOT, ports[0], out / "first-content-app.log"),
                   start("bare.py", bare_dir, ports[1], out / "first-content-bare.log")]
        try:
            for port, proc in zip(ports, servers, strict=True):
                wait_ready(port, proc)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                try:
                    app, bare = measure(browser, f"http://127.0.0.1:{ports[0]}/", f"http://127.0.0.1:{ports[1]}/",
                                        args.samples)
                finally:
                    browser.close()
        finally:
            for proc in servers:
                proc.terminate()
                proc.wait(timeout=20)
    a, b = statistics.median(app), statistics.median(bare)
    print(f"new Chromium session to first meaningful content, median of {args.samples}, interleaved: "
          f"app (Compare's first KPI value) {a:.2f} s [{min(app):.2f}–{max(app):.2f}], "
          f"bare Streamlit page (its title) {b:.2f} s [{min(bare):.2f}–{max(bare):.2f}]")
    print(f"first-content ratio: {a / b:.2f}× (target ≤ 1.5×)")


if __name__ == "__main__":
    main()
