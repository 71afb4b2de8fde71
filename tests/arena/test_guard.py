"""The per-decision deadline: timeouts, abandoned bots, hooks, exceptions (in this process)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cardtable.arena import BotReplaced, DecisionTimeout, guard_agent
from cardtable.arena.guard import BotCrashed
from cardtable.core import Event, Request
from patience import patience

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


class Held:
    """Answers with the first choice; its first decision waits until the test lets it go
    (it is late for sure, however slowly this machine runs the guard's thread)."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls = 0

    def act(self, observation: Any, request: Request) -> Any:
        self.calls += 1
        if self.calls == 1:
            assert self.go.wait(timeout=patience(30))
        return request.choices[0]


def test_a_late_bot_forfeits_one_decision_and_keeps_playing() -> None:
    # the deadline (0.4 s idle) is also the grace the late call gets at the next decision: it
    # grows with the load, as the time for the bot's thread to wake up and finish does
    bot = Held()
    agent = guard_agent(bot, timeout=patience(0.4), name="late")
    with pytest.raises(DecisionTimeout):
        agent.act(None, REQ)
    bot.go.set()  # the late call finishes now, after its deadline, within the grace deadline
    # the bot plays on, its late answer dropped
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


class SlowFirst:
    """Answers with the first choice, after sleeping past the deadline on its first decision."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: Any, request: Request) -> Any:
        self.calls += 1
        if self.calls == 1:
            time.sleep(0.5)
        return request.choices[0]


def test_a_timeout_fault_names_the_bot_not_the_match_loop() -> None:
    """Issue 35: a local timeout's fault said ``(at .../core/match.py:156 ...)``; it names the
    bot's class and file."""
    from cardtable.core import MatchLog, game_spec, load_bot, run_match

    spec = game_spec("cunegonda")
    game = spec.new_game(spec.presets[spec.default_rules], 4, 1)
    agents: list[Any] = [load_bot("cunegonda", "random", seed=s) for s in range(4)]
    agents[0] = guard_agent(SlowFirst(), timeout=0.1, name="slow")
    log = MatchLog()
    try:
        run_match(game, agents, fallback=lambda s: load_bot("cunegonda", "random"), log=log)
    finally:
        agents[0].close()
    fault = next(f for f in log.faults if f.seat == 0)  # (then it is abandoned: still late)
    assert fault.error == "DecisionTimeout"
    assert "no answer within 0.1 s from SlowFirst (" in fault.reason
    assert "test_guard.py" in fault.reason and "match.py" not in fault.reason


def test_frames_of_a_compiled_module_are_not_taken_for_the_bot() -> None:
    """A compiled module's frames carry its source path as compiled (relative): still ours."""
    from cardtable.core.match import raised_reason

    code = compile("def loop(f):\n    return f()\n", "src/cardtable/core/match.py", "exec")
    space: dict[str, Any] = {}
    exec(code, space)

    def bot_code() -> None:
        raise ValueError("bad")

    try:
        space["loop"](bot_code)
    except ValueError as exc:
        reason = raised_reason(exc)
    assert "test_guard.py" in reason and "bot_code" in reason and "match.py" not in reason

    def guard_code() -> None:
        raise DecisionTimeout("late")

    try:
        space["loop"](guard_code)
    except DecisionTimeout as exc:
        # no frame of the bot at all (the guard's frame here is a test's, not the loop's)
        assert "core/match.py" not in raised_reason(exc)
