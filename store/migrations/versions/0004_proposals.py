"""Customers' quote requests and numbered quotes (proposals).

``quote_requests`` holds what a customer left with "request a quote" and a public copy of the
scenario; ``proposals`` a numbered quote: its number (allocated from ``seq``, the database's
counter), the scenario version, format and price book it pins, its customer, project, validity and author.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quote_requests",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("company", sa.String(200), nullable=False),
        sa.Column("contact", sa.String(200), nullable=False),
        sa.Column("note", sa.String(1000), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("scenario_name", sa.String(200), nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("format", sa.Integer, nullable=False),
        sa.Column("summary", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_quote_requests_created_at", "quote_requests", ["created_at"])
    op.create_table(
        "proposals",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("number", sa.String(32), nullable=True, unique=True),
        sa.Column("scenario_id", sa.String(32), sa.ForeignKey("scenarios.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("format", sa.Integer, nullable=False),
        sa.Column("price_book", sa.String(200), nullable=False),
        sa.Column("summary", sa.Text, nullable=True),
        sa.Column("customer", sa.String(200), nullable=False),
        sa.Column("project", sa.String(200), nullable=False),
        sa.Column("valid_until", sa.String(10), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("author_name", sa.String(200), nullable=False),
        sa.Column("request_id", sa.String(32), sa.ForeignKey("quote_requests.id", ondelete="SET NULL"),
                  nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("proposals")
    op.drop_index("ix_quote_requests_created_at", table_name="quote_requests")
    op.drop_table("quote_requests")
