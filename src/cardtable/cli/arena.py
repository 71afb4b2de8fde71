"""``cardtable arena``: a tournament between bots, with statistics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "play many games between bots (seat rotation, duplicate deals) and compare them"

EPILOG = """\
examples:
  cardtable arena kuhhandel --rules classic --bots expert,heuristic,heuristic,heuristic \\
      --games 1000 --jobs 2 --seed 0
  cardtable arena cunegonda --bots mybot.py:MyBot,heuristic --seats 4 --games 200 --json out.json

--games is rounded up to whole deals: deals = ceil(games / seats), and every deal is played once
per rotation of the line-up (games = deals x seats), all rotations on the same deck.
See docs/arena.md for how to read the table.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", help="the game (kuhhandel, cunegonda)")
    parser.add_argument("--rules", default=None, help="rule set preset (default: the game's)")
    parser.add_argument(
        "--bots",
        required=True,
        help="comma-separated line-up, one bot per seat: registered names (random, heuristic, "
        "expert) or path/to/bot.py:Class; with --seats larger, the last bot fills the rest",
    )
    parser.add_argument(
        "--seats",
        type=int,
        default=None,
        help="seats (default: one per bot, at least the rules' minimum)",
    )
    parser.add_argument(
        "--games", type=int, default=100, help="games, rounded up to whole deals (default 100)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument(
        "--decision-timeout",
        type=float,
        default=5.0,
        metavar="SEC",
        help="seconds a bot from a file may take per decision before the fallback answers "
        "(default 5; 0 = no deadline)",
    )
    parser.add_argument(
        "--guard-builtin",
        action="store_true",
        help="run built-in bots under the deadline too (default: only bots from files)",
    )
    parser.add_argument(
        "--fallback",
        default=None,
        help="bot that answers forfeited decisions (default: the game's heuristic, else random)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="write the report as JSON to PATH (or stdout when no PATH is given)",
    )
    parser.add_argument(
        "--csv",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="write one CSV row per bot to PATH (or stdout when no PATH is given)",
    )
    parser.add_argument("--records", default=None, metavar="DIR", help="save every game record")
    parser.add_argument(
        "--journal",
        default=None,
        metavar="FILE",
        help="write every finished game to FILE; run the same command again to go on where it "
        "stopped, or with a larger --games to add deals (docs/arena.md)",
    )
    parser.add_argument(
        "--backend", choices=("process", "ray"), default="process", help="where games run"
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster address for --backend ray (default: start a local instance)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    from cardtable.arena import (
        Progress,
        TournamentPlan,
        deals_for,
        default_fallback,
        make_entries,
        run_tournament,
    )
    from cardtable.core import game_spec, split_bot_list

    spec = game_spec(args.game)
    rules_name = args.rules if args.rules is not None else spec.default_rules
    refs = split_bot_list(args.bots)
    seats = args.seats
    if seats is None:  # too few bots for the game: the last one fills the minimum seat count
        low, _high = spec.seat_range(spec.resolve_rules(rules_name))
        seats = max(len([r for r in refs if r.strip()]), low)
    entries = make_entries(refs, seats)
    seats = len(entries)
    if args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    timeout = args.decision_timeout if args.decision_timeout > 0 else None
    plan = TournamentPlan(
        game=args.game,
        rules=rules_name,
        seats=seats,
        entries=entries,
        deals=deals_for(args.games, seats),
        seed=args.seed,
        decision_timeout=timeout,
        fallback=args.fallback or default_fallback(args.game),
        records=args.records,
        guard_builtin=args.guard_builtin,
    )
    if plan.games != args.games:
        print(
            f"arena: {args.games} games rounded up to {plan.deals} deals x {plan.rotations} "
            f"rotations = {plan.games} games",
            file=sys.stderr,
        )
    progress = Progress(plan.games, enabled=not args.no_progress)
    report = run_tournament(
        plan,
        jobs=args.jobs,
        backend=args.backend,
        address=args.address,
        progress=progress,
        journal=args.journal,
    )
    to_stdout = False
    for target, text in ((args.json, report.dumps), (args.csv, report.to_csv)):
        if target is None:
            continue
        if target == "-":
            sys.stdout.write(text())
            to_stdout = True
        else:
            Path(target).write_text(text())
    if not to_stdout:
        sys.stdout.write(report.to_text())
    return 0
