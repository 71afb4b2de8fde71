"""The initial schema: players, games, game_seats, faults, ratings.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("suspended_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("suspended_reason", sa.Text, nullable=True),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("rules_name", sa.String(64), nullable=True),
        sa.Column("rules_json", sa.Text, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("lobby", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("instance", sa.String(128), nullable=False),
        sa.Column("names_json", sa.Text, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("termination", sa.String(16), nullable=True),
        sa.Column("result_json", sa.Text, nullable=True),
        sa.Column("record_json", sa.Text, nullable=True),
    )
    op.create_index("ix_games_status_started", "games", ["status", "started_at"])
    op.create_index("ix_games_game_rules", "games", ["game", "rules_name"])
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("faults", sa.Integer, nullable=False),
        sa.Column("taken_over", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=True),
        sa.Column("sigma_before", sa.Float, nullable=True),
        sa.Column("mu_after", sa.Float, nullable=True),
        sa.Column("sigma_after", sa.Float, nullable=True),
    )
    op.create_index("ix_game_seats_player", "game_seats", ["player_id"])
    op.create_table(
        "faults",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("decision", sa.Integer, nullable=False),
        sa.Column("request_kind", sa.String(32), nullable=False),
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_faults_player", "faults", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("rules", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    for table in ("ratings", "faults", "game_seats", "games", "players"):
        op.drop_table(table)
