"""The store's tables (SQLAlchemy Core). Times are Unix epoch seconds [s]; documents are JSON text.

The migrations in ``store/migrations/versions`` create exactly these tables; a test compares them.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

ID = sa.String(32)  # random 128-bit ids, hex: not enumerable
OWNER = sa.String(200)  # "local:<user>" or "oidc:<subject>"

scenarios = sa.Table(
    "scenarios", metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("owner", OWNER, nullable=False, index=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("latest_version", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("deleted_at", sa.Float, nullable=True),
)

scenario_versions = sa.Table(
    "scenario_versions", metadata,
    sa.Column("scenario_id", ID, sa.ForeignKey("scenarios.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("note", sa.String(500), nullable=False),
    sa.Column("author", OWNER, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("format", sa.Integer, nullable=True),  # costmodel.scenario.formats version of document; None: 1 (older)
    sa.Column("summary", sa.Text, nullable=True),  # JSON of costmodel.api.summarize at save; None: older
)

price_books = sa.Table(
    "price_books", metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("owner", OWNER, nullable=False, index=True),
    sa.Column("name", sa.String(120), nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("deleted_at", sa.Float, nullable=True),
)

share_tokens = sa.Table(
    "share_tokens", metadata,
    sa.Column("token_sha256", sa.String(64), primary_key=True),
    sa.Column("scenario_id", ID, sa.ForeignKey("scenarios.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("version", sa.Integer, nullable=True),  # None: always the latest version
    sa.Column("owner", OWNER, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("revoked_at", sa.Float, nullable=True),
)

login_failures = sa.Table(
    "login_failures", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("username", sa.String(200), nullable=False, index=True),
    sa.Column("at", sa.Float, nullable=False),
)

web_sessions = sa.Table(  # a signed-in browser: the server side of the HttpOnly session cookie
    "web_sessions", metadata,
    sa.Column("id", ID, primary_key=True),  # what the app's session state holds (never the cookie)
    sa.Column("username", sa.String(200), nullable=False, index=True),
    sa.Column("token_sha256", sa.String(64), nullable=True, unique=True),  # the cookie's hash, once handed over
    sa.Column("handoff_sha256", sa.String(64), nullable=True, unique=True),  # one-time, until the cookie is set
    sa.Column("handoff_expires_at", sa.Float, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Column("revoked_at", sa.Float, nullable=True),
)

quote_requests = sa.Table(  # a customer's "request a quote": contact details and a public copy of the scenario
    "quote_requests", metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("company", sa.String(200), nullable=False),
    sa.Column("contact", sa.String(200), nullable=False),  # an e-mail address or a phone number
    sa.Column("note", sa.String(1000), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),  # the customer's page language
    sa.Column("scenario_name", sa.String(200), nullable=False),
    sa.Column("document", sa.Text, nullable=False),  # the scenario at public list prices (never a quote's)
    sa.Column("format", sa.Integer, nullable=False),
    sa.Column("summary", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False, index=True),
)

proposals = sa.Table(  # a numbered quote: a scenario version pinned with its customer, project and validity
    "proposals", metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),  # allocated by the database
    sa.Column("number", sa.String(32), nullable=True, unique=True),  # "<prefix>-<year>-<seq>", set in its transaction
    sa.Column("scenario_id", ID, sa.ForeignKey("scenarios.id", ondelete="CASCADE"), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("format", sa.Integer, nullable=False),
    sa.Column("price_book", sa.String(200), nullable=False),  # "<book id>@<as_of>" (+ "+<custom book id>")
    sa.Column("summary", sa.Text, nullable=True),  # the figures when it was made (costmodel.api.summarize)
    sa.Column("customer", sa.String(200), nullable=False),
    sa.Column("project", sa.String(200), nullable=False),
    sa.Column("valid_until", sa.String(10), nullable=False),  # ISO date
    sa.Column("author", OWNER, nullable=False),
    sa.Column("author_name", sa.String(200), nullable=False),
    sa.Column("request_id", ID, sa.ForeignKey("quote_requests.id", ondelete="SET NULL"), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
)
