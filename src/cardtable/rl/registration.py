"""Gymnasium ids for the single-seat environment (:class:`cardtable.rl.SingleSeatEnv`)::

    import gymnasium as gym
    import cardtable.rl  # registers the ids

    env = gym.make("cardtable/Kuhhandel-v0", rules="classic", seats=4, opponents="heuristic")
    envs = gym.make_vec("cardtable/Kuhhandel-v0", num_envs=2, rules="classic", seats=4)
    env = gym.make("cardtable/Cunegonda-v0", rules="short")

Every keyword of :class:`~cardtable.rl.SingleSeatEnv` passes through ``gym.make``. One default
differs from the class's: ``illegal_action="penalize"`` (the class's is ``"raise"``). The first
thing a user runs on a registered id is a checker (Gymnasium's or SB3's ``check_env``), and those
step random actions, most of which the mask does not allow: as registered, they pass. An
illegal index then ends the episode with ``illegal_reward`` (-1), which a learner sees and
learns from, where ``"first_legal"`` would hide a broken mask. ``illegal_action="raise"`` is
one keyword away for debugging a policy that should never pick an illegal index.
"""

from __future__ import annotations

from typing import Any

import gymnasium

#: What the registered ids do with an index the mask does not allow (see the module docstring).
ILLEGAL_ACTION = "penalize"


def make_kuhhandel(**kwargs: Any) -> Any:
    from cardtable.rl.single import SingleSeatEnv

    kwargs.setdefault("rules", "classic")
    kwargs.setdefault("illegal_action", ILLEGAL_ACTION)
    return SingleSeatEnv("kuhhandel", **kwargs)


def make_cunegonda(**kwargs: Any) -> Any:
    from cardtable.rl.single import SingleSeatEnv

    kwargs.setdefault("rules", "standard")
    kwargs.setdefault("illegal_action", ILLEGAL_ACTION)
    return SingleSeatEnv("cunegonda", **kwargs)


IDS = {
    "cardtable/Kuhhandel-v0": "cardtable.rl.registration:make_kuhhandel",
    "cardtable/Cunegonda-v0": "cardtable.rl.registration:make_cunegonda",
}

for _id, _entry in IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry, disable_env_checker=False)
