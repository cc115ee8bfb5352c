"""Browser sign-in sessions: the server side of the sales engineer's HttpOnly session cookie.

A password sign-in happens over Streamlit's websocket, which cannot set a cookie. So it
:func:`begin`\\ s a session and gives the page a one-time hand-over value; the page posts it to
``/auth/session`` (:mod:`webui.session.auth_routes`), which :func:`hand_over`\\ s it for the cookie value.
Only SHA-256 hashes are stored. A reload reads the cookie and :func:`resume`\\ s the session;
every rerun :func:`is_live` checks it, so a sign-out (:func:`revoke`) or a removed account
(:func:`revoke_user`) ends it in every tab and on every replica. Times are Unix epoch seconds.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
import yaml

from .tables import web_sessions

SETTINGS_FILE = Path(__file__).with_name("sessions.yaml")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,100}$")
_ID = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class Settings:
    """Token size [bytes], session lifetime [s], hand-over window [s], cookie name."""

    token_bytes: int
    lifetime_s: float
    handoff_s: float
    cookie: str


@functools.cache
def settings() -> Settings:
    raw = yaml.load(SETTINGS_FILE.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["web_session"]
    return Settings(int(raw["token_bytes"]), float(raw["lifetime_s"]), float(raw["handoff_s"]), str(raw["cookie"]))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def begin(db, username: str, now: float | None = None) -> tuple[str, str]:
    """A new session for ``username``: returns (session id, one-time hand-over value)."""
    now = time.time() if now is None else now
    s = settings()
    sid, handoff = secrets.token_hex(16), secrets.token_urlsafe(s.token_bytes)
    with db._write() as conn:
        conn.execute(web_sessions.delete().where(web_sessions.c.expires_at < now))  # housekeeping
        conn.execute(web_sessions.insert().values(
            id=sid, username=username, token_sha256=None, handoff_sha256=_sha(handoff),
            handoff_expires_at=now + s.handoff_s, created_at=now, expires_at=now + s.lifetime_s, revoked_at=None))
    return sid, handoff


def hand_over(db, handoff: str, now: float | None = None) -> tuple[str, float] | None:
    """Exchange a hand-over value (once, within its window) for (cookie value, expiry [epoch s])."""
    now = time.time() if now is None else now
    if not isinstance(handoff, str) or not _TOKEN.match(handoff):
        return None
    token = secrets.token_urlsafe(settings().token_bytes)
    with db._write() as conn:
        row = conn.execute(sa.select(web_sessions.c.id, web_sessions.c.expires_at).where(
            web_sessions.c.handoff_sha256 == _sha(handoff), web_sessions.c.handoff_expires_at >= now,
            web_sessions.c.revoked_at.is_(None), web_sessions.c.expires_at > now)).first()
        if row is None:
            return None
        conn.execute(web_sessions.update().where(web_sessions.c.id == row.id).values(
            token_sha256=_sha(token), handoff_sha256=None, handoff_expires_at=None))
    return token, row.expires_at


def resume(db, token: str | None, now: float | None = None) -> tuple[str, str] | None:
    """The (session id, user name) of a live session cookie, else None."""
    now = time.time() if now is None else now
    if not isinstance(token, str) or not _TOKEN.match(token):
        return None
    with db._read() as conn:
        row = conn.execute(sa.select(web_sessions.c.id, web_sessions.c.username).where(
            web_sessions.c.token_sha256 == _sha(token), web_sessions.c.revoked_at.is_(None),
            web_sessions.c.expires_at > now)).first()
    return (row.id, row.username) if row else None


def is_live(db, session_id: str, username: str, now: float | None = None) -> bool:
    """Whether session ``session_id`` of ``username`` is neither revoked nor expired."""
    now = time.time() if now is None else now
    if not isinstance(session_id, str) or not _ID.match(session_id):
        return False
    with db._read() as conn:
        row = conn.execute(sa.select(web_sessions.c.id).where(
            web_sessions.c.id == session_id, web_sessions.c.username == username,
            web_sessions.c.revoked_at.is_(None), web_sessions.c.expires_at > now)).first()
    return row is not None


def revoke(db, session_id: str | None = None, token: str | None = None, now: float | None = None) -> int:
    """End one session, named by its id or by its cookie value; returns how many ended (0 or 1)."""
    now = time.time() if now is None else now
    if session_id is not None and isinstance(session_id, str) and _ID.match(session_id):
        where = web_sessions.c.id == session_id
    elif isinstance(token, str) and _TOKEN.match(token):
        where = web_sessions.c.token_sha256 == _sha(token)
    else:
        return 0
    with db._write() as conn:
        return conn.execute(web_sessions.update().where(where, web_sessions.c.revoked_at.is_(None))
                            .values(revoked_at=now)).rowcount


def revoke_user(db, username: str, now: float | None = None) -> int:
    """End every session of ``username`` (a removed account); returns how many ended."""
    now = time.time() if now is None else now
    with db._write() as conn:
        return conn.execute(web_sessions.update().where(
            web_sessions.c.username == username, web_sessions.c.revoked_at.is_(None)).values(revoked_at=now)).rowcount
