"""Names compared as people see them; token hashes salted.

- ``players.name_fold`` and ``players.name_skeleton`` (unique): a name's full Unicode case
  folding and its confusable skeleton (server/names.py), filled for every registered player.
  A row whose fold or skeleton an older row already has keeps NULL there (such pairs were
  registered before the check existed; both keep working, no new name can join them).
- ``players.token_hash``: every unsalted SHA-256 hex is wrapped as ``h1$<salt>$<HMAC-SHA256(salt,
  the old hex)>`` with a random salt per row: equal tokens no longer have equal hashes, and no
  token is needed to migrate. Downgrading cannot unwrap them (the bots keep their tokens only
  with this revision or later).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_UNSALTED = re.compile(r"^[0-9a-f]{64}$")


def upgrade() -> None:
    from cardtable.server import names
    from cardtable.server.store.db import wrap_digest

    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("name_fold", sa.String(128), nullable=True))
        batch.add_column(sa.Column("name_skeleton", sa.String(128), nullable=True))
    conn = op.get_bind()
    players = sa.table(
        "players",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("kind", sa.String),
        sa.column("token_hash", sa.String),
        sa.column("name_fold", sa.String),
        sa.column("name_skeleton", sa.String),
    )
    folds: set[str] = set()
    skeletons: set[str] = set()
    rows = conn.execute(
        sa.select(players.c.id, players.c.name, players.c.kind, players.c.token_hash).order_by(
            players.c.id
        )
    ).all()
    for row in rows:
        values: dict[str, str] = {}
        if row.kind != "house":
            fold, skeleton = names.fold(row.name), names.skeleton(row.name)
            if fold not in folds:
                folds.add(fold)
                values["name_fold"] = fold
            if skeleton not in skeletons:
                skeletons.add(skeleton)
                values["name_skeleton"] = skeleton
        if row.token_hash and _UNSALTED.match(row.token_hash):
            values["token_hash"] = wrap_digest(row.token_hash)
        if values:
            conn.execute(sa.update(players).where(players.c.id == row.id).values(**values))
    op.create_index("ix_players_name_fold", "players", ["name_fold"], unique=True)
    op.create_index("ix_players_name_skeleton", "players", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_name_skeleton", table_name="players")
    op.drop_index("ix_players_name_fold", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("name_skeleton")
        batch.drop_column("name_fold")
