"""Browser sign-in sessions (the server side of the HttpOnly session cookie).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("username", sa.String(200), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=True, unique=True),
        sa.Column("handoff_sha256", sa.String(64), nullable=True, unique=True),
        sa.Column("handoff_expires_at", sa.Float, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_web_sessions_username", "web_sessions", ["username"])


def downgrade() -> None:
    op.drop_index("ix_web_sessions_username", table_name="web_sessions")
    op.drop_table("web_sessions")
