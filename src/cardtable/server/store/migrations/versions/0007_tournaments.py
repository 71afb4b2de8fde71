"""Competitions: ``tournaments``, ``tournament_entrants`` and ``tournament_games`` (the schedule).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("rules_name", sa.String(64), nullable=True),
        sa.Column("rules_json", sa.Text, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("config_json", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("standings_json", sa.Text, nullable=True),
    )
    op.create_table(
        "tournament_entrants",
        sa.Column(
            "tournament_id", sa.String(16), sa.ForeignKey("tournaments.id"), primary_key=True
        ),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("faults", sa.Integer, nullable=False, server_default="0"),
        sa.Column("bans", sa.Integer, nullable=False, server_default="0"),
        sa.Column("suspended", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("suspended_reason", sa.Text, nullable=True),
    )
    op.create_index(
        "ix_tournament_entrants_name",
        "tournament_entrants",
        ["tournament_id", "name"],
        unique=True,
    )
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(16), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("slot", sa.Integer, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("lineup", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("rotation", sa.Integer, nullable=False),
        sa.Column("seating_json", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("instance", sa.String(128), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("note", sa.Text, nullable=True),
    )
    op.create_index(
        "ix_tournament_games_slot",
        "tournament_games",
        ["tournament_id", "slot", "attempt"],
        unique=True,
    )
    op.create_index("ix_tournament_games_state", "tournament_games", ["tournament_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_tournament_games_state", "tournament_games")
    op.drop_index("ix_tournament_games_slot", "tournament_games")
    op.drop_table("tournament_games")
    op.drop_index("ix_tournament_entrants_name", "tournament_entrants")
    op.drop_table("tournament_entrants")
    op.drop_table("tournaments")
