"""Copies continue identically (issue #41 item 1): an environment copied mid-episode with
``pickle`` and ``copy.deepcopy`` plays on exactly as the original, step for step, with every
built-in opponent. Used in-process by ``test_plug_in.py`` (plain build) and as a script by
``tests/games/kuhhandel/test_compiled.py`` against the compiled build::

    python tests/rl/copies.py random heuristic expert:iterations=8,time_cap=none

prints one line per environment (``name steps``) and exits 1 when a copy diverged.
"""

from __future__ import annotations

import copy
import pickle
import random
import sys
from typing import Any

import numpy as np

from cardtable.rl import CardtableEnv, SingleSeatEnv


def _index(mask: Any, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


def play_on(env: SingleSeatEnv, obs: Any, rng: random.Random) -> list[tuple[bytes, bytes, float]]:
    """The rest of an episode from ``obs`` with random legal actions: each step's observation,
    mask and reward."""
    steps = []
    while True:
        obs, reward, terminated, truncated, _info = env.step(_index(obs["action_mask"], rng))
        steps.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if terminated or truncated:
            return steps


def play_on_aec(env: CardtableEnv, rng: random.Random) -> list[tuple[str, bytes, bytes, float]]:
    """:func:`play_on` for an AEC environment: every agent's turn to the end."""
    steps = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        steps.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        env.step(None if terminated or truncated else _index(obs["action_mask"], rng))
    return steps


def single_seat_runs(opponents: str, seed: int = 5, before: int = 20) -> list[list[Any]]:
    """The rest of one classic episode against ``opponents``: original, pickled, deep-copied."""
    env = SingleSeatEnv("kuhhandel", "classic", 4, opponents=opponents)
    obs, _ = env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(before):
        obs, *_ = env.step(_index(obs["action_mask"], rng))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    return [play_on(e, copy.deepcopy(obs), random.Random(1)) for e in [env, *copies]]


def aec_runs(seed: int = 5, before: int = 60) -> list[list[Any]]:
    """The rest of one classic AEC game: original, pickled, deep-copied."""
    env = CardtableEnv("kuhhandel", "classic", 4)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(before):
        env.step(_index(env.action_mask(), rng))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    return [play_on_aec(e, random.Random(2)) for e in [env, *copies]]


def main(opponents: list[str]) -> int:
    failed = False
    named = [("aec", aec_runs())] + [(o, single_seat_runs(o)) for o in opponents]
    for name, runs in named:
        same = runs[0] == runs[1] == runs[2]
        print(name, len(runs[0]), "" if same else f"DIVERGED {[len(r) for r in runs]}")
        failed |= not same
    return int(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
