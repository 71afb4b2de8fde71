"""Gymnasium ids for the single-seat environment (:class:`cardtable.rl.SingleSeatEnv`)::

    import gymnasium as gym
    import cardtable.rl  # registers the ids

    env = gym.make("cardtable/Kuhhandel-v0", rules="classic", seats=4, opponents="heuristic")
    envs = gym.make_vec("cardtable/Kuhhandel-v0", num_envs=2, rules="classic", seats=4)
    env = gym.make("cardtable/Cunegonda-v0", rules="short")

Every keyword of :class:`~cardtable.rl.SingleSeatEnv` passes through ``gym.make``.
"""

from __future__ import annotations

from typing import Any

import gymnasium


def make_kuhhandel(**kwargs: Any) -> Any:
    from cardtable.rl.single import SingleSeatEnv

    kwargs.setdefault("rules", "classic")
    return SingleSeatEnv("kuhhandel", **kwargs)


def make_cunegonda(**kwargs: Any) -> Any:
    from cardtable.rl.single import SingleSeatEnv

    kwargs.setdefault("rules", "standard")
    return SingleSeatEnv("cunegonda", **kwargs)


IDS = {
    "cardtable/Kuhhandel-v0": "cardtable.rl.registration:make_kuhhandel",
    "cardtable/Cunegonda-v0": "cardtable.rl.registration:make_cunegonda",
}

for _id, _entry in IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry, disable_env_checker=False)
