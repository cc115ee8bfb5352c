"""Sales accounts from a server-side JSON file: user name → argon2id hash (salted), never a password.

Used when no OpenID Connect provider is configured for ``st.login``. The file is written
atomically with mode 0600; add users with ``python -m store add-user NAME``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import os
import re
import tempfile
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from . import private_paths
from .errors import StoreError

log = logging.getLogger(__name__)

USERNAME = re.compile(r"^[a-z0-9][a-z0-9._-]{1,31}$")
MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 256
_HASHER = PasswordHasher()  # argon2id with argon2-cffi's defaults (RFC 9106 low-memory profile)
_DUMMY_HASH = _HASHER.hash("not a real password; evens out the time of unknown names")


def _load(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        users = data["users"]
        if not isinstance(users, dict):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"accounts file {path} is unreadable: {type(exc).__name__}") from None
    return users


def _save(path: Path, users: dict[str, dict]) -> None:
    private_paths.prepare(path, "accounts file")  # missing directories 0700; refused where others could swap it
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".users-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"users": users}, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_username(name: str) -> str:
    """A valid user name (2-32 of a-z 0-9 . _ -, starting with a letter or digit) or StoreError."""
    if not isinstance(name, str) or not USERNAME.match(name):
        raise StoreError("user name: 2 to 32 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit")
    return name


def add_user(path: Path, name: str, password: str, replace: bool = False) -> None:
    """Add (or with ``replace``, reset) a user; only the argon2id hash is written."""
    check_username(name)
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise StoreError(f"password: {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters")
    users = _load(path)
    if name in users and not replace:
        raise StoreError(f"user {name!r} exists; use --replace to set a new password")
    users[name] = {"password_hash": _HASHER.hash(password), "created": dt.date.today().isoformat()}
    _save(path, users)


def remove_user(path: Path, name: str) -> None:
    """Remove a user (their saved scenarios stay in the store under ``local:<name>``)."""
    users = _load(path)
    if users.pop(name, None) is None:
        raise StoreError(f"no user {name!r}")
    _save(path, users)


def list_users(path: Path) -> list[str]:
    """The user names in the file."""
    return sorted(_load(path))


def exists(path: Path, name: str) -> bool:
    """True while ``name`` is in the accounts file (re-read only when the file changes)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return False
    return name in _names(str(path), stamp)


@functools.lru_cache(maxsize=8)
def _names(path: str, _stamp: int) -> frozenset[str]:
    try:
        return frozenset(_load(Path(path)))
    except StoreError:
        return frozenset()


def verify(path: Path, name: str, password: str) -> bool:
    """True when ``password`` is the user's. An existing and an unknown (or malformed) name cost the
    same: one read of the file and one argon2id check with the current parameters (against a dummy
    hash for an unknown name). A stored hash of older parameters — which would cost differently — is
    replaced at the user's next successful sign-in."""
    users = _load(path)  # read for every name, valid or not
    entry = users.get(name) if isinstance(name, str) and USERNAME.match(name) else None
    stored = entry.get("password_hash", _DUMMY_HASH) if isinstance(entry, dict) else _DUMMY_HASH
    if not isinstance(stored, str):
        stored = _DUMMY_HASH
    try:
        ok = _HASHER.verify(stored, password[:MAX_PASSWORD_CHARS]) and entry is not None
    except (VerificationError, InvalidHashError):
        return False
    if ok and _HASHER.check_needs_rehash(stored):
        _rehash(path, name, password[:MAX_PASSWORD_CHARS])
    return ok


def _rehash(path: Path, name: str, password: str) -> None:
    """Store the user's hash with the current parameters; a read-only accounts file keeps the old one."""
    try:
        users = _load(path)
        if isinstance(users.get(name), dict):
            users[name] = {**users[name], "password_hash": _HASHER.hash(password)}
            _save(path, users)
    except (OSError, StoreError) as exc:
        log.warning("could not rehash %s in %s: %s", name, path, type(exc).__name__)
