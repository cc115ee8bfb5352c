"""Where the store and the accounts file live: environment variables with embedded defaults."""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variables read here (and nowhere else).
ENV_DATABASE_URL = "DATABASE_URL"
ENV_SQLITE_PATH = "FABRIC_TCO_DB"
ENV_USERS_FILE = "FABRIC_TCO_USERS"

DEFAULT_SQLITE_PATH = Path("var") / "fabric-tco.db"
DEFAULT_USERS_FILE = Path("var") / "users.json"


def database_url(env: dict[str, str] | None = None) -> str:
    """``DATABASE_URL`` when set (``postgresql://`` is read as psycopg 3), else the SQLite file.

    >>> database_url({"FABRIC_TCO_DB": "/tmp/x.db"})
    'sqlite:////tmp/x.db'
    >>> database_url({"DATABASE_URL": "postgresql://u@h/db"})
    'postgresql+psycopg://u@h/db'
    """
    env = os.environ if env is None else env
    url = env.get(ENV_DATABASE_URL, "").strip()
    if url:
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix):]
        return url
    path = Path(env.get(ENV_SQLITE_PATH, "") or DEFAULT_SQLITE_PATH)
    return f"sqlite:///{path}"


def users_file(env: dict[str, str] | None = None) -> Path:
    """The server-side accounts file (``FABRIC_TCO_USERS``, default ``var/users.json``)."""
    env = os.environ if env is None else env
    return Path(env.get(ENV_USERS_FILE, "") or DEFAULT_USERS_FILE)
