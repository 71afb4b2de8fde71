"""Run a bot's calls under a deadline, so that one bot cannot stall a tournament.

:func:`guard_agent` wraps an agent. Each call (``act`` and the optional ``start``/``event``/``end``
hooks) runs on a worker thread owned by the wrapper and is waited for at most ``timeout`` seconds:

- an ``act`` that raises re-raises the bot's exception to the caller (the match loop turns it into
  a fault answered by the fallback bot);
- an ``act`` that passes the deadline raises :class:`DecisionTimeout`; the late answer, if it ever
  comes, is thrown away;
- a bot still busy with a late call when it is next called gets one more deadline to finish; if it
  does not, it is *abandoned*: the wrapper asks the stuck thread to stop (best effort: a pure
  Python loop stops, a blocking C call does not) and from then on every ``act`` raises
  :class:`BotReplaced` so the fallback plays the seat for the rest of the game, and hooks are no
  longer called;
- a hook that raises or passes the deadline is recorded in :attr:`GuardedAgent.hook_faults` and
  otherwise ignored (a hook has nothing to answer).

With ``timeout=None`` calls run on the caller's thread (no deadline, no thread overhead) and only
the exception handling applies.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import itertools
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardtable.core import Agent, Event, GameInfo, Request, Result
from cardtable.core.match import raised_reason


def bot_place(agent: Any) -> str:
    """``MyBot (mybot.py)``: the class of ``agent`` and the file it is written in (relative to the
    working directory when under it), which a timeout names: the bot's own code has no frame in
    the timeout's traceback."""
    cls = type(agent)
    try:
        file = inspect.getsourcefile(cls)
    except TypeError:  # a class with no source file (built in, compiled)
        file = None
    if not file:
        return cls.__qualname__
    path = Path(file)
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    return f"{cls.__qualname__} ({path})"


class DecisionTimeout(Exception):
    """The bot did not answer within the deadline; the decision is forfeited."""


class BotReplaced(Exception):
    """The bot was abandoned after a hang; the fallback plays its seat for the rest of the game."""


class BotCrashed(Exception):
    """The bot raised something that is not an ``Exception`` (``SystemExit``...)."""


class _Abandon(BaseException):
    """Raised asynchronously inside an abandoned bot thread to stop it."""


_NO_ANSWER = object()
#: Decision times are counted in buckets of 0.1 ms (``int(seconds * BUCKETS_PER_S)``).
BUCKETS_PER_S = 10_000


class _SchedstatFile:
    """The calling thread's ``/proc/thread-self/schedstat``, opened once per thread and closed when
    the thread ends (its :data:`_SCHEDSTAT` slot goes with it): a bot's call thread lives one
    game, and a descriptor kept past it leaked one per seat and game (+960 in a worker after a
    160-game tournament)."""

    def __init__(self) -> None:
        try:
            self.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self.fd = -1

    def __del__(self, close: Callable[[int], None] = os.close) -> None:
        # ``close`` bound now: at the interpreter's exit the module's globals may be gone
        if self.fd >= 0:
            close(self.fd)
            self.fd = -1


_SCHEDSTAT = threading.local()


