"""Built-in Kuhhandel bots, by registered name.

The ``learned`` bot (a trained policy, numpy) lives above the engine (:mod:`cardtable.rl.learned`);
the registry adds it to the game's bots (``cardtable.core.registry.OUTSIDE_BOTS``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardtable.games.kuhhandel.bots.expert import ExpertBot, expert_bot
from cardtable.games.kuhhandel.bots.heuristic import HeuristicBot
from cardtable.games.kuhhandel.bots.random_bot import RandomBot

BOTS: dict[str, Callable[..., Any]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "expert": expert_bot,
}

__all__ = ["BOTS", "ExpertBot", "HeuristicBot", "RandomBot", "expert_bot"]
