"""What a decision costs through the stdio adapter: ``cardtable bench GAME --bots cmd:...``.

The same games are played twice, interleaved: once with the program in its seats, once with the
same rule run in this process (the Python starter kit's ``choose``, fed the same JSON the program
gets: the observation's and the request's encodings, the action decoded the same way). The wall
time of every decision of those seats is taken; the difference of the means is what the process,
the pipes and the line protocol add per decision. With the starter kits (C, Node, Python), both
sides play the same rule, so the difference is the adapter's overhead and the program's own
start-up and JSON work.
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from collections.abc import Callable
from importlib.resources import files
from typing import Any

from cardtable.client.seat import GameCodec
from cardtable.core import Agent, GameInfo, Request, game_spec, load_bot, run_match
from cardtable.stdio.spec import is_program_ref


def _kit_choose() -> Callable[[Any, Any], Any]:
    path = files("cardtable.stdio").joinpath("kits", "python", "bot.py")
    spec = importlib.util.spec_from_file_location("cardtable_stdio_python_kit", str(path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    choose: Callable[[Any, Any], Any] = module.choose
    return choose


class KitInProcess:
    """The Python starter kit's rule as an in-process agent, through the protocol's JSON."""

    def __init__(self, choose: Callable[[Any, Any], Any]) -> None:
        self.choose = choose
        self.codec: GameCodec | None = None

    def start(self, seat: int, info: GameInfo) -> None:
        self.codec = GameCodec(info.game, info.rules, info.seats)

    def act(self, observation: Any, request: Request) -> Any:
        assert self.codec is not None
        codec = self.codec
        data = {
            "seat": request.seat,
            "kind": request.kind,
            "choices": None
            if request.choices is None
            else [codec.action_to_json(c) for c in request.choices],
            "info": dict(request.info or {}),
        }
        return codec.action_from_json(self.choose(observation.to_json(), data))


class Timed:
    """Times every ``act`` of an agent (wall seconds), passing the hooks through."""

    def __init__(self, agent: Any, times: list[float], starts: list[float] | None = None) -> None:
        self.agent = agent
        self.times = times
        self.starts = starts  # the wall time of each start (a program: its start-up to ready)
        for hook in ("event", "end"):
            if hasattr(agent, hook):
                setattr(self, hook, getattr(agent, hook))

    def start(self, seat: int, info: GameInfo) -> None:
        start = getattr(self.agent, "start", None)
        if start is None:
            return
        t0 = time.perf_counter()
        try:
            start(seat, info)
        finally:
            if self.starts is not None:
                self.starts.append(time.perf_counter() - t0)

    def act(self, observation: Any, request: Request) -> Any:
        t0 = time.perf_counter()
        try:
            return self.agent.act(observation, request)
        finally:
            self.times.append(time.perf_counter() - t0)


def measure(
    game_name: str, rules: Any, seats: int, refs: list[str], games: int, seed: int
) -> dict[str, Any]:
    """Per-decision wall time of the program seats and of the same rule in process."""
    spec = game_spec(game_name)
    choose = _kit_choose()
    program_times: list[float] = []
    python_times: list[float] = []
    #: the times of each program apart (two programs in one run: ``cmd:./bot`` beside the same
    #: program in the hosted bots' sandbox, docs/hosted-bots.md)
    by_ref: dict[str, list[float]] = {}
    starts: dict[str, list[float]] = {}
    for g in range(games):
        for side in ("program", "python"):
            game = spec.new_game(rules, seats, seed + g)
            agents: list[Agent] = []
            for s, ref in enumerate(refs):
                if not is_program_ref(ref):
                    agents.append(load_bot(game_name, ref, seed=seed + g * 8 + s))
                elif side == "program":
                    agents.append(
                        Timed(
                            load_bot(game_name, ref),
                            by_ref.setdefault(ref, []),
                            starts.setdefault(ref, []),
                        )
                    )
                else:
                    agents.append(Timed(KitInProcess(choose), python_times))
            run_match(game, agents)
    from cardtable.stdio import close_kept_programs

    close_kept_programs()
    program_times = [t for times in by_ref.values() for t in times]

    def us(values: list[float], q: float | None = None) -> float:
        if not values:
            return 0.0
        if q is None:
            return round(statistics.fmean(values) * 1e6, 1)
        return round(sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1e6, 1)

    return {
        "program_decisions": len(program_times),
        "program_us_per_decision": us(program_times),
        "program_us_p50": us(program_times, 0.5),
        "program_us_p99": us(program_times, 0.99),
        "python_decisions": len(python_times),
        "python_us_per_decision": us(python_times),
        "python_us_p50": us(python_times, 0.5),
        "adapter_overhead_us_per_decision": round(us(program_times) - us(python_times), 1),
        "adapter_overhead_us_p50": round(us(program_times, 0.5) - us(python_times, 0.5), 1),
        "programs": [
            {
                "ref": ref,
                "decisions": len(times),
                "us_per_decision": us(times),
                "us_p50": us(times, 0.5),
                "us_p99": us(times, 0.99),
                "starts": len(starts.get(ref, [])),
                "start_ms_p50": round(us(starts.get(ref, []), 0.5) / 1000, 1),
            }
            for ref, times in by_ref.items()
        ],
    }