def queue_wait() -> float | None:
    """Seconds the calling thread has spent runnable but waiting for a core, so far (Linux's
    ``/proc/thread-self/schedstat``); ``None`` where the kernel does not tell."""
    stat = getattr(_SCHEDSTAT, "file", None)
    if stat is None:
        stat = _SCHEDSTAT.file = _SchedstatFile()
    if stat.fd < 0:
        return None
    try:
        return int(os.pread(stat.fd, 128, 0).split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class _CallThread(threading.Thread):
    """One daemon thread that runs the wrapped bot's calls one at a time."""

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.inbox: queue.SimpleQueue[tuple[int, Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self.outbox: queue.SimpleQueue[tuple[int, bool, Any]] = queue.SimpleQueue()

    def run(self) -> None:
        try:
            self._serve()
        except _Abandon:  # may land between two calls, not only inside the bot
            return

    def _serve(self) -> None:
        while True:
            job = self.inbox.get()
            if job is None:
                return
            call_id, fn, args = job
            try:
                value = fn(*args)
            except _Abandon:
                raise
            except BaseException as exc:  # a bot's SystemExit must reach the caller, not end us
                self.outbox.put((call_id, False, exc))
            else:
                self.outbox.put((call_id, True, value))


class GuardedAgent:
    """An agent wrapper that enforces a per-call deadline (see the module docstring).

    ``decisions``, ``think_time`` and ``think_max`` count the bot's own ``act`` calls (seconds,
    wall clock); ``cpu_time`` and ``cpu_max`` the CPU time of the thread that ran them
    (``time.thread_time``: what one core spent, whatever else the machine runs); ``wall_hist``
    and ``cpu_hist`` count decisions per 0.1 ms bucket (for percentiles over many games);
    ``queue_time`` and ``queue_max`` the time that thread waited for a core while it was ready to
    run (:func:`queue_wait`; zero where the kernel does not tell) and ``own_max`` the longest
    decision's wall time without that wait (what the bot itself spent, computing or sleeping);
    ``abandoned`` tells whether the bot was replaced for the rest of the game.
    """

    def __init__(self, agent: Agent, timeout: float | None, name: str = "bot") -> None:
        self.agent = agent
        self.timeout = timeout if timeout and timeout > 0 else None
        self.name = name
        self.wants_observation: bool = bool(getattr(agent, "wants_observation", True))
        self.hook_faults: list[tuple[str, str, str]] = []  # (hook, error class, reason)
        self.decisions = 0
        self.think_time = 0.0
        self.think_max = 0.0
        self.cpu_time = 0.0
        self.cpu_max = 0.0
        self.wall_hist: Counter[int] = Counter()
        self.cpu_hist: Counter[int] = Counter()
        self.queue_time = 0.0
        self.queue_max = 0.0
        self.own_max = 0.0
        self._queued = 0.0  # the last decision's wait for a core
        self.abandoned = False
        self._thread: _CallThread | None = None
        self._ids = itertools.count()
        self._late: int | None = None  # id of a call that passed its deadline

    # -- the agent interface -------------------------------------------------------------------

    def act(self, observation: Any, request: Request) -> Any:
        if self.abandoned:
            raise BotReplaced("abandoned after a hang: the fallback plays this seat")
        self._queued = 0.0
        started = time.perf_counter()
        try:
            return self._call(self._timed_act, observation, request)
        finally:
            spent = time.perf_counter() - started
            self.decisions += 1
            self.think_time += spent
            self.think_max = max(self.think_max, spent)
            self.wall_hist[int(spent * BUCKETS_PER_S)] += 1
            self.queue_time += self._queued
            self.queue_max = max(self.queue_max, self._queued)
            self.own_max = max(self.own_max, spent - self._queued)

    def _timed_act(self, observation: Any, request: Request) -> Any:
        """The bot's ``act`` on the thread that runs it, with that thread's CPU time and its
        wait for a core counted."""
        waited = queue_wait()
        started = time.thread_time()
        try:
            return self.agent.act(observation, request)
        finally:
            spent = time.thread_time() - started
            self.cpu_time += spent
            self.cpu_max = max(self.cpu_max, spent)
            self.cpu_hist[int(spent * BUCKETS_PER_S)] += 1
            if waited is not None:
                now = queue_wait()
                if now is not None:
                    self._queued = max(0.0, now - waited)

    def start(self, seat: int, info: GameInfo) -> None:
        hook = getattr(self.agent, "start", None)
        if hook is not None:
            self._hook("start", hook, seat, info)

    def end(self, result: Result) -> None:
        hook = getattr(self.agent, "end", None)
        if hook is not None:
            self._hook("end", hook, result)

    def close(self) -> None:
        """Stop the worker thread (an abandoned one is left to the stop request already sent)."""
        if self._thread is not None and not self.abandoned:
            self._thread.inbox.put(None)
        self._thread = None

    # -- machinery ------------------------------------------------------------------------------

    def _hook(self, hook_name: str, fn: Callable[..., Any], *args: Any) -> None:
        if self.abandoned:
            return
        try:
            self._call(fn, *args)
        except Exception as exc:
            self.hook_faults.append((hook_name, type(exc).__name__, raised_reason(exc)))

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.timeout is None:
            try:
                return fn(*args)
            except (KeyboardInterrupt, Exception):
                raise
            except BaseException as exc:
                raise BotCrashed(raised_reason(exc)) from exc
        thread = self._ready_thread()
        call_id = next(self._ids)
        thread.inbox.put((call_id, fn, args))
        answer = self._wait(thread, call_id, self.timeout)
        if answer is _NO_ANSWER:
            self._late = call_id
            raise DecisionTimeout(
                f"no answer within {self.timeout:g} s from {bot_place(self.agent)}"
            )
        ok, value = answer
        if ok:
            return value
        if isinstance(value, Exception):
            raise value
        raise BotCrashed(raised_reason(value))

    def _ready_thread(self) -> _CallThread:
        """The worker thread, once any late call has finished (else the bot is abandoned)."""
        if self._thread is None:
            self._thread = _CallThread(f"arena-{self.name}")
            self._thread.start()
        if self._late is not None:
            assert self.timeout is not None
            if self._wait(self._thread, self._late, self.timeout) is _NO_ANSWER:
                self._abandon()
                raise BotReplaced(
                    f"still busy {self.timeout:g} s after its deadline: abandoned, "
                    "the fallback plays this seat"
                )
            self._late = None
        return self._thread

    @staticmethod
    def _wait(thread: _CallThread, call_id: int, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return _NO_ANSWER
            try:
                got_id, ok, value = thread.outbox.get(timeout=left)
            except queue.Empty:
                return _NO_ANSWER
            if got_id == call_id:
                return ok, value
            # an answer to an older, forfeited call: drop it

    def _abandon(self) -> None:
        self.abandoned = True
        thread = self._thread
        if thread is not None and thread.ident is not None:
            # Why: an abandoned bot that loops would keep burning this process's CPU (and GIL)
            # for the rest of the tournament; an asynchronous exception stops pure Python code.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(thread.ident), ctypes.py_object(_Abandon)
            )


class ListeningGuardedAgent(GuardedAgent):
    """A :class:`GuardedAgent` for a bot with an ``event`` hook (the match loop looks for it)."""

    def event(self, event: Event) -> None:
        hook = getattr(self.agent, "event", None)
        if hook is not None:
            self._hook("event", hook, event)


def guard_agent(agent: Agent, timeout: float | None, name: str = "bot") -> GuardedAgent:
    """Wrap ``agent``; the wrapper has an ``event`` hook only when the agent has one."""
    cls = ListeningGuardedAgent if callable(getattr(agent, "event", None)) else GuardedAgent
    return cls(agent, timeout, name)


def describe(exc: BaseException) -> str:
    """``"TypeName: message"`` of an exception (the form fault reasons use)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
