"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The app opens its store on start: tests never touch a developer's var/ files.
_TMP = Path(tempfile.mkdtemp(prefix="fabric-tco-tests-"))
os.environ.setdefault("FABRIC_TCO_DB", str(_TMP / "app-store.db"))
os.environ.setdefault("FABRIC_TCO_USERS", str(_TMP / "users.json"))
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


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    """An empty database URL on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_server").new_database()
