"""How fast the environments run, next to the engine (``cardtable bench ... --env``).

Both are measured in CPU time of this process (robust against other load on a shared machine):

- ``env``: whole games in the PettingZoo environment, every step an ``env.last()`` (observation
  vector and mask) and an ``env.step()`` with an index drawn uniformly from the mask;
- ``observed``: the engine alone with the built-in ``random`` bot, but building the seat's engine
  observation for every decision, as any agent that reads its observation does (the ``random``
  bot itself skips it, which is why plain ``cardtable bench`` is faster).
"""

from __future__ import annotations

import random
import time
from typing import Any

from cardtable.core.registry import load_bot
from cardtable.rl.aec import CardtableEnv


def measure_env(
    game: str, rules: Any = None, seats: int | None = None, games: int = 100, seed: int = 0
) -> dict[str, Any]:
    """Env steps per CPU second over ``games`` complete games with a uniform masked policy."""
    env = CardtableEnv(game, rules, seats)
    rng = random.Random(seed)
    steps = decisions = 0
    c0 = time.process_time()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        decisions += len(env.game.history())
    cpu = max(time.process_time() - c0, 1e-9)
    return {
        "env_games": games,
        "env_cpu_seconds": round(cpu, 3),
        "env_steps_per_game": round(steps / games, 1),
        "env_steps_per_decision": round(steps / max(decisions, 1), 2),
        "env_steps_per_second": round(steps / cpu),
        "env_us_per_step": round(cpu / max(steps, 1) * 1e6, 2),
    }


def measure_observed(
    game: str, rules: Any = None, seats: int | None = None, games: int = 100, seed: int = 0
) -> dict[str, Any]:
    """Engine decisions per CPU second with ``random`` bots and one observation per decision."""
    env = CardtableEnv(game, rules, seats)  # only to resolve rules and seats the same way
    spec, rules, n = env.table.spec, env.table.rules, env.table.seats
    decisions = 0
    c0 = time.process_time()
    for g in range(games):
        bots = [load_bot(game, "random", seed=seed + g * 8 + s) for s in range(n)]
        match = spec.new_game(rules, n, seed + g)
        while True:
            pending = match.pending()
            if not pending:
                break
            request = pending[0]
            obs = match.observe(request.seat)
            match.apply(request.seat, bots[request.seat].act(obs, request))
        decisions += len(match.history())
    cpu = max(time.process_time() - c0, 1e-9)
    return {
        "observed_decisions_per_second": round(decisions / cpu),
        "observed_us_per_decision": round(cpu / max(decisions, 1) * 1e6, 2),
    }
