"""``cardtable bench server`` (also ``cardtable bench-server``): the server cluster under load.

For each process count it starts that many ``cardtable serve`` processes as one cluster (a
fresh PostgreSQL database and a Redis prefix of their own, dropped afterwards), connects the
bots round-robin to them (what ``--workers`` with ``SO_REUSEPORT`` does on one port, but each
process on a port of its own so that its ``GET /api/metrics`` can be read), lets them play
ranked games for ``--duration`` seconds (``cardtable loadtest``'s code, client/load.py) and
reports decisions per second and each process's own p50/p99 per decision.

The bots run in this process, the servers in their own. On a machine with two or more cores the
bots are pinned to the first core and the servers to the others (``--pin``, the default there;
``--no-pin`` lets the kernel place everything), so that the servers never wait behind the bots
for a core; Redis and PostgreSQL are the machine's and are left where they are. Each row also
says where the CPU went (the servers', the bots', Redis's per decision), how many of the seats
and actions were relayed between processes, and the machine's load average and busy share
during the run, so that a disturbed measurement shows as one.

**Server CPU per decision** is the CPU time the server processes used (each reads its own
``time.process_time()``, all threads, in ``GET /api/metrics``) between the start of play and the
stop, divided by the decisions the bots had answered; ``--validator fast,jsonschema`` measures
each process count once per frame validator (``CARDTABLE_VALIDATOR`` of the servers), in turn, so
that one command shows the A/B at the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HELP = "measure the server cluster: decisions/s and server-side p50/p99 for 1, 2, 4 processes"

DEFAULT_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--processes",
        default="1,2,4",
        help="process counts to measure (1,2,4); 'alone' is one process without Redis, the "
        "single-process server as make run starts it (on the same PostgreSQL)",
    )
    p.add_argument("--bots", type=int, default=200, help="bots in all (default 200)")
    p.add_argument(
        "--tables",
        type=int,
        default=50,
        help="ranked tables the bots fill (default 50: bots / tables seats per table)",
    )
    p.add_argument("--game", default="cunegonda", help="default cunegonda, as the loadtest")
    p.add_argument("--rules", default="standard")
    p.add_argument("--bot", default="random", help="the bots' agent (default random: fast)")
    p.add_argument("--duration", type=float, default=20.0, help="seconds per process count")
    p.add_argument("--grace", type=float, default=20.0, help="seconds to let games finish")
    p.add_argument(
        "--admin-db",
        default=DEFAULT_ADMIN,
        help="PostgreSQL URL of a database from which a fresh one is created per run",
    )
    p.add_argument("--redis-url", default=DEFAULT_REDIS)
    p.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="bots on the first core, servers on the others (default: on, with 2+ cores)",
    )
    p.add_argument(
        "--validator",
        default="fast",
        help="the servers' frame validator(s), comma-separated, each measured in turn: fast "
        "(fastjsonschema, the default) and/or jsonschema (the reference), e.g. fast,jsonschema",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    parts = [x.strip() for x in str(args.processes).split(",") if x.strip()]
    counts = [0 if x == "alone" else int(x) for x in parts]
    if not counts or min(counts) < 0 or max(counts) > 16:
        raise ValueError("--processes takes counts from 1 to 16 (or 'alone'), e.g. alone,1,2,4")
    if args.bots < 2 or args.tables < 1 or args.bots % args.tables:
        raise ValueError("--bots must be a multiple of --tables")
    seats = args.bots // args.tables
    from cardtable.core.compiled import build_line
    from cardtable.protocol.schema import VALIDATORS

    validators = [v.strip() for v in str(args.validator).split(",") if v.strip()]
    if not validators or any(v not in VALIDATORS for v in validators):
        raise ValueError(f"--validator takes {' and/or '.join(VALIDATORS)}, comma-separated")

    print(build_line([args.game]), flush=True)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if args.pin is None:
        args.pin = len(cores) >= 2
    args.server_cpus = None
    if args.pin:
        if len(cores) < 2:
            raise ValueError("--pin needs two cores or more")
        args.server_cpus = set(cores[1:])
        os.sched_setaffinity(0, {cores[0]})
        print(f"bots (this process) on CPU {cores[0]}, servers on CPU(s) {cores[1:]}", flush=True)
    rows = []
    for n in counts:
        for validator in validators:
            what = "1 process alone (no Redis)" if n == 0 else f"{n} process(es) as a cluster"
            print(
                f"== {what}, validator {validator}: {args.bots} bots, {args.tables} tables of "
                f"{seats}",
                flush=True,
            )
            rows.append(_measure(args, n, seats, validator))
            print(_line(rows[-1], rows[0]), flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(_table(rows, args))
    print(_cpu_summary(rows), flush=True)
    return 0


def _cpu_summary(rows: list[dict[str, Any]]) -> str:
    """One line per run: the servers' CPU per decision and the load it was measured at."""
    out = ["server CPU per decision (server processes' CPU time / decisions answered):"]
    for row in rows:
        label = "1 alone" if row["processes"] == 0 else f"{row['processes']} process(es)"
        out.append(
            f"  {label}, validator {row['validator']}: {row['server_cpu_us_per_decision']} µs "
            f"({row['decisions']} decisions, {row['decisions_per_second']}/s), load average "
            f"{row['load_average'][0]} -> {row['load_average'][1]}, machine busy "
            f"{row['machine_busy']:.0%}, {row['cores']} cores"
        )
    return "\n".join(out)


