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
from typing import Any, Final

from cardtable.core.compiled import mypyc_attr
from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cover

# Final: constants to the optional compiled build (no lookup per use); plain Python ignores it.
_PASS: Final = A.PASS
_AUCTION: Final = A.AUCTION
_Auction: Final = A.Auction
_BID: Final = A.Bid
_PAY: Final = A.Pay
_OFFER: Final = A.Offer
_COUNTER: Final = A.Counter
_PLACE_NOTE: Final = A.PlaceNote
_ACCEPT: Final = A.ACCEPT
_TAKE_RAT: Final = A.TAKE_RAT
# ``random.Random.random`` itself: ``_uniform(rng)`` is ``rng.random()`` without looking the
# method up at every draw (the bot's generator is a ``random.Random``).
_uniform: Final = random.Random.random
_MONEY_KINDS: Final = frozenset(("pay", "offer", "respond", "rat"))


def _shuffle_steps(m: int) -> tuple[tuple[int, int, int], ...]:
    """The steps of ``Random.shuffle`` of a list of length ``m``: ``(i, i + 1, bits of i + 1)``
    for ``i`` from ``m - 1`` down to 1 (the draw of step ``i`` is ``_randbelow(i + 1)``)."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(m - 1, 0, -1))


# Built once for the wallets met in play (a longer one gets its steps built when met).
_SHUFFLE_STEPS = [_shuffle_steps(m) for m in range(64)]


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomBot:
    """Seeded random legal play. Needs only the request, not the observation."""

    wants_observation = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._bids: dict[int, A.Bid] = {}  # bids are immutable: reuse them

    def act(self, observation: Any, request: Request) -> A.Action:
        rng = self.rng
        kind = request[1]  # request.kind, read as the tuple item it is
        info = request[3] or {}  # request.info
        if kind == "bid":
            low = info["min"]
            money = info["money"]
            if _uniform(rng) < 0.5 or low > money:
                return _PASS
            high = info["high"]
            step = max(1, low - high) if high else low
            amount = low + step * int(_uniform(rng) * 4)
            cap = info["max"]
            if amount > money or (cap is not None and amount > cap):
                amount = low
            bid = self._bids.get(amount)
            if bid is None:
                bid = self._bids[amount] = _BID(amount)
            return bid
        if kind == "turn":
            choices: tuple[A.Action, ...] = request.choices or ()
            n = len(choices)
            # by its class, not identity: a game copied or unpickled may hold another Auction()
            if type(choices[0]) is _Auction and n > 1:
                if _uniform(rng) < 0.5:
                    return choices[0]
                return choices[1 + _below(rng, n - 1)]  # rng.choice(choices[1:])
            return choices[_below(rng, n)]  # rng.choice(choices)
        if kind in _MONEY_KINDS:
            return self._money(request, info)
        assert request.choices, f"no choices for {kind!r}"
        others: tuple[A.Action, ...] = request.choices
        return others[_below(rng, len(others))]  # rng.choice(others)

    def _money(self, request: Request, info: Any) -> A.Action:
        rng = self.rng
        wallet: list[int] = info["wallet"]
        kind = request.kind
        if kind == "pay":
            if "count" in info:  # Master: paid by number of notes
                notes = list(wallet)
                rng.shuffle(notes)
                return _PAY(tuple(sorted(notes[: info["count"]])))
            pay = _random_payment(wallet, info["amount"], rng)
            assert pay is not None, "the engine only asks a seat that can pay"
            return _PAY(pay)
        if kind == "offer":
            return _OFFER(_random_notes(wallet, rng))
        if kind == "respond":
            if rng.random() < 0.5:
                return _ACCEPT
            return _COUNTER(_random_notes(wallet, rng))
        if not wallet or rng.random() < 0.3:  # rat
            return _TAKE_RAT
        return _PLACE_NOTE(wallet[_below(rng, len(wallet))])  # rng.choice(wallet)


def _below(rng: random.Random, n: int) -> int:
    """``rng._randbelow(n)`` of ``random.Random``, the draw behind ``choice`` (n > 0)."""
    if type(rng) is not random.Random:
        return rng.randrange(n)
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def _random_notes(wallet: list[int], rng: random.Random) -> tuple[int, ...]:
    """Each note with probability one half (one ``rng.random()`` per note, in order)."""
    draw = rng.random
    return tuple([v for v in wallet if draw() < 0.5])


def _random_payment(wallet: list[int], amount: int, rng: random.Random) -> tuple[int, ...] | None:
    """``quick_payment`` of the wallet with ``rng``: the same payment, without building counts.

    ``wallet`` lists the notes smallest first, as the request gives it, which is the order
    ``quick_payment`` shuffles; the shuffle is ``random.Random.shuffle`` step for step.
    """
    if amount <= 0:
        return ()
    pool = wallet[wallet.count(0) :]  # the notes worth something (0-notes come first)
    if sum(pool) < amount:
        return None
    if type(rng) is random.Random:
        getrandbits = rng.getrandbits
        m = len(pool)
        steps = _SHUFFLE_STEPS[m] if m < len(_SHUFFLE_STEPS) else _shuffle_steps(m)
        for i, n, k in steps:
            j = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            pool[i], pool[j] = pool[j], pool[i]
    else:
        rng.shuffle(pool)
    return cover(pool, amount)
