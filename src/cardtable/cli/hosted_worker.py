"""``cardtable hosted-worker``: play a server's hosted bots in the sandbox (docs/hosted-bots.md)."""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
import threading
import time
from pathlib import Path

HELP = (
    "run the hosted bots of a server: fetch each chosen version, build it and play it in the "
    "bubblewrap sandbox (validation game first, then ranked games)"
)


#: one line of output at a time: the worker's threads print (a lease taken by the serving loop,
#: let go by a bot's thread), and ``print`` writes the text and its newline apart, so two threads
#: could join two lines into one (CI read "[lease] let go ... at T[lease] took ... at T", the let
#: go lost: "took twice")
_LINES = threading.Lock()


def say(line: str) -> None:
    """Print ``line`` whole (never joined with another thread's), and flush it."""
    with _LINES:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="http://127.0.0.1:8000", help="the server's HTTP URL")
    p.add_argument(
        "--token",
        default=None,
        help="the organiser's token (default: $CARDTABLE_ADMIN_TOKEN, kept out of process lists)",
    )
    p.add_argument(
        "--cache",
        default="/var/tmp/cardtable-hosted",
        help="where versions are unpacked and built (every folder above it must be "
        "traversable by others: the sandbox runs as a user of its own)",
    )
    p.add_argument("--game", default="kuhhandel")
    p.add_argument("--games", type=int, default=5, help="ranked games per bot and round")
    p.add_argument("--rounds", type=int, default=0, help="rounds to play (0: until stopped)")
    p.add_argument("--pause", type=float, default=5.0, help="seconds between rounds")
    p.add_argument("--redis", default=None, help="share the bots among workers: the Redis URL")
    p.add_argument(
        "--redis-prefix", default="cardtable", help="the prefix of the workers' Redis keys"
    )
    p.add_argument(
        "--lease",
        type=int,
        default=60,
        metavar="S",
        help="seconds a worker's lease on a bot lasts unless renewed (every S/3 while it plays "
        "the bot): a dead worker's bots go to another worker within S + --pause seconds",
    )
    p.add_argument(
        "--tournament",
        default=None,
        metavar="ID",
        help="play tournament ID with every validated hosted bot until it is over, then exit "
        "(a re-run: the organiser creates it again with the same seed and entrants)",
    )
    p.add_argument("--check", action="store_true", help="say what the sandbox promises, exit")
    p.add_argument(
        "--print-command",
        nargs=3,
        metavar=("FOLDER", "LANGUAGE", "ENTRY"),
        default=None,
        help="build the program in FOLDER and print the sandboxed command that runs it "
        "(for cardtable bench ... --bots cmd:COMMAND), then exit",
    )
    p.add_argument("-v", "--verbose", action="count", default=0)


def run(args: argparse.Namespace) -> int:
    from cardtable.sandbox import Limits, build, capabilities, jail_argv, run_command

    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(message)s",
    )
    found = capabilities()
    if args.print_command:
        folder, language, entry = args.print_command
        folder_path = Path(folder).resolve()
        build_dir = folder_path.with_name(folder_path.name + ".build")
        build(folder_path, build_dir, language, entry, Limits())
        argv = jail_argv(folder_path, run_command(language, entry), Limits(), build_dir=build_dir)
        print(shlex.join(argv))
        return 0
    print(found.report(), file=sys.stderr, flush=True)
    if args.check:
        return 0 if found.usable else 1
    if not found.usable:
        print("cardtable hosted-worker: error: the sandbox cannot run here", file=sys.stderr)
        return 1
    token = args.token or os.environ.get("CARDTABLE_ADMIN_TOKEN")
    if not token:
        raise ValueError(
            "the worker needs the organiser's token: --token or $CARDTABLE_ADMIN_TOKEN"
        )
    from cardtable.hosted import HostedWorker

    worker = HostedWorker(
        args.server.rstrip("/"),
        token,
        Path(args.cache),
        game=args.game,
        games=args.games,
        redis_url=args.redis,
        redis_prefix=args.redis_prefix,
        lease_s=max(1, args.lease),
        on_lease=lambda what, bot, at: say(f"[lease] {what} {bot} at {at:.6f}"),
    )
    if args.tournament:
        outcome = worker.play_tournament(args.tournament)
        for bot, what in sorted(outcome.items()):
            say(f"[tournament {args.tournament}] {bot}: {summary(what)}")
        return 0
    if args.rounds == 0:  # until stopped: each free bot taken as soon as it is free

        def said(bot: str, what: object) -> None:
            say(f"[served] {bot}: {summary(what)}")

        worker.serve(threading.Event(), args.pause, said)
        return 0
    done = 0
    while done < args.rounds:
        outcome = worker.run_round()
        done += 1
        for bot, what in sorted(outcome.items()):
            say(f"[round {done}] {bot}: {summary(what)}")
        if done < args.rounds:
            time.sleep(args.pause)
    return 0


def summary(what: object) -> str:
    if isinstance(what, list):
        faults = sum(len(r.faults) for r in what)
        games = " ".join(r.game_id for r in what)
        return f"{len(what)} games, places {[r.place for r in what]}, {faults} faults: {games}"
    if isinstance(what, dict) and "validated" in what:
        return ("validated" if what["validated"] else "NOT validated") + (
            f": {what.get('error') or what.get('faults')}"
        )
    return str(what)
