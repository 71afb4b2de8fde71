"""Built-in Cunegonda bots, by registry name. Each factory takes ``seed=``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cardtable.games.cunegonda.bots.expert import ExpertBot, expert_bot
from cardtable.games.cunegonda.bots.heuristic import HeuristicBot, heuristic_bot
from cardtable.games.cunegonda.bots.random_bot import RandomBot, random_bot

BOTS: Mapping[str, Callable[..., Any]] = {
    "random": random_bot,
    "heuristic": heuristic_bot,
    "expert": expert_bot,
}

__all__ = [
    "BOTS",
    "ExpertBot",
    "HeuristicBot",
    "RandomBot",
    "expert_bot",
    "heuristic_bot",
    "random_bot",
]
