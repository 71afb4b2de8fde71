"""The one command: ``cardtable``. Each subcommand lives in its own module here."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Subcommand -> module with ``add_arguments(parser)`` and ``run(args) -> int``, plus ``HELP``.
COMMANDS: dict[str, str] = {
    "play": "cardtable.cli.play",
    "replay": "cardtable.cli.replay",
    "bench": "cardtable.cli.bench",
    "bot": "cardtable.cli.bot",
    "loadtest": "cardtable.cli.loadtest",
    "arena": "cardtable.cli.arena",
    "serve": "cardtable.cli.serve",
    "ratings": "cardtable.cli.ratings",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="Card games for people and bots: Kuhhandel and Cunegonda.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except ValueError as exc:  # bad rule set, bot name, file: a clear one-line error
        print(f"cardtable: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
