"""Run the Alembic migrations to the latest revision; safe when several processes start at once."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from .engine import WRITE, is_sqlite

SCRIPT_DIR = Path(__file__).with_name("migrations")
_PG_LOCK_KEY = 72_460_117  # arbitrary advisory-lock key of this application's migrations


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_DIR))
    return cfg


def head_revision() -> str:
    """The newest migration's revision id."""
    return ScriptDirectory.from_config(_config()).get_current_head()


def current_revision(engine: sa.Engine) -> str | None:
    """The revision the database is at (None before the first migration)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: sa.Engine) -> None:
    """Migrate to head in one transaction, serialised across processes.

    PostgreSQL: a transaction-scoped advisory lock; SQLite: ``BEGIN IMMEDIATE``. Both have
    transactional DDL, so a process killed mid-migration leaves the previous schema.
    """
    if current_revision(engine) == head_revision():
        return
    cfg = _config()
    with engine.connect() as conn:
        if is_sqlite(engine):
            conn.execution_options(**WRITE)
        with conn.begin():
            if not is_sqlite(engine):
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
