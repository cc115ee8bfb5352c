"""Persistence of Fabric TCO Planner: scenarios with versions, price books, share tokens, accounts.

SQLAlchemy 2 Core over an embedded SQLite file by default (WAL) or PostgreSQL when
``DATABASE_URL`` is set; Alembic migrations run on open. No Streamlit here: the pages call
:class:`Store` with the signed-in owner (``None`` for a public customer session).
"""

from .errors import AccessDenied, Conflict, ImportRejected, NotFound, StoreError
from .repository import ScenarioInfo, Store, VersionInfo, open_store

__all__ = [
    "AccessDenied", "Conflict", "ImportRejected", "NotFound", "ScenarioInfo", "Store", "StoreError",
    "VersionInfo", "open_store",
]
