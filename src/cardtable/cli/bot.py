"""``cardtable bot``: play on a server with a built-in bot or a bot file, printing each result."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardtable.client import GameReport

HELP = (
    "connect a bot (built in, path/to/bot.py:Class, or --cmd a program in any language) to a "
    "cardtable server and play games"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default="ws://127.0.0.1:8000/ws",
        help="WebSocket URL of the server (default ws://127.0.0.1:8000/ws; /ws is added if absent)",
    )
    p.add_argument("--name", help="the bot's registered name (POST /api/bots)")
    p.add_argument(
        "--token",
        default=None,
        help="the bot's token (default: $CARDTABLE_TOKEN, which keeps it out of process lists)",
    )
    p.add_argument("--guest", default=None, help="play as a guest with this display name instead")
    p.add_argument("--bot", default="heuristic", help="built-in bot name or path/to/bot.py[:Class]")
    p.add_argument(
        "--cmd",
        default=None,
        metavar="COMMAND",
        help='a program in any language speaking the stdio protocol, "./mybot --arg" or '
        '"node bot.js" (docs/stdio-bots.md); instead of --bot',
    )
    p.add_argument("--cwd", default=None, metavar="DIR", help="with --cmd: its working directory")
    p.add_argument(
        "--log",
        default=None,
        metavar="FILE",
        help="with --cmd: append every line both ways to FILE (> to it, < from it, ! its stderr)",
    )
    p.add_argument(
        "--lobby",
        default="ranked",
        choices=("ranked", "practice", "private", "tournament", "challenge"),
        help="challenge (without --challenge): wait for other bots' challenges and accept them",
    )
    p.add_argument(
        "--challenge",
        default=None,
        metavar="BOT",
        help="challenge the registered bot BOT to --games games (--game, --rules, --seats; the "
        "other seats house bots; unrated unless --rated)",
    )
    p.add_argument("--rated", action="store_true", help="with --challenge: a rated game")
    p.add_argument(
        "--accept-challenges",
        choices=("auto", "yes", "no"),
        default="auto",
        help="answer other bots' challenges: yes accepts between games, no declines, auto "
        "(default) accepts in --lobby challenge only",
    )
    p.add_argument(
        "--tournament",
        default=None,
        metavar="ID",
        help="enter tournament ID (docs/competitions.md): plays its games until it is over",
    )
    p.add_argument("--game", default="kuhhandel")
    p.add_argument("--rules", default=None, help="rule set preset (default: the game's default)")
    p.add_argument("--seats", type=int, default=None, help="table size to ask for")
    p.add_argument("--opponents", default=None, help="practice lobby: the house bot to play")
    p.add_argument("--invite", default=None, help="private lobby: the table's invite code")
    p.add_argument("--games", type=int, default=1, help="games to play (tournament: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bot's own random choices")
    p.add_argument(
        "--margin-ms",
        type=float,
        default=200.0,
        help="time kept back from each deadline for the network (default 200)",
    )
    p.add_argument(
        "--fallback",
        choices=("auto", "server", "client"),
        default="auto",
        help="who answers a decision the bot failed (raised, no action, late); every such "
        "fault is reported to the server either way. server: the server's fallback, at once; "
        "client: this client's own (first choice or random bot); auto (default): server in "
        "the ranked lobby and tournaments (whose tables refuse a client's own answer), client "
        "elsewhere",
    )
    p.add_argument(
        "--no-fallback",
        action="store_true",
        help="the same as --fallback server",
    )
    p.add_argument(
        "--version-tag",
        default=None,
        metavar="TEXT",
        help="the bot's version, recorded with each game it plays (up to 64 characters; "
        "default: sha256:HASH of the bot's file, or the built-in bot's name and cardtable's "
        "version; '' sends none)",
    )
    p.add_argument("-v", "--verbose", action="count", default=0)


def default_version(bot: str) -> str:
    """The version sent in ``hello`` unless ``--version-tag`` says one: the first 12 hex of the
    bot file's SHA-256 (so an author sees which code played; a program's: its last argument that
    is a file, ``bot.js`` of ``node bot.js``), else ``NAME@cardtable-X.Y.Z``."""
    import hashlib
    from pathlib import Path

    import cardtable

    path = Path(bot.split(":", 1)[0]) if bot.split(":", 1)[0].endswith(".py") else None
    if bot.startswith(("cmd:", "cmd[")):  # a program: its last argument that is a file
        from cardtable.stdio import parse_program_ref

        spec = parse_program_ref(bot)
        files = [Path(spec.cwd or ".", a) for a in spec.argv if Path(spec.cwd or ".", a).is_file()]
        path = files[-1] if files else None
    if path is not None and path.is_file():
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return f"{bot}@cardtable-{cardtable.__version__}"[:64]


def server_url(text: str) -> str:
    """``ws://host:port/ws`` from what a person types (``host:port``, ``http://...``)."""
    url = text.strip()
    if "://" not in url:
        url = "ws://" + url
    scheme, _, rest = url.partition("://")
    scheme = {"http": "ws", "https": "wss"}.get(scheme, scheme)
    if "/" not in rest:
        rest += "/ws"
    return f"{scheme}://{rest}"


