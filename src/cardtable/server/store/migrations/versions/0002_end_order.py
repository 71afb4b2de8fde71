"""The order in which games ended, as committed: ``games.end_seq``.

Ratings are a pure function of the ordered list of finished rated games. With several server
processes the moment a game ended in memory is not the order its rating updates were committed,
so every game end takes a number from ``games_end_seq`` (PostgreSQL; SQLite: the largest plus
one, under its single writer lock) after it has locked its seats' rating rows; ``cardtable
ratings recompute`` replays in that order. Games that ended before this revision are numbered in
the order they ended (``ended_at``, ``id``), the order the recomputation used until now.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("end_seq", sa.BigInteger, nullable=True))
    op.create_index("ix_games_end_seq", "games", ["end_seq"], unique=True)
    op.execute(
        "UPDATE games SET end_seq = ("
        " SELECT COUNT(*) FROM games g2 WHERE g2.ended_at IS NOT NULL AND g2.status <> 'running'"
        " AND (g2.ended_at < games.ended_at"
        " OR (g2.ended_at = games.ended_at AND g2.id <= games.id))"
        ") WHERE ended_at IS NOT NULL AND status <> 'running'"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE games_end_seq")
        op.execute(
            "SELECT setval('games_end_seq', COALESCE((SELECT MAX(end_seq) FROM games), 0) + 1,"
            " false)"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE games_end_seq")
    op.drop_index("ix_games_end_seq", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("end_seq")
