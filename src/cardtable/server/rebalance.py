"""Each process of a cluster holds about its share of the bots' connections.

With ``cardtable serve --workers N`` the kernel spreads new connections over the processes
(``SO_REUSEPORT``), but it never moves one: after a worker dies, its bots reconnect to the
survivors within a fraction of a second, and the worker started again gets none. Every next crash
of the survivor then drops all of them. So each process, every ``rebalance_ms`` (with jitter):

1. writes how many bot connections it holds to ``P:held`` (hash process -> count) and reads the
   others' counts there, keeping the processes that hold a lease (``P:lease:RUN``);
2. when it holds more than its share (the total over the live processes, rounded up) by more
   than a quarter of the share (at least 1), it asks that many of its bots (the excess) to
   reconnect: a ``reconnect`` message (``after_ms``: wait a random time between half of that
   and all of it) and the close code 1013 (try again later). The idle ones go first, then the
   queued ones, then tournament entrants waiting for a game, then the seated ones (never one
   waiting at a private table: the table lives on this process).

Being asked costs the bot nothing: its seat is detached as when the server stops
(``server/departure.py``: no fault, the open request waits for it) and ``resume`` takes it back
on whatever process the reconnection reaches; a queued bot joins again (the client library
does both, docs/client.md). A reconnection lands on a process at random, so the shares even out
over a few rounds (docs/server.md, "When a process dies").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster
    from cardtable.server.connection import Session

log = logging.getLogger("cardtable.server.rebalance")

#: Close code (RFC 6455 registry: "Try Again Later") after a ``reconnect`` message.
CLOSE_TRY_AGAIN = 1013
#: ``after_ms`` of the ``reconnect`` message: the client waits between half of it and all of it.
AFTER_MS = 1000


def excess(mine: int, counts: dict[str, int]) -> int:
    """How many of its ``mine`` bot connections a process should hand over, the cluster's live
    processes holding ``counts`` (this one included): 0 unless it holds more than its share by
    more than a quarter of it (at least 1); then what it holds above its share."""
    if len(counts) < 2:
        return 0
    share = math.ceil(sum(counts.values()) / len(counts))
    slack = max(1, share // 4)
    return mine - share if mine > share + slack else 0


class Rebalancer:
    """This process's part of keeping the shares even (see the module docstring)."""

    def __init__(self, cluster: Cluster, period_ms: int) -> None:
        self.cluster = cluster
        self.hub = cluster.hub
        self.period_s = period_ms / 1000.0
        self.key = f"{cluster.p}:held"
        #: bots this process asked to reconnect since it started (``GET /api/metrics``)
        self.moved = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.period_s > 0:
            self._task = asyncio.create_task(self._loop(), name="cluster-rebalance")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.cluster.redis.hdel(self.key, self.cluster.run)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.period_s * random.uniform(0.75, 1.25))
            try:
                await self.once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: try again next period
                log.warning("rebalance: %s", exc)

    def bots(self) -> list[Session]:
        """This process's bot connections, not closing."""
        return [
            s
            for s in self.cluster.sessions.values()
            if s.member is not None and s.member.kind == "bot" and not s.closing
        ]

    def movable(self, session: Session) -> bool:
        """A bot waiting at a private table stays: the table lives on this process, and an
        invite is not found on another one."""
        return session.member is not None and session.member.key not in self.hub.private_of

    async def once(self) -> int:
        """One round: publish this process's count, read the others', ask the excess to
        reconnect; returns how many were asked."""
        cluster = self.cluster
        mine = self.bots()
        redis: Any = cluster.redis
        await redis.hset(self.key, cluster.run, len(mine))
        held: dict[str, str] = await redis.hgetall(self.key)
        live = await cluster.alive(sorted(held))
        dead = [run for run in held if run not in live]
        if dead:
            await redis.hdel(self.key, *dead)
        counts = {run: int(n) for run, n in held.items() if run in live}
        counts[cluster.run] = len(mine)
        n = excess(len(mine), counts)
        if n <= 0:
            return 0
        chosen = sorted(filter(self.movable, mine), key=self._rank)[:n]
        seated = sum(self._rank(s) == 3 for s in chosen)
        log.info(
            "rebalance: holding %d of %s; asking %d to reconnect (%d seated)",
            len(mine),
            counts,
            n,
            seated,
        )
        for session in chosen:
            self.send_away(session)
        self.moved += len(chosen)
        return len(chosen)

    def _rank(self, session: Session) -> int:
        """Idle bots first, then queued ones, then tournament entrants waiting for their game,
        then the seated ones."""
        assert session.member is not None
        key = session.member.key
        if self.hub.running_games(key) or self.cluster.busy(key):
            return 3
        if key in self.hub.tournaments.waiting_in:
            return 2
        return 1 if key in self.hub.queued else 0

    @staticmethod
    def send_away(session: Session) -> None:
        """Ask ``session``'s client to reconnect; its disconnect is no fault (departure.py)."""
        session.sent_away = True
        session.send(
            {
                "type": "reconnect",
                "after_ms": AFTER_MS,
                "reason": "this server process holds more than its share of the connections",
            }
        )
        session.close(CLOSE_TRY_AGAIN, "reconnect")
