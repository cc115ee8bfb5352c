"""Shared fixtures.

The suite runs on several pytest-xdist workers (``make test``: ``-n`` with ``--dist loadfile``);
every worker is its own process with its own store files, PostgreSQL server, Chromium and ports
(``ports.py``). ``loadfile`` keeps each test file on one worker, so a module fixture (an app server,
the built image, the CLI runs of the malformed scenarios) starts once. (``--dist loadgroup`` with
``xdist_group`` marks would be finer, but pytest-xdist 3.8 cannot group under pytest 9.2: it marks
a group by rewriting ``item._nodeid``, which pytest 9.2's node ids no longer read —
pytest-dev/pytest-xdist#1386.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The app opens its store on start: tests never touch a developer's var/ files. One dir per process:
# xdist workers inherit the controlling process's environment, paths into its dir included, and
# replace those (a path the developer set before pytest started is kept).
_TMP = Path(tempfile.mkdtemp(prefix=f"fabric-tco-tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-"))
_PARENT_TMP = os.environ.get("FABRIC_TCO_TESTS_TMP")
for _var, _name in (("FABRIC_TCO_DB", "app-store.db"), ("FABRIC_TCO_USERS", "users.json")):
    if _var not in os.environ or (_PARENT_TMP and os.environ[_var].startswith(_PARENT_TMP)):
        os.environ[_var] = str(_TMP / _name)
os.environ["FABRIC_TCO_TESTS_TMP"] = str(_TMP)
os.environ.pop("DATABASE_URL", None)


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for the whole run (fails under CI=true when PostgreSQL is missing)."""
    from pg import PgServer

    # not under pytest's 0700 tmp tree: the server runs as the postgres user when we are root
    work = Path(tempfile.mkdtemp(prefix="fabric-tco-pg-"))
    server = PgServer(work).start()
    yield server
    server.stop()
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright, one per worker for the whole run (fails under CI=true
    when missing). While it runs, Playwright's sync API holds the main thread's event loop: tests
    run coroutines with ``origin_probe.run`` (a thread of its own), never ``asyncio.run``."""
    from browser_helpers import CHROMIUM, FLAGS, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    """An empty database URL on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_server").new_database()
