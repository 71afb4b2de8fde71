"""Alembic environment: run by :meth:`cardtable.server.store.Store.migrate` on a live connection."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from cardtable.server.store.models import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:  # the alembic command line: `alembic -x ...` with sqlalchemy.url set
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        _run(conn)
