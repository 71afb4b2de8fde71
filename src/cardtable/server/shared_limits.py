"""The limits against abuse, counted by the whole cluster (Redis), not by each process.

Only used when the server has a ``redis_url`` (a cluster, see ``cluster.py``); a process alone
counts in memory (``limits.py``) and never imports this module. With N processes and counts per
process an attacker had N times the allowance; here every process counts in one place:

- **Failures in a window** (wrong tokens and wrong passwords per address, sign-ups per
  address): a sorted set ``P:limit:KIND:KEY`` of the failures' times (Redis's own
  clock, ``TIME``: the processes' clocks do not matter), trimmed to the newest ``limit`` and to
  the window, expiring with the window. One Lua script adds and answers atomically, so two
  processes counting at once never both see room for one more.
- **Growing delays** (wrong passwords per name and address, wrong tokens per name and token,
  ``lockouts.py``): a hash ``P:backoff:KIND:KEY`` of the wrong attempts and the time (Redis's
  clock) the key may try again, expiring a window after that; one Lua script reads or adds.
- **Open connections per address**: each process keeps its own count per address in the hash
  ``P:conns:RUN`` (``RUN`` as in cluster.py). A connection is admitted by one Lua script that
  adds it to this process's count and sums the counts of the processes that hold a lease
  (``P:lease:RUN``), taking it back if the sum passes the cap. The counts of a process that dies
  stop counting at once (its lease lapses) and its hash expires on its own (its owner refreshes
  the expiry while it lives), so nothing leaks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets

import redis
from redis.asyncio import BlockingConnectionPool
from redis.asyncio import Redis as AsyncRedis

log = logging.getLogger("cardtable.server.shared_limits")

#: KEYS[1]: the failures' sorted set. ARGV: limit, window (ms), "1" to add a failure, a unique
#: member. Returns the milliseconds until the key may try again (0: now).
_WINDOW = """
redis.replicate_commands()  -- TIME before writes (implied from Redis 5 on)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -limit - 1)
  redis.call('PEXPIRE', KEYS[1], window)
end
if redis.call('ZCARD', KEYS[1]) < limit then
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(100, tonumber(oldest[2]) + window - now)
"""

#: KEYS[1]: a key's growing delays (hash: ``n`` wrong attempts, ``until`` ms). ARGV: "check",
#: "fail" or "forget", base delay, largest delay, window (all ms). Returns the milliseconds
#: until the key may try again (0: now). The hash expires a window after its delay ends: the
#: count starts over (lockouts.py).
_BACKOFF = """
redis.replicate_commands()  -- TIME before writes (implied from Redis 5 on)
if ARGV[1] == 'forget' then
  redis.call('DEL', KEYS[1])
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if ARGV[1] == 'fail' then
  local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
  local delay = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(n - 1, 62))
  wait_until = now + math.floor(delay)
  redis.call('HSET', KEYS[1], 'until', wait_until)
  redis.call('PEXPIRE', KEYS[1], math.floor(delay) + tonumber(ARGV[4]))
end
return math.max(0, wait_until - now)
"""

#: KEYS[1]: this process's counts (hash address -> open connections), KEYS[2]: ``P:seen`` (the
#: processes). ARGV: address, cap, prefix, this process, expiry of KEYS[1] (ms). Returns the
#: connections open from the address in the cluster with this one, or 0 if it is refused.
_ADMIT = """
local address = ARGV[1]
local mine = redis.call('HINCRBY', KEYS[1], address, 1)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local total = mine
for _, run in ipairs(redis.call('HKEYS', KEYS[2])) do
  if run ~= ARGV[4] and redis.call('EXISTS', ARGV[3] .. ':lease:' .. run) == 1 then
    local n = redis.call('HGET', ARGV[3] .. ':conns:' .. run, address)
    if n then
      total = total + tonumber(n)
    end
  end
end
if total > tonumber(ARGV[2]) then
  if redis.call('HINCRBY', KEYS[1], address, -1) <= 0 then
    redis.call('HDEL', KEYS[1], address)
  end
  return 0
