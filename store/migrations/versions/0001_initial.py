"""Initial schema: scenarios with versions, price books, share tokens, login failures.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scenarios",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("latest_version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("deleted_at", sa.Float, nullable=True),
    )
    op.create_index("ix_scenarios_owner", "scenarios", ["owner"])
    op.create_table(
        "scenario_versions",
        sa.Column("scenario_id", sa.String(32), sa.ForeignKey("scenarios.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("note", sa.String(500), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "price_books",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("deleted_at", sa.Float, nullable=True),
    )
    op.create_index("ix_price_books_owner", "price_books", ["owner"])
    op.create_table(
        "share_tokens",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        sa.Column("scenario_id", sa.String(32), sa.ForeignKey("scenarios.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer, nullable=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_share_tokens_scenario_id", "share_tokens", ["scenario_id"])
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(200), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_login_failures_username", "login_failures", ["username"])


def downgrade() -> None:
    for name in ("login_failures", "share_tokens", "price_books", "scenario_versions", "scenarios"):
        op.drop_table(name)
