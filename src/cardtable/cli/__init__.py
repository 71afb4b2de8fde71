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
    "analyse": "cardtable.cli.analyse",
    "bench": "cardtable.cli.bench",
    "bench-server": "cardtable.cli.bench_server",
    "bench-table": "cardtable.cli.bench_table",
    "bot": "cardtable.cli.bot",
    "loadtest": "cardtable.cli.loadtest",
    "arena": "cardtable.cli.arena",
    "serve": "cardtable.cli.serve",
    "ratings": "cardtable.cli.ratings",
    "backup": "cardtable.cli.backup",
    "restore": "cardtable.cli.restore",
    "new-bot": "cardtable.cli.new_bot",
    "tournament": "cardtable.cli.tournament",
    "hosted-worker": "cardtable.cli.hosted_worker",
    "i18n": "cardtable.cli.i18n",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``cardtable`` parser with every subcommand, or with only ``command``'s: a
    subcommand's parser is the same either way, and importing every command's module (the
    arena, httpx, the analysis...) costs a ``cardtable serve`` or ``cardtable bot`` process a
    quarter of a second of CPU it does not need (measured: 0.27 s for all, 0.03 s for serve)."""
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="Card games for people and bots: Kuhhandel and Cunegonda.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = {command: COMMANDS[command]} if command in COMMANDS else COMMANDS
    for name, module_name in chosen.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


#: Every measurement is a ``cardtable bench ...``: ``bench kuhhandel|cunegonda`` times the engine
#: (cli/bench.py); the others are these commands under their bench names.
BENCHES: dict[str, list[str]] = {
    "server": ["bench-server"],  # the cluster: decisions/s and p50/p99 for 1, 2, 4 processes
    "analysis": ["analyse", "--bench"],  # the expert's analysis of a game, on one core
    "analysis-latency": ["analyse", "--latency"],  # live tables with and without analyses
    "table": ["bench-table"],  # the browser table: the renderer's CPU per event, in Chromium
}


def main(argv: Sequence[str] | None = None) -> int:
    """The ``cardtable`` command. Run as the command (``argv`` not given, as the console script
    calls it), it first chooses the engine build, before any engine is imported:
    the compiled one when ``build/compiled`` is built and current (:mod:`cardtable.engine_build`).
    Called with ``argv`` (tests, scripts), it keeps the build already imported."""
    if argv is None:
        from cardtable.engine_build import choose

        choose()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and len(argv) > 1 and argv[1] in BENCHES:
        argv = [*BENCHES[argv[1]], *argv[2:]]
    # `cardtable serve ...`: only serve's module is imported; `--help` or a typo: all of them
    args = build_parser(argv[0] if argv else None).parse_args(argv)
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
