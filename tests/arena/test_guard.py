"""The per-decision deadline: timeouts, abandoned bots, hooks, exceptions (in this process)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cardtable.arena import BotReplaced, DecisionTimeout, guard_agent
from cardtable.arena.guard import BotCrashed
from cardtable.core import Event, Request

REQ = Request(0, "card", (1, 2, 3))


class Sleeper:
    def __init__(self, delays: list[float]) -> None:
        self.delays = delays

    def act(self, observation: Any, request: Request) -> Any:
        time.sleep(self.delays.pop(0) if self.delays else 0.0)
        return request.choices[0] if request.choices else None


class Spinner:
    def act(self, observation: Any, request: Request) -> Any:
        while True:
            pass


def _alive(name: str) -> bool:
    return any(t.name == name and t.is_alive() for t in threading.enumerate())


def test_an_answer_within_the_deadline_passes_through() -> None:
    agent = guard_agent(Sleeper([0.01, 0.0]), timeout=1.0, name="ok")
    assert agent.act(None, REQ) == 1
    assert agent.act(None, REQ) == 1
    assert agent.decisions == 2 and agent.think_max >= 0.01
    agent.close()


def test_a_late_bot_forfeits_one_decision_and_keeps_playing() -> None:
    agent = guard_agent(Sleeper([0.6, 0.0]), timeout=0.4, name="late")
    with pytest.raises(DecisionTimeout):
        agent.act(None, REQ)
    # The late call finishes within the grace deadline: the bot plays on, its late answer dropped.
    assert agent.act(None, Request(0, "card", (7,))) == 7
    assert not agent.abandoned
    agent.close()


def test_a_bot_that_never_returns_is_abandoned_and_its_thread_stopped() -> None:
    agent = guard_agent(Spinner(), timeout=0.1, name="spinner")
    with pytest.raises(DecisionTimeout):
        agent.act(None, REQ)
    with pytest.raises(BotReplaced):
        agent.act(None, REQ)
    assert agent.abandoned
    with pytest.raises(BotReplaced):
        agent.act(None, REQ)
    deadline = time.monotonic() + 5
    while _alive("arena-spinner") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive("arena-spinner"), "the spinning bot thread was not stopped"


@pytest.mark.parametrize("timeout", [None, 1.0])
def test_exceptions_reach_the_caller_and_system_exit_does_not_escape(
    timeout: float | None,
) -> None:
    class Raiser:
        def act(self, observation: Any, request: Request) -> Any:
            raise KeyError("nope")

    class Exiter:
        def act(self, observation: Any, request: Request) -> Any:
            raise SystemExit("bye")

    with pytest.raises(KeyError):
        guard_agent(Raiser(), timeout).act(None, REQ)
    with pytest.raises(BotCrashed, match="SystemExit: bye"):
        guard_agent(Exiter(), timeout).act(None, REQ)


def test_hook_faults_are_recorded_not_raised() -> None:
    class Listener:
        def act(self, observation: Any, request: Request) -> Any:
            return 1

        def event(self, event: Event) -> None:
            raise ValueError(event.kind)

    class Deaf:
        def act(self, observation: Any, request: Request) -> Any:
            return 1

    agent = guard_agent(Listener(), timeout=1.0, name="listener")
    agent.event(Event("bid", {}))  # type: ignore[attr-defined]
    # the reason names the bot's own line (file and line of the raise)
    ((hook, error, reason),) = agent.hook_faults
    assert (hook, error) == ("event", "ValueError")
    assert reason.startswith("ValueError: bid (at ") and "test_guard.py:" in reason
    assert reason.endswith(" in event)")
    assert not hasattr(guard_agent(Deaf(), 1.0), "event")  # no listener: no event delivery cost
    agent.close()


def test_wants_observation_is_passed_on() -> None:
    class Blind:
        wants_observation = False

        def act(self, observation: Any, request: Request) -> Any:
            return 1

    assert guard_agent(Blind(), 1.0).wants_observation is False
    assert guard_agent(Sleeper([]), 1.0).wants_observation is True