def _measure(args: argparse.Namespace, n: int, seats: int, validator: str) -> dict[str, Any]:
    from sqlalchemy import create_engine, text

    from cardtable.client.load import register_bots, run_load
    from cardtable.client.messages import http_base

    name = f"ct_bench_{secrets.token_hex(4)}"
    admin = create_engine(args.admin_db, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    db = str(
        create_engine(args.admin_db).url.set(database=name).render_as_string(hide_password=False)
    )
    prefix = f"ct-bench-{secrets.token_hex(4)}"
    load_before = os.getloadavg()[0]
    busy_before = _busy()
    redis_before = _redis_cpu(args.redis_url)
    procs: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    try:
        for i in range(max(1, n)):
            redis_url = args.redis_url if n else ""
            proc, url = _start(db, redis_url, prefix, f"bench{i + 1}", args, seats, validator)
            procs.append(proc)
            urls.append(url)
        idle = _idle_cpu([http_base(u) for u in urls])
        bot_names = [f"bench{secrets.token_hex(2)}n{i}" for i in range(args.bots)]
        tokens = asyncio.run(register_bots(http_base(urls[0]), bot_names))

        async def load() -> list[Any]:
            shares = [{b: tokens[b] for b in bot_names[i :: len(urls)]} for i in range(len(urls))]
            return list(
                await asyncio.gather(
                    *(
                        run_load(
                            url,
                            bots=len(share),
                            game=args.game,
                            rules=args.rules,
                            duration=args.duration,
                            grace=args.grace,
                            bot=args.bot,
                            tokens=share,
                        )
                        for url, share in zip(urls, shares, strict=True)
                    )
                )
            )

        reports = asyncio.run(load())
        redis_cpu = _redis_cpu(args.redis_url) - redis_before
        busy = _busy_share(busy_before, _busy())
        load_after = os.getloadavg()[0]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        _drop_redis(args.redis_url, prefix)
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()
    window = max(r.window for r in reports) or float("nan")
    per_process = []
    for url, r in zip(urls, reports, strict=True):
        d = (r.server_metrics or {}).get("decision_latency") or {}
        per_process.append(
            {
                "server": url,
                "samples": d.get("samples"),
                "p50_ms": d.get("p50_ms"),
                "p99_ms": d.get("p99_ms"),
                "max_ms": d.get("max_ms"),
                "server_cpu_seconds": (r.server_metrics or {}).get("server_cpu_seconds"),
                "placement": (r.server_metrics or {}).get("placement"),
                # what the server says it checked frames with (the A/B's proof)
                "validator": (r.server_metrics or {}).get("validator"),
            }
        )
    decisions = sum(r.decisions for r in reports)
    cpu = [p["server_cpu_seconds"] for p in per_process]
    server_cpu = sum(c for c in cpu if isinstance(c, int | float))
    # the bots of every server run in this one process at the same time, and each report's
    # CPU is the process's: the same seconds, not a sum
    client_cpu = max(r.cpu_seconds for r in reports)
    # the placement counters count from each process's start: this run is all they saw
    placed = [p["placement"] for p in per_process if p["placement"]]
    seats = sum(p["seats_local"] + p["seats_relayed"] for p in placed)
    # what the processes spend with no client at all (timers, leases, the matchmaker), over the
    # run: a fixed cost that weighs per decision only while decisions are few
    fixed = idle * window
    busy_cpu = server_cpu - fixed
    return {
        "processes": n,
        "validator": validator,
        "bots": args.bots,
        "tables": args.tables,
        "seconds": round(window, 1),
        "games": sum(r.games for r in reports),
        "decisions": decisions,
        "decisions_per_second": round(decisions / window, 1),
        "server": per_process,
        "worst_p99_ms": max((p["p99_ms"] or 0.0) for p in per_process),
        "server_cpu_seconds": round(server_cpu, 2),
        # what one decision costs the servers in all (its table's process and, for a relayed
        # seat, its client's process): decisions/s per core on a machine with cores to spare
        "server_cpu_us_per_decision": round(1e6 * server_cpu / decisions, 1) if decisions else None,
        "server_idle_cpu_share": round(idle, 3),
        "server_busy_us_per_decision": round(1e6 * busy_cpu / decisions, 1) if decisions else None,
        "client_cpu_seconds": round(client_cpu, 1),
        "client_cpu_us_per_decision": round(1e6 * client_cpu / decisions, 1) if decisions else None,
        "redis_cpu_us_per_decision": round(1e6 * redis_cpu / decisions, 1) if decisions else None,
        "relayed_seats": round(sum(p["seats_relayed"] for p in placed) / seats, 3)
        if seats
        else None,
        "relayed_actions": round(sum(p["actions_relayed"] for p in placed) / decisions, 3)
        if placed and decisions
        else None,
        "load_average": [round(load_before, 1), round(load_after, 1)],
        "machine_busy": round(busy, 2),
        "pinned": bool(args.server_cpus),
        "errors": sum(r.total_errors for r in reports),
        "error_kinds": _merge(
            [{**r.errors, **(r.server_faults or {}), **(r.server_errors or {})} for r in reports]
        ),
        "error_examples": [e for r in reports for e in r.examples][:5],
        "cores": os.cpu_count(),
    }


def _start(
    db: str,
    redis_url: str,
    prefix: str,
    instance: str,
    args: argparse.Namespace,
    seats: int,
    validator: str,
) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "CARDTABLE_VALIDATOR": validator}
    config = Path(os.environ.get("TMPDIR", "/tmp")) / f"{prefix}.toml"
    # the fallback that plays for a seat whose bot left (at the stop) is the random bot: the
    # expert's searches would take the CPU the next measurement needs
    config.write_text(
        f'[server]\nranked_rules = {{ {args.game} = ["{args.rules}"] }}\n'
        f"ranked_table_size = {{ {args.game} = {seats} }}\n"
        f'house_bots = {{ {args.game} = "random" }}\nfallback_bot = {{ {args.game} = "random" }}\n'
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from cardtable.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve",
            "--port",
            "0",
            "--db",
            db,
            *(["--redis-url", redis_url, "--redis-prefix", prefix] if redis_url else []),
            "--instance",
            instance,
            "--config",
            str(config),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    if args.server_cpus:  # at once: the threads the server starts later inherit it
        os.sched_setaffinity(proc.pid, args.server_cpus)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://([\d.]+):(\d+)", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"cardtable serve printed {line!r}")
    url = f"ws://{match.group(1)}:{match.group(2)}/ws"
    _wait_healthy(f"http://{match.group(1)}:{match.group(2)}", proc)
    return proc, url


def _wait_healthy(base: str, proc: subprocess.Popen[str]) -> None:
    import urllib.request

    end = time.monotonic() + 30
    while time.monotonic() < end and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/api/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server at {base} did not start")


def _idle_cpu(bases: list[str], seconds: float = 3.0) -> float:
    """The CPU share (of one core) the server processes use together with no client."""
    from cardtable.client.load import fetch_metrics

    def cpu() -> float:
        return sum(float((fetch_metrics(b) or {}).get("cpu_seconds", 0.0)) for b in bases)

    first, t0 = cpu(), time.monotonic()
    time.sleep(seconds)
    return max(0.0, (cpu() - first) / (time.monotonic() - t0))


def _busy() -> tuple[int, int]:
    """The machine's busy and total CPU time so far (``/proc/stat``, in clock ticks)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of the machine's CPU time that was busy between two :func:`_busy` readings."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def _redis_cpu(url: str) -> float:
    """CPU seconds the Redis server has used (every client's work, not only this run's)."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        info = client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    finally:
        client.close()


def _merge(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            if v:
                out[k] = out.get(k, 0) + v
    return out


def _drop_redis(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def _line(row: dict[str, Any], first: dict[str, Any]) -> str:
    ratio = row["decisions_per_second"] / first["decisions_per_second"]
    servers = "; ".join(f"p50 {p['p50_ms']} / p99 {p['p99_ms']} ms" for p in row["server"])
    return (
        f"   {row['decisions_per_second']} decisions/s ({ratio:.2f}x of the first run), "
        f"{row['games']} games, errors {row['errors']}; CPU per decision: servers "
        f"{row['server_cpu_us_per_decision']} µs (less their idle "
        f"{row['server_idle_cpu_share']:.1%} of a core: {row['server_busy_us_per_decision']} µs), "
        f"bots {row['client_cpu_us_per_decision']} µs, "
        f"Redis {row['redis_cpu_us_per_decision']} µs; relayed seats {_share(row['relayed_seats'])}"
        f", actions {_share(row['relayed_actions'])}; load average {row['load_average'][0]} -> "
        f"{row['load_average'][1]}, machine busy {row['machine_busy']:.0%}; per process: {servers}"
    )


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _table(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    first = rows[0]
    out = [
        f"cardtable bench server: {args.game}/{args.rules}, {args.bots} {args.bot} bots on "
        f"{args.tables} ranked tables, {args.duration:g} s per run, {rows[0]['cores']} cores, "
        + ("bots on one core, servers on the other(s)" if rows[0]["pinned"] else "not pinned"),
        "| processes | validator | decisions/s | vs first | server p50 / p99 per process (ms) | "
        "worst p99 | "
        "CPU µs per decision: servers (less idle) / bots / Redis | relayed seats / actions | "
        "load average | "
        "games | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row["decisions_per_second"] / first["decisions_per_second"]
        per = ", ".join(f"{p['p50_ms']} / {p['p99_ms']}" for p in row["server"])
        label = "1 alone" if row["processes"] == 0 else row["processes"]
        out.append(
            f"| {label} | {row['validator']} | {row['decisions_per_second']} | {ratio:.2f}x | "
            f"{per} | "
            f"{row['worst_p99_ms']} | {row['server_cpu_us_per_decision']} "
            f"({row['server_busy_us_per_decision']}) / "
            f"{row['client_cpu_us_per_decision']} / {row['redis_cpu_us_per_decision']} | "
            f"{_share(row['relayed_seats'])} / {_share(row['relayed_actions'])} | "
            f"{row['load_average'][0]} → {row['load_average'][1]} | {row['games']} | "
            f"{row['errors']} |"
        )
    return "\n".join(out)
