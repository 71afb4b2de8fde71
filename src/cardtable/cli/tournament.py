"""``cardtable tournament``: an organiser creates and steers a tournament on a server over HTTP.

Every subcommand calls the server's ``/api/tournaments`` (docs/competitions.md); the organiser's
token comes from ``--admin-token`` or ``$CARDTABLE_ADMIN_TOKEN``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

HELP = (
    "organise a tournament on a server: create, status, start, pause, resume, cancel, archive; "
    "ban, suspend, disqualify, reinstate an entrant"
)
#: The organiser's sanctions on an entrant (server/organiser.py, docs/competitions.md §6).
SANCTIONS = {
    "ban": "ban an entrant for good: the house bot plays its remaining games",
    "suspend": "suspend an entrant for --minutes: the house bot plays its games meanwhile",
    "disqualify": "disqualify an entrant: banned, and out of the ranking",
    "reinstate": "lift an entrant's ban, suspension or disqualification",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default="http://127.0.0.1:8000",
        help="the server's HTTP address (default http://127.0.0.1:8000)",
    )
    p.add_argument(
        "--admin-token",
        default=None,
        help="the organiser's token (default: $CARDTABLE_ADMIN_TOKEN)",
    )
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = sub.add_parser("create", help="create a tournament; prints its id")
    c.add_argument("--name", required=True)
    c.add_argument("--game", default="kuhhandel")
    c.add_argument(
        "--rules", default=None, help="a preset name, or @file.json with a full rule set"
    )
    c.add_argument("--seats", type=int, required=True, help="seats per table")
    c.add_argument("--entrants", default="", help="registered bots, comma-separated")
    c.add_argument("--signup-until", default=None, help="ISO time: sign-up closes, play starts")
    c.add_argument("--format", choices=("all", "swiss"), default="all")
    c.add_argument("--deals", type=int, default=1, help="deals per line-up (swiss: per round)")
    c.add_argument("--rounds", type=int, default=3, help="swiss: rounds")
    c.add_argument("--seed", type=int, default=None)
    c.add_argument("--deadline-ms", type=int, default=None)
    c.add_argument("--time-bank-ms", type=int, default=None)
    c.add_argument("--ban-after-faults", type=int, default=None)
    c.add_argument("--suspend-after-faults", type=int, default=None)
    c.add_argument("--no-house-fill", action="store_true", help="no house bot for missing seats")
    c.add_argument("--absent-after-ms", type=int, default=None)
    c.add_argument("--quiet-ms", type=int, default=None)
    for name, text in (
        (
            "status",
            "a summary: games done of planned, standings, entrants' presence and sanctions "
            "(--json: the API's JSON)",
        ),
        ("start", "close the sign-up now (before signup_until): play starts"),
        ("pause", "stop scheduling new games (running ones finish)"),
        ("resume", "schedule again"),
        ("cancel", "end it: planned games are not played"),
        ("archive", "download the archive (records, standings JSON and CSV) to a zip"),
    ):
        s = sub.add_parser(name, help=text)
        s.add_argument("id", help="the tournament's id")
        if name == "status":
            s.add_argument(
                "--standings", action="store_true", help="with --json: the standings too"
            )
            s.add_argument(
                "--json", action="store_true", help="the raw JSON of the API instead of a summary"
            )
        if name == "archive":
            s.add_argument(
                "-o", "--output", default=None, help="zip file (default tournament-ID.zip)"
            )

    for name, text in SANCTIONS.items():
        s = sub.add_parser(name, help=text)
        s.add_argument("id", help="the tournament's id")
        s.add_argument("entrant", help="the entrant's name")
        if name == "suspend":
            s.add_argument("--minutes", type=float, required=True, help="for how long")
        if name != "reinstate":
            s.add_argument("--reason", default="", help="shown with the sanction")


def run(args: argparse.Namespace) -> int:
    import httpx

    base = args.server.rstrip("/")
    if "://" not in base:
        base = "http://" + base
    token = args.admin_token or os.environ.get("CARDTABLE_ADMIN_TOKEN", "")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            if args.action == "create":
                r = http.post("/api/tournaments", json=_spec(args))
                data = _ok(r)
                print(data["id"])
                print(
                    f"{data['status']}: {data['games']['planned']} games planned; standings at "
                    f"{base}{data['url']}",
                    file=sys.stderr,
                )
                for warning in data.get("warnings", []):
                    print(f"warning: {warning}", file=sys.stderr)
            elif args.action == "status":
                data = _ok(http.get(f"/api/tournaments/{args.id}"))
                table = _ok(http.get(f"/api/tournaments/{args.id}/standings"))
                if args.json:
                    if args.standings:
                        data["standings"] = table
                    print(json.dumps(data, indent=1))
                else:
                    summary(data, table)
            elif args.action in SANCTIONS:
                body: dict[str, Any] = {}
                if getattr(args, "minutes", None) is not None:
                    body["minutes"] = args.minutes
                if getattr(args, "reason", ""):
                    body["reason"] = args.reason
                path = f"/api/tournaments/{args.id}/entrants/{args.entrant}/{args.action}"
                entrant = _ok(http.post(path, json=body))["entrant"]
                print(f"{entrant['name']}: {_sanction_text(entrant)}")
            elif args.action in ("start", "pause", "resume", "cancel"):
                data = _ok(http.post(f"/api/tournaments/{args.id}/{args.action}"))
                print(data["status"])
            else:
                r = http.get(f"/api/tournaments/{args.id}/archive")
                if r.status_code != 200:
                    _ok(r)
                out = Path(args.output or f"tournament-{args.id}.zip")
                out.write_bytes(r.content)
                print(out)
    except httpx.HTTPError as exc:
        print(f"cardtable tournament: error: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(f"cardtable tournament: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _spec(args: argparse.Namespace) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": args.name,
        "game": args.game,
        "seats": args.seats,
        "entrants": [e.strip() for e in args.entrants.split(",") if e.strip()],
        "format": args.format,
        "deals": args.deals,
        "rounds": args.rounds,
        "house_fill": not args.no_house_fill,
    }
    if args.rules is not None:
        if args.rules.startswith("@"):
            try:
                spec["rules"] = json.loads(Path(args.rules[1:]).read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(f"--rules {args.rules}: {exc}") from None
        else:
            spec["rules"] = args.rules
    for key in (
        "signup_until",
        "seed",
        "deadline_ms",
        "time_bank_ms",
        "ban_after_faults",
        "suspend_after_faults",
        "absent_after_ms",
        "quiet_ms",
    ):
        value = getattr(args, key)
        if value is not None:
            spec[key] = value
    return spec


def _ok(r: Any) -> dict[str, Any]:
    if r.status_code >= 400:
        try:
            detail = r.json().get("detail")
        except ValueError:
            detail = r.text
        raise RuntimeError(f"{r.status_code}: {detail}")
    data: dict[str, Any] = r.json()
    return data


def _sanction_text(e: dict[str, Any]) -> str:
    """An entrant's standing with the organiser, in a few words."""
    active = e.get("sanction_active")
    if active == "suspended":
        return f"suspended until {e['sanction_until']} ({e['sanction_reason']})"
    if active:
        return f"{active} ({e['sanction_reason']})"
    if e.get("suspended"):
        return "suspended for its faults"
    return "in good standing"


