"""How fast the environments run, next to the engine (``cardtable bench ... --env``).

Both are measured in CPU time of this process (robust against other load on a shared machine):

- ``env``: whole games in the PettingZoo environment, every step an ``env.last()`` (observation
  vector and mask) and an ``env.step()`` with an index drawn uniformly from the mask;
- ``observed``: the engine alone with the built-in ``random`` bot, but building the seat's engine
  observation for every decision, as any agent that reads its observation does (Kuhhandel's
  ``random`` bot itself skips it, which is why plain ``cardtable bench`` is faster there);
- ``plain``: the engine as plain ``cardtable bench`` runs it (``run_match`` with ``random`` bots).

:func:`compare` runs the three in turn, ``repeat`` times, and keeps the best rate of each: on a
shared machine a run only ever loses time to other work, so the best of interleaved runs is the
steadiest estimate of each rate and of their ratios. Each timed run starts after a full garbage
collection, so that none pays for the garbage of the runs before it.

The environment is measured twice on the same games in each run: in a new environment
(``env_new_*``), and in an environment that has played ``games`` games of other seeds first
(:data:`OTHER_GAMES` on), the figure compared with the engine (``env_*``): an environment in
use, as in training (its masks, one per set of allowed indices, are made once). Both are
reported.
"""

from __future__ import annotations

import gc
import random
import time
from typing import Any

from cardtable.core.match import run_match
from cardtable.core.registry import GameSpec, game_spec, load_bot
from cardtable.rl.aec import CardtableEnv
from cardtable.rl.table import default_seats, resolve_rules

#: Seeds of the games a new environment plays before the measured ones (see :func:`compare`):
#: far from the seeds measured.
OTHER_GAMES = 1_000_000


def measure_env(
    game: str,
    rules: Any = None,
    seats: int | None = None,
    games: int = 100,
    seed: int = 0,
    *,
    env: CardtableEnv | None = None,
) -> dict[str, Any]:
    """Env steps per CPU second over ``games`` complete games with a uniform masked policy (in
    ``env`` if given, else in a new environment of ``game``, ``rules`` and ``seats``)."""
    if env is None:
        env = CardtableEnv(game, rules, seats)
    rng = random.Random(seed)
    steps = decisions = 0
    gc.collect()  # no run pays for the garbage of the runs before it
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
        "env_steps": steps,
        "env_cpu_seconds": round(cpu, 3),
        "env_steps_per_game": round(steps / games, 1),
        "env_steps_per_decision": round(steps / max(decisions, 1), 2),
        "env_steps_per_second": round(steps / cpu),
        "env_us_per_step": round(cpu / max(steps, 1) * 1e6, 2),
    }


def _resolve(game: str, rules: Any, seats: int | None) -> tuple[GameSpec, Any, int]:
    """The game, rule set and seat count, resolved as the environments resolve them."""
    spec = game_spec(game)
    resolved = resolve_rules(spec, rules)
    return spec, resolved, default_seats(spec, resolved, seats)


def measure_observed(
    game: str, rules: Any = None, seats: int | None = None, games: int = 100, seed: int = 0
) -> dict[str, Any]:
    """Engine decisions per CPU second with ``random`` bots and one observation per decision."""
    spec, rules, n = _resolve(game, rules, seats)
    decisions = 0
    gc.collect()  # no run pays for the garbage of the runs before it
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


def measure_plain(
    game: str, rules: Any = None, seats: int | None = None, games: int = 100, seed: int = 0
) -> dict[str, Any]:
    """Engine decisions per CPU second as plain ``cardtable bench`` plays (``random`` bots)."""
    spec, rules, n = _resolve(game, rules, seats)
    decisions = 0
    gc.collect()  # no run pays for the garbage of the runs before it
    c0 = time.process_time()
    for g in range(games):
        match = spec.new_game(rules, n, seed + g)
        run_match(match, [load_bot(game, "random", seed=(seed + g) * 1000 + s) for s in range(n)])
        decisions += len(match.history())
    cpu = max(time.process_time() - c0, 1e-9)
    return {"plain_decisions": decisions, "plain_decisions_per_second": round(decisions / cpu)}


def compare(
    game: str,
    rules: Any = None,
    seats: int | None = None,
    games: int = 100,
    seed: int = 0,
    repeat: int = 3,
) -> dict[str, Any]:
    """The best of ``repeat`` interleaved runs of :func:`measure_env` (in a new environment and
    in one in use: see the module docstring), :func:`measure_observed`
    and :func:`measure_plain`, and the ratios of env steps/s to both engine rates."""
    best: dict[str, dict[str, Any]] = {}

    def keep(name: str, run: dict[str, Any], key: str) -> None:
        if run[key] > best.get(name, {}).get(key, 0):
            best[name] = run

    for _ in range(max(1, repeat)):
        keep("plain", measure_plain(game, rules, seats, games, seed), "plain_decisions_per_second")
        observed_run = measure_observed(game, rules, seats, games, seed)
        keep("observed", observed_run, "observed_decisions_per_second")
        keep("new", measure_env(game, rules, seats, games, seed), "env_steps_per_second")
        used = CardtableEnv(game, rules, seats)
        measure_env(game, rules, seats, games, seed + OTHER_GAMES, env=used)  # not kept
        keep("used", measure_env(game, rules, seats, games, seed, env=used), "env_steps_per_second")
    env, observed, plain = best["used"], best["observed"], best["plain"]
    rate = env["env_steps_per_second"]
    new_rate = best["new"]["env_steps_per_second"]
    engine = max(plain["plain_decisions_per_second"], 1)
    return {
        **env,
        "env_new_steps_per_second": new_rate,
        **observed,
        **plain,
        "env_repeat": max(1, repeat),
        "env_vs_engine": round(rate / engine, 2),
        "env_new_vs_engine": round(new_rate / engine, 2),
        "env_vs_observed": round(rate / max(observed["observed_decisions_per_second"], 1), 2),
    }
