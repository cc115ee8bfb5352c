"""Store hardening: private SQLite files, a pruned sign-in failure table, and a one-line error from
``python -m store migrate`` when the database cannot be opened."""

from __future__ import annotations

import dataclasses
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

import store
from costmodel.scenario.schema import Scenario
from store import repository
from store.policy import policy
from store.tables import login_failures

ROOT = Path(__file__).resolve().parents[2]
WINDOW = policy().login_window_s


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022():
    """The usual umask, under which SQLite's default file mode is 0644."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_sqlite_database_wal_shm_and_its_new_directory_are_private(tmp_path, umask_022):
    path = tmp_path / "var" / "fabric-tco.db"
    db = store.open_store(f"sqlite:///{path}")
    db.save_scenario("local:alice", Scenario(name="price book holder"))
    with db.engine.connect() as conn:  # an open connection keeps the -wal and -shm files
        conn.execute(sa.text("SELECT 1"))
        files = {p.name: _mode(p) for p in path.parent.iterdir()}
    assert files == {"fabric-tco.db": 0o600, "fabric-tco.db-wal": 0o600, "fabric-tco.db-shm": 0o600}
    assert _mode(path.parent) == 0o700
    db.engine.dispose()


def test_an_existing_world_readable_database_is_narrowed_and_its_directory_kept(tmp_path, umask_022):
    path = tmp_path / "fabric-tco.db"
    store.open_store(f"sqlite:///{path}").engine.dispose()
    os.chmod(path, 0o644)  # as an older release left it
    os.chmod(tmp_path, 0o755)
    db = store.open_store(f"sqlite:///{path}")
    assert _mode(path) == 0o600
    assert _mode(tmp_path) == 0o755, "a directory the app did not create is not changed"
    db.engine.dispose()


def _rows(db: store.Store) -> list[tuple[str, float]]:
    with db.engine.connect() as conn:
        return sorted(conn.execute(sa.select(login_failures.c.username, login_failures.c.at)).all())


def test_expired_sign_in_failures_are_pruned(store_url):
    db = store.open_store(store_url)
    t0 = 5_000_000.0
    for i in range(40):  # failed attempts from 40 addresses: never settled, so never deleted before
        db.begin_login({f"ip:10.9.0.{i}": 50}, now=t0)
    db.begin_login({"user:recent": 5}, now=t0 + 600)
    assert len(_rows(db)) == 41
    db.begin_login({"user:mallory": 5}, now=t0 + WINDOW + 1)
    assert _rows(db) == [("user:mallory", t0 + WINDOW + 1), ("user:recent", t0 + 600)]
    db.record_login("user:other", ok=False, now=t0 + 600 + WINDOW + 1)  # the older API prunes the same way
    assert _rows(db) == [("user:mallory", t0 + WINDOW + 1), ("user:other", t0 + 600 + WINDOW + 1)]


def test_pruning_is_bounded_per_attempt(store_url, monkeypatch):
    db = store.open_store(store_url)
    small = dataclasses.replace(policy(), prune_batch_rows=10)
    monkeypatch.setattr(repository, "policy", lambda: small)
    t0 = 6_000_000.0
    for i in range(25):
        db.begin_login({f"user:u{i}": 5}, now=t0 + i)
    late = t0 + 100 + WINDOW
    db.begin_login({"user:late": 5}, now=late)
    assert len(_rows(db)) == 15 + 1  # ten of the 25 expired rows went
    db.begin_login({"user:late": 5}, now=late)
    db.begin_login({"user:late": 5}, now=late)
    assert _rows(db) == [("user:late", late)] * 3


def _migrate(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "FABRIC_TCO_DB")}
    return subprocess.run([sys.executable, "-m", "store", "migrate"], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("env", "expected"), [
    ({"DATABASE_URL": "postgresql://fabric:Pa55-word-x@127.0.0.1:1/fabric_tco"},
     "error: cannot open the database postgresql+psycopg://fabric:***@127.0.0.1:1/fabric_tco: connection"),
    ({"FABRIC_TCO_DB": "/proc/no-such-dir/fabric-tco.db"},
     "error: cannot open the database sqlite:////proc/no-such-dir/fabric-tco.db: [Errno 2]"),
    ({"FABRIC_TCO_DB": "/tmp"}, "error: cannot open the database sqlite:////tmp: [Errno 21] Is a directory"),
    ({"DATABASE_URL": "not a url with s3cret-pw"}, "error: $DATABASE_URL is not a database URL"),
])
def test_migrate_names_the_database_and_the_reason_in_one_line(env, expected):
    out = _migrate(env)
    assert out.returncode == 2, out
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(expected), out.stderr
    assert "Pa55-word-x" not in out.stderr and "s3cret" not in out.stderr


def test_migrate_reports_a_file_that_is_not_a_database(tmp_path):
    bad = tmp_path / "fabric-tco.db"
    bad.write_bytes(b"this is not an SQLite file, it is long enough to have a header" * 20)
    out = _migrate({"FABRIC_TCO_DB": str(bad)})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr == f"error: cannot open the database sqlite:///{bad}: file is not a database\n"


def test_migrate_succeeds_and_names_the_database_without_its_password(pg_server):
    url = pg_server.new_database()
    out = _migrate({"DATABASE_URL": url})
    assert out.returncode == 0, out.stderr
    shown = sa.engine.make_url(store.config.database_url({"DATABASE_URL": url})).render_as_string()
    assert out.stdout.strip().endswith(f"({shown})")
