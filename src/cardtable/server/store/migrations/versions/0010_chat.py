"""Table chat: ``chat_lines`` (every line, for the operator) and ``chat_reports``.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("preset", sa.String(16), nullable=True),
        sa.Column("said_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("line_id", sa.Integer, nullable=False),
        sa.Column("reporter", sa.String(64), nullable=False),
        sa.Column("reporter_seat", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("preset", sa.String(16), nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("said_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_chat_reports_line",
        "chat_reports",
        ["game_id", "line_id", "reporter_seat"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ix_chat_reports_line", "chat_reports")
    op.drop_table("chat_reports")
    op.drop_table("chat_lines")
