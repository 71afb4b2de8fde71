"""Play one game between agents in this process."""

from __future__ import annotations

import contextlib
import sysconfig
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardtable.core.contract import ActionError, Agent, Event, Game, GameInfo, Request, Result


@dataclass
class Fault:
    """A decision an agent did not answer usably; a fallback answered it instead."""

    seat: int
    request_kind: str
    reason: str
    #: Class name of the exception that made the fault (``"IllegalAction"``, ``"TimeoutError"``...).
    error: str = ""


@dataclass
class MatchLog:
    """What happened besides the game itself: faults per seat."""

    faults: list[Fault] = field(default_factory=list)


def raised_reason(exc: BaseException) -> str:
    """``"TypeName: message (at path.py:LINE in function)"`` for an exception an agent raised.

    The place is the innermost frame outside cardtable itself and the standard library: the
    bot's own line (none is given when every frame is cardtable's). Paths under the working
    directory are relative.
    """
    text = str(exc)
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    mine = [f for f in traceback.extract_tb(exc.__traceback__) if not _ours(f.filename)]
    if not mine:
        return reason
    frame = mine[-1]
    path = Path(frame.filename)
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    return f"{reason} (at {path}:{frame.lineno} in {frame.name})"


def _ours(filename: str) -> bool:
    """Whether a traceback's file is cardtable's own or the standard library's. A compiled
    module's frames name its source as it was compiled (``src/cardtable/core/match.py``,
    relative): those are recognised by the package path they end in (issue 35: a timeout
    named ``core/match.py`` as the bot's place)."""
    package = Path(__file__).resolve().parents[1]
    if str(Path(filename).resolve()).startswith((str(package), sysconfig.get_paths()["stdlib"])):
        return True
    parts = Path(filename).parts
    if Path(filename).is_absolute() or "cardtable" not in parts:
        return False
    inside = parts[len(parts) - parts[::-1].index("cardtable") :]  # after the last "cardtable"
    return bool(inside) and package.joinpath(*inside).exists()


def start_agents(game: Game, agents: Sequence[Agent], names: Sequence[str] = ()) -> None:
    rules: dict[str, Any] | None = None  # built only if some agent has a start()
    for seat, agent in enumerate(agents):
        start = getattr(agent, "start", None)
        if start is not None:
            if rules is None:
                rules = game.rules_json()
            start(seat, GameInfo(game.name, rules, game.seats, seat, tuple(names)))


def run_match(
    game: Game,
    agents: Sequence[Agent],
    *,
    names: Sequence[str] = (),
    fallback: Callable[[int], Agent] | None = None,
    guard: Callable[[Agent, Any, Request], Any] | None = None,
    on_event: Callable[[Event], None] | None = None,
    log: MatchLog | None = None,
) -> Result:
    """Ask the agents until the game is over and return the result.

    Without ``fallback`` an agent's error propagates (a bug should be loud). With it, an agent that
    raises or answers with an invalid or illegal action has that decision answered by
    ``fallback(seat)`` and the fault is written to ``log``. ``guard(agent, obs, request)`` may wrap
    the call (for a timeout); it raises to signal a fault.
    """
    if len(agents) != game.seats:
        raise ValueError(f"{len(agents)} agents for {game.seats} seats")
    start_agents(game, agents, names)
    wants = [getattr(a, "wants_observation", True) for a in agents]
    listeners = [(s, a.event) for s, a in enumerate(agents) if hasattr(a, "event")]
    seen = 0
    if listeners or on_event:
        seen = _deliver(game, 0, listeners, on_event)
    if fallback is None and guard is None and not listeners and on_event is None:
        _play(game, agents, wants)
    else:
        _play_watched(game, agents, wants, fallback, guard, listeners, on_event, log, seen)
    result = game.result()
    for agent in agents:
        end = getattr(agent, "end", None)
        if end is not None:
            end(result)
    return result


def _play(game: Game, agents: Sequence[Agent], wants: list[bool]) -> None:
    """The plain loop: ask, apply (the engine validates every action), until nothing is pending.

    The same steps as :func:`_play_watched` without faults, guards or listeners; the methods are
    looked up once per game instead of once per decision.
    """
    pending_of = game.pending
    apply = game.apply
    observe = game.observe
    acts = [agent.act for agent in agents]
    if not any(wants):  # no agent reads its observation (random bots, engine benchmarks)
        while True:
            pending = pending_of()
            if not pending:
                return
            request = pending[0]
            seat = request[0]  # request.seat, read as the tuple item it is
            apply(seat, acts[seat](None, request))
    while True:
        pending = pending_of()
        if not pending:
            return
        request = pending[0]
        seat = request[0]
        apply(seat, acts[seat](observe(seat) if wants[seat] else None, request))


def _play_watched(
    game: Game,
    agents: Sequence[Agent],
    wants: list[bool],
    fallback: Callable[[int], Agent] | None,
    guard: Callable[[Agent, Any, Request], Any] | None,
    listeners: list[tuple[int, Callable[[Event], None]]],
    on_event: Callable[[Event], None] | None,
    log: MatchLog | None,
    seen: int,
) -> None:
    while True:
        pending = game.pending()
        if not pending:
            break
        request = pending[0]
        seat = request.seat
        agent = agents[seat]
        obs = game.observe(seat) if wants[seat] else None
        if fallback is None:
            action = agent.act(obs, request) if guard is None else guard(agent, obs, request)
            game.apply(seat, action)
        else:
            try:
                action = agent.act(obs, request) if guard is None else guard(agent, obs, request)
                game.apply(seat, action)
            except Exception as exc:  # any failure of the agent is a fault, never a crash
                reason = exc.reason if isinstance(exc, ActionError) else raised_reason(exc)
                if log is not None:
                    log.faults.append(Fault(seat, request.kind, reason, type(exc).__name__))
                backup = fallback(seat)
                game.apply(seat, backup.act(game.observe(seat), request))
        if listeners or on_event:
            seen = _deliver(game, seen, listeners, on_event)


def _deliver(
    game: Game,
    since: int,
    listeners: list[tuple[int, Callable[[Event], None]]],
    on_event: Callable[[Event], None] | None,
) -> int:
    new = game.events(since)
    for ev in new:
        if on_event is not None:
            on_event(ev)
        for seat, hook in listeners:
            if ev.visible_to(seat):
                hook(ev)
    return since + len(new)
