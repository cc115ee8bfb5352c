"""Browser sign-in sessions (store/sessions.py) on SQLite and PostgreSQL: one-time hand-over,
resume by cookie, revocation everywhere, expiry; only hashes are stored."""

from __future__ import annotations

import sqlalchemy as sa

import store
from store import sessions
from store.tables import web_sessions


def _db(store_url) -> store.Store:
    return store.open_store(store_url)


def test_hand_over_is_one_time_and_the_cookie_resumes_the_session(store_url):
    db = _db(store_url)
    sid, handoff = sessions.begin(db, "alice", now=1000.0)
    cookie, expires = sessions.hand_over(db, handoff, now=1001.0)
    assert expires == 1000.0 + sessions.settings().lifetime_s
    assert sessions.hand_over(db, handoff, now=1002.0) is None  # a replayed hand-over gets nothing
    assert sessions.resume(db, cookie, now=1003.0) == (sid, "alice")
    assert sessions.is_live(db, sid, "alice", now=1003.0)
    assert not sessions.is_live(db, sid, "bob", now=1003.0)  # a session belongs to one user
    with db.engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.select(web_sessions))]
    stored = repr(rows)
    assert cookie not in stored and handoff not in stored  # hashes only


def test_a_late_hand_over_and_an_expired_session_are_refused(store_url):
    db = _db(store_url)
    s = sessions.settings()
    _, late = sessions.begin(db, "alice", now=2000.0)
    assert sessions.hand_over(db, late, now=2000.0 + s.handoff_s + 1) is None
    sid, handoff = sessions.begin(db, "alice", now=2000.0)
    cookie, _ = sessions.hand_over(db, handoff, now=2001.0)
    after = 2000.0 + s.lifetime_s + 1
    assert sessions.resume(db, cookie, now=after) is None
    assert not sessions.is_live(db, sid, "alice", now=after)


def test_sign_out_ends_the_session_for_every_tab_and_remove_user_ends_all(store_url):
    db = _db(store_url)
    sid, handoff = sessions.begin(db, "carol")
    cookie, _ = sessions.hand_over(db, handoff)
    assert sessions.revoke(db, sid) == 1
    assert sessions.resume(db, cookie) is None and not sessions.is_live(db, sid, "carol")
    ids = [sessions.begin(db, "dave")[0] for _ in range(3)]
    assert sessions.revoke_user(db, "dave") == 3
    assert not any(sessions.is_live(db, i, "dave") for i in ids)


def test_malformed_values_are_refused_without_a_query(store_url):
    db = _db(store_url)
    for bad in ("", "x", "a" * 500, "'; DROP TABLE web_sessions; --", None, 42):
        assert sessions.hand_over(db, bad) is None
        assert sessions.resume(db, bad) is None
        assert sessions.revoke(db, token=bad) == 0
    assert not sessions.is_live(db, "not-an-id", "alice")
