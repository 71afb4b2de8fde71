"""``cardtable arena``: a tournament between bots, with statistics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HELP = "play many games between bots (seat rotation, duplicate deals) and compare them"

EPILOG = """\
examples:
  cardtable arena kuhhandel --rules classic --bots expert,heuristic,heuristic,heuristic \\
      --games 1000 --jobs 2 --seed 0
  cardtable arena cunegonda --bots mybot.py:MyBot,heuristic --seats 4 --games 200 --json out.json

  cardtable arena kuhhandel --ab old.py:MyBot,new.py:MyBot --bots heuristic --seats 4 --games 400

--ab A,B plays two tournaments, version A then version B at position 1 against the same --bots,
on the same deals and seatings, and gives the difference B - A in win share and mean score with
95% intervals paired over deals.

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
        "--ab",
        default=None,
        metavar="A,B",
        help="compare two versions of a bot on the same deals and seatings (--bots then lists "
        "their opponents, default heuristic)",
    )
    parser.add_argument(
        "--bots",
        default=None,
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
        "--deadline",
        dest="decision_timeout",
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
        "stopped, or with a larger --games to add deals (docs/arena.md); with --ab, side A's "
        "games go to FILE with .a before its suffix, side B's with .b; with --panel or --mirror, "
        "seating N's go to FILE with .N before its suffix",
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
    parser.add_argument(
        "--panel",
        action="store_true",
        help="mixed-field panel: the first --bots entry (default expert) against every seating "
        "of the panel (built-in bots but random, the simple styles; docs/arena.md), --games "
        "games per seating",
    )
    parser.add_argument(
        "--mirror",
        action="store_true",
        help="mirror panel: every panel bot and value bidder (docs/arena.md) seated once against "
        "copies of the first --bots entry (default expert), --games games per seating",
    )


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
    from cardtable.core.compiled import build_line

    spec = game_spec(args.game)
    rules_name = args.rules if args.rules is not None else spec.default_rules
    versions: list[str] = []
    if args.ab is not None:
        versions = split_bot_list(args.ab)
        if len(versions) != 2:
            raise ValueError(f"--ab takes two bots, A,B (got {len(versions)})")
        if args.csv or args.records:
            raise ValueError("--ab does not take --csv or --records")
        refs = [versions[0], *split_bot_list(args.bots or "heuristic")]
    elif getattr(args, "panel", False) or getattr(args, "mirror", False):
        return run_panel_command(args, spec, rules_name)
    elif args.bots is None:
        raise ValueError("--bots is required (the line-up), or --ab A,B")
    else:
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
    print(build_line([args.game]), file=sys.stderr, flush=True)
    if versions:
        return run_ab_command(plan, versions, args)
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
        if sys.stdout.isatty():
            _print_table(report)
        else:  # a file or a pipe: the plain text table
            sys.stdout.write(report.to_text())
    return 0


def _print_table(report: Any) -> None:
    """The report on a terminal: the standings as a `rich` table, the notes under it."""
    from rich.console import Console
    from rich.table import Table

    header, *rows = report.table()
    table = Table(title=report.title(), title_justify="left")
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 1 else "right", no_wrap=i == 1)
    for row in rows:
        table.add_row(*row)
    console = Console()
    console.print(table)
    for line in report.notes():
        console.print(line, markup=False, highlight=False)


def run_ab_command(plan: object, versions: list[str], args: argparse.Namespace) -> int:
    from cardtable.arena import Progress, TournamentPlan
    from cardtable.arena.ab import ab_plans, run_ab

    assert isinstance(plan, TournamentPlan)
    plan_a, plan_b = ab_plans(plan, versions[0], versions[1])
    bars = (
        Progress(plan.games, enabled=not args.no_progress),
        Progress(plan.games, enabled=not args.no_progress),
    )
    report = run_ab(
        plan_a,
        plan_b,
        jobs=args.jobs,
        backend=args.backend,
        address=args.address,
        progress=bars,
        journal=args.journal,
    )
    if args.json is not None:
        if args.json == "-":
            sys.stdout.write(report.dumps())
            return 0
        Path(args.json).write_text(report.dumps())
    sys.stdout.write(report.to_text())
    return 0


def run_panel_command(args: argparse.Namespace, spec: Any, rules_name: str) -> int:
    from cardtable.arena import (
        Progress,
        TournamentPlan,
        deals_for,
        default_fallback,
        make_entries,
        run_tournament,
    )
    from cardtable.arena.panel import (
        MirrorReport,
        mirror_lineups,
        mirror_refs,
        panel_refs,
        run_panel,
        seating_journals,
        seatings,
    )
    from cardtable.core import split_bot_list

    mirror = getattr(args, "mirror", False)
    flag = "--mirror" if mirror else "--panel"
    if args.ab is not None or args.csv or args.records:
        raise ValueError(f"{flag} does not take --ab, --csv or --records")
    if mirror and getattr(args, "panel", False):
        raise ValueError("--panel and --mirror are two measurements: choose one")
    tested = (split_bot_list(args.bots) if args.bots else ["expert"])[0]
    low, _high = spec.seat_range(spec.resolve_rules(rules_name))
    seats = args.seats or max(low, 4)
    timeout = args.decision_timeout if args.decision_timeout > 0 else None

    def plan_for(lineup: list[str]) -> TournamentPlan:
        return TournamentPlan(
            game=args.game,
            rules=rules_name,
            seats=seats,
            entries=make_entries(lineup, seats),
            deals=deals_for(args.games, seats),
            seed=args.seed,
            decision_timeout=timeout,
            fallback=args.fallback or default_fallback(args.game),
            guard_builtin=args.guard_builtin,
        )

    if mirror:
        lineups = mirror_lineups(tested, mirror_refs(args.game), seats)
    else:
        lineups = seatings(tested, panel_refs(args.game), seats)
    # With --journal, seating i keeps its games in FILE.i (seating_journals): run again after a
    # stop, the seatings done are read back and the one cut short goes on where it stopped. The
    # seatings are played in the order of `lineups`, so each takes the next journal.
    books = iter(seating_journals(args.journal, len(lineups)) if args.journal else [])

    def run(plan: TournamentPlan) -> Any:
        progress = Progress(plan.games, enabled=not args.no_progress)
        return run_tournament(
            plan,
            jobs=args.jobs,
            backend=args.backend,
            address=args.address,
            progress=progress,
            journal=next(books, None),
        )

    def show(report: Any) -> None:
        sys.stdout.write(report.to_text())
        sys.stdout.flush()

    to_stdout = args.json == "-"
    result: Any
    if mirror:
        result = MirrorReport(tested)
        for lineup in lineups:
            report = run(plan_for(lineup))
            result.reports.append(report)
            if not to_stdout:
                show(report)
    else:
        result = run_panel(plan_for, tested, lineups, run, None if to_stdout else show)
    if to_stdout:
        sys.stdout.write(result.dumps())
        return 0
    if args.json is not None:
        Path(args.json).write_text(result.dumps())
    sys.stdout.write("\n" + result.to_text())
    return 0
