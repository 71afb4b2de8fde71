"""The ``random`` Cunegonda bot: a uniformly random legal action, from its own seeded generator."""

from __future__ import annotations

import random

from cardtable.core.compiled import mypyc_attr
from cardtable.core.contract import Request
from cardtable.games.cunegonda.observe import Observation


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot may be subclassed
class RandomBot:
    """Plays a uniformly random legal card and passes 3 uniformly random cards of its hand."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Observation, request: Request) -> object:
        if request.choices is not None:
            return self.rng.choice(request.choices)
        count = int(request.info["count"]) if request.info else 3
        return tuple(sorted(self.rng.sample(observation.hand, count)))


def random_bot(seed: int = 0) -> RandomBot:
    return RandomBot(seed=seed)
