"""Shared pieces of the real-browser tests: Debian's Chromium, `streamlit run` servers, waits.

Without /usr/bin/chromium (or Playwright) the tests skip on a developer machine but FAIL when
``CI=true``, so CI can never pass without having run them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import need
import pytest
from ports import free_port

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 60_000


def require_browser() -> None:
    """Skip (fail under CI=true) when Chromium or Playwright is missing."""
    missing = [] if os.path.exists(CHROMIUM) else [CHROMIUM]
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package")
    if missing:
        need.missing(f"end-to-end tests need {' and '.join(missing)}")


class AppServer:
    """One ``streamlit run server.py`` (app.py and its cookie routes) on a loopback port, its output
    in ``out/streamlit-<tag>-<port>.log``."""

    def __init__(self, tag: str, env: dict[str, str] | None = None, port: int | None = None,
                 production: bool = False):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        (ROOT / "out").mkdir(exist_ok=True)
        self.log_path = ROOT / "out" / f"streamlit-{tag}-{self.port}.log"
        self._log = open(self.log_path, "w")
        # the printer's Chromium at normal priority: under SCHED_IDLE it gets only CPU nobody else wants, and
        # three test workers on two cores leave none (a PDF then waits past any timeout)
        env = {"FABRIC_TCO_PDF_IDLE": "0", **os.environ, **(env or {})}
        if production:  # the container's start command (scripts/serve.sh)
            cmd = ["sh", str(ROOT / "scripts" / "serve.sh")]
            env.update(PYTHON=sys.executable, PORT=str(self.port), ADDRESS="127.0.0.1")
        else:
            # no file watcher: it would watch the whole checkout (.venv included) for nothing
            cmd = [sys.executable, "-m", "streamlit", "run", "server.py", "--server.port", str(self.port),
                   "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats",
                   "false", "--server.fileWatcherType", "none"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=env)

    def wait_ready(self, timeout_s: float = 90) -> AppServer:
        deadline = time.time() + timeout_s
        while True:
            try:
                with urllib.request.urlopen(self.base + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                pytest.fail(f"streamlit did not start; see {self.log_path}")
            time.sleep(0.3)

    def stop(self) -> None:
        stop_process(self.proc)
        self._log.close()


def stop_process(proc: subprocess.Popen | None, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; nothing when it has already ended."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def open_page(browser, url: str, height: int = 1400, locale: str = "en-US"):
    """A new browser context and page at ``url``, after Streamlit's first run."""
    context = browser.new_context(viewport={"width": 1500, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.wait_for_selector("h1")
    settle(page)
    return context, page


def settle(page) -> None:
    """Wait until Streamlit has finished running the script."""
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)
    page.wait_for_timeout(400)


def wait_for(page, fn, expected, timeout_s: float = 60.0):
    """Poll ``fn()`` until it equals ``expected`` (returns the last value)."""
    deadline = time.time() + timeout_s
    value = fn()
    while value != expected and time.time() < deadline:
        page.wait_for_timeout(300)
        value = fn()
    return value


def tco_values(page) -> list[str]:
    """The 5-year TCO card values on the Compare page, one per fabric."""
    n = page.locator('[data-testid="stMetricLabel"]', has_text=re.compile(r"TCO")).count()
    return page.locator('[data-testid="stMetricValue"]').all_inner_texts()[:n]


def expected_tco(scenario) -> list[str]:
    """The TCO cards the model says Compare shows for ``scenario`` in USD (``?cur=USD``)."""
    import costmodel
    from webui.i18n.money import Money, default_rate

    res = costmodel.evaluate(scenario)
    money = Money(res.currency, "USD", default_rate(res.currency, "USD"))
    return [money.short(f.tco_total) for f in res.fabrics]


def open_compare(page) -> list[str]:
    """Follow the Compare link, let it render, return its TCO cards."""
    page.get_by_role("link", name="Compare").click()
    page.wait_for_selector("h1:has-text('Compare fabrics')")
    settle(page)
    return tco_values(page)


def sign_in(page, user: str, password: str) -> None:
    """The Scenarios page's password sign-in."""
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(f"Welcome, {user}.").wait_for()
    settle(page)
