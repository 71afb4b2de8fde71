"""Load testing: many client bots in one process, against one server, measured.

:func:`run_load` registers ``bots`` bots (``POST /api/bots``), connects them all (asyncio, one
process), lets them play in a lobby for ``duration`` seconds, lets the games under way finish
(at most ``grace`` seconds), and returns a :class:`LoadReport`.

What the latency figure measures (:class:`LatencyProbe`): for each game, the time from the
moment one of our bots *sent* an action to the moment one of our bots *received* the next
request of that game. When every seat of a table is one of our bots this is the server's
reaction time to a reply (parse, validate, apply, house-keeping, events to every seat, the next
request) plus two loopback hops plus the time this process's event loop needed to read the
frame. It therefore over-states the server's own work: :attr:`LoadReport.loop_lag` reports how
late this process's event loop was, to tell the two apart. Samples are only taken for requests
that follow an action (the first request of a game and simultaneous requests are not measured).

The server measures the same loop from its side (``GET /api/metrics``: an action frame read to
the next request of that table handed to the socket): the report carries the server's figures
for the samples taken during the run (:attr:`LoadReport.server`), which is the number the
issue's target is about, and the faults the server recorded at its tables during the run, by
kind (:attr:`LoadReport.server_faults`): many of them (a seat that departs, an answer that came
after the server gave up) are never seen by a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from cardtable.client.blocking import agent_source
from cardtable.client.client import Backoff, Client, ConnectionLost
from cardtable.client.messages import ServerError, http_base
from cardtable.client.seat import GameReport

#: Hosts a load test may target: it is a benchmark for this machine, never for someone else's.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
MAX_BOTS = 2000
MAX_SECONDS = 3600.0


class LatencyProbe:
    """Action-sent to next-request-received times per game (see the module docstring)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._sent: dict[str, float] = {}

    def action_sent(self, game_id: str, at: float) -> None:
        self._sent[game_id] = at

    def request_received(self, game_id: str, at: float) -> None:
        sent = self._sent.pop(game_id, None)
        if sent is not None:
            self.samples.append(at - sent)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; ``nan`` for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))
    return ordered[rank]


