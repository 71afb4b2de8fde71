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

HELP = "organise a tournament on a server: create, status, pause, resume, cancel, archive"


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
        ("status", "settings, field and schedule; with --standings the standings too"),
        ("pause", "stop scheduling new games (running ones finish)"),
        ("resume", "schedule again"),
        ("cancel", "end it: planned games are not played"),
        ("archive", "download the archive (records, standings JSON and CSV) to a zip"),
    ):
        s = sub.add_parser(name, help=text)
        s.add_argument("id", help="the tournament's id")
        if name == "status":
            s.add_argument("--standings", action="store_true")
        if name == "archive":
            s.add_argument(
                "-o", "--output", default=None, help="zip file (default tournament-ID.zip)"
            )


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
            elif args.action == "status":
                data = _ok(http.get(f"/api/tournaments/{args.id}"))
                if args.standings:
                    data["standings"] = _ok(http.get(f"/api/tournaments/{args.id}/standings"))
                print(json.dumps(data, indent=1))
            elif args.action in ("pause", "resume", "cancel"):
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
