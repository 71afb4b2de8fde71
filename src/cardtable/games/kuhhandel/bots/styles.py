"""Simple playing styles for mixed-field measurements (``cardtable arena``, docs/strength.md).

Not registered as built-in names; load them by file reference, e.g.
``--bots expert,src/cardtable/games/kuhhandel/bots/styles.py:PriceBlind,heuristic,heuristic``.

- :class:`PriceBlind`: bids the minimum whenever it can afford it, always sells as auctioneer,
  always accepts a cow-trade offer; everything else like ``heuristic``.
- :class:`Accepter`: plays like ``heuristic`` but always accepts a cow-trade offer.
- :class:`ValueBidder`: docs/writing-a-bot.md's value bidder made stronger: bids up to the
  species' value times (1 + the cards of it that it holds) / 2, at most 80% of its money, and
  plays everything else like ``heuristic`` (not the random bot).
"""

from __future__ import annotations

from typing import Any

from cardtable.core.contract import Event, Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots.heuristic import HeuristicBot


class _Style:
    def __init__(self, seed: int = 0) -> None:
        self.heuristic = HeuristicBot(seed)

    def start(self, seat: int, info: Any) -> None:
        self.heuristic.start(seat, info)

    def event(self, event: Event) -> None:
        hook = getattr(self.heuristic, "event", None)
        if hook is not None:
            hook(event)

    def act(self, obs: Any, request: Request) -> A.Action:
        return self.heuristic.act(obs, request)


class PriceBlind(_Style):
    """Bids the minimum whenever it can afford it; always sells; always accepts."""

    def act(self, obs: Any, request: Request) -> A.Action:
        info = request.info or {}
        choices = request.choices
        if request.kind == "bid":
            low, cap = info["min"], info["max"]
            if low <= obs.money and (cap is None or low <= cap):
                return A.Bid(low)
            return A.PASS
        if request.kind == "sell_or_buy" and choices is not None and A.SELL in choices:
            return A.SELL
        if request.kind == "respond":
            return A.ACCEPT
        return self.heuristic.act(obs, request)


class Accepter(_Style):
    """Plays like ``heuristic`` but always accepts a cow-trade offer."""

    def act(self, obs: Any, request: Request) -> A.Action:
        if request.kind == "respond":
            return A.ACCEPT
        return self.heuristic.act(obs, request)


class ValueBidder(_Style):
    """Bids by the species' value and its own herd; everything else like ``heuristic``."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.values: list[int] = []

    def start(self, seat: int, info: Any) -> None:
        super().start(seat, info)
        self.values = [int(sp["value"]) for sp in info.rules["species"]]

    def act(self, obs: Any, request: Request) -> A.Action:
        if request.kind != "bid" or obs.seat is None:
            return self.heuristic.act(obs, request)
        info = request.info or {}
        card, low, cap = info["card"], info["min"], info["max"]
        if not self.values:
            self.values = [int(sp["value"]) for sp in getattr(obs, "species", ())] or [0]
        if card >= len(self.values):
            return self.heuristic.act(obs, request)
        held = obs.herds[obs.seat][card]
        limit = min(int(0.8 * obs.money), self.values[card] * (1 + held) // 2)
        if cap is not None:
            limit = min(limit, cap)
        if low <= limit and low <= obs.money:
            return A.Bid(low)
        return A.PASS
