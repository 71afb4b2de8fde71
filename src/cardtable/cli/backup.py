"""``cardtable backup`` and ``cardtable restore``: a server's database to a file and back.

The work is server/store/backup.py's: SQLite's online backup API, PostgreSQL's ``pg_dump`` and
``pg_restore``. Both are safe while the server runs; a restore goes only into a fresh database.
"""

from __future__ import annotations

import argparse

HELP = "back up the server's database to a file (SQLite or PostgreSQL), safe while it runs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", help="the backup file to write (never overwritten)")
    p.add_argument("--db", help="database URL (default: the server's, see cardtable serve)")
    p.add_argument("--config", help="TOML settings file")


def run(args: argparse.Namespace) -> int:
    from cardtable.server.config import load_settings
    from cardtable.server.store.backup import backup

    settings = load_settings(args.config, overrides={"db": args.db})
    path = backup(settings.db, args.out)
    print(f"backed up to {path} ({path.stat().st_size} bytes)")
    return 0
