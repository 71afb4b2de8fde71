"""``cardtable restore FILE --db URL``: a backup (``cardtable backup``) into a fresh database."""

from __future__ import annotations

import argparse

HELP = "restore a backup (cardtable backup) into a fresh database, then migrate it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a file written by cardtable backup")
    p.add_argument("--db", required=True, help="URL of a fresh (empty or new) database")


def run(args: argparse.Namespace) -> int:
    from cardtable.server.store.backup import restore

    counts = restore(args.file, args.db)
    games = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none"
    print(f"restored: games {games}")
    return 0
