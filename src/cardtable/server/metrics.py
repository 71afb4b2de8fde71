"""Server-side timing of the decision loop, kept in memory and served at ``GET /api/metrics``.

The figure issue 6 sets a target for is the **decision latency**: from the moment a client's
``action`` frame is read from its WebSocket to the moment the next ``request`` frame of that
table has been handed to the socket (written to the transport). It covers parsing, checking,
applying the action, the events to every seat, building the request and the time both frames
waited behind other work on the event loop. It does not cover the kernel's socket buffers or the
network. A request that follows a house bot's or the fallback's decision is not a sample (that
time is the bot's, measured separately as ``bot_think``).

Samples are monotonic-clock differences stored in a fixed ring (the newest
:data:`RING_SIZE`), so memory stays bounded for months. Percentiles are computed when asked.
"""

from __future__ import annotations

import asyncio
import math
import time
from array import array
from bisect import bisect_left
from collections import Counter
from typing import Any

#: Samples kept per series; older ones are overwritten.
RING_SIZE = 1 << 17
#: Upper bounds (seconds) of the cumulative histograms served at ``GET /metrics`` (Prometheus).
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Stamp:
    """The arrival time of one reply, carried by the request frames it caused; the first frame
    to leave records the sample (later ones of the same reply do not)."""

    __slots__ = ("at", "done", "series")

    def __init__(self, at: float, series: Latencies) -> None:
        self.at = at
        self.series = series
        self.done = False

    def left(self) -> None:
        """A frame carrying this stamp was handed to the socket now."""
        if not self.done:
            self.done = True
            self.series.add(time.perf_counter() - self.at)


class Latencies:
    """A ring of duration samples (seconds) with a running count.

    ``count`` numbers every sample ever added, so a caller can ask for the samples after an
    earlier ``count`` (:meth:`summary` ``since=``), as long as they are still in the ring.
    """

    def __init__(self, size: int = RING_SIZE) -> None:
        self.size = size
        self._ring = array("d", bytes(8 * size))
        self.count = 0
        #: Every sample ever added, counted per :data:`BUCKETS` bound (the last: above them
        #: all) and summed: the histogram ``GET /metrics`` serves (it never forgets).
        self.buckets = [0] * (len(BUCKETS) + 1)
        self.total = 0.0

    def add(self, seconds: float) -> None:
        self._ring[self.count % self.size] = seconds
        self.count += 1
        self.buckets[bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds

    def samples(self, since: int = 0) -> tuple[list[float], bool]:
        """The samples numbered ``since`` and later, oldest first, and whether all of them are
        still held (``False``: the oldest were overwritten and are missing)."""
        since = max(0, min(since, self.count))
        first = max(since, self.count - self.size)
        start, end = first % self.size, self.count % self.size
        n = self.count - first
        if n == 0:
            values: list[float] = []
        elif start < end:
            values = self._ring[start:end].tolist()
        else:
            values = self._ring[start:].tolist() + self._ring[:end].tolist()
        return values, first == since

    def summary(self, since: int = 0) -> dict[str, Any]:
        """``count`` (all samples ever), ``samples`` (how many are summarised, from ``since``),
        ``complete`` and p50/p90/p99/max in milliseconds (``null`` without samples)."""
        values, complete = self.samples(since)
        values.sort()

        def ms(q: float) -> float | None:
            if not values:
                return None
            rank = max(0, min(len(values) - 1, math.ceil(q * len(values)) - 1))
            return round(values[rank] * 1000.0, 3)

        return {
            "count": self.count,
            "since": since,
            "samples": len(values),
            "complete": complete,
            "p50_ms": ms(0.5),
            "p90_ms": ms(0.9),
            "p99_ms": ms(0.99),
            "max_ms": ms(1.0),
            "mean_ms": round(sum(values) / len(values) * 1000.0, 3) if values else None,
        }


class ServerMetrics:
    """Everything ``GET /api/metrics`` reports for one server process."""

    def __init__(self, size: int = RING_SIZE, lag_ms: int = 10) -> None:
        #: A remote reply read -> the next request of that table handed to the socket.
        self.decision = Latencies(size)
        #: A house bot or fallback decision: handed to a thread -> its answer back on the loop.
        self.bot_think = Latencies(size)
        #: How late a 10 ms timer (``loop_lag_ms``) fires on the event loop (a stall delays
        #: every table alike); its samples of the newest minute are reported.
        self.loop_lag = Latencies(size)
        self.lag_every = lag_ms / 1000
        self.frames_in = 0
        #: Decisions the quick bot answered because a house bot or the fallback was too slow.
        self.rescues = 0
        self.frames_out = 0
        #: Faults recorded at this process's tables since it started, by code (``timeout``,
        #: ``disconnect``, ``left``, ``invalid_action``, ``raised``...): what a load test must
        #: count beside its own errors (a client does not see every fault the server records).
        self.faults: Counter[str] = Counter()
        #: ``error`` messages sent to clients, and ``not_your_turn`` rejections, by code
        #: (refusals such as ``bad_token``, ``flood``, ``busy``; ``taken_over``).
        self.errors_sent: Counter[str] = Counter()
        #: Games that ended at this process's tables, by (game, termination) (oplog.py).
        self.games_ended: Counter[tuple[str, str]] = Counter()
        self.started = time.time()

    def stamp(self, at: float) -> Stamp:
        return Stamp(at, self.decision)

    def to_json(self, since: int = 0, bot_since: int = 0) -> dict[str, Any]:
        return {
            "uptime_s": round(time.time() - self.started, 1),
            "cpu_seconds": round(time.process_time(), 3),
            "frames_in": self.frames_in,
            "frames_out": self.frames_out,
            "rescues": self.rescues,
            "faults": dict(sorted(self.faults.items())),
            "errors_sent": dict(sorted(self.errors_sent.items())),
            "decision_latency": self.decision.summary(since),
            "bot_think": self.bot_think.summary(bot_since),
            "loop_lag": self.loop_lag.summary(
                max(0, self.loop_lag.count - round(60 / self.lag_every))
            ),
        }

    async def watch_loop(self, every: float | None = None) -> None:
        """Sample the event loop's lateness every ``every`` seconds until cancelled
        (``loop_lag``; the newest minute is reported). Each sample wakes the loop: at 10 ms,
        about 1% of a core (measured: 11 ms of CPU a second, most of an idle server's)."""
        loop = asyncio.get_running_loop()
        every = self.lag_every = every or self.lag_every
        while True:
            before = loop.time()
            await asyncio.sleep(every)
            self.loop_lag.add(max(0.0, loop.time() - before - every))
