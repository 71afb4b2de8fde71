"""``cardtable bench analysis-latency`` (``cardtable analyse --latency``): a live table's decision
latency with and without the server's analysis jobs running (issue #26: "analysis never slows
live tables"), measured.

It starts a server of its own (``cardtable serve`` in a child process, SQLite in a temporary
folder, loopback only), connects ``--bots`` client bots that play ranked games in one process
(:func:`cardtable.client.load.run_load`, the load test's machinery), and measures, phase after
phase, the server's own decision latency (``GET /api/metrics``: an action frame read to the next
request of that table handed to the socket) and the clients' (action sent to next request
received):

- *without*: no analysis job waits or runs;
- *with*: every analysis worker is busy analysing every seat of an ended game of the run
  (``POST /api/games/{id}/analysis``), checked by the jobs' progress during the phase.

Rounds alternate the two, so both see the same load from the rest of the machine. A job's time
budget (``analysis_time_s``) is the phase's length plus the time its games may take to finish
(and a margin), so the workers are idle again before the next *without* phase.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardtable.cli.child_server import child_server, http

#: Seconds the games under way may take to finish after a phase's play (measured too).
GRACE_S = 60.0
#: Seconds a job may run beyond the phase's play: the games' grace and a margin.
JOB_MARGIN_S = GRACE_S + 15.0


def _settings(args: argparse.Namespace) -> dict[str, str]:
    return {
        "CARDTABLE_ANALYSIS_WORKERS": str(args.workers),
        "CARDTABLE_ANALYSIS_TIME_S": str(args.seconds + JOB_MARGIN_S),
    }


def _jobs(base: str, ids: list[str]) -> list[dict[str, Any]]:
    out = []
    for gid in ids:
        r = http().get(f"{base}/api/games/{gid}/analysis")
        if r.status_code == 200:
            out.append(r.json())
    return out


def _busy(jobs: list[dict[str, Any]]) -> int:
    return sum(1 for j in jobs if j["status"] in ("queued", "running"))


def _wait(
    base: str, ids: list[str], until: Callable[[list[dict[str, Any]]], bool], limit_s: float
) -> list[dict[str, Any]]:
    end = time.monotonic() + limit_s
    jobs = _jobs(base, ids)
    while not until(jobs) and time.monotonic() < end:
        time.sleep(0.5)
        jobs = _jobs(base, ids)
    return jobs


def _phase(args: argparse.Namespace, base: str, tokens: dict[str, str]) -> dict[str, Any]:
    from cardtable.client.load import run_load

    report = asyncio.run(
        run_load(
            base.replace("http", "ws") + "/ws",
            bots=args.bots,
            game=args.game,
            rules=args.rules,
            duration=args.seconds,
            grace=GRACE_S,
            bot=args.bot,
            think_ms=args.think_ms,
            tokens=tokens,
        )
    )
    d = report.to_json()
    server = (report.server_metrics or {}).get("decision_latency") or {}
    return {
        "games": d["games"],
        "decisions": d["decisions"],
        "server_ms": {k: server.get(f"{k}_ms") for k in ("p50", "p90", "p99", "max")},
        "server_samples": server.get("samples"),
        "client_ms": d["latency_ms"],
        "loadavg": round(os.getloadavg()[0], 2),
    }


def run_latency(args: argparse.Namespace) -> int:
    from cardtable.client.load import register_bots

    def say(text: str) -> None:
        if not args.json:
            print(text, file=sys.stderr)

    with (
        tempfile.TemporaryDirectory(prefix="cardtable-latency-") as tmp,
        child_server(Path(tmp), _settings(args)) as base,
    ):
        tokens = asyncio.run(register_bots(base, [f"live{i}" for i in range(args.bots)]))
        phases: list[dict[str, Any]] = []
        analysed: list[str] = []
        for n in range(args.rounds):
            say(f"round {n + 1}: without analysis jobs ({args.seconds:g} s) ...")
            idle = _wait(base, analysed, lambda jobs: _busy(jobs) == 0, 3 * args.seconds)
            if _busy(idle):
                raise RuntimeError("the analysis jobs of the last phase did not stop")
            phases.append({"round": n + 1, "analysis": "without", **_phase(args, base, tokens)})
            say(f"  {_line(phases[-1])}")
            fresh = _fresh(base, analysed, args.workers)
            while len(fresh) < args.workers:  # not measured: games to analyse
                say("  playing on: too few games ended to analyse")
                _phase(args, base, tokens)
                fresh = _fresh(base, analysed, args.workers)
            for gid in fresh:  # every seat: the longest job a game gives
                http().post(f"{base}/api/games/{gid}/analysis").raise_for_status()
            analysed += fresh
            started = _wait(
                base,
                fresh,
                lambda jobs: bool(jobs) and all(j["status"] == "running" for j in jobs),
                60,
            )
            before = sum(j["done"] for j in started)
            say(f"round {n + 1}: with {len(fresh)} analysis job(s) running ...")
            phase = _phase(args, base, tokens)
            after = _jobs(base, fresh)
            phase["jobs"] = {
                "running_at_end": sum(j["status"] == "running" for j in after),
                "decisions_analysed": sum(j["done"] for j in after) - before,
            }
            phases.append({"round": n + 1, "analysis": "with", **phase})
            say(f"  {_line(phases[-1])}")
    setup = {
        "game": args.game,
        "rules": args.rules,
        "bots": args.bots,
        "bot": args.bot,
        "think_ms": args.think_ms,
        "seconds": args.seconds,
        "analysis_workers": args.workers,
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps({"setup": setup, "phases": phases}, indent=1))
        return 0
    print(
        f"{args.bots} {args.bot} bots playing ranked {args.game} "
        f"({args.think_ms:g} ms to think), {args.seconds:g} s per phase, "
        f"{args.workers} analysis worker(s), {os.cpu_count()} CPUs"
    )
    print(
        "round  analysis  decisions  server p50/p90/p99/max ms   client p50/p99 ms  "
        "load  analysed in the phase"
    )
    for p in phases:
        print(_line(p))
    return 0


def _fresh(base: str, analysed: list[str], count: int) -> list[str]:
    """Up to ``count`` ended games not analysed yet, newest first."""
    reply = http().get(f"{base}/api/games", params={"status": "finished", "limit": 50})
    ended = reply.json()["games"]
    return [g["id"] for g in ended if g["id"] not in analysed][:count]


def _line(p: dict[str, Any]) -> str:
    s, c = p["server_ms"], p["client_ms"]
    jobs = p.get("jobs")
    extra = (
        f"{jobs['decisions_analysed']} decisions, {jobs['running_at_end']} job(s) still running"
        if jobs
        else "-"
    )
    return (
        f"{p['round']:>5}  {p['analysis']:<8}  {p['decisions']:>9}  "
        f"{s['p50']:>5} {s['p90']:>5} {s['p99']:>6} {s['max']:>6}   "
        f"{c['p50']:>6} {c['p99']:>6}     {p['loadavg']:>5}  {extra}"
    )
