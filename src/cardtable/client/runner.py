"""Run one agent's code off the event loop, in order, with a time limit on each decision.

An agent is ordinary blocking Python (a built-in bot or a bot file): it must never stall the
connection's keep-alives, and its hooks (``start``, ``event``, ``act``, ``end``) must reach it in
the order the server sent them, from one thread at a time. :class:`AgentRunner` gives each agent
its own worker thread and queues every call there; :meth:`AgentRunner.act` waits for a decision
only until a budget runs out and then reports the agent late (the call itself cannot be killed;
its answer is dropped when it finally comes and later calls wait behind it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import Any

from cardtable.core.contract import Agent, Event, GameInfo, Request, Result

log = logging.getLogger("cardtable.client")


class AgentLate(TimeoutError):
    """The agent did not answer within its budget; ``still_running`` says if it is still busy."""

    def __init__(self, budget_s: float) -> None:
        super().__init__(f"no answer within {budget_s * 1000:.0f} ms")
        self.budget_s = budget_s


class AgentRunner:
    """Calls one agent's hooks in FIFO order, on a worker thread or (``threaded=False``) inline.

    Inline mode is for agents known to answer in microseconds (random bots in a load test): it
    saves a thread switch per call but a slow agent then blocks the whole client.
    """

    def __init__(self, agent: Agent, *, threaded: bool = True) -> None:
        self.agent = agent
        self.threaded = threaded
        self._executor = (
            concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent")
            if threaded
            else None
        )
        self._hook_failures: set[str] = set()
        self._pending = 0

    @property
    def busy(self) -> bool:
        """Whether an earlier decision (a late one) is still running or queued."""
        return self._pending > 0

    def start(self, info: GameInfo) -> None:
        """Queue the agent's ``start(seat, info)`` hook, if it has one."""
        hook = getattr(self.agent, "start", None)
        if hook is not None:
            self._submit_hook("start", hook, info.seat, info)

    def event(self, event: Event) -> None:
        """Queue the agent's ``event(event)`` hook, if it has one."""
        hook = getattr(self.agent, "event", None)
        if hook is not None:
            self._submit_hook("event", hook, event)

    def end(self, result: Result) -> None:
        """Queue the agent's ``end(result)`` hook, if it has one."""
        hook = getattr(self.agent, "end", None)
        if hook is not None:
            self._submit_hook("end", hook, result)

    async def act(self, observation: Any, request: Request, budget_s: float) -> Any:
        """The agent's answer to ``request``; raises :class:`AgentLate` after ``budget_s``.

        Any exception the agent raises is re-raised here unchanged.
        """
        if hasattr(self.agent, "budget_s"):  # an agent that keeps the deadline itself (a program)
            self.agent.budget_s = max(budget_s, 0.0)
        if self._executor is None:
            return self.agent.act(observation, request)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self.agent.act, observation, request)
        self._pending += 1
        future.add_done_callback(self._done)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=max(budget_s, 0.0))
        except TimeoutError:
            # The thread keeps running; consume its outcome so it is not reported as unhandled.
            future.add_done_callback(_swallow)
            raise AgentLate(budget_s) from None

    def close(self) -> None:
        """Stop accepting calls; calls already queued (the last events, ``end``) still run."""
        if self._executor is not None:
            self._executor.shutdown(wait=False)

    async def drain(self, timeout: float = 2.0) -> bool:
        """Wait (at most ``timeout`` s) until every queued call has run; ``False`` if not."""
        if self._executor is None:
            return True
        loop = asyncio.get_running_loop()
        try:
            marker = loop.run_in_executor(self._executor, lambda: None)
        except RuntimeError:  # already shut down
            return True
        try:
            await asyncio.wait_for(marker, timeout)
            return True
        except TimeoutError:
            return False

    def _done(self, _future: asyncio.Future[Any]) -> None:
        self._pending -= 1

    def _submit_hook(self, name: str, hook: Callable[..., Any], *args: Any) -> None:
        if self._executor is None:
            self._call_hook(name, hook, *args)
        else:
            self._executor.submit(self._call_hook, name, hook, *args)

    def _call_hook(self, name: str, hook: Callable[..., Any], *args: Any) -> None:
        try:
            hook(*args)
        except Exception:
            # A broken hook must not stop the game; say so once per hook, not once per event.
            if name not in self._hook_failures:
                self._hook_failures.add(name)
                log.exception("agent's %s() hook failed (further failures not logged)", name)


def _swallow(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
