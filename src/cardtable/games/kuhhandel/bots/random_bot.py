"""``random``: uniform over the legal choices, with sensible money.

- turn: auction or cow trade with even odds when both are possible, then a uniform trade;
- bid: pass half the time (always when it could not pay), otherwise a raise of 1–4 minimum
  raises that it could pay;
- sell or buy: either, uniformly (buy only when it can pay);
- pay: a random valid payment (random notes, spare ones dropped);
- offer and counter: each note with probability one half; respond: accept or counter, evenly.
"""

from __future__ import annotations

import random
from typing import Any

from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import quick_payment


class RandomBot:
    """Seeded random legal play. Needs only the request, not the observation."""

    wants_observation = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._bids: dict[int, A.Bid] = {}  # bids are immutable: reuse them

    def act(self, observation: Any, request: Request) -> A.Action:
        rng = self.rng
        kind = request.kind
        info = request.info or {}
        if kind == "bid":
            if rng.random() < 0.5 or info["min"] > info["money"]:
                return A.PASS
            step = max(1, info["min"] - info["high"]) if info["high"] else info["min"]
            amount = info["min"] + step * int(rng.random() * 4)
            cap = info["max"]
            if amount > info["money"] or (cap is not None and amount > cap):
                amount = info["min"]
            bid = self._bids.get(amount)
            if bid is None:
                bid = self._bids[amount] = A.Bid(amount)
            return bid
        if kind == "turn":
            choices: tuple[A.Action, ...] = request.choices or ()
            if choices[0] is A.AUCTION and len(choices) > 1:
                return A.AUCTION if rng.random() < 0.5 else rng.choice(choices[1:])
            return rng.choice(choices)
        if kind in ("pay", "offer", "respond", "rat"):
            return self._money(request, info)
        assert request.choices, f"no choices for {kind!r}"
        choice: A.Action = rng.choice(request.choices)
        return choice

    def _money(self, request: Request, info: Any) -> A.Action:
        rng = self.rng
        wallet: list[int] = info["wallet"]
        kind = request.kind
        if kind == "pay":
            if "count" in info:  # Master: paid by number of notes
                notes = list(wallet)
                rng.shuffle(notes)
                return A.Pay(tuple(sorted(notes[: info["count"]])))
            values = sorted(set(wallet))
            counts = [wallet.count(v) for v in values]
            pay = quick_payment(counts, values, info["amount"], rng)
            assert pay is not None, "the engine only asks a seat that can pay"
            return A.Pay(pay)
        if kind == "offer":
            return A.Offer(tuple(v for v in wallet if rng.random() < 0.5))
        if kind == "respond":
            if rng.random() < 0.5:
                return A.ACCEPT
            return A.Counter(tuple(v for v in wallet if rng.random() < 0.5))
        if not wallet or rng.random() < 0.3:  # rat
            return A.TAKE_RAT
        return A.PlaceNote(rng.choice(wallet))
