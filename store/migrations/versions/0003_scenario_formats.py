"""Scenario format versions: the format of each saved document and the results it had when saved.

``format`` is the :mod:`costmodel.scenario.formats` version the document is written in (NULL: saved before
formats existed, format 1); ``summary`` is the JSON of :func:`costmodel.api.summarize` at save
time (NULL: saved before summaries), so a load can say which figures the current model changed.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scenario_versions") as batch:
        batch.add_column(sa.Column("format", sa.Integer, nullable=True))
        batch.add_column(sa.Column("summary", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("scenario_versions") as batch:
        batch.drop_column("summary")
        batch.drop_column("format")
