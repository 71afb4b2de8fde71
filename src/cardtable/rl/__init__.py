"""Reinforcement-learning adapters (the optional extra ``cardtable[rl]``: numpy, gymnasium,
pettingzoo).

- :func:`kuhhandel_env`, :func:`cunegonda_env`: PettingZoo AEC environments (:mod:`.aec`);
- :class:`SingleSeatEnv`: a Gymnasium environment for one seat, the others played by built-in bots;
- :class:`PolicyAgent`: a trained policy as a cardtable agent (arena, server, ``cardtable bot``);
- :func:`make_codec`: the action space and observation encoding on their own.

See ``docs/rl.md``.
"""

from __future__ import annotations

from cardtable.rl.aec import CardtableEnv, cunegonda_env, kuhhandel_env
from cardtable.rl.codec import Codec
from cardtable.rl.policy import PolicyAgent
from cardtable.rl.rewards import SCHEMES, final_rewards
from cardtable.rl.single import SingleSeatEnv
from cardtable.rl.table import Table, make_codec

__all__ = [
    "SCHEMES",
    "CardtableEnv",
    "Codec",
    "PolicyAgent",
    "SingleSeatEnv",
    "Table",
    "cunegonda_env",
    "final_rewards",
    "kuhhandel_env",
    "make_codec",
]
