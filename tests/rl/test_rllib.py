"""RLlib takes the AEC environment through its own PettingZoo wrapper (the ``rllib`` extra;
skipped where ray[rllib] is not installed, as in CI)."""

from __future__ import annotations

import numpy as np
import pytest

from cardtable.rl import kuhhandel_env


def test_rllib_wraps_the_aec_environment() -> None:
    wrappers = pytest.importorskip(
        "ray.rllib.env.wrappers.pettingzoo_env", reason="ray[rllib] (the rllib extra)"
    )
    env = wrappers.PettingZooEnv(kuhhandel_env("classic", 4))
    obs, _info = env.reset(seed=1)
    (agent,) = obs
    index = int(np.flatnonzero(obs[agent]["action_mask"])[0])
    obs, _rewards, terminated, _truncated, _info = env.step({agent: index})
    assert terminated["__all__"] is False and len(obs) == 1