@dataclass
class LoadReport:
    """The figures of one load test; times in seconds unless named ``_ms``."""

    server: str
    game: str
    rules: str | None
    lobby: str
    bots: int
    think_ms: float = 0.0
    connected: int = 0
    peak_seated: int = 0
    games: int = 0
    unfinished: int = 0
    window: float = 0.0
    decisions: int = 0
    latency: list[float] = field(default_factory=list)
    loop_lag: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    #: The server's own ``GET /api/metrics`` over this run (``None``: not available).
    server_metrics: dict[str, Any] | None = None
    #: Faults the server recorded during the run, by code (``None``: not available): every
    #: timeout, disconnect, departure (``left``), invalid action... at its tables, including
    #: those no client of ours noticed.
    server_faults: dict[str, int] | None = None
    #: ``error`` messages (refusals, ``taken_over``) and ``not_your_turn`` rejections the
    #: server sent during the run, by code.
    server_errors: dict[str, int] | None = None

    def count(self, kind: str, n: int = 1, example: str | None = None) -> None:
        if n:
            self.errors[kind] = self.errors.get(kind, 0) + n
            if example and len(self.examples) < 10:
                self.examples.append(f"{kind}: {example}")

    @property
    def total_errors(self) -> int:
        """Client-side errors, plus the faults the server recorded and the errors it sent
        (``not_your_turn`` is not one: an answer racing a cancel in an open auction)."""
        server = sum((self.server_faults or {}).values()) + sum(
            n for code, n in (self.server_errors or {}).items() if code != "not_your_turn"
        )
        return sum(self.errors.values()) + server

    def to_json(self) -> dict[str, Any]:
        minutes = self.window / 60 if self.window else float("nan")

        def ms(values: list[float], q: float) -> float:
            return round(percentile(values, q) * 1000, 2)

        return {
            "server": self.server,
            "game": self.game,
            "rules": self.rules,
            "lobby": self.lobby,
            "bots": self.bots,
            "think_ms": self.think_ms,
            "connected": self.connected,
            "peak_seated": self.peak_seated,
            "games": self.games,
            "unfinished_games": self.unfinished,
            "seconds": round(self.window, 2),
            "games_per_minute": round(self.games / minutes, 1) if self.window else None,
            "decisions": self.decisions,
            "decisions_per_second": round(self.decisions / self.window, 1) if self.window else None,
            "latency_samples": len(self.latency),
            "latency_ms": {
                "p50": ms(self.latency, 0.5),
                "p90": ms(self.latency, 0.9),
                "p99": ms(self.latency, 0.99),
                "max": ms(self.latency, 1.0),
            },
            "client_loop_lag_ms": {"p50": ms(self.loop_lag, 0.5), "p99": ms(self.loop_lag, 0.99)},
            "client_cpu_seconds": round(self.cpu_seconds, 2),
            "errors": dict(self.errors),
            "error_examples": list(self.examples),
            "server_faults": self.server_faults,
            "server_errors": self.server_errors,
            "server_metrics": self.server_metrics,
        }

    def summary(self) -> str:
        d = self.to_json()
        lat = d["latency_ms"]
        lag = d["client_loop_lag_ms"]
        errors = ", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"
        return "\n".join(
            [
                f"loadtest {self.game} ({self.rules or 'default rules'}, {self.lobby}) "
                f"against {self.server}",
                f"  bots {self.bots} (answering after {self.think_ms:g} ms), "
                f"connected {self.connected}, "
                f"seated at once (peak) {self.peak_seated}",
                f"  {self.games} games finished in {d['seconds']} s "
                f"({d['games_per_minute']} games/min), {self.unfinished} unfinished",
                f"  {self.decisions} decisions ({d['decisions_per_second']}/s)",
                f"  latency per decision (action sent -> next request received, "
                f"{len(self.latency)} samples): p50 {lat['p50']} ms, p90 {lat['p90']} ms, "
                f"p99 {lat['p99']} ms, max {lat['max']} ms",
                f"  client event loop lag: p50 {lag['p50']} ms, p99 {lag['p99']} ms; "
                f"client CPU {d['client_cpu_seconds']} s",
                self._server_line(),
                f"  errors: {errors}",
                *(f"    {e}" for e in self.examples),
                self._server_faults_line(),
            ]
        )

    def _server_faults_line(self) -> str:
        if self.server_faults is None or self.server_errors is None:
            return "  server-side faults: not available (GET /api/metrics failed)"

        def listing(counts: dict[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"

        return (
            f"  server-side faults (recorded at the tables): {listing(self.server_faults)}; "
            f"errors sent: {listing(self.server_errors)}"
        )

    def _server_line(self) -> str:
        m = self.server_metrics
        if not m:
            return "  server-side latency: not available (GET /api/metrics failed)"
        d = m.get("decision_latency") or {}
        b = m.get("bot_think") or {}
        line = (
            f"  server-side latency per decision (action read -> next request sent, "
            f"{d.get('samples')} samples{'' if d.get('complete', True) else ', newest only'}): "
            f"p50 {d.get('p50_ms')} ms, p90 {d.get('p90_ms')} ms, p99 {d.get('p99_ms')} ms, "
            f"max {d.get('max_ms')} ms"
        )
        if b.get("samples"):
            line += (
                f"\n  server house/fallback bot decisions ({b.get('samples')}): "
                f"mean {b.get('mean_ms')} ms, p99 {b.get('p99_ms')} ms, max {b.get('max_ms')} ms"
            )
        lag = m.get("loop_lag") or {}
        if lag.get("samples"):
            line += (
                f"\n  server event loop lag (last minute): p50 {lag.get('p50_ms')} ms, "
                f"p99 {lag.get('p99_ms')} ms, max {lag.get('max_ms')} ms"
            )
        if m.get("server_cpu_seconds") is not None:
            line += f"\n  server CPU {m['server_cpu_seconds']} s"
            if self.decisions:
                per = 1e6 * float(m["server_cpu_seconds"]) / self.decisions
                line += f" ({per:.0f} µs per decision)"
        return line


def fetch_metrics(base: str, query: str = "", timeout: float = 10.0) -> dict[str, Any] | None:
    """The server's ``GET /api/metrics`` (blocking); ``None`` if it cannot be read."""
    try:
        with urllib.request.urlopen(f"{base}/api/metrics{query}", timeout=timeout) as response:
            data = json.loads(response.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def counts_since(before: dict[str, Any], after: dict[str, Any], key: str) -> dict[str, int] | None:
    """What a counter map of ``GET /api/metrics`` (``faults``, ``errors_sent``) grew by between
    two reads, without zeros; ``None`` if the server does not report it."""
    old, new = before.get(key), after.get(key)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    grown = {str(k): int(v) - int(old.get(k, 0)) for k, v in new.items()}
    return {k: n for k, n in sorted(grown.items()) if n > 0}


def check_loopback(server: str) -> None:
    """Refuse any server that is not on this machine."""
    host = urlsplit(server).hostname or ""
    if host not in LOOPBACK:
        raise ValueError(f"loadtest only targets this machine (127.0.0.1/localhost), not {host!r}")


def register_bot(base: str, name: str, timeout: float = 10.0) -> str:
    """``POST /api/bots`` and return the token (blocking; raises ``RuntimeError`` on refusal)."""
    body = json.dumps({"name": name}).encode()
    request = urllib.request.Request(
        f"{base}/api/bots",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")[:200]
        raise RuntimeError(f"POST /api/bots {name!r}: HTTP {exc.code} {detail}") from exc
    token = data.get("token") if isinstance(data, dict) else None
    if not isinstance(token, str):
        raise RuntimeError(f"POST /api/bots {name!r}: no token in {data!r}")
    return token


async def register_bots(base: str, names: Sequence[str], parallel: int = 8) -> dict[str, str]:
    """Register every name (``parallel`` requests at a time); name -> token."""
    gate = asyncio.Semaphore(parallel)

    async def one(name: str) -> tuple[str, str]:
        async with gate:
            return name, await asyncio.to_thread(register_bot, base, name)

    return dict(await asyncio.gather(*(one(n) for n in names)))


async def _settle(
    players: Sequence[asyncio.Future[None]],
    clients: Sequence[Client],
    grace: float,
    quiet: float = 1.0,
) -> set[asyncio.Future[None]]:
    """Wait until the games under way have ended (at most ``grace`` s); the unfinished tasks.

    A bot still waiting for a table stays in the queue after the stop (a bot that left it at the
    moment the server seated it would leave a game it never saw: a ``left`` fault that is the
    load test's own doing). Bots that finish a game do not join again, so once no bot has been
    seated for ``quiet`` s no table can form any more, and the ones still waiting are let go.
    """
    deadline = time.perf_counter() + grace
    pending = {p for p in players if not p.done()}
    calm_since: float | None = None
    while pending and time.perf_counter() < deadline:
        _, pending = await asyncio.wait(pending, timeout=0.1)
        if any(c.game_id is not None for c in clients):
            calm_since = None
        elif calm_since is None:
            calm_since = time.perf_counter()
        elif time.perf_counter() - calm_since >= quiet:
            break
    return set(pending)


async def _watch_loop(lags: list[float], stop: asyncio.Event, every: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(every)
        lags.append(max(0.0, loop.time() - before - every))


async def run_load(
    server: str,
    *,
    bots: int,
    game: str,
    rules: str | None = None,
    lobby: str = "ranked",
    seats: int | None = None,
    duration: float = 30.0,
    min_decisions: int = 0,
    grace: float = 60.0,
    bot: str = "random",
    threaded: bool = False,
    think_ms: float = 0.0,
    tokens: dict[str, str] | None = None,
    connect_parallel: int = 25,
    progress: Any = None,
) -> LoadReport:
    """Run one load test (see the module docstring); every figure is in the report.

    ``min_decisions``: play on after ``duration`` until the bots have made that many decisions
    (or no bot plays any more), so that a loaded machine plays longer instead of measuring
    less. ``tokens`` (name -> token) skips registration. ``threaded=False`` runs the bots on the
    event loop: right for the fast built-in bots, which would otherwise cost a thread switch each.
    """
    check_loopback(server)
    if not 1 <= bots <= MAX_BOTS:
        raise ValueError(f"--bots must be 1..{MAX_BOTS}")
    if not 0 < duration <= MAX_SECONDS or not 0 <= grace <= MAX_SECONDS:
        raise ValueError(f"--duration and --grace must be at most {MAX_SECONDS:.0f} s")
    report = LoadReport(server, game, rules, lobby, bots, think_ms=think_ms)
    say = progress or (lambda text: None)
    if tokens is None:
        run_id = secrets.token_hex(3)
        names = [f"load{run_id}n{i}" for i in range(bots)]
        say(f"registering {bots} bots at {http_base(server)}/api/bots ...")
        tokens = await register_bots(http_base(server), names)
    names = sorted(tokens)[:bots]
    probe = LatencyProbe()
    # A load test measures the server: reconnect storms would hide what happened, so give up fast.
    backoff = Backoff(first=0.2, most=1.0, give_up_after=10.0, attempts=5)
    clients = [
        Client(
            server,
            agent_source(bot, game, seed=i),
            name=name,
            token=tokens[name],
            threaded=threaded,
            think_ms=think_ms,
            probe=probe,
            backoff=backoff,
        )
        for i, name in enumerate(names)
    ]
    cpu_start = time.process_time()
    gate = asyncio.Semaphore(connect_parallel)

    async def connect(client: Client) -> bool:
        async with gate:
            try:
                await client.connect()
                return True
            except (OSError, TimeoutError, ServerError, Exception) as exc:
                report.count("connect", example=f"{client.name}: {exc!r}")
                return False

    say(f"connecting {bots} bots ...")
    connected = await asyncio.gather(*(connect(c) for c in clients))
    report.connected = sum(connected)
    stop = asyncio.Event()
    done_watching = asyncio.Event()
    watcher = asyncio.ensure_future(_watch_loop(report.loop_lag, done_watching))
    finished: dict[str, GameReport] = {}
    faults = 0
    seated = 0

    def on_result(game_report: GameReport) -> None:
        nonlocal faults
        finished.setdefault(game_report.game_id, game_report)
        faults += len(game_report.faults)

    async def play(client: Client) -> None:
        try:
            await client.play(
                lobby,
                game,
                rules=rules,
                seats=seats,
                games=10**9,
                on_result=on_result,
                stop=stop,
                leave_queue_on_stop=False,
            )
        except (ServerError, ConnectionLost, OSError) as exc:
            report.count(type(exc).__name__, example=f"{client.name}: {exc}")

    async def count_seated() -> None:
        nonlocal seated
        while not done_watching.is_set():
            seated = sum(1 for c in clients if c.game_id is not None)
            report.peak_seated = max(report.peak_seated, seated)
            await asyncio.sleep(0.25)

    before = await asyncio.to_thread(fetch_metrics, http_base(server))
    say(f"playing {game} for {duration:g} s ...")
    started = time.perf_counter()
    players = [
        asyncio.ensure_future(play(c)) for c, ok in zip(clients, connected, strict=True) if ok
    ]
    counter = asyncio.ensure_future(count_seated())
    await asyncio.sleep(duration)
    while sum(c.stats.decisions for c in clients) < min_decisions and not all(
        p.done() for p in players
    ):
        await asyncio.sleep(0.05)
    stop.set()
    say(f"stopping: letting the games under way finish (at most {grace:g} s) ...")
    late = await _settle(players, clients, grace)
    report.window = time.perf_counter() - started
    # the server's CPU is read at the stop: once the bots say goodbye its fallback plays the
    # seats they leave, work that is not the run's decisions
    at_stop = None if before is None else await asyncio.to_thread(fetch_metrics, http_base(server))
    report.unfinished = len({c.game_id for c in clients if c.game_id is not None})
    for task in late:
        task.cancel()
    done_watching.set()
    await asyncio.gather(watcher, counter, *late, return_exceptions=True)
    for client in clients:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.close(), 5)
    report.cpu_seconds = time.process_time() - cpu_start
    report.games = len(finished)
    report.latency = probe.samples
    for client in clients:
        s = client.stats
        report.decisions += s.decisions
        report.count("late_decisions", s.late)
        report.count("agent_errors", s.agent_errors)
        report.count("rejected_actions", s.rejected)
        report.count("server_errors", s.server_errors, s.errors[0] if s.errors else None)
        report.count("reconnects", s.reconnects)
    report.count("faults_in_finished_games", faults)
    # The clients said goodbye (a seat still in a game leaves it: a `left` fault at the server):
    # give the server a moment to handle those frames before asking what it recorded.
    await asyncio.sleep(0.5)
    if before is not None:
        since = int(before.get("decision_latency", {}).get("count", 0))
        bot_since = int(before.get("bot_think", {}).get("count", 0))
        after = await asyncio.to_thread(
            fetch_metrics, http_base(server), f"?since={since}&bot_since={bot_since}"
        )
        if after is not None:
            report.server_faults = counts_since(before, after, "faults")
            report.server_errors = counts_since(before, after, "errors_sent")
            cpu_before = before.get("cpu_seconds")
            cpu_after = (at_stop or after).get("cpu_seconds")
            if isinstance(cpu_before, int | float) and isinstance(cpu_after, int | float):
                after["server_cpu_seconds"] = round(cpu_after - cpu_before, 2)
        report.server_metrics = after
    return report
