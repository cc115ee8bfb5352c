"""Sign-in timing: a wrong password for an existing name and for an unknown name cost the same,
through the function the Scenarios page calls (``webui.session.storage.sign_in``); a hash of older argon2
parameters (which would cost differently) is replaced at the next successful sign-in."""

from __future__ import annotations

import dataclasses
import errno
import itertools
import json
import os
import statistics
import time
from pathlib import Path

import pytest
from argon2 import PasswordHasher

import store.policy
from store import accounts
from webui.session import storage

USERS = Path(os.environ["FABRIC_TCO_USERS"])
SAMPLES = 30
WRONG = "not the password at all"


@pytest.fixture
def unthrottled(monkeypatch):
    """Every attempt from a fresh address, under ceilings it cannot reach: the throttle would
    otherwise answer later attempts without checking a password (which is what is timed here)."""
    relaxed = dataclasses.replace(store.policy.policy(), max_name_failures=10**6, max_client_failures=10**6)
    monkeypatch.setattr(store.policy, "policy", lambda: relaxed)
    addresses = (f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}" for i in itertools.count(1))
    monkeypatch.setattr(storage, "client_address", lambda: next(addresses))


def _timed(name: str) -> float:
    start = time.perf_counter()
    ok, msg, _ = storage.sign_in(name, WRONG)
    elapsed = time.perf_counter() - start
    assert (ok, msg) == (False, "auth.failed")
    return elapsed


def test_an_existing_and_an_unknown_name_cost_the_same(unthrottled):
    for i in range(12):  # a users file of some size: both paths read it
        accounts.add_user(USERS, f"timing{i}", "correct horse battery", replace=True)
    _timed("timing3"), _timed("nobody-here")  # warm: store opened, file cached by the OS
    existing, unknown = [], []
    for i in range(SAMPLES):  # interleaved, in alternating order, so the machine's load weighs on both alike
        pair = [("existing", "timing3"), ("unknown", "nobody-here")][:: 1 if i % 2 else -1]
        for kind, name in pair:
            (existing if kind == "existing" else unknown).append(_timed(name))
    med = {"existing": statistics.median(existing), "unknown": statistics.median(unknown)}
    # each pair ran back to back, so a burst of load on a shared machine weighs on both of its sign-ins:
    # the median of the pairs' ratios is what the two paths cost relative to each other
    ratio = statistics.median(e / u for e, u in zip(existing, unknown, strict=True))
    print(f"\nmedians of {SAMPLES} wrong-password sign-ins each [s]: existing {med['existing']:.3f}, "
          f"unknown {med['unknown']:.3f}; median ratio of the pairs {ratio:.3f}")
    assert abs(ratio - 1) < 0.10, (ratio, med)


def _stored_hash(name: str) -> str:
    return json.loads(USERS.read_text(encoding="utf-8"))["users"][name]["password_hash"]


def _old_hash(name: str, password: str) -> None:
    """Give ``name`` a hash of argon2-cffi's pre-21.2 parameters (t=2, 100 MiB, 8 lanes)."""
    users = json.loads(USERS.read_text(encoding="utf-8"))
    old = PasswordHasher(time_cost=2, memory_cost=102400, parallelism=8)
    users["users"][name]["password_hash"] = old.hash(password)
    USERS.write_text(json.dumps(users), encoding="utf-8")


def test_a_hash_of_older_parameters_is_replaced_at_the_next_sign_in():
    accounts.add_user(USERS, "oldhash", "correct horse battery", replace=True)
    _old_hash("oldhash", "correct horse battery")
    assert "m=102400,t=2,p=8" in _stored_hash("oldhash")
    assert not accounts.verify(USERS, "oldhash", WRONG)
    assert "m=102400,t=2,p=8" in _stored_hash("oldhash")  # a wrong password changes nothing
    assert accounts.verify(USERS, "oldhash", "correct horse battery")
    assert "m=65536,t=3,p=4" in _stored_hash("oldhash")
    assert accounts.verify(USERS, "oldhash", "correct horse battery")


def test_a_read_only_accounts_file_keeps_the_old_hash_and_signs_in(tmp_path, monkeypatch):
    path = tmp_path / "users.json"
    accounts.add_user(path, "ro", "correct horse battery")
    users = json.loads(path.read_text(encoding="utf-8"))
    users["users"]["ro"]["password_hash"] = PasswordHasher(time_cost=2, memory_cost=102400,
                                                           parallelism=8).hash("correct horse battery")
    path.write_text(json.dumps(users), encoding="utf-8")

    def read_only(*_args):  # as the container mounts it: every write fails
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(accounts, "_save", read_only)
    assert accounts.verify(path, "ro", "correct horse battery")
    assert "m=102400" in json.loads(path.read_text(encoding="utf-8"))["users"]["ro"]["password_hash"]
