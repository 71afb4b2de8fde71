"""``cardtable replay FILE``: re-simulate a record, say whether it matches, print it."""

from __future__ import annotations

import argparse

from cardtable.cli.play import final_table
from cardtable.core import Record, game_spec, replay, verify

HELP = "re-simulate a game record, report whether it matches, and print the game"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a record written by --record or downloaded from the server")
    p.add_argument("--seat", type=int, default=None, help="print only what this seat saw")
    p.add_argument("--quiet", action="store_true", help="only say whether it matches")


def run(args: argparse.Namespace) -> int:
    record = Record.load(args.file)
    ok, why = verify(record)
    if not args.quiet and ok:
        game = replay(record)
        spec = game_spec(record.game)
        names = record.names or tuple(f"seat-{i}" for i in range(record.seats))
        for ev in game.events():
            if args.seat is None or ev.visible_to(args.seat):
                line = spec.describe_event(ev, names)
                if line:
                    print(line)
        if game.is_over():
            print()
            print(final_table(names, game.result()))
    print(("MATCHES: " if ok else "DOES NOT MATCH: ") + why)
    return 0 if ok else 1
