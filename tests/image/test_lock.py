"""The lock files pin what requirements*.txt ask for (no podman needed): a requirement added or
narrowed without `make lock` fails here, and `make run`/`make test` refuse to go on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import lock_check  # noqa: E402


@pytest.mark.parametrize(("req", "lock"), [("requirements.txt", "requirements.lock"),
                                           ("requirements-dev.txt", "requirements-dev.lock")])
def test_locks_cover_their_requirements_with_hashes(req, lock):
    assert lock_check.problems(ROOT / req, ROOT / lock) == []
    text = (ROOT / lock).read_text(encoding="utf-8")
    pinned = lock_check.pins(ROOT / lock)
    assert text.count("==") >= len(pinned) and text.count("--hash=sha256:") >= len(pinned)
    assert "make lock" in text.splitlines()[1]


def test_runtime_lock_agrees_with_the_dev_lock():
    dev = lock_check.pins(ROOT / "requirements-dev.lock")
    runtime = lock_check.pins(ROOT / "requirements.lock")
    assert {name: dev.get(name) for name in runtime} == runtime, "`make lock` writes both from one resolution"


def test_a_requirement_outside_the_lock_is_named(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("# comment\nstreamlit>=99  # too new\nnot-a-locked-package\n", encoding="utf-8")
    (tmp_path / "dev.txt").write_text("-r requirements.txt\npytest\n", encoding="utf-8")
    found = lock_check.problems(tmp_path / "dev.txt", ROOT / "requirements.lock")
    assert any(p.startswith("streamlit: requirements.lock pins ") and "'>=99'" in p for p in found), found
    assert any(p.startswith("not-a-locked-package: in requirements.txt but not in") for p in found), found
    assert any(p.startswith("pytest: in dev.txt") for p in found), found
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "lock_check.py"), str(req),
                           str(ROOT / "requirements.lock")], capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "run `make lock`" in proc.stderr
