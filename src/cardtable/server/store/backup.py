"""Backing up a server's database and restoring it into a fresh one (SQLite and PostgreSQL).

- **SQLite**: the online backup API of SQLite itself (``sqlite3.Connection.backup``), which
  copies a consistent snapshot page by page while the server keeps writing (WAL mode); the
  backup is one ordinary SQLite file. Restoring copies it the same way into the new file.
- **PostgreSQL**: the native tools, which the PostgreSQL project maintains for exactly this:
  ``pg_dump --format=custom`` (one consistent snapshot, taken while the servers run) and
  ``pg_restore --no-owner`` into an empty database. Their major version must be at least the
  server's. The password of the URL goes to them in ``PGPASSWORD``, never on a command line.

A restore goes only into a **fresh** database (no table in it): anything else is refused, so a
restore never mixes two competitions. After it the schema is migrated to this version
(``Store.migrate``), so an older backup is brought up to date.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import inspect
from sqlalchemy.engine import URL, make_url

from cardtable.server.store.db import Store


class BackupError(ValueError):
    """A backup or restore that cannot be done, and why."""


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("an SQLite database in memory has nothing to back up")
    return Path(url.database)


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """The URL for the PostgreSQL tools (no driver, no password) and their environment."""
    plain = url.set(drivername="postgresql", password=None)
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return plain.render_as_string(hide_password=False), env


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return path


def _run(argv: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{Path(argv[0]).name} failed: {done.stderr.strip()[-2000:]}")


def backup(db: str, out: str | Path) -> Path:
    """Write a consistent copy of the database ``db`` (a SQLAlchemy URL) to ``out``."""
    url = make_url(db)
    target = Path(out)
    if target.exists():
        raise BackupError(f"{target} exists: a backup never overwrites a file")
    if url.get_backend_name() == "sqlite":
        source_path = _sqlite_path(url)
        if not source_path.is_file():
            raise BackupError(f"no SQLite database at {source_path}")
        source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
        copy = sqlite3.connect(target)
        try:
            with copy:
                source.backup(copy)
        finally:
            copy.close()
            source.close()
        return target
    if url.get_backend_name() == "postgresql":
        plain, env = _libpq(url)
        _run([_tool("pg_dump"), "--format=custom", f"--file={target}", plain], env)
        return target
    raise BackupError(f"no backup for {url.get_backend_name()} databases")


def _is_fresh(db: str) -> bool:
    store = Store(db)
    try:
        return not inspect(store.engine).get_table_names()
    finally:
        store.close()


def restore(source: str | Path, db: str) -> dict[str, int]:
    """Restore the backup ``source`` into the fresh database ``db``; returns its games by
    status (as ``GET /api/health``)."""
    url = make_url(db)
    path = Path(source)
    if not path.is_file():
        raise BackupError(f"no backup at {path}")
    if url.get_backend_name() == "sqlite":
        target = _sqlite_path(url)
        if target.exists() and target.stat().st_size > 0 and not _is_fresh(db):
            raise BackupError(f"{target} is not a fresh database: restore into a new file")
        backup_db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            names = {r[0] for r in backup_db.execute("SELECT name FROM sqlite_master")}
            if "games" not in names or "alembic_version" not in names:
                raise BackupError(f"{path} is not a backup of a cardtable SQLite database")
            target.parent.mkdir(parents=True, exist_ok=True)
            copy = sqlite3.connect(target)
            try:
                with copy:
                    backup_db.backup(copy)
            finally:
                copy.close()
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} is not an SQLite backup: {exc}") from None
        finally:
            backup_db.close()
    elif url.get_backend_name() == "postgresql":
        if not _is_fresh(db):
            raise BackupError("the database is not fresh: create an empty one to restore into")
        plain, env = _libpq(url)
        _run(
            [_tool("pg_restore"), "--no-owner", "--exit-on-error", f"--dbname={plain}", str(path)],
            env,
        )
    else:
        raise BackupError(f"no restore for {url.get_backend_name()} databases")
    store = Store(db)
    try:
        store.migrate()
        return store.counts()
    finally:
        store.close()