end
return total
"""

#: KEYS[1]: this process's counts. ARGV: address.
_RELEASE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""


class SharedLimits:
    """This process's part of the cluster's counts (see the module docstring). The window
    counts are asked from threads (the accounts' handlers run on FastAPI's thread pool; the
    event loop goes through ``asyncio.to_thread``), the connection counts from the event loop."""

    def __init__(self, url: str, prefix: str, run: str, lease_ms: int) -> None:
        self.p = prefix
        self.run = run
        #: the expiry of this process's connection counts, refreshed every quarter of it
        self.conns_ttl_ms = max(60_000, 20 * lease_ms)
        self._conns = f"{prefix}:conns:{run}"
        # callers wait for a free connection (FastAPI's thread pool has 40 threads)
        sync_pool = redis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=16, timeout=10, socket_timeout=5
        )
        self._sync = redis.Redis(connection_pool=sync_pool)
        self._window = self._sync.register_script(_WINDOW)
        self._backoff = self._sync.register_script(_BACKOFF)
        pool = BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=8, timeout=10, socket_timeout=5
        )
        self._async: AsyncRedis = AsyncRedis(connection_pool=pool)
        self._admit = self._async.register_script(_ADMIT)
        self._release = self._async.register_script(_RELEASE)
        self._refresher: asyncio.Task[None] | None = None

    # -- failures in a window ---------------------------------------------------------------

    def retry_after(self, kind: str, key: str, limit: int, window_s: float) -> float:
        """Seconds until ``key`` may try again (0: now), counted by the whole cluster."""
        return self._count(kind, key, limit, window_s, add=False)

    def failed(self, kind: str, key: str, limit: int, window_s: float) -> float:
        """One more failure of ``key``; returns :meth:`retry_after` after it."""
        return self._count(kind, key, limit, window_s, add=True)

    def _count(self, kind: str, key: str, limit: int, window_s: float, add: bool) -> float:
        window_ms = max(1, int(window_s * 1000))
        member = secrets.token_hex(8) if add else ""
        ms = self._window(
            keys=[f"{self.p}:limit:{kind}:{key}"],
            args=[limit, window_ms, "1" if add else "0", member],
        )
        return int(ms) / 1000.0

    def backoff(
        self, kind: str, key: str, op: str, base_s: float, max_s: float, window_s: float
    ) -> float:
        """Growing delays of ``key`` (``lockouts.Backoff``): ``op`` ``check``, ``fail`` (one
        more wrong attempt) or ``forget``; returns the seconds until ``key`` may try again."""
        ms = self._backoff(
            keys=[f"{self.p}:backoff:{kind}:{key}"],
            args=[op, int(base_s * 1000), int(max_s * 1000), max(1, int(window_s * 1000))],
        )
        return int(ms) / 1000.0

    # -- open connections per address -------------------------------------------------------

    async def admit(self, address: str, cap: int) -> bool:
        """Count one more connection of ``address`` on this process, unless the cluster holds
        ``cap`` of them already (then nothing is counted and the answer is ``False``)."""
        total = await self._admit(
            keys=[self._conns, f"{self.p}:seen"],
            args=[address, cap, self.p, self.run, self.conns_ttl_ms],
        )
        return int(total) > 0

    async def release(self, address: str) -> None:
        await self._release(keys=[self._conns], args=[address])

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> None:
        self._refresher = asyncio.create_task(self._refresh(), name="shared-limits-refresh")

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(self.conns_ttl_ms / 4000)
            try:
                await self._async.pexpire(self._conns, self.conns_ttl_ms)
            except Exception as exc:
                log.warning("could not refresh this process's connection counts: %s", exc)

    async def stop(self) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refresher
        with contextlib.suppress(Exception):
            await self._async.delete(self._conns)
        with contextlib.suppress(Exception):
            await self._async.aclose()
        with contextlib.suppress(Exception):
            self._sync.close()