def run(args: argparse.Namespace) -> int:
    from cardtable.client import ConnectionLost, ServerError, play

    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(message)s",
    )
    token = args.token or os.environ.get("CARDTABLE_TOKEN")
    if args.guest is None and (not args.name or not token):
        raise ValueError("a bot needs --name and --token (or $CARDTABLE_TOKEN), or use --guest")
    bot = program_ref(args) if args.cmd else args.bot
    reports: list[GameReport] = []
    total: int | None = args.games
    if args.challenge:
        args.lobby = "challenge"
    if args.tournament:
        args.lobby = "tournament"
        if args.games == 1:
            args.games = 1_000_000  # until the server says the tournament is over
            total = None  # the server's plan decides: no total shown (issue 35: [5/1000000])

    def show(report: GameReport) -> None:
        reports.append(report)
        print(f"{progress(len(reports), total)} {report.summary()}", flush=True)
        for fault in report.faults:
            print(f"    fault: {fault}", flush=True)

    try:
        play(
            server_url(args.server),
            None if args.guest else args.name,
            None if args.guest else token,
            bot,
            guest=args.guest,
            lobby=args.lobby,
            game=args.game,
            rules=args.rules,
            games=args.games,
            seats=args.seats,
            opponents=args.opponents,
            invite=args.invite,
            seed=args.seed,
            margin_ms=args.margin_ms,
            fallback=None
            if args.fallback == "auto" and not args.no_fallback
            else args.fallback == "client" and not args.no_fallback,
            on_result=show,
            tournament=args.tournament,
            version=default_version(bot) if args.version_tag is None else args.version_tag,
            opponent=args.challenge,
            rated=args.rated,
            accept_challenges={"auto": None, "yes": True, "no": False}[args.accept_challenges],
        )
    except ServerError as exc:
        if args.tournament and exc.code == "tournament_over":
            print(f"tournament {args.tournament} is over", flush=True)
            print(totals(reports))
            return 0
        print(f"cardtable bot: error: {exc}", file=sys.stderr)
        if reports:
            print(totals(reports))
        return 1
    except (ConnectionLost, OSError) as exc:
        print(f"cardtable bot: error: {exc}", file=sys.stderr)
        if reports:
            print(totals(reports))
        return 1
    print(totals(reports))
    return 0


def program_ref(args: argparse.Namespace) -> str:
    """The ``cmd[...]:COMMAND`` reference of ``--cmd`` with ``--cwd`` and ``--log``."""
    options = [f"{key}={value}" for key, value in (("cwd", args.cwd), ("log", args.log)) if value]
    if any("," in o or "]" in o for o in options):
        raise ValueError("--cwd and --log paths may not contain ',' or ']'")
    return f"cmd[{','.join(options)}]:{args.cmd}" if options else f"cmd:{args.cmd}"


def progress(done: int, total: int | None) -> str:
    """``[3/10]``, or ``[3]`` when the number of games is not known here (a tournament, whose
    plan the server keeps)."""
    return f"[{done}]" if total is None else f"[{done}/{total}]"


def totals(reports: Sequence[GameReport]) -> str:
    """One closing line over every finished game (a game given up without a result, its
    process having died in a cluster, is only counted)."""
    games = [r for r in reports if r.result.places]
    unscored = len(reports) - len(games)
    if not games:
        return "no game finished" + (f" ({unscored} given up)" if unscored else "")
    wins = sum(1 for r in games if r.place == 1)
    mean_place = sum(r.place for r in games) / len(games)
    mean_score = sum(r.score for r in games) / len(games)
    faults = sum(len(r.faults) for r in games)
    return (
        f"{len(games)} games: {wins} won, mean place {mean_place:.2f}, "
        f"mean score {mean_score:.1f}, {faults} faults"
        + (f" ({unscored} more given up without a result)" if unscored else "")
    )