def summary(info: dict[str, Any], table: dict[str, Any]) -> None:
    """A readable status on a terminal: the tournament, its games, the standings with each
    entrant's presence and sanction (``--json`` prints the API's JSON instead)."""
    from rich.console import Console
    from rich.table import Table

    # a pipe or a file gets whole rows (a terminal: its own width)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    games = info["games"]
    planned = games["planned"] + games["running"] + games["done"]
    console.print(
        f"[bold]{info['name']}[/bold] ({info['id']}): {info['status']}, {info['game']} "
        f"{info['rules_name'] or 'custom rules'}, {info['seats']} seats, "
        f"{info['config']['format']}; games {games['done']} done of {planned} planned, "
        f"{games['running']} running, {games['void']} void"
    )
    entrants = {e["name"]: e for e in info["entrants"]}
    t = Table(title="standings" + (" (final)" if table.get("frozen") else " (live)"))
    for col in ("#", "entrant", "presence", "games", "win share", "vs field (95%)", "place"):
        t.add_column(col, justify="left" if col in ("entrant", "presence") else "right")
    t.add_column("faults / bans", justify="right")
    t.add_column("standing")
    t.add_column("versions")

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    def signed(x: float | None) -> str:
        return "–" if x is None else f"{x:+.1f}"

    for r in [*table["rows"], *table.get("disqualified", [])]:
        e = entrants.get(r["name"], {})
        vs = r["vs_field"]
        interval = "" if vs["low"] is None else f" [{signed(vs['low'])}, {signed(vs['high'])}]"
        t.add_row(
            "–" if r["rank"] is None else str(r["rank"]),
            r["name"],
            e.get("presence", "") if e else "house",
            str(r["games"]),
            pct(r["win_share"]),
            signed(vs["mean"]) + interval,
            "–" if r["mean_place"] is None else f"{r['mean_place']:.2f}",
            f"{r['faults']} / {r['bans']}",
            _sanction_text(e) if e else "stands in",
            ", ".join(r.get("versions", [])),
        )
    shown = {r["name"] for r in [*table["rows"], *table.get("disqualified", [])]}
    for name, e in entrants.items():  # entered, no game yet
        if name not in shown:
            t.add_row("", name, e.get("presence", ""), "0", "", "", "", "", _sanction_text(e), "")
    console.print(t)
