"""Accounts for people (issue #21).

- ``players.password_hash``: a person's password as argon2id (``argon2-cffi``); ``NULL`` for
  bots and house bots. ``players.kind`` gains ``"person"``.
- ``players.session_gen``: a person's session generation. A session is valid only while it
  carries the player's current generation: "sign out everywhere" and a password change add one.
- ``sessions``: one row per signed-in browser: the SHA-256 of the cookie's random token, the
  player and the generation it was issued under (the cookie itself is never stored).
- ``game_seats.guest_key``: the identity key of a guest seat (``guest:`` + a hash of its resume
  token), so a guest who claims an account takes the games it played in that browser along.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("password_hash", sa.String(256), nullable=True))
        batch.add_column(sa.Column("session_gen", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("game_seats") as batch:
        batch.add_column(sa.Column("guest_key", sa.String(64), nullable=True))
    op.create_index("ix_game_seats_guest_key", "game_seats", ["guest_key"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("gen", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_player", "sessions", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_player", table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("ix_game_seats_guest_key", table_name="game_seats")
    with op.batch_alter_table("game_seats") as batch:
        batch.drop_column("guest_key")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("session_gen")
        batch.drop_column("password_hash")
