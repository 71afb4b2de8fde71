"""A bare Python SKELETON of classic Kuhhandel, the yardstick of ``cardtable bench --skeleton``.

Not a rules engine, and not used to play: no checks of any kind, no events, no requests, no
observations, no records, no agents; the players' random choices are drawn inline. It plays the
classic game's loop as plainly as Python allows (auctions in rounds with a minimum raise of 10,
donkey payouts, sell or buy, payments without change, cow trades with offers and counters, the end
phase of compulsory trades, scoring), with the random players the ``random`` bot is (pass half the
time, else raise 1-4 minimum raises it can pay; auction or trade evenly; sell or buy evenly; each
note offered with probability one half; accept or counter evenly), so that games per second of
the real engine and of this skeleton compare the cost of the engine's validation, events and
contract, for games of the same kind. It stays plain Python in every build (it is not compiled).
"""

from __future__ import annotations

import random

VALUES = (10, 40, 90, 160, 250, 350, 500, 650, 800, 1000)  # classic species, Donkey is 6
DONKEY = 6
PAYOUTS = (50, 100, 200, 500)
START = [0, 0, 10, 10, 10, 10, 50]
MIN_RAISE = 10
MAX_TURNS = 500


def play(seats: int, seed: int) -> tuple[int, list[int]]:
    """One classic game between random players; (decisions made, scores)."""
    rng = random.Random(seed)
    draw = rng.random
    deck = [k for k in range(10) for _ in range(4)]
    rng.shuffle(deck)
    herds = [[0] * 10 for _ in range(seats)]
    wallets = [START[:] for _ in range(seats)]
    donkeys = 0
    decisions = 0
    turn = 0
    turns = 0
    stuck = 0  # seats in a row that could not trade in the end phase
    while turns < MAX_TURNS * 2 and stuck < seats:
        s = turn
        turn = (turn + 1) % seats
        turns += 1
        mine = herds[s]
        trades = [
            (k, o)
            for k in range(10)
            if 0 < mine[k] < 4
            for o in range(seats)
            if o != s and 0 < herds[o][k] < 4
        ]
        if not deck and not trades:
            stuck += 1
            continue
        stuck = 0
        decisions += 1  # the turn's choice
        if deck and (not trades or draw() < 0.5):
            card = deck.pop()
            if card == DONKEY:
                for w in wallets:
                    w.append(PAYOUTS[donkeys])
                    w.sort()
                donkeys += 1
            high, winner = 0, -1
            while True:  # rounds of bids, from the auctioneer's left
                bid = False
                for i in range(1, seats):
                    b = (s + i) % seats
                    if b == winner:
                        continue
                    decisions += 1
                    money = sum(wallets[b])
                    low = high + MIN_RAISE
                    if draw() < 0.5 or low > money:
                        continue
                    amount = low + MIN_RAISE * int(draw() * 4)
                    high, winner, bid = (amount if amount <= money else low), b, True
                if not bid:
                    break
            if winner < 0:
                mine[card] += 1
                continue
            decisions += 2  # sell or buy, then the payment
            if sum(wallets[s]) >= high and draw() < 0.5:
                _pay(rng, wallets, s, winner, high)
                mine[card] += 1
            else:
                _pay(rng, wallets, winner, s, high)
                herds[winner][card] += 1
        else:
            k, o = trades[int(draw() * len(trades))]
            stake = min(mine[k], herds[o][k])
            offer = [v for v in wallets[s] if draw() < 0.5]
            decisions += 2  # the offer, the answer
            if draw() < 0.5:  # accepted
                _move(wallets, s, o, offer)
                mine[k] += stake
                herds[o][k] -= stake
                continue
            counter = [v for v in wallets[o] if draw() < 0.5]
            _move(wallets, s, o, offer)
            _move(wallets, o, s, counter)
            if sum(counter) > sum(offer):
                herds[o][k] += stake
                mine[k] -= stake
            else:
                mine[k] += stake
                herds[o][k] -= stake
    scores = []
    for h in herds:
        sets = [VALUES[k] for k in range(10) if h[k] == 4]
        scores.append(sum(sets) * len(sets))
    return decisions, scores


def _pay(rng: random.Random, wallets: list[list[int]], payer: int, payee: int, amount: int) -> None:
    """Random notes until the amount is covered, spare small ones dropped; no change."""
    pool = [v for v in wallets[payer] if v]
    rng.shuffle(pool)
    chosen: list[int] = []
    total = 0
    for v in pool:
        chosen.append(v)
        total += v
        if total >= amount:
            break
    chosen.sort()
    while chosen and total - chosen[0] >= amount:
        total -= chosen.pop(0)
    _move(wallets, payer, payee, chosen)


def _move(wallets: list[list[int]], a: int, b: int, notes: list[int]) -> None:
    wa, wb = wallets[a], wallets[b]
    for v in notes:
        wa.remove(v)
        wb.append(v)
    wb.sort()
