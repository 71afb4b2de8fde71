"""The one clock the server's throttles and timers read, so a test can move time by hand.

A component that waits or counts seconds (a lockout's growing delays, an address's window of
wrong tokens) takes a :class:`Clock` and reads ``clock.monotonic()`` instead of calling
:func:`time.monotonic` itself. It owns:

- :class:`Clock`, what such a component asks of a clock: seconds that never go back
  (:meth:`Clock.monotonic`), the wall time (:meth:`Clock.wall`), an asynchronous
  :meth:`Clock.sleep` and a timer (:meth:`Clock.call_later`, a :class:`Timer` to cancel);
- :data:`SYSTEM`, the real clock (:class:`SystemClock`, :func:`time.monotonic`,
  :func:`time.time`, :func:`asyncio.sleep`, the running loop's ``call_later``), every
  component's default: production behaves exactly as if it called those functions;
- :class:`ManualClock`, a clock that stands still until :meth:`ManualClock.advance` moves it.
  Moving it walks through what falls due in order of time: each timer's callback runs at its
  own time (the clock reads that time while it runs, and a timer it sets that falls due
  before the move's end runs in the same move), each sleeper is woken at its time. A test of
  a delay of minutes checks the delay's edges (one moment before, at, after) in microseconds
  and the same on a loaded machine.

The engines keep no time and do not use this package. A component's own timers run on this
clock only where it asks this clock (``clock.call_later``) instead of its event loop.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A callback set to run later (:meth:`Clock.call_later`); :meth:`cancel` stops it."""

    def cancel(self) -> None: ...


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

    def call_later(self, seconds: float, callback: Callable[..., object], *args: object) -> Timer:
        """Run ``callback(*args)`` on the running event loop once ``seconds`` have passed on
        this clock (like :meth:`asyncio.loop.call_later`, which the real clock uses)."""
        ...


class SystemClock:
    """The real time: :func:`time.monotonic`, :func:`time.time`, :func:`asyncio.sleep`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def call_later(self, seconds: float, callback: Callable[..., object], *args: object) -> Timer:
        return asyncio.get_running_loop().call_later(seconds, callback, *args)


#: the real clock, every component's default
SYSTEM: Clock = SystemClock()


class ManualClock:
    """A clock that moves only when told (:meth:`advance`, :meth:`set`).

    ``start`` is its monotonic reading at first, ``wall_start`` its wall reading; both move
    together. A coroutine in :meth:`sleep` wakes (on its own event loop) once the clock has
    been moved to or past its time; ``sleep(0)`` or less returns at once. A timer
    (:meth:`call_later`) runs inside the move that reaches its time, in the mover's thread
    (move the clock from the thread of the loop that set the timers: a test's coroutine),
    with the clock reading its time; timers due at the same time run in the order they
    were set, as on an event loop."""

    def __init__(self, start: float = 1_000.0, wall_start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self._wall_offset = float(wall_start) - float(start)
        self._order = itertools.count()
        #: (wake at, order, future) of every sleeper not woken yet
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        #: (due at, order, timer) of every timer not run yet
        self._timers: list[tuple[float, int, ManualTimer]] = []

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

    def call_later(
        self, seconds: float, callback: Callable[..., object], *args: object
    ) -> ManualTimer:
        timer = ManualTimer(self._now + max(0.0, seconds), callback, args)
        heapq.heappush(self._timers, (timer.due, next(self._order), timer))
        return timer

    @property
    def sleepers(self) -> int:
        """How many coroutines sleep on this clock now."""
        return sum(not f.done() for _, _, f in self._sleepers)

    @property
    def timers(self) -> list[float]:
        """When the timers not run or cancelled yet fall due, soonest first."""
        return sorted(t.due for _, _, t in self._timers if not t.cancelled)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (never back) and wake whoever is due."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.set(self._now + seconds)

    def set(self, now: float) -> None:
        """Move the clock to ``now`` (not before its present reading)."""
        if now < self._now:
            raise ValueError(f"a clock does not go back (from {self._now} to {now})")
        target = float(now)
        while True:
            timer_at = self._timers[0][:2] if self._timers else (math.inf, 0)
            sleeper_at = self._sleepers[0][:2] if self._sleepers else (math.inf, 0)
            if min(timer_at, sleeper_at)[0] > target:
                break
            if sleeper_at < timer_at:
                due, _, future = heapq.heappop(self._sleepers)
                self._now = max(self._now, due)
                if not future.done():
                    future.get_loop().call_soon_threadsafe(_wake, future)
            else:
                due, _, timer = heapq.heappop(self._timers)
                self._now = max(self._now, due)
                timer.run()
        self._now = target


class ManualTimer:
    """A timer of a :class:`ManualClock`: it runs once, when a move reaches ``due``."""

    def __init__(self, due: float, callback: Callable[..., object], args: tuple[object, ...]):
        self.due = due
        self.cancelled = False
        self._callback = callback
        self._args = args

    def cancel(self) -> None:
        self.cancelled = True

    def run(self) -> None:
        if not self.cancelled:
            self.cancelled = True  # a timer runs once
            self._callback(*self._args)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
