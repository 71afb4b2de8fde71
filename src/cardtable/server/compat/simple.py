"""``simple``: a house bot in the style of the Kuh-Handel reference's ``SimplePlayer``.

Written from the behaviour described in ``kuh-handel-wire.md`` §5.1 (no code was copied), as an
ordinary engine agent, so it plays any seat of a ``competition`` game here and fills the tables
of the compatible lobbies the way the reference's server bots do.

What it knows: its own notes and every herd exactly (from the observation); for each opponent a
money *estimate* that starts at the start money and moves by the winning bid on public auction
payments and by the exact notes on payments it took part in. Like the reference it ignores
donkey money for opponents and treats trade money as nothing, and an exposed wallet resets the
estimate. ``budget`` = ⌊own money × risk⌋.

- Bids (highest rounded down to 10) + 10 while the highest bid is within its budget and it wants
  the card: its own "sqrt-points" are still below the table's mean, or the card is worth more to
  it than the average of the last five cards auctioned.
- Buys back when the bid is within its budget and it wants the card; pays with the cheapest notes.
- Always accepts a cow trade (the reference's counter-offer is never returned either).
- On its turn it challenges only when an opponent's estimated money is within its budget,
  offering the smallest sum of notes covering that estimate; else it draws. A compulsory trade
  offers 1.5 × the estimate if it has it, else its largest note.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.core.contract import Event, GameInfo, Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cheapest_payment


def risk_text(risk: float) -> str:
    """A risk as the reference prints it in server bot names (``0.37``, ``1``, ``0``)."""
    return f"{risk:.2f}".rstrip("0").rstrip(".") or "0"


class SimpleBot:
    """The reference-style ``SimplePlayer`` (see the module docstring); ``risk`` in [0, 1]."""

    def __init__(self, seed: int = 0, risk: float | None = None) -> None:
        rng = random.Random(seed)
        self.risk = round(rng.random(), 2) if risk is None else max(0.0, min(1.0, float(risk)))
        self.seat = 0
        self.values: list[int] = []
        self.sizes: list[int] = []
        self.estimate: dict[int, int] = {}
        self.mean_points = 0
        self.recent: deque[float] = deque(maxlen=5)
        self.unvalued: list[int] = []
        self.planned: tuple[int, ...] | None = None

    # ------------------------------------------------------------------ agent hooks
    def start(self, seat: int, info: GameInfo) -> None:
        self.seat = seat
        species = info.rules["species"]
        self.values = [int(s["value"]) for s in species]
        self.sizes = [len(s["payouts"]) for s in species]
        notes = info.rules["notes"]
        start_money = sum(c * v for c, v in zip(info.rules["start_wallet"], notes, strict=True))
        self.estimate = {s: start_money for s in range(info.seats) if s != seat}
        n = info.seats
        self.mean_points = math.ceil(sum(self.values) / n) * len(self.values) // n

    def event(self, ev: Event) -> None:
        data = ev.data
        if ev.kind == "payment":
            payer, payee = data["from"], data["to"]
            if self.seat not in (payer, payee):
                self._move(payer, payee, int(data["amount"]))
        elif ev.kind == "payment_notes":
            payer, payee = data["from"], data["to"]
            self._move(payer, payee, sum(data["notes"]))
        elif ev.kind == "exposed" and data["seat"] in self.estimate:
            self.estimate[data["seat"]] = int(data["value"])
        elif ev.kind == "auction":
            self.unvalued.append(int(data["card"]))

    def _move(self, payer: int, payee: int, amount: int) -> None:
        if payer in self.estimate:
            self.estimate[payer] = max(0, self.estimate[payer] - amount)
        if payee in self.estimate:
            self.estimate[payee] += amount

    # ------------------------------------------------------------------ valuation
    def sqrt_points(self, herd: Sequence[int]) -> float:
        owned = [k for k, c in enumerate(herd) if c and k < len(self.values)]
        total = sum(math.sqrt(herd[k] / self.sizes[k]) * self.values[k] for k in owned)
        return total * len(owned)

    def gain(self, herd: Sequence[int], species: int, cards: int = 1) -> float:
        """How much ``cards`` more cards of ``species`` raise the sqrt-points of ``herd``."""
        more = list(herd)
        more[species] = min(self.sizes[species], more[species] + cards)
        return self.sqrt_points(more) - self.sqrt_points(herd)

    def _wants(self, herd: Sequence[int], card: int) -> bool:
        for k in self.unvalued:
            if k < len(self.values):
                self.recent.append(self.gain(herd, k))
        self.unvalued.clear()
        if card >= len(self.values):
            return False
        if self.sqrt_points(herd) <= self.mean_points:
            return True
        average = sum(self.recent) / len(self.recent) if self.recent else 0.0
        return self.gain(herd, card) > average

    def _budget(self, money: int) -> int:
        return math.floor(money * self.risk)

    # ------------------------------------------------------------------ decisions
    def act(self, obs: Any, request: Request) -> Any:
        info: Mapping[str, Any] = request.info or {}
        kind = request.kind
        herd = obs.herds[self.seat]
        money = obs.money
        if kind == "bid":
            high = int(info.get("high", 0))
            wants = self._wants(herd, int(info["card"]))
            if info.get("high_bidder") == self.seat or high > self._budget(money) or not wants:
                return A.PASS
            bid = high // 10 * 10 + 10
            cap = info.get("max")
            if cap is not None and bid > cap:
                return A.PASS
            return A.Bid(bid)
        if kind == "sell_or_buy":
            high = int(info["high"])
            wants = self._wants(herd, int(info["card"]))
            choices = request.choices or (A.SELL,)
            if A.BUY in choices and high <= self._budget(money) and wants:
                return A.BUY
            return A.SELL
        if kind == "pay":
            notes = cheapest_payment(_counts(obs.wallet), _values(obs.wallet), int(info["amount"]))
            return A.Pay(notes or ())
        if kind == "respond":
            return A.ACCEPT
        if kind == "turn":
            return self._turn(obs, request)
        if kind == "offer":
            planned, self.planned = self.planned, None
            wallet = list(obs.wallet or ())
            if planned is None or not _holds(wallet, planned):
                planned = ()
            return A.Offer(planned)
        if request.choices:
            return request.choices[0]
        return A.PASS

    def _ranked_trades(self, obs: Any, request: Request) -> list[tuple[A.Challenge, int]]:
        """Possible trades with the cards at stake, smallest value change first."""
        herds = obs.herds
        trades = []
        for choice in request.choices or ():
            if isinstance(choice, A.Challenge) and choice.species < len(self.values):
                k, other = choice.species, choice.opponent
                stake = min(herds[self.seat][k], herds[other][k])
                change = self.gain(herds[self.seat], k, stake) + (
                    self.sqrt_points(herds[other])
                    - self.sqrt_points(_without(herds[other], k, stake))
                )
                trades.append((change, choice, stake))
        trades.sort(key=lambda t: (t[0], t[1].opponent, t[1].species))
        return [(c, s) for _, c, s in trades]

    def _turn(self, obs: Any, request: Request) -> Any:
        choices = request.choices or ()
        trades = self._ranked_trades(obs, request)
        wallet = list(obs.wallet or ())
        counts, values = _counts(wallet), _values(wallet)
        money = sum(wallet)
        budget = self._budget(money)
        for challenge, _ in trades:
            guess = self.estimate.get(challenge.opponent, 0)
            if guess <= budget:
                notes = cheapest_payment(counts, values, guess)
                if notes is not None:
                    self.planned = notes
                    return challenge
        if A.AUCTION in choices:
            return A.AUCTION
        if not trades:
            return choices[0]
        for challenge, _ in trades:
            guess = self.estimate.get(challenge.opponent, 0)
            if guess <= money:
                self.planned = cheapest_payment(counts, values, math.ceil(guess * 1.5)) or ()
                return challenge
        self.planned = (max(wallet),) if wallet else ()
        return trades[0][0]


def _counts(wallet: Sequence[int] | None) -> list[int]:
    values = _values(wallet)
    notes = list(wallet or ())
    return [notes.count(v) for v in values]


def _values(wallet: Sequence[int] | None) -> list[int]:
    return sorted(set(wallet or ()))


def _holds(wallet: Sequence[int], notes: Sequence[int]) -> bool:
    pool = list(wallet)
    for v in notes:
        if v not in pool:
            return False
        pool.remove(v)
    return True


def _without(herd: Sequence[int], species: int, cards: int) -> list[int]:
    out = list(herd)
    out[species] = max(0, out[species] - cards)
    return out
