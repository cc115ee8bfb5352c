"""Directory modes of the store's files (store/private_paths.py): every directory the app or
``python -m store`` creates is 0700 whatever the umask, and a database or accounts file under a
directory that would let another user replace it is refused with a message naming the directory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import store
from store import accounts
from store.errors import StoreError

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a password long enough"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _run(args: list[str], cwd: Path, env: dict[str, str], umask: str = "000") -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "FABRIC_TCO_DB", "FABRIC_TCO_USERS")}
    cmd = f"umask {umask} && exec {sys.executable} -m store " + " ".join(args)
    return subprocess.run(["sh", "-c", cmd], cwd=cwd, env={**clean, "PYTHONPATH": str(ROOT), **env},
                          input=PASSWORD + "\n", capture_output=True, text=True, timeout=120)


def test_add_user_makes_var_0700_under_umask_000(tmp_path):
    out = _run(["add-user", "alice", "--password-stdin"], cwd=tmp_path, env={})
    assert out.returncode == 0, out.stderr
    assert _mode(tmp_path / "var") == 0o700
    assert _mode(tmp_path / "var" / "users.json") == 0o600


def test_every_missing_parent_of_a_new_database_is_0700_under_umask_000(tmp_path):
    path = tmp_path / "a" / "b" / "c" / "fabric-tco.db"
    out = _run(["migrate"], cwd=tmp_path, env={"FABRIC_TCO_DB": str(path)})
    assert out.returncode == 0, out.stderr
    assert [_mode(d) for d in (tmp_path / "a", tmp_path / "a" / "b", path.parent)] == [0o700] * 3
    assert _mode(path) == 0o600


def test_in_process_too_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        accounts.add_user(tmp_path / "x" / "y" / "users.json", "bob", PASSWORD)
        store.open_store(f"sqlite:///{tmp_path / 'p' / 'q' / 'db.sqlite'}").engine.dispose()
    finally:
        os.umask(old)
    for d in ("x", "x/y", "p", "p/q"):
        assert _mode(tmp_path / d) == 0o700, d


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757, 0o770])
def test_a_database_under_a_group_or_world_writable_directory_is_refused(tmp_path, mode):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    path = shared / "deep" / "fabric-tco.db"
    with pytest.raises(StoreError, match=rf"database {path}: the directory {shared} is (group|world)-writable "
                                         rf"\(mode 0{mode:o}\).*chmod go-w {shared}"):
        store.open_store(f"sqlite:///{path}")
    assert not path.exists() and not path.parent.exists()  # nothing made there
    out = _run(["migrate"], cwd=tmp_path, env={"FABRIC_TCO_DB": str(path)})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(f"error: cannot open the database sqlite:///{path}: database {path}: the directory")


def test_the_accounts_file_under_a_world_writable_directory_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    out = _run(["--users-file", str(shared / "users.json"), "add-user", "alice", "--password-stdin"],
               cwd=tmp_path, env={})
    assert out.returncode == 2, out
    assert out.stderr.startswith(f"error: accounts file {shared / 'users.json'}: the directory {shared} is "
                                 "world-writable (mode 0777)"), out.stderr
    assert not (shared / "users.json").exists()


def test_a_link_into_a_world_writable_directory_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    (tmp_path / "mine").mkdir(mode=0o700)
    (tmp_path / "mine" / "var").symlink_to(shared)
    with pytest.raises(StoreError, match="world-writable"):
        accounts.add_user(tmp_path / "mine" / "var" / "users.json", "alice", PASSWORD)


def test_a_sticky_shared_directory_like_tmp_and_the_images_app_var_is_accepted(tmp_path):
    sticky = tmp_path / "app-var"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    accounts.add_user(sticky / "users.json", "alice", PASSWORD)
    store.open_store(f"sqlite:///{sticky / 'fabric-tco.db'}").engine.dispose()
    assert _mode(sticky / "fabric-tco.db") == 0o600


@pytest.mark.skipif(os.getuid() != 0, reason="making a file or directory of another user needs root")
def test_a_directory_or_database_file_of_another_user_is_refused(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 12345, 12345)
    with pytest.raises(StoreError, match=r"belongs to another user \(uid 12345\)"):
        store.open_store(f"sqlite:///{theirs / 'fabric-tco.db'}")
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    planted = sticky / "fabric-tco.db"
    planted.write_bytes(b"")
    os.chown(planted, 12345, 12345)  # made first by another user in a shared directory
    with pytest.raises(StoreError, match=rf"database {planted} belongs to another user"):
        store.open_store(f"sqlite:///{planted}")
