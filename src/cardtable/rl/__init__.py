"""Reinforcement-learning adapters (the optional extra ``cardtable[rl]``: numpy, gymnasium,
pettingzoo).

- :func:`kuhhandel_env`, :func:`cunegonda_env`: PettingZoo AEC environments (:mod:`.aec`);
- :class:`SingleSeatEnv`: a Gymnasium environment for one seat, the others played by bots;
- :class:`PolicyAgent`: a trained policy as a cardtable agent (arena, server, ``cardtable bot``);
- :func:`make_codec`: the action space and observation encoding on their own.

The names are imported on first use, so that the codecs and :class:`PolicyAgent` (what the
``learned`` bot runs on) need numpy only, not gymnasium or pettingzoo. Importing this package
registers the Gymnasium ids ``cardtable/Kuhhandel-v0`` and ``cardtable/Cunegonda-v0`` when
gymnasium is installed (:mod:`.registration`). See ``docs/rl.md``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "SCHEMES": "cardtable.rl.rewards",
    "final_rewards": "cardtable.rl.rewards",
    "CardtableEnv": "cardtable.rl.aec",
    "cunegonda_env": "cardtable.rl.aec",
    "kuhhandel_env": "cardtable.rl.aec",
    "Codec": "cardtable.rl.codec",
    "PolicyAgent": "cardtable.rl.policy",
    "SingleSeatEnv": "cardtable.rl.single",
    "Table": "cardtable.rl.table",
    "make_codec": "cardtable.rl.table",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'cardtable.rl' has no attribute {name!r}")
    return getattr(import_module(where), name)


try:  # gym.make("cardtable/Kuhhandel-v0", ...) after `import cardtable.rl`
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # the codecs and PolicyAgent need numpy only
    pass
else:
    from cardtable.rl import registration as _registration  # noqa: F401
