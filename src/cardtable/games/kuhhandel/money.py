"""Notes and payments (spec §4.6): wallets are counts per note value, payments give no change.

A *wallet* is a list of counts aligned with ``RuleSet.notes``. A *payment* for an amount is a
multiset of the payer's notes whose total covers the amount and that holds no note which could be
left out while still covering it. Since leaving out the smallest note is the most permissive
choice, that is: ``total >= amount`` and ``total - min(notes) < amount`` (so 0-notes never belong
to a payment).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from operator import mul


def wallet_value(wallet: Sequence[int], notes: Sequence[int]) -> int:
    """Total face value of a wallet."""
    return sum(map(mul, wallet, notes))


def to_notes(counts: Sequence[int], notes: Sequence[int]) -> tuple[int, ...]:
    """The notes of a count vector, smallest first."""
    out: list[int] = []
    for c, v in zip(counts, notes, strict=True):
        if c:
            out += [v] * c
    return tuple(out)


def covers(wallet: Sequence[int], counts: Sequence[int]) -> bool:
    """Whether ``wallet`` holds every note in ``counts``."""
    return all(c <= w for c, w in zip(counts, wallet, strict=True))


def payment_problem(payment: Sequence[int], amount: int) -> str | None:
    """Why ``payment`` (note values) is not a valid payment of ``amount``, or ``None`` if it is."""
    total = sum(payment)
    if total < amount:
        return f"the notes total {total}, less than {amount}"
    if payment and total - min(payment) >= amount:
        return (
            f"a note of {min(payment)} could be left out and {total - min(payment)} would still "
            f"cover {amount}: no change is given, so pay without it"
        )
    return None


def cheapest_payment(
    wallet: Sequence[int], notes: Sequence[int], amount: int
) -> tuple[int, ...] | None:
    """The valid payment of ``amount`` that overpays least (then: uses fewest notes).

    ``wallet`` is a count per note value, aligned with ``notes`` (the note values, e.g.
    ``RuleSet.notes``, or the distinct values of a request's ``info["wallet"]``); the payment is
    the notes' values, smallest first, ready for ``Pay(...)``. ``None`` when the wallet is worth
    less than ``amount``: a ``pay`` request never asks that (a bidder who cannot pay is exposed
    instead, the ``exposed`` event), but a bot that plans a bid or an offer with it must check.
    For ``amount <= 0`` the empty payment.
    """
    if amount <= 0:
        return ()
    if wallet_value(wallet, notes) < amount:
        return None
    # Reachable totals -> fewest-note count vector, over positive notes only. Totals above
    # amount + largest note are never minimal covers, so they are cut off.
    limit = amount + max(notes)
    best: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, tuple(0 for _ in notes))}
    for i, v in enumerate(notes):
        if v <= 0 or wallet[i] == 0:
            continue
        nxt = dict(best)
        for total, (n, counts) in best.items():
            if total >= amount:
                continue
            for k in range(1, wallet[i] + 1):
                t = total + k * v
                if t > limit:
                    break
                cand = (n + k, counts[:i] + (counts[i] + k,) + counts[i + 1 :])
                old = nxt.get(t)
                if old is None or cand[0] < old[0]:
                    nxt[t] = cand
                if t >= amount:
                    break
        best = nxt
    covering = [t for t in best if t >= amount]
    t = min(covering)
    return to_notes(best[t][1], notes)


def quick_payment(
    wallet: Sequence[int], notes: Sequence[int], amount: int, rng: random.Random | None = None
) -> tuple[int, ...] | None:
    """A valid payment found fast: largest notes first (or a random order), then drop spare notes.

    Not necessarily the cheapest; always valid. ``None`` if the wallet cannot cover ``amount``.
    """
    if amount <= 0:
        return ()
    pool = [v for c, v in zip(wallet, notes, strict=True) if v > 0 for _ in range(c)]
    if sum(pool) < amount:
        return None
    if rng is None:
        pool.reverse()
    else:
        rng.shuffle(pool)
    return cover(pool, amount)


def cover(pool: Sequence[int], amount: int) -> tuple[int, ...]:
    """The first notes of ``pool`` (in its order) that reach ``amount``, without those not needed:
    the smallest of them go back while the rest still covers it. ``pool`` must reach ``amount``."""
    chosen: list[int] = []
    total = 0
    for v in pool:
        chosen.append(v)
        total += v
        if total >= amount:
            break
    chosen.sort()
    while total - chosen[0] >= amount:
        total -= chosen.pop(0)
    return tuple(chosen)
