"""An index on ``faults.game_id``.

Every game end now reads the faults of its own game (``server/fair_play.py``: a seat with a
fault of its own counts below every seat without one), and so do ``ratings recompute`` and the
tournament standings; without the index PostgreSQL scans the whole table each time.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_faults_game", "faults", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_faults_game", table_name="faults")
