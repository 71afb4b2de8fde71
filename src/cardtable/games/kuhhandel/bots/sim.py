"""A fast model of Kuhhandel for the ``expert`` bot's playouts.

The engine (:mod:`..state`) is exact and checks everything; a playout needs neither events nor
checks, only speed. :class:`Sim` keeps a game as plain lists and plays whole episodes at once: an
auction is resolved from each bidder's limit (one step, or round by round when the rule set caps
the rounds), a cow trade from the two offers, a pedigree countdown from the claims, a rat round
from the notes placed. Every seat plays the ``heuristic`` bot's documented strategy
(:mod:`.heuristic`, the same formulas); the expert forces its own first choice and lets the model
play on, so a playout asks "what happens if I do this and everybody then plays like the heuristic
bot".

The model follows the rules of every preset (classic, competition, master, master-duel: auctions,
donkey payouts, payments without change, cow trades with ties, the end phase, pedigrees, rats,
dividing, classic and Master scoring). The ``super_trade`` and ``double_auction`` variants and the
open auction style are played as plain rounds auctions without the variant: a model may simplify,
the expert's answers are always checked against the real request.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

#: Caps that keep a playout finite whatever the policies do (the real game has its own caps):
#: a playout ends after this many more turns and is scored as it stands, like a capped game
#: (only complete sets count). Normal games are over long before; duels between heuristic
#: players can trade for ever and would otherwise play to the 500-turn cap.
HORIZON_TURNS = 80
COINS = 128
MAX_END_TRADES = 160


class Model:
    """The static part of a rule set, shared by every :class:`Sim` of a game."""

    def __init__(self, rules: Mapping[str, Any], seats: int) -> None:
        species = rules["species"]
        self.n = seats
        self.K = len(species)
        self.size = [len(sp["payouts"]) for sp in species]
        self.value = [int(sp["value"]) for sp in species]
        self.payouts = [tuple(int(p) for p in sp["payouts"]) for sp in species]
        self.total_value = max(1, sum(self.value))
        self.min_value = min(self.value) if self.value else 0
        self.notes = tuple(int(v) for v in rules["notes"])
        self.index = {v: i for i, v in enumerate(self.notes)}
        supply = rules.get("supply")
        self.supply = None if supply is None else tuple(int(x) for x in supply)
        self.start_wallet = tuple(int(x) for x in rules["start_wallet"])
        self.start_money = sum(c * v for c, v in zip(self.start_wallet, self.notes, strict=True))
        self.raise_ = int(rules.get("min_raise", 10))
        mbr = rules.get("max_bidding_rounds")
        self.max_rounds = None if mbr is None else int(mbr)
        self.tie_again = rules.get("trade_tie") == "offer_again"
        self.master = rules.get("scoring") == "master"
        self.exam = bool(rules.get("exam", False))
        self.bonus = int(rules.get("pedigree_bonus", 250))
        self.rats_total = int(rules.get("rats", 0))
        self.countdown = int(rules.get("countdown_from", 10))
        self.duel = bool(rules.get("duel", False))
        self.pedigrees = bool(rules.get("pedigrees", False))
        self.max_turns = int(rules.get("max_turns", 500))
        self.rat_card = 2 * self.K
        #: Payments already worked out, by (wallet counts..., amount): playouts of one search
        #: pay the same amounts from the same wallets again and again.
        self.payments: dict[tuple[int, ...], tuple[int, ...] | None] = {}
        #: Playout policy per seat (set by the expert's opponent model, ``.opponents``; the
        #: defaults are the ``heuristic`` everywhere): bid whatever it can afford, scale of its
        #: bid limit, always sell as auctioneer, always accept a cow-trade offer, share of 0-notes
        #: in its offers (< 0: unknown).
        self.bid_all: list[bool] = [False] * seats
        self.bid_scale: list[float] = [1.0] * seats
        self.always_sell: list[bool] = [False] * seats
        self.always_accept: list[bool] = [False] * seats
        self.zero_share: list[float] = [-1.0] * seats
        #: Never accepts a cow-trade offer: counters with this multiple of the offer's value
        #: (< 0: answers like the heuristic).
        self.counter_ratio: list[float] = [-1.0] * seats
        #: Never challenges while cards are left to draw (always puts up an auction).
        self.never_challenge: list[bool] = [False] * seats
        #: Bids up to at least this share of its money (< 0: the heuristic's limit alone).
        self.bid_floor: list[float] = [-1.0] * seats
        #: A bid limit fitted to the seat's auctions (``.fitted``): ``(a, b, c)`` makes its limit
        #: ``a * heuristic limit + b * worth of the card (points) + c * its money + d``, within
        #: its money (``None``: the switches above).
        self.limit_coef: list[tuple[float, float, float, float] | None] = [None] * seats
        #: An acceptance threshold fitted to the seat's answers (``.fitted``): it accepts an
        #: offer worth at least this multiple of :meth:`Sim.answer_price` (< 0: the heuristic's
        #: rule).
        self.accept_ratio: list[float] = [-1.0] * seats

    def payment(self, wallet: Sequence[int], amount: int) -> tuple[int, ...] | None:
        """:func:`pay_counts` remembered (the result is shared: never change it)."""
        key = (*wallet, amount)
        memo = self.payments
        if key in memo:
            return memo[key]
        counts = pay_counts(wallet, self.notes, amount)
        result = None if counts is None else tuple(counts)
        if len(memo) >= 200_000:
            memo.clear()
        memo[key] = result
        return result


def pay_counts(wallet: Sequence[int], notes: Sequence[int], amount: int) -> list[int] | None:
    """A valid payment of ``amount`` (no note could be left out), as counts; ``None`` if poor.

    Largest notes that fit first, then the smallest note that covers the rest, then spare notes
    dropped: quick, and close to the cheapest payment.
    """
    size = len(notes)
    if amount <= 0:
        return [0] * size
    total_have = 0
    for i in range(size):
        total_have += wallet[i] * notes[i]
    if total_have < amount:
        return None
    pay = [0] * size
    rest = amount
    for i in range(size - 1, -1, -1):
        v = notes[i]
        c = wallet[i]
        if v > 0 and c:
            k = rest // v
            if k > c:
                k = c
            if k:
                pay[i] = k
                rest -= k * v
    if rest > 0:
        for i in range(size):
            if notes[i] >= rest and wallet[i] > pay[i]:
                pay[i] += 1
                rest -= notes[i]
                break
        while rest > 0:  # no single note covers the rest: add the smallest spare ones
            for i in range(size):
                if notes[i] > 0 and wallet[i] > pay[i]:
                    pay[i] += 1
                    rest -= notes[i]
                    break
    total = amount - rest
    i = 0
    while i < size:  # drop spare notes, smallest first (no change is given)
        if pay[i] and (notes[i] == 0 or total - notes[i] >= amount):
            pay[i] -= 1
            total -= notes[i]
            i = 0
            continue
        i += 1
    return pay


class Sim:
    """One determinized game in the model. Every seat plays the heuristic strategy."""

    __slots__ = (
        "_remaining",
        "_reserve",
        "_second",
        "_top",
        "_top_seat",
        "bank",
        "cash",
        "coins",
        "deck",
        "drawn",
        "end_phase",
        "etrades",
        "herds",
        "m",
        "peds",
        "rats",
        "rng",
        "turn",
        "turns",
        "wallets",
    )

    def __init__(self, model: Model, blank: bool = False) -> None:
        self.m = model
        if blank:  # clone() sets the rest (``Sim.__new__`` does not work for a compiled class)
            return
        n, k = model.n, model.K
        self.herds: list[list[int]] = [[0] * k for _ in range(n)]
        self.wallets: list[list[int]] = [list(model.start_wallet) for _ in range(n)]
        self.bank: list[int] | None = None
        self.deck: list[int] = []
        self.drawn: list[int] = [0] * k
        self.peds: list[list[int]] = [[] for _ in range(n)]
        self.rats: list[int] = [0] * n
        self.turn = 0
        self.turns = 0
        self.end_phase = False
        self.rng = random.Random(0)
        self.cash: list[int] = [model.start_money] * n
        #: Random numbers indexed by turn, not drawn in sequence: two playouts of one world that
        #: differ in one decision still share every later coin flip (common random numbers).
        self.coins: list[float] = [0.5] * COINS
        self.etrades = 0
        self._remaining = -1.0  # < 0: the herd statistics below must be recomputed
        self._reserve: list[int] = []
        self._top: list[int] = []
        self._top_seat: list[int] = []
        self._second: list[int] = []

    def recount(self) -> None:
        """Recompute the cash per seat from the wallets (after setting wallets by hand)."""
        notes = self.m.notes
        self.cash = [sum(c * v for c, v in zip(w, notes, strict=True)) for w in self.wallets]
        self._remaining = -1.0

    def herd_stats(self) -> None:
        """Per species the largest holding, its seat and the runner-up; reserves; value left."""
        m = self.m
        herds = self.herds
        top = [0] * m.K
        top_seat = [-1] * m.K
        second = [0] * m.K
        remaining = 0.0
        for k in range(m.K):
            t, ts, sc = 0, -1, 0
            for s in range(m.n):
                h = herds[s][k]
                if h > t:
                    t, ts, sc = h, s, t
                elif h > sc:
                    sc = h
            top[k], top_seat[k], second[k] = t, ts, sc
            left = m.size[k] - t
            remaining += m.value[k] * (left if left > 1 else 1)
        reserve = [0] * m.n
        for s in range(m.n):
            mine = herds[s]
            r = 0
            for k in range(m.K):
                if mine[k] and (top_seat[k] != s or second[k]):
                    r += 10
            reserve[s] = r
        self._top, self._top_seat, self._second = top, top_seat, second
        self._reserve = reserve
        self._remaining = remaining

    def clone(self, seed: int) -> Sim:
        s = Sim(self.m, True)
        s.herds = [h[:] for h in self.herds]
        s.wallets = [w[:] for w in self.wallets]
        s.bank = None if self.bank is None else self.bank[:]
        s.deck = self.deck[:]
        s.drawn = self.drawn[:]
        s.peds = [p[:] for p in self.peds]
        s.rats = self.rats[:]
        s.turn = self.turn
        s.turns = self.turns
        s.end_phase = self.end_phase
        s.rng = random.Random(seed)
        s.cash = self.cash[:]
        s.coins = self.coins
        s.etrades = self.etrades
        s._remaining = self._remaining
        if self._remaining >= 0:
            s._top = self._top[:]
            s._top_seat = self._top_seat[:]
            s._second = self._second[:]
            s._reserve = self._reserve[:]
        return s

    def coin(self, seat: int) -> float:
        return self.coins[(self.turns * 5 + seat + self.etrades * 3) % COINS]

    def shift_herd(self, k: int, seat: int, delta: int, other: int = -1) -> None:
        """Move cards of species ``k``: ``seat`` gets ``delta``, ``other`` (if any) loses it;
        keeps the herd statistics up to date for that species only."""
        herds = self.herds
        if self._remaining < 0:
            herds[seat][k] += delta
            if other >= 0:
                herds[other][k] -= delta
            return
        reserve = self._reserve
        # a seat keeps a reserve of 10 per species it shares with another seat
        before = [s for s, herd in enumerate(herds) if herd[k]]
        if len(before) >= 2:
            for s in before:
                reserve[s] -= 10
        herds[seat][k] += delta
        if other >= 0:
            herds[other][k] -= delta
        t, ts, sc = 0, -1, 0
        holders = 0
        for s, herd in enumerate(herds):
            h = herd[k]
            if h:
                holders += 1
                if h > t:
                    t, ts, sc = h, s, t
                elif h > sc:
                    sc = h
        if holders >= 2:
            for s, herd in enumerate(herds):
                if herd[k]:
                    reserve[s] += 10
        m = self.m
        size, value = m.size[k], m.value[k]
        old_left = size - self._top[k]
        new_left = size - t
        self._remaining += value * (
            (new_left if new_left > 1 else 1) - (old_left if old_left > 1 else 1)
        )
        self._top[k], self._top_seat[k], self._second[k] = t, ts, sc

    # ------------------------------------------------------------------ money
    def money(self, s: int) -> int:
        return self.cash[s]

    def move(self, a: int, b: int, counts: Sequence[int]) -> None:
        wa, wb = self.wallets[a], self.wallets[b]
        notes = self.m.notes
        value = 0
        for i, c in enumerate(counts):
            if c:
                wa[i] -= c
                wb[i] += c
                value += c * notes[i]
        self.cash[a] -= value
        self.cash[b] += value

    def pay(self, a: int, b: int, amount: int) -> bool:
        counts = self.m.payment(self.wallets[a], amount)
        if counts is None:
            return False
        self.move(a, b, counts)
        return True

    def pay_by_count(self, a: int, b: int, count: int) -> None:
        """Pedigree payments go by number of notes: the smallest notes first."""
        wa, wb = self.wallets[a], self.wallets[b]
        notes = self.m.notes
        for i in range(len(wa)):
            k = min(wa[i], count)
            if k:
                wa[i] -= k
                wb[i] += k
                count -= k
                self.cash[a] -= k * notes[i]
                self.cash[b] += k * notes[i]
            if not count:
                return

    # ------------------------------------------------------------------ heuristic valuation
    def card_worth(self, s: int, k: int) -> float:
        """The heuristic bot's worth of one more card of ``k`` to ``s`` (rats: of losing one)."""
        m = self.m
        if k >= m.K:
            return m.min_value / 4 + 40 * self.rats[s]
        size = m.size[k]
        h = self.herds[s][k]
        if h >= size:
            return 0.0
        v = m.value[k]
        if self._remaining < 0:
            self.herd_stats()
        others = self._second[k] if self._top_seat[k] == s else self._top[k]
        own = v * (h + 1) / size
        if h + 1 == size:
            own *= 1.5
        elif others and h + others >= size:
            own *= 0.7
        if others:
            return own + v * others / size * 0.5
        return own

    def remaining_value(self) -> float:
        if self._remaining < 0:
            self.herd_stats()
        return self._remaining

    def reserve(self, s: int) -> int:
        if self._remaining < 0:
            self.herd_stats()
        return self._reserve[s]

    def money_limit(self, s: int, k: int, remaining: float | None = None) -> int:
        """The heuristic bot's most for one card of ``k`` (pedigree/rat cards: a small sum)."""
        m = self.m
        money = self.cash[s]
        if m.bid_all[s]:
            return money
        if k >= m.K:
            return min(money // 4, 60)
        coef = m.limit_coef[s]
        if coef is not None:
            fh, fw, fm = self.limit_features(s, k, remaining)
            fitted = int(coef[0] * fh + coef[1] * fw + coef[2] * fm + coef[3])
            return max(0, min(money, fitted))
        if self._remaining < 0:
            self.herd_stats()
        if remaining is None:
            remaining = self._remaining
        # card_worth, inlined (this runs for every bidder of every auction of every playout)
        size = m.size[k]
        h = self.herds[s][k]
        if h >= size:
            worth = 0.0
        else:
            v = m.value[k]
            others = self._second[k] if self._top_seat[k] == s else self._top[k]
            own = v * (h + 1) / size
            if h + 1 == size:
                own *= 1.5
            elif others and h + others >= size:
                own *= 0.7
            worth = own + v * others / size * 0.5 if others else own
        share = min(1.0, 4.0 * worth / max(remaining, 1.0) * m.n)
        limit = int(money * min(0.9, 0.2 + 0.7 * share))
        scale = m.bid_scale[s]
        if scale != 1.0:
            limit = max(0, min(money, int(limit * scale)))
        else:
            limit = max(0, min(limit, money - self._reserve[s]))
        floor = m.bid_floor[s]
        if floor > 0:
            limit = max(limit, int(money * floor))
        return limit

    def limit_features(
        self, s: int, k: int, remaining: float | None = None
    ) -> tuple[float, float, float]:
        """What a fitted bid limit (:attr:`Model.limit_coef`) is made of, for seat ``s`` and one
        animal card of ``k``: the heuristic bot's limit (as :meth:`money_limit` without any
        policy), the card's worth to ``s`` in points (:meth:`card_worth`), and its money."""
        m = self.m
        money = self.cash[s]
        if self._remaining < 0:
            self.herd_stats()
        if remaining is None:
            remaining = self._remaining
        worth = self.card_worth(s, k)
        share = min(1.0, 4.0 * worth / max(remaining, 1.0) * m.n)
        limit = int(money * min(0.9, 0.2 + 0.7 * share))
        limit = max(0, min(limit, money - self._reserve[s]))
        return float(limit), worth, float(money)

    def answer_price(self, o: int, k: int, cards: int) -> float:
        """The heuristic bot's price of the ``cards`` cards of ``k`` that ``o`` would lose in a
        cow trade (it accepts an offer it estimates at 1.3 times this)."""
        m = self.m
        in_play = max(1, self.money(o) + 90 * (m.n - 1))
        return self.card_worth(o, k) * cards / m.total_value * in_play

    # ------------------------------------------------------------------ the game loop
    def run(self, deadline: float | None = None) -> bool:
        """Play turns until the game ends (or a cap is hit).

        ``deadline`` (a ``time.perf_counter`` value): checked before every turn and every trade
        of the end phase; when it has passed the playout stops unfinished and ``run`` returns
        ``False`` (the caller throws the playout away). ``True``: the playout finished.
        """
        m = self.m
        cap = min(self.turns + HORIZON_TURNS, m.max_turns)
        clock = time.perf_counter
        while True:
            if not self.end_phase and not self.deck:
                self.end_phase = True
            if self.end_phase:
                return self.run_end_phase(deadline)
            if self.turns >= cap:
                return True
            if deadline is not None and clock() >= deadline:
                return False
            self.turns += 1
            self.play_turn(self.turn, self.choose_turn(self.turn))
            self.turn = (self.turn + 1) % m.n

    def play_turn(self, s: int, choice: tuple[int, int] | None) -> None:
        """``choice`` is ``None`` to draw (auction, or divide in the duel), else a cow trade."""
        if choice is None:
            if self.m.duel:
                self.divide(s, None)
            else:
                self.draw_and_sell(s)
        else:
            self.trade(s, choice[0], choice[1])

    def run_end_phase(self, deadline: float | None = None) -> bool:
        n = self.m.n
        s = self.turn
        idle = 0
        clock = time.perf_counter
        for _ in range(MAX_END_TRADES):
            if deadline is not None and clock() >= deadline:
                return False
            best = self.best_trade(s)
            if best is not None:
                idle = 0
                self.etrades += 1
                self.trade(s, best[0], best[1])
            else:
                idle += 1
                if idle >= n:
                    return True  # a full round without a possible trade: every set is complete
            s = (s + 1) % n
        return True

    def animal_trades(self, s: int) -> list[tuple[int, int]]:
        mine = self.herds[s]
        out = []
        for o in range(self.m.n):
            if o != s:
                theirs = self.herds[o]
                for k in range(self.m.K):
                    if mine[k] and theirs[k]:
                        out.append((o, k))
        return out

    def best_trade(self, s: int) -> tuple[int, int] | None:
        """The heuristic bot's most appealing cow trade for ``s`` (``None``: none possible)."""
        herds = self.herds
        value = self.m.value
        wallets = self.wallets
        best = None
        best_v = -1.0
        weak = [0.0] * self.m.n
        for k, h in enumerate(herds[s]):
            if not h:
                continue
            vk = value[k]
            for o, theirs in enumerate(herds):
                t = theirs[k]
                if not t or o == s:
                    continue
                w = weak[o]
                if not w:
                    w = weak[o] = 1.0 + 1.0 / (1 + sum(wallets[o]))
                v = vk * (h + (t if t < h else h)) * w + (5 if h >= t else 0)
                if v > best_v:
                    best, best_v = (o, k), v
        return best

    def choose_turn(self, s: int) -> tuple[int, int] | None:
        """The heuristic bot's turn: a strong cow trade 60% of the time, else draw."""
        if self.m.never_challenge[s] and self.deck:
            return None
        best = self.best_trade(s)
        if best is None:
            return None
        o, k = best
        if self.m.duel:
            return (o, k)  # the heuristic trades whenever it can in the duel
        mine, theirs = self.herds[s][k], self.herds[o][k]
        money = self.money(s)
        rich = money >= 40 and money > 2 * 10 * sum(self.wallets[o]) // 3
        if mine >= 2 and mine >= theirs and rich and self.coin(s) < 0.6:
            return (o, k)
        return None

    # ------------------------------------------------------------------ §4 auctions
    def announce(self, card: int) -> None:
        """A drawn animal pays its donkey money to every seat (from a finite stock if any)."""
        m = self.m
        if card >= m.K:
            return
        nth = self.drawn[card]
        self.drawn[card] = nth + 1
        pays = m.payouts[card]
        if nth < len(pays) and pays[nth]:
            value = pays[nth]
            i = m.index[value]
            for s, w in enumerate(self.wallets):
                if self.bank is not None:
                    if not self.bank[i]:
                        break
                    self.bank[i] -= 1
                w[i] += 1
                self.cash[s] += value

    def draw_and_sell(self, s: int) -> None:
        while self.deck:
            card = self.deck.pop()
            self.announce(card)
            m = self.m
            if card == m.rat_card:
                if self.rat_round(s, [], (s + 1) % m.n, None):
                    continue  # the taker got the rat; the auctioneer draws again
                return
            if card >= m.K:
                self.countdown(s, card, {})
                return
            self.auction(s, card)
            return

    def auction(
        self,
        a: int,
        card: int,
        high: int = 0,
        hb: int = -1,
        forced: tuple[int, int, int] | None = None,
        caps: dict[int, int] | None = None,
        rounds_done: int = 0,
    ) -> None:
        """Resolve an auction from its current state; ``forced`` = (seat, limit, jump)."""
        m = self.m
        n = m.n
        order = [(a + i) % n for i in range(1, n)]
        remaining = self.remaining_value()
        limits = {}
        for s in order:
            lim = self.money_limit(s, card, remaining)
            if caps and s in caps:
                lim = min(lim, caps[s])
            limits[s] = lim
        jump = 0
        me = -1
        if forced is not None:
            me, lim, jump = forced
            limits[me] = lim if not caps or me not in caps else min(lim, caps[me])
        r = m.raise_
        if m.max_rounds is None and not jump:
            # Raising by the minimum until one bidder is left: the highest limit wins at about
            # the second-highest limit plus a raise.
            low = high + r if high else r
            best = hb
            best_l = limits.get(hb, high) if hb >= 0 else -1
            second = high
            for s in order:
                lim = limits[s]
                if s == hb:
                    continue
                if lim >= low and lim > best_l:
                    if best >= 0:
                        second = max(second, best_l)
                    best, best_l = s, lim
                elif lim >= low:
                    second = max(second, lim)
            if best < 0:
                self.give(a, card)
                return
            if best == hb and second <= high:
                price = high
            else:
                price = min(best_l, max(low, second + r))
            high, hb = price, best
        else:
            limit_rounds = m.max_rounds if m.max_rounds is not None else 10_000
            rnd = rounds_done
            while rnd < limit_rounds:
                rnd += 1
                bid = False
                for s in order:
                    if s == hb:
                        continue
                    low = high + r if high else r
                    if s == me and jump > high and jump <= limits[s]:
                        high, hb, bid = jump, s, True
                        jump = 0
                    elif limits[s] >= low:
                        high, hb, bid = low, s, True
                if not bid:
                    break
            if hb < 0:
                self.give(a, card)
                return
        self.settle(a, card, high, hb, None, caps)

    def settle(
        self, a: int, card: int, high: int, hb: int, buy: bool | None, caps: dict[int, int] | None
    ) -> None:
        """The auctioneer sells or buys (``buy=None``: the heuristic decides), then payment."""
        if buy is None:
            buy = (
                not self.m.always_sell[a]
                and self.money_limit(a, card) >= high
                and self.money(a) >= high
            )
        payer, payee = (a, hb) if buy else (hb, a)
        if self.pay(payer, payee, high):
            self.give(payer, card)
            return
        # §4.7 cannot pay: the auction is repeated with that seat capped at its money
        caps = dict(caps or {})
        if payer in caps:
            self.give(a, card)  # exposed twice cannot happen in the rules; keep the model finite
            return
        caps[payer] = self.money(payer)
        self.auction(a, card, caps=caps)

    def give(self, s: int, card: int) -> None:
        m = self.m
        if card < m.K:
            self.shift_herd(card, s, 1)
        elif card == m.rat_card:
            self.rats[s] += 1
        else:
            self.peds[s].append(card - m.K)

    # ------------------------------------------------------------------ §5 cow trades
    def trade_offer(self, s: int, o: int, k: int, cards: int, attack: bool) -> list[int]:
        """The heuristic bot's offer (or counter-offer) as counts per note value."""
        m = self.m
        worth = self.card_worth(s, k) * cards
        money = self.money(s)
        in_play = max(1, money + 90 * (m.n - 1))
        target = int(worth / m.total_value * in_play * 1.2)
        target = min(target, max(0, money - (0 if not self.deck else self.reserve(s) // 2)))
        paid = m.payment(self.wallets[s], target) if target > 0 else None
        counts = [0] * len(m.notes) if paid is None else list(paid)
        zi = m.index.get(0)
        if attack and zi is not None and self.wallets[s][zi]:
            zeros = self.wallets[s][zi]
            counts[zi] = min(zeros, int(self.coin(s + 7) * (zeros + 1)))
        return counts

    def average_note(self, s: int) -> float:
        notes = sum(sum(w) for w in self.wallets)
        others = sum(sum(self.wallets[x]) for x in range(self.m.n) if x != s)
        return (self.money(s) + 18 * others) / max(notes, 1)

    def respond(
        self, o: int, c: int, k: int, cards: int, offer_count: int, offer_value: int = -1
    ) -> list[int] | None:
        """The heuristic bot's answer: ``None`` accepts, else the counter-offer's counts (or
        the seat's modelled habit: always accept, or never accept and counter a multiple)."""
        m = self.m
        if m.always_accept[o]:
            return None
        accept_at = m.accept_ratio[o]
        if accept_at >= 0 and k < m.K and offer_value >= 0:
            # the fitted acceptance curve (``.fitted``): the offer as the heuristic estimates it
            # from its note count (the fit reads the same estimate) against its price
            est = offer_count * self.average_note(o)
            if offer_count > 0 and est >= accept_at * self.answer_price(o, k, cards):
                return None
            ratio = m.counter_ratio[o]
            if ratio >= 0:
                target = min(self.money(o), max(m.raise_, int(offer_value * ratio)))
                paid = m.payment(self.wallets[o], target)
                return [0] * len(m.notes) if paid is None else list(paid)
            counter = self.trade_offer(o, c, k, cards, attack=False)
            if _value(counter, m.notes) == 0 and offer_count > 0:
                return None
            return counter
        ratio = m.counter_ratio[o]
        if ratio >= 0 and offer_value >= 0:
            money = self.money(o)
            target = min(money, max(m.raise_, int(offer_value * ratio)))
            paid = m.payment(self.wallets[o], target)
            return [0] * len(m.notes) if paid is None else list(paid)
        est = offer_count * self.average_note(o)
        money = self.money(o)
        if k >= m.K:
            paid = m.payment(self.wallets[o], int(est) + 10)
            if paid is not None and _value(paid, m.notes) <= money // 3:
                return list(paid)
            return None
        mine = self.card_worth(o, k) * cards
        in_play = max(1, money + 90 * (m.n - 1))
        price = mine / m.total_value * in_play
        if est >= price * 1.3 and offer_count > 0:
            return None
        counter = self.trade_offer(o, c, k, cards, attack=False)
        if _value(counter, m.notes) == 0 and offer_count > 0:
            return None
        return counter

    def trade(
        self,
        c: int,
        o: int,
        k: int,
        offer: list[int] | None = None,
        answer: list[int] | None | bool = False,
        again: bool = False,
    ) -> None:
        """A whole cow trade; ``offer`` / ``answer`` force the challenger's / opponent's move.

        ``answer`` is ``False`` for the heuristic's answer, ``None`` to accept, else a counter.
        """
        m = self.m
        if k >= m.K:
            cards = min(self.rats[c], self.rats[o])
        else:
            cards = min(self.herds[c][k], self.herds[o][k])
        if cards <= 0:
            return
        if offer is None:
            offer = self.trade_offer(c, o, k, cards, attack=True)
        if answer is False:
            counter = self.respond(o, c, k, cards, sum(offer), _value(offer, m.notes))
        else:
            counter = answer  # type: ignore[assignment]
        self.move(c, o, offer)
        if counter is None:
            winner = c
        else:
            self.move(o, c, counter)
            a, b = _value(offer, m.notes), _value(counter, m.notes)
            if a == b and m.tie_again and not again:
                self.trade(c, o, k, None, False, True)
                return
            winner = o if b > a else c
        loser = o if winner == c else c
        if k >= m.K:
            self.rats[winner] -= cards
            self.rats[loser] += cards
        else:
            self.shift_herd(k, winner, cards, loser)

    # ------------------------------------------------------------------ §9 Master
    def claim_of(self, s: int, card: int) -> int:
        """The heuristic bot's claim: count 4 for a species it holds 2+ of, else 2."""
        have = self.herds[s][card - self.m.K]
        want = 4 if have >= 2 else 2
        return min(want, self.m.countdown, sum(self.wallets[s]))

    def countdown(
        self, a: int, card: int, claims: dict[int, int], preempt: bool | None = None
    ) -> None:
        n = self.m.n
        best, claimant = 0, -1
        for i in range(1, n):
            s = (a + i) % n
            c = claims[s] if s in claims else self.claim_of(s, card)
            if c > best:
                best, claimant = c, s
        if claimant < 0:
            self.give(a, card)
            return
        self.resolve_claim(a, card, claimant, best, preempt)

    def resolve_claim(
        self, a: int, card: int, claimant: int, count: int, preempt: bool | None
    ) -> None:
        if preempt and sum(self.wallets[a]) >= count:
            self.pay_by_count(a, claimant, count)
            self.give(a, card)
        else:
            self.pay_by_count(claimant, a, count)
            self.give(claimant, card)

    def rat_choice(self, s: int, pile: int) -> int:
        """The heuristic bot at the rat: -1 takes it, else the index of the note it places."""
        w = self.wallets[s]
        if pile >= 4 or not any(w):
            return -1
        for i, c in enumerate(w):
            if c:
                return i
        return -1

    def rat_round(self, a: int, pile: list[int], seat: int, forced: int | None) -> bool:
        """Go round from ``seat``; ``forced`` is that seat's first answer (-1 take, else index).

        Returns whether the auctioneer goes on drawing (always, in the rules).
        """
        n = self.m.n
        for _ in range(200):
            choice = forced if forced is not None else self.rat_choice(seat, len(pile))
            forced = None
            if choice >= 0 and self.wallets[seat][choice] > 0:
                self.wallets[seat][choice] -= 1
                self.cash[seat] -= self.m.notes[choice]
                pile.append(choice)
                seat = (seat + 1) % n
                continue
            for i in pile:
                self.wallets[seat][i] += 1
                self.cash[seat] += self.m.notes[i]
            self.rats[seat] += 1
            return True
        return True

    def divide(self, s: int, keep: bool | None, peek: int | None = None) -> None:
        """The duel (§10): ``s`` keeps the peeked card or gives it; the other gets the next."""
        m = self.m
        if peek is None:
            if not self.deck:
                return
            peek = self.deck.pop()
        if keep is None:
            keep = peek != m.rat_card
        other = (s + 1) % m.n
        first_to = s if keep else other
        second_to = other if keep else s
        self.announce(peek)
        self.give(first_to, peek)
        if self.deck:
            second = self.deck.pop()
            self.announce(second)
            self.give(second_to, second)

    # ------------------------------------------------------------------ §7 scoring
    def quartets(self, s: int) -> list[int]:
        h = self.herds[s]
        size = self.m.size
        return [k for k in range(self.m.K) if h[k] == size[k]]

    def score(self, s: int) -> int:
        m = self.m
        sets = self.quartets(s)
        if m.master:
            if m.rats_total and self.rats[s] >= m.rats_total and sets:
                struck = max(
                    sets, key=lambda k: (self._master_points(s, [q for q in sets if q != k]), -k)
                )
                sets = [k for k in sets if k != struck]
            total = self._master_points(s, sets)
        else:
            total = sum(m.value[k] for k in sets) * len(sets)
        if m.exam:
            total += self.money(s)
        return total

    def _master_points(self, s: int, sets: list[int]) -> int:
        m = self.m
        peds = self.peds[s]
        matching = sum(1 for p in peds if p in sets)
        base = sum(m.value[k] for k in sets) + m.bonus * matching
        return base * len(sets) + m.bonus * (len(peds) - matching)

    def outcome(self, me: int) -> tuple[float, float]:
        """``(win, margin)`` of a finished playout for ``me``: 1 for a win (1/k shared, the money
        breaking ties as in the result), and its score minus the best other score."""
        n = self.m.n
        scores = [self.score(s) for s in range(n)]
        keys = [(scores[s], self.money(s)) for s in range(n)]
        top = max(keys)
        win = 0.0
        if keys[me] == top:
            win = 1.0 / sum(1 for k in keys if k == top)
        best_other = max(scores[s] for s in range(n) if s != me)
        return win, float(scores[me] - best_other)

    def utility(self, me: int) -> float:
        """What a finished playout is worth to ``me``: 1 for a win (1/k shared), plus a margin.

        The margin term (at most ±0.3) tells a near miss from a rout, which a win/loss count over
        a few dozen playouts cannot.
        """
        n = self.m.n
        scores = [self.score(s) for s in range(n)]
        keys = [(scores[s], self.money(s)) for s in range(n)]
        top = max(keys)
        win = 0.0
        if keys[me] == top:
            win = 1.0 / sum(1 for k in keys if k == top)
        best_other = max(scores[s] for s in range(n) if s != me)
        margin = (scores[me] - best_other) / (scores[me] + best_other + 200)
        return win + 0.3 * margin


def _value(counts: Sequence[int], notes: Sequence[int]) -> int:
    return sum(c * v for c, v in zip(counts, notes, strict=True))
