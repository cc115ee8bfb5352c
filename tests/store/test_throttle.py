"""The sign-in throttle against an anonymous visitor (store/throttle.py, store/policy.yaml), on
SQLite and PostgreSQL: one address guessing a name gets growing delays and never locks the owner
(signing in from another address) out; one address spraying names hits its own cap; only many
addresses together reach a name's ceiling."""

from __future__ import annotations

import math

import pytest

import store
from store import throttle
from store.policy import policy
from store.throttle import Backoff

OWNER, ATTACKER = "198.51.100.7", "203.0.113.66"


def _keys(name: str, client: str):
    pol = policy()
    return throttle.keys_for(name, client, pol.pair_backoff, pol.max_client_failures, pol.max_name_failures)


def _attempt(db: store.Store, name: str, client: str, ok: bool, now: float) -> float:
    """One sign-in attempt as webui.session.storage.sign_in makes it; returns the wait (0 = the password was
    checked)."""
    keys, clear = _keys(name, client)
    wait, ids = db.begin_login(keys, now=now)
    if wait == 0:
        db.finish_login(ids, ok, clear)
    return wait


def test_backoff_doubles_after_the_free_failures_up_to_its_cap():
    b = Backoff(free=3, first_s=2, max_s=900)
    assert [b.delay_s(n) for n in range(3)] == [0, 0, 0]
    assert [b.delay_s(n) for n in range(3, 13)] == [2, 4, 8, 16, 32, 64, 128, 256, 512, 900]
    assert b.delay_s(10_000) == 900
    assert throttle.rows_needed(b) >= 13  # enough rows to see the cap
    assert throttle.wait_s(b, [100.0, 99.0, 98.0], now=101.0, window_s=900) == 1.0
    assert throttle.wait_s(5, [float(t) for t in range(10, 5, -1)], now=20.0, window_s=900) == 886.0


def test_policy_ceiling_is_out_of_one_addresss_reach():
    pol = policy()
    assert pol.max_name_failures > pol.pair_backoff.free
    assert pol.max_client_failures < pol.max_name_failures  # spraying one name from one address cannot reach it either


def _max_in_window(times: list[float], window: float) -> int:
    return max(sum(1 for u in times if t - window < u <= t) for t in times)


def test_an_attacker_address_never_locks_the_owner_out(store_url):
    """Two hours of one address guessing as fast as the throttle lets it, with the owner signing in
    from another address every 10 minutes: the owner never waits, and the attacker's failures in
    any window stay far below the name's ceiling."""
    db = store.open_store(store_url)
    pol, t0 = policy(), 10_000_000.0
    now, failures, owner_next = t0, [], t0
    while now < t0 + 7200:
        if now >= owner_next:
            assert _attempt(db, "hana", OWNER, True, now) == 0, f"owner held back at +{now - t0:.0f} s"
            owner_next += 600
        wait = _attempt(db, "hana", ATTACKER, False, now)
        if wait == 0:
            failures.append(now)
            now += 0.01
        else:
            now = min(now + wait, owner_next)
    worst = _max_in_window(failures, pol.login_window_s)
    print(f"\nattacker: {len(failures)} failures in 2 h, at most {worst} within {pol.login_window_s:.0f} s")
    assert worst < pol.max_name_failures / 5, worst
    assert len(failures) <= 8 * worst  # the bound holds in every one of the eight windows
    # the attacker's own address is held back meanwhile, the right password included
    assert _attempt(db, "hana", ATTACKER, True, now) > 0 or _attempt(db, "hana", ATTACKER, False, now) == 0
    db.engine.dispose()


def test_one_address_spraying_names_hits_its_own_cap_only(store_url):
    db = store.open_store(store_url)
    pol, t0 = policy(), 20_000_000.0
    for i in range(pol.max_client_failures):
        assert _attempt(db, f"user{i}", ATTACKER, False, t0 + i) == 0
    assert _attempt(db, "hana", ATTACKER, True, t0 + 100) > 0  # its next try, at any name, waits
    assert _attempt(db, "hana", OWNER, True, t0 + 100) == 0
    db.engine.dispose()


def test_only_many_addresses_together_reach_a_names_ceiling(store_url):
    """The residual risk, as documented: free failures from enough addresses lock the name for its
    window for everyone, the owner included."""
    db = store.open_store(store_url)
    pol, t0 = policy(), 30_000_000.0
    free = pol.pair_backoff.free
    addresses = math.ceil(pol.max_name_failures / free)
    for n in range(pol.max_name_failures):  # each address uses only its free failures: no delay anywhere
        a = n // free
        assert _attempt(db, "kim", f"10.66.{a // 250}.{a % 250}", False, t0 + n / 10) == 0, n
    assert _attempt(db, "kim", f"10.67.0.{addresses}", False, t0 + addresses) > 0  # a fresh address waits
    assert _attempt(db, "kim", OWNER, True, t0 + addresses + 1) > 0
    assert _attempt(db, "kim", OWNER, True, t0 + addresses + 1 + pol.login_window_s) == 0  # until the window passes
    db.engine.dispose()


def test_a_success_clears_the_owners_own_delays_not_the_name_count(store_url):
    db = store.open_store(store_url)
    t0, free = 40_000_000.0, policy().pair_backoff.free
    for k in range(free):
        _attempt(db, "lee", OWNER, False, t0 + k)
    assert _attempt(db, "lee", OWNER, True, t0 + free) > 0  # the owner's own typing: a short delay
    assert _attempt(db, "lee", OWNER, True, t0 + free + 60) == 0  # after it, the owner is in
    assert db.login_wait_s(f"pair:lee|{OWNER}", now=t0 + free + 61, limit=1) == 0  # delays cleared ...
    assert db.login_wait_s("user:lee", now=t0 + free + 61, limit=free) > 0  # ... the name's count stays
    db.engine.dispose()


@pytest.mark.parametrize("client", ["", ATTACKER])
def test_the_keys_of_an_attempt(client):
    keys, clear = _keys("hana", client)
    assert clear == f"pair:hana|{client}" and isinstance(keys[clear], Backoff)
    assert keys["user:hana"] == policy().max_name_failures
    assert (f"ip:{client}" in keys) == bool(client)
