"""Bots that fail in one way each, for the honest-faults test (test_honest_faults.py)."""

from __future__ import annotations

import time
from typing import Any

from cardtable.core import load_bot


class Raises:
    """Raises on every decision."""

    def act(self, observation: Any, request: Any) -> Any:
        raise ValueError(f"no idea what to do on {request.kind}")  # the line the fault names


class Banana:
    """Answers every decision with a string that is no action (a ranked game was once won with
    a clean record this way)."""

    def act(self, observation: Any, request: Any) -> Any:
        return "banana"


class Sleeps:
    """Plays the random bot's move, but only after sleeping past the deadline."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.inner: Any = None

    def start(self, seat: int, info: Any) -> None:
        self.inner = load_bot(info.game, "random", seed=self.seed)

    def act(self, observation: Any, request: Any) -> Any:
        time.sleep(1.5)
        return self.inner.act(observation, request)
