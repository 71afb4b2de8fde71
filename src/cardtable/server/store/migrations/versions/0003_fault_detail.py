"""Faults carry a detail: ``faults.detail`` (JSON text, nullable).

A fault the client reports (the bot raised, answered with no action, was late) comes with more
than a reason: who reported it, how long after the request, which fallback answered and, for an
exception, its type, message and the file, line and function of the bot's own frame.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("faults") as batch:
        batch.add_column(sa.Column("detail", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("faults") as batch:
        batch.drop_column("detail")
