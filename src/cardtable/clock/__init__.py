"""The one clock the server's throttles and timers read, so a test can move time by hand.

A component that waits or counts seconds (a lockout's growing delays, an address's window of
wrong tokens) takes a :class:`Clock` and reads ``clock.monotonic()`` instead of calling
:func:`time.monotonic` itself. It owns:

- :class:`Clock`, what such a component asks of a clock: seconds that never go back
  (:meth:`Clock.monotonic`), the wall time (:meth:`Clock.wall`) and an asynchronous
  :meth:`Clock.sleep`;
- :data:`SYSTEM`, the real clock (:class:`SystemClock`, :func:`time.monotonic`,
  :func:`time.time`, :func:`asyncio.sleep`), every component's default: production behaves
  exactly as if it called those functions;
- :class:`ManualClock`, a clock that stands still until :meth:`ManualClock.advance` moves it;
  its sleepers wake when it passes their time. A test of a delay of minutes checks the delay's
  edges (one moment before, at, after) in microseconds and the same on a loaded machine.

The engines keep no time and do not use this package; an event loop's own timers
(``loop.call_later``) run on the loop's clock, which this package does not replace.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    """What a component that counts seconds reads."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (only differences mean anything)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (for what is stored or shown)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed on this clock."""
        ...


class SystemClock:
    """The real time: :func:`time.monotonic`, :func:`time.time`, :func:`asyncio.sleep`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


#: the real clock, every component's default
SYSTEM: Clock = SystemClock()


class ManualClock:
    """A clock that moves only when told (:meth:`advance`, :meth:`set`).

    ``start`` is its monotonic reading at first, ``wall_start`` its wall reading; both move
    together. A coroutine in :meth:`sleep` wakes (on its own event loop) once the clock has
    been moved to or past its time; ``sleep(0)`` or less returns at once."""

    def __init__(self, start: float = 1_000.0, wall_start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self._wall_offset = float(wall_start) - float(start)
        self._order = itertools.count()
        #: (wake at, order, future) of every sleeper not woken yet
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), future))
        await future

    @property
    def sleepers(self) -> int:
        """How many coroutines sleep on this clock now."""
        return sum(not f.done() for _, _, f in self._sleepers)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (never back) and wake whoever is due."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.set(self._now + seconds)

    def set(self, now: float) -> None:
        """Move the clock to ``now`` (not before its present reading)."""
        if now < self._now:
            raise ValueError(f"a clock does not go back (from {self._now} to {now})")
        self._now = float(now)
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.get_loop().call_soon_threadsafe(_wake, future)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
