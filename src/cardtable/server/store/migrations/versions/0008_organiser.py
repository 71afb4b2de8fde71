"""Organisers' sanctions on tournament entrants (ban, suspend, disqualify) and bot versions.

``tournament_entrants`` gets ``sanction`` (``banned``, ``suspended`` or ``disqualified``; null
when none or reinstated), ``sanction_until`` (a suspension's end) and ``sanction_reason``;
``game_seats`` gets ``bot_version`` (the version string the seat's bot sent in ``hello``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.add_column(sa.Column("sanction", sa.String(16), nullable=True))
        batch.add_column(sa.Column("sanction_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("sanction_reason", sa.Text, nullable=True))
    with op.batch_alter_table("game_seats") as batch:
        batch.add_column(sa.Column("bot_version", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_seats") as batch:
        batch.drop_column("bot_version")
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.drop_column("sanction_reason")
        batch.drop_column("sanction_until")
        batch.drop_column("sanction")
