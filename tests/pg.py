"""A throwaway PostgreSQL server for tests: Debian's binaries, a temp data dir, a loopback port.

``.ci/run`` installs Debian's ``postgresql`` package; where it is missing the tests that need
it skip on a developer machine and FAIL under ``CI=true``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path

from need import missing
from ports import free_port

PG_ROOT = Path("/usr/lib/postgresql")
SUPERUSER = "fabric"


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's bin directory, or None."""
    versions = sorted((p for p in PG_ROOT.glob("*/bin") if (p / "initdb").exists()),
                      key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    return versions[-1] if versions else None


def require_postgres() -> Path:
    """The bin directory, or skip (fail under CI=true) when PostgreSQL is not installed."""
    found = pg_bin()
    if found is None:
        missing("PostgreSQL server binaries not found under /usr/lib/postgresql (Debian package postgresql)")
    return found


class PgServer:
    """initdb + pg_ctl start in ``workdir``; as root, the server runs as the ``postgres`` user."""

    def __init__(self, workdir: Path):
        self.bin = require_postgres()
        self.dir = workdir / "pgdata"
        self.port = free_port()
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *cmd: str) -> None:
        subprocess.run([*self._as, *cmd], check=True, capture_output=True, timeout=120)

    def start(self) -> PgServer:
        self.dir.mkdir(parents=True)
        if self._as:
            shutil.chown(self.dir.parent, "postgres")
            shutil.chown(self.dir, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.dir), "-A", "trust", "-U", SUPERUSER, "-E", "UTF8",
                  "--no-sync")
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir), "-l", str(self.dir / "server.log"), "-o", opts,
                  "-w", "-t", "60", "start")
        return self

    def stop(self) -> None:
        subprocess.run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.dir), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60, check=False)

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL (psycopg 3) of a database on this server."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        name = "t_" + secrets.token_hex(6)
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def wait_for(predicate, timeout: float = 30.0, step: float = 0.1) -> None:
    """Poll ``predicate`` until it is true (AssertionError after ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s")
