"""Hosted bots: ``bot_versions`` (uploads), ``hosted_bots`` (the version that plays),
``hosted_logs`` (each game's bounded stderr).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("entry", sa.String(256), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("files", sa.Integer, nullable=False),
        sa.Column("archive", sa.LargeBinary, nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("validation_json", sa.Text, nullable=True),
        sa.Column("validated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_bot_versions_player_number", "bot_versions", ["player_id", "number"], unique=True
    )
    op.create_table(
        "hosted_bots",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("bot_versions.id"), nullable=False),
        sa.Column("chosen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "hosted_logs",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("bot_versions.id"), nullable=False),
        sa.Column("stderr", sa.Text, nullable=False),
        sa.Column("bytes", sa.Integer, nullable=False),
        sa.Column("truncated", sa.Boolean, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_hosted_logs_player", "hosted_logs", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_hosted_logs_player", "hosted_logs")
    op.drop_table("hosted_logs")
    op.drop_table("hosted_bots")
    op.drop_index("ix_bot_versions_player_number", "bot_versions")
    op.drop_table("bot_versions")
