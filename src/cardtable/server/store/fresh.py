"""A fresh SQLite database in one step: the schema the migrations build, without alembic.

Every start of a server migrates its database (:meth:`~cardtable.server.store.db.Store.migrate`):
a database at the newest revision is left as it is, an older one is migrated by alembic. A fresh
SQLite database (no table yet) is given :data:`SCRIPT` instead: the statements SQLite keeps for a
database the migrations built (its ``sqlite_master``), the head revision stamped, all in one
transaction. Importing alembic (mako and pygments with it) and running every migration cost a
fresh server 0.2 s of CPU on this project's 2-core host (measured); the script, a few ms. Every
test server starts on a fresh database, and so does an operator's first start.

``tests/server/test_store.py`` checks that the script builds exactly what the migrations build.
After a new migration, write it again::

    python -m cardtable.server.store.fresh

PostgreSQL databases are always migrated by alembic (the processes of a cluster starting on one
database take turns under a lock there).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

#: The newest schema of a SQLite database, as SQLite itself keeps it, and the head revision.
SCRIPT = Path(__file__).with_name("sqlite_schema.sql")


def schema_of(conn: sqlite3.Connection) -> list[str]:
    """The statements that built ``conn``'s schema, in the order SQLite keeps them (tables
    before their indexes), with the stored alembic revision as an ``INSERT``."""
    rows = conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid"
    ).fetchall()
    statements = [str(row[0]) for row in rows]
    for (revision,) in conn.execute("SELECT version_num FROM alembic_version").fetchall():
        statements.append(f"INSERT INTO alembic_version (version_num) VALUES ('{revision}')")
    return statements


def script_text(statements: list[str]) -> str:
    """The statements as a SQL script (each ends with ``;`` on a line of its own)."""
    return "".join(f"{statement}\n;\n" for statement in statements)


def statements_of(script: str) -> list[str]:
    """The statements of a script :func:`script_text` wrote."""
    statements, lines = [], []
    for line in script.splitlines():
        if line == ";":
            statements.append("\n".join(lines))
            lines = []
        else:
            lines.append(line)
    return statements


def create(conn: sqlite3.Connection) -> bool:
    """Build the newest schema in ``conn``'s database if it has no table yet, in one transaction
    (a second process waits for the first's commit, then finds tables). False, and nothing
    changed, when it has tables: an older database, for alembic."""
    statements = statements_of(SCRIPT.read_text(encoding="utf-8"))
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            conn.execute("ROLLBACK")
            return False
        for statement in statements:
            conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return True


def migrated_schema() -> list[str]:
    """The schema alembic's migrations build in a fresh SQLite database."""
    from cardtable.server.store.db import Store

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "migrated.db"
        store = Store(f"sqlite:///{path}")
        try:
            store.upgrade()
        finally:
            store.close()
        conn = sqlite3.connect(path)
        try:
            return schema_of(conn)
        finally:
            conn.close()


def main() -> int:
    """Write :data:`SCRIPT` from the migrations."""
    SCRIPT.write_text(script_text(migrated_schema()), encoding="utf-8")
    print(f"wrote {SCRIPT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
