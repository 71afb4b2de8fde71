"""``cardtable ratings``: rebuild or show the server's ratings."""

from __future__ import annotations

import argparse

HELP = "server ratings: `recompute` rebuilds them from stored results, `show` prints a leaderboard"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["recompute", "show"])
    parser.add_argument("--db", help="database URL (default: the server's, see cardtable serve)")
    parser.add_argument("--config", help="TOML settings file")
    parser.add_argument("--game", default="kuhhandel")
    parser.add_argument("--rules", default=None, help="rule set (default: the game's default)")


def run(args: argparse.Namespace) -> int:
    from cardtable.core import game_spec
    from cardtable.server.config import load_settings
    from cardtable.server.store import Store

    settings = load_settings(args.config, overrides={"db": args.db})
    store = Store(settings.db)
    try:
        store.migrate()
        if args.action == "recompute":
            n = store.recompute_ratings()
            print(f"recomputed ratings from {n} rated game(s)")
            return 0
        rules = args.rules or game_spec(args.game).default_rules
        entries = store.leaderboard(args.game, rules)
        print(f"{args.game} / {rules}")
        print(f"{'#':>3}  {'name':<24} {'rating':>8} {'games':>6} {'wins':>5}")
        for e in entries:
            print(
                f"{e['rank']:>3}  {e['name']:<24} {e['rating']:>8.2f} "
                f"{e['games']:>6} {e['wins']:>5}"
            )
        return 0
    finally:
        store.close()
