"""``cardtable loadtest``: many client bots in one process against a local server, measured."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Any

HELP = (
    "benchmark a local server: register and connect many bots, play, and report games/min, "
    "decisions/s, latency per decision (p50/p99) and errors"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="ws://127.0.0.1:8000/ws", help="a server on this machine")
    p.add_argument("--bots", type=int, default=200, help="client bots to connect (default 200)")
    p.add_argument("--game", default="cunegonda", help="cunegonda (default) or kuhhandel")
    p.add_argument("--rules", default=None, help="rule set preset (default: the game's default)")
    p.add_argument("--lobby", default="ranked", choices=("ranked", "practice"))
    p.add_argument("--seats", type=int, default=None, help="table size to ask for (Kuhhandel)")
    p.add_argument("--bot", default="random", help="the bot every client runs (default random)")
    p.add_argument(
        "--duration", type=float, default=30.0, help="seconds of play before stopping (default 30)"
    )
    p.add_argument(
        "--min-decisions",
        type=int,
        default=0,
        help="play on after --duration until the bots have made this many decisions (default 0)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="at most this long for the games under way to finish after --duration (default 60)",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="every bot answers this long after a request (default 0: as fast as possible, "
        "which saturates the machine)",
    )
    p.add_argument(
        "--threads",
        action="store_true",
        help="run each bot on its own thread (as `cardtable bot` does) instead of on the loop",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("-v", "--verbose", action="count", default=0)


def run(args: argparse.Namespace) -> int:
    from cardtable.cli.bot import server_url
    from cardtable.client.load import run_load

    logging.basicConfig(
        level=logging.ERROR - 10 * min(args.verbose, 3),
        format="%(asctime)s %(levelname)s %(message)s",
    )

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    report = asyncio.run(
        run_load(
            server_url(args.server),
            bots=args.bots,
            game=args.game,
            rules=args.rules,
            lobby=args.lobby,
            seats=args.seats,
            duration=args.duration,
            min_decisions=args.min_decisions,
            grace=args.grace,
            bot=args.bot,
            threaded=args.threads,
            think_ms=args.think_ms,
            progress=progress,
        )
    )
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    elif sys.stdout.isatty():
        _print_table(report)
    else:  # a file or a pipe: plain lines
        print(report.summary())
    return 0 if report.total_errors == 0 and report.connected == args.bots else 1


def _print_table(report: Any) -> None:
    """The report on a terminal, as a `rich` table (the same figures as the plain summary)."""
    from rich.console import Console
    from rich.table import Table

    d = report.to_json()
    rules = d["rules"] or "default rules"
    title = f"loadtest {d['game']} ({rules}, {d['lobby']}) against {d['server']}"
    table = Table("measure", "p50", "p90", "p99", "max", "other", title=title, title_justify="left")
    lat, lag = d["latency_ms"], d["client_loop_lag_ms"]
    metrics = d["server_metrics"] or {}
    table.add_row(
        "bots",
        "",
        "",
        "",
        "",
        f"{d['bots']} (answering after {d['think_ms']:g} ms), "
        f"{d['connected']} connected, {d['peak_seated']} seated at once (peak)",
    )
    table.add_row(
        "games",
        "",
        "",
        "",
        "",
        f"{d['games']} in {d['seconds']} s ({d['games_per_minute']} "
        f"games/min), {d['unfinished_games']} unfinished",
    )
    table.add_row("decisions", "", "", "", "", f"{d['decisions']} ({d['decisions_per_second']}/s)")
    table.add_row(
        "latency per decision, client (ms)", str(lat["p50"]), str(lat["p90"]), str(lat["p99"]),
        str(lat["max"]), f"{d['latency_samples']} samples",
    )  # fmt: skip
    server = metrics.get("decision_latency") or {}
    if server:
        table.add_row(
            "latency per decision, server (ms)", str(server.get("p50_ms")),
            str(server.get("p90_ms")), str(server.get("p99_ms")), str(server.get("max_ms")),
            f"{server.get('samples')} samples",
        )  # fmt: skip
    table.add_row(
        "client event loop lag (ms)", str(lag["p50"]), "", str(lag["p99"]), "",
        f"client CPU {d['client_cpu_seconds']} s",
    )  # fmt: skip
    errors = ", ".join(f"{k} {v}" for k, v in sorted(d["errors"].items())) or "none"
    table.add_row("errors", "", "", "", "", errors)
    if d["server_faults"] is not None:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(d["server_faults"].items())) or "none"
        table.add_row("server-side faults", "", "", "", "", faults)
    Console().print(table)
    for example in d["error_examples"]:
        print(f"    {example}")
