"""A bot that thinks far too long (a fallback that would miss every deadline): it sleeps, then
plays like the random bot. Loaded by file path as the server's fallback in a test."""

from __future__ import annotations

import time
from typing import Any

from cardtable.core import GameInfo, Request, load_bot

SLEEP_S = 3.0


class SlowBot:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.inner: Any = None

    def start(self, seat: int, info: GameInfo) -> None:
        self.inner = load_bot(info.game, "random", seed=self.seed)

    def act(self, observation: Any, request: Request) -> Any:
        time.sleep(SLEEP_S)
        return self.inner.act(observation, request)
