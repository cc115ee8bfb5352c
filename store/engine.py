"""Engines: SQLite in WAL mode with write transactions taken up front, or PostgreSQL."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from . import private_paths
from .policy import policy

WRITE = {"store_write": True}  # execution option of a connection that will write
PRIVATE_FILE = 0o600  # the database holds every price book: owner only


def private_sqlite_file(path: Path) -> None:
    """Create the SQLite file (and every missing parent directory) readable by the owner only.

    SQLite creates a database with 0644 (less the umask) and its ``-wal`` / ``-shm`` files with the
    database file's mode, so an empty 0600 file made here first keeps all three private. Directories
    made here are 0700; existing ones are left alone, but a database under a directory that lets
    another user replace it, or a database file of another user, is refused (StoreError naming the
    directory). Existing files of ours that others can read are narrowed to 0600.
    """
    private_paths.prepare(path, "database")
    private_paths.check_owner(path, "database")
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, PRIVATE_FILE))
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            st = file.stat()
        except FileNotFoundError:
            continue
        if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(file, stat.S_IMODE(st.st_mode) & ~0o077)


def make_engine(url: str) -> sa.Engine:
    """An engine for ``url``; SQLite files get WAL, full fsync, foreign keys and a busy timeout.

    SQLite write transactions start with ``BEGIN IMMEDIATE`` (connections opened with the
    :data:`WRITE` execution option), so two writers queue instead of failing on a lock upgrade.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
        private_sqlite_file(Path(parsed.database))
    busy_ms = policy().sqlite_busy_timeout_ms
    engine = sa.create_engine(url, connect_args={"timeout": busy_ms / 1000, "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # the driver leaves BEGIN to us (see _on_begin)
        cur = dbapi_conn.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", f"busy_timeout={busy_ms}"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("store_write") else "BEGIN")

    return engine


def is_sqlite(engine: sa.Engine) -> bool:
    """True for an SQLite engine."""
    return engine.dialect.name == "sqlite"
