"""Kuhhandel as a discrete action space and a fixed-size observation vector.

Action indices (``N`` seats, ``S`` species, ``D`` note values, ``C`` = ``countdown_from`` with
pedigrees, else 0; ``K`` = :data:`BID_MENU`). Every index keeps one meaning for the whole game;
the mask says which are allowed now.

================  ===============================  =========================================
index             name                             meaning (request kind)
================  ===============================  =========================================
0                 ``pass``                         bid: pass; turn: end the turn after a
                                                   super trade; knock (environment only, open
                                                   auctions): wait, let the bidding go on
1                 ``draw``                         turn: auction the top card (duel: divide)
2                 ``knock``                        knock: close the open auction
3, 4              ``sell``, ``buy``                sell_or_buy
5                 ``accept``                       respond: take the offer
6, 7              ``preempt``, ``release``         preempt (pedigree countdown)
8                 ``take_rat``                     rat
9, 10             ``keep``, ``give``               divide (the duel)
11                ``done``                         offer / respond: hand over the notes chosen
                                                   so far (none chosen: an empty offer/counter)
12                ``raise``                        bid: move the bid menu up by ``K`` raises
13 … 13+K-1       ``bid+k``                        bid ``base + k·min_raise``; ``base`` is the
                                                   request's minimum plus the raises so far
…+D               ``note:v``                       pay / offer / respond: add one note of value
                                                   ``v``; rat: place that note by the rat
…+C+1             ``claim:c``                      claim at count ``c`` (0 = never claim)
…+(N-1)(S+1)      ``challenge:+j:k``               turn: cow trade against the seat ``j``
                                                   places to the left (1 … N-1) for species
                                                   ``k`` (``k = S``: the rats)
================  ===============================  =========================================

Compound answers are built in steps; the seat keeps choosing until the answer is complete:

- **payments** (``pay``): notes one at a time, largest value first (each note at most as large as
  the previous one); the payment is handed over by itself as soon as it covers the amount (a
  pedigree payment: as soon as it has the number of notes). A note is allowed only if the
  payment can still be completed *validly* (§4.6: no note could be left out), so every valid
  payment is reachable, by exactly one path, and nothing else is.
- **offers and counter-offers**: notes one at a time, largest first, then ``done``. Any
  multiset of the seat's notes (0-notes included, or none) is reachable by exactly one path.
- **bids**: ``bid+k`` bids ``min + k·min_raise`` in one step; ``raise`` moves the menu up by
  ``K`` raises, so every bid on the raise grid is reachable. By default bids above the seat's
  own money (and above an exposure cap, §4.7) are masked out: the engine accepts them, but a seat
  that wins such a bid cannot pay and is exposed. ``overbid=True`` unmasks them (then ``raise``
  is never masked, and a uniformly random policy bids without bound). Off-grid amounts (a bid of
  105 when the raise is 10) are not reachable; with every preset's notes (multiples of 10) they
  cost the same as the next grid bid.

Observation vector (``float32``, seats in *relative* order: 0 is the observing seat, 1 the seat on
its left...; amounts are divided by the start money): request kind one-hot; the draft (notes
chosen so far per value, their value, the largest note still allowed, the bid base); end phase,
deck left, turns; per seat: herd (cards per species / species size), pedigrees, rats, note
count, on turn, exposure cap; own notes per value and money; bank and duel reserve per value;
cards drawn per species; the auction (lot, high bid, high bidder, round); the cow trade
(challenger, opponent, species, cards, offer note count, again, own offer value); the payment
(amount or count, payer, payee); the pedigree countdown (species, seats that chose, claimant,
count, own claim); the rat pile; the duel's peeked card; the bid bounds. Only the observation
(:func:`~cardtable.games.kuhhandel.observe.observe`) and the request are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.observe import KuhhandelObservation
from cardtable.games.kuhhandel.rules import RuleSet
from cardtable.rl.codec import WAIT, Codec, Draft, Step

#: Bids offered in one step (``min``, ``min + raise``, ... ``min + (K-1)·raise``).
BID_MENU = 10

KINDS = (
    "turn",
    "bid",
    "knock",
    "sell_or_buy",
    "pay",
    "offer",
    "respond",
    "claim",
    "preempt",
    "rat",
    "divide",
)
_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}

PASS, DRAW, KNOCK, SELL, BUY, ACCEPT, PREEMPT, RELEASE, TAKE_RAT, KEEP, GIVE, DONE, RAISE = range(
    13
)
FIXED_NAMES = (
    "pass",
    "draw",
    "knock",
    "sell",
    "buy",
    "accept",
    "preempt",
    "release",
    "take_rat",
    "keep",
    "give",
    "done",
    "raise",
)
BID0 = len(FIXED_NAMES)
_NOTES: dict[str, Any] = {"offer": A.Offer, "counter": A.Counter}

_FIXED: dict[A.Action, int] = {
    A.AUCTION: DRAW,
    A.DRAW: DRAW,
    A.PASS: PASS,
    A.KNOCK: KNOCK,
    A.SELL: SELL,
    A.BUY: BUY,
    A.ACCEPT: ACCEPT,
    A.PREEMPT: PREEMPT,
    A.RELEASE: RELEASE,
    A.TAKE_RAT: TAKE_RAT,
    A.KEEP: KEEP,
    A.GIVE: GIVE,
}


class KuhhandelCodec(Codec):
    """The action space and observation encoding for one rule set and seat count."""

    game = "kuhhandel"

    def __init__(self, rules: RuleSet, seats: int, *, overbid: bool = False) -> None:
        self.rules = rules
        self.seats = seats
        self.overbid = overbid
        S = self.n_species = len(rules.species)
        D = self.n_notes = len(rules.notes)
        self.notes = rules.notes
        self.note_index = {v: i for i, v in enumerate(rules.notes)}
        self.raise_ = rules.min_raise
        self.claims = rules.countdown_from if rules.pedigrees else 0
        self.note0 = BID0 + BID_MENU
        self.claim0 = self.note0 + D
        self.challenge0 = self.claim0 + self.claims + 1
        self.n_actions = self.challenge0 + (seats - 1) * (S + 1)
        names = list(FIXED_NAMES)
        names += [f"bid+{k}" for k in range(BID_MENU)]
        names += [f"note:{v}" for v in rules.notes]
        names += [f"claim:{c}" for c in range(self.claims + 1)]
        species = [s.name for s in rules.species] + ["Rat"]
        names += [f"challenge:+{j}:{species[k]}" for j in range(1, seats) for k in range(S + 1)]
        self.action_names = names
        self._inv_size = [1.0 / s.cards for s in rules.species]
        self._ms = 1.0 / max(rules.start_money, 10)
        self._deck = max(1, rules.animal_cards + (S if rules.pedigrees else 0) + rules.rats)
        self._cards = 2 * S + 1
        self._rats = 1.0 / max(rules.rats, 1)
        self._zero_seats = [0.0] * seats
        self._zero_notes = [0.0] * D
        self._holding_cache: dict[Any, list[float]] = {}
        self._last: tuple[Any, Any, np.ndarray] = (None, None, np.zeros(0, np.float32))
        self._no_draft = np.zeros(D + 3, dtype=np.float32)
        self.obs_size = len(self._encode_base(_blank_observation(rules, seats), None)) + D + 3

    # ------------------------------------------------------------------ actions
    def new_draft(self, request: Request | None) -> Draft:
        return Draft(request, self.n_notes)

    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        kind = request.kind
        if kind == "bid":
            return self._bid_options(request.info or {}, draft)
        if kind in ("pay", "offer", "respond"):
            return self._note_options(kind, request.info or {}, draft)
        opts: dict[int, Any] = {}
        choices = request.choices or ()
        if kind == "turn":
            me, n, width = request.seat, self.seats, self.n_species + 1
            for c in choices:
                if isinstance(c, A.Challenge):
                    opts[self.challenge0 + ((c.opponent - me) % n - 1) * width + c.species] = c
                else:
                    opts[_FIXED[c]] = c
        elif kind == "claim":
            for c in choices:
                assert isinstance(c, A.Claim)
                opts[self.claim0 + c.count] = c
        elif kind == "rat":
            for c in choices:
                if isinstance(c, A.PlaceNote):
                    opts[self.note0 + self.note_index[c.note]] = c
                else:
                    opts[_FIXED[c]] = c
        else:  # knock, sell_or_buy, preempt, divide: a few fixed answers
            for c in choices:
                opts[_FIXED[c]] = c
            if kind == "knock" and wait:
                opts[PASS] = WAIT
        return opts

    def _bid_options(self, info: Mapping[str, Any], draft: Draft) -> dict[int, Any]:
        low = info["min"]
        base = draft.base if draft.base >= 0 else low
        limit = info.get("max")
        if not self.overbid:
            money = info["money"]
            limit = money if limit is None else min(limit, money)
        r = self.raise_
        opts: dict[int, Any] = {}
        if draft.base < 0:
            opts[PASS] = A.PASS
        for k in range(BID_MENU):
            amount = base + k * r
            if limit is not None and amount > limit:
                break
            opts[BID0 + k] = ("bid", amount)  # made into an action only when chosen
        if limit is None or base + BID_MENU * r <= limit:
            opts[RAISE] = Step("raise")
        return opts

    def _note_options(self, kind: str, info: Mapping[str, Any], draft: Draft) -> dict[int, Any]:
        idx = self.note_index
        avail = [0] * self.n_notes
        for v in info["wallet"]:
            avail[idx[v]] += 1
        chosen = draft.chosen
        for i, c in enumerate(chosen):
            avail[i] -= c
        notes = self.notes
        note0 = self.note0
        top = draft.limit
        opts: dict[int, Any] = {}
        if kind == "pay":
            total = draft.total
            if "count" in info:  # §9.2 a pedigree is paid with a number of notes
                need = info["count"] - draft.count
                pool = 0
                for i in range(top + 1):
                    a = avail[i]
                    pool += a
                    if a and pool >= need:
                        opts[note0 + i] = ("pay", i) if need == 1 else Step("note", i)
                return opts
            amount = info["amount"]
            pool = 0
            for i in range(top + 1):
                a = avail[i]
                v = notes[i]
                pool += a * v  # value of every available note no larger than this one
                if a and v > 0 and total + pool >= amount:
                    opts[note0 + i] = ("pay", i) if total + v >= amount else Step("note", i)
            return opts
        for i in range(top + 1):
            if avail[i]:
                opts[note0 + i] = Step("note", i)
        if kind == "offer":
            opts[DONE] = ("offer", -1)
        else:
            opts[DONE] = ("counter", -1)
            if not draft.count:
                opts[ACCEPT] = A.ACCEPT
        return opts

    def _notes_with(self, chosen: list[int], extra: int) -> tuple[int, ...]:
        out: list[int] = []
        for i, (c, v) in enumerate(zip(chosen, self.notes, strict=True)):
            out.extend([v] * (c + (i == extra)))
        return tuple(out)

    def advance(self, draft: Draft, step: Step, request: Request) -> None:
        if step.what == "raise":
            base = draft.base if draft.base >= 0 else (request.info or {})["min"]
            draft.base = base + BID_MENU * self.raise_
            return
        i = step.value  # one more note of value notes[i]; the next may not be larger
        draft.chosen[i] += 1
        draft.total += self.notes[i]
        draft.count += 1
        draft.limit = i

    def choose(
        self, obs: Any, request: Request, draft: Draft, index: int, *, wait: bool = False
    ) -> Any:
        value = super().choose(obs, request, draft, index, wait=wait)
        if type(value) is tuple:  # an answer built from the draft (see the options)
            what, arg = value
            if what == "bid":
                return A.Bid(arg)
            notes = self._notes_with(draft.chosen, arg)
            return A.Pay(notes) if what == "pay" else _NOTES[what](notes)
        return value

    def indices(self, obs: Any, request: Request, action: Any) -> list[int]:
        """The index path for ``action`` (checked by replaying it through :meth:`choose`)."""
        kind = request.kind
        path: list[int]
        if kind == "bid" and isinstance(action, A.Bid):
            low = (request.info or {})["min"]
            steps, rest = divmod(action.amount - low, self.raise_)
            if steps < 0 or rest:
                raise ValueError(f"bid {action.amount} is off the raise grid from {low}")
            q, k = divmod(steps, BID_MENU)
            path = [RAISE] * q + [BID0 + k]
        elif isinstance(action, A.Pay | A.Offer | A.Counter):
            path = [self.note0 + self.note_index[v] for v in sorted(action.notes, reverse=True)]
            if not isinstance(action, A.Pay):
                path.append(DONE)
        else:
            draft = self.new_draft(request)
            found = [i for i, v in self.options(obs, request, draft).items() if v == action]
            if not found:
                raise ValueError(f"{action!r} is not among the options for {request.kind}")
            path = found[:1]
        draft = self.new_draft(request)
        result = None
        for i in path:
            result = self.choose(obs, request, draft, i)
        if result != action:
            raise ValueError(f"{action!r} is not reachable (the path gives {result!r})")
        return path

    # ------------------------------------------------------------------ observation
    def encode(
        self, obs: KuhhandelObservation, request: Request | None, draft: Draft | None
    ) -> np.ndarray:
        last = self._last
        if last[0] is obs and last[1] is request:
            base = last[2]  # a later step of the same answer: only the draft changed
        else:
            base = np.array(self._encode_base(obs, request), dtype=np.float32)
            self._last = (obs, request, base)
        if draft is None or not draft.started:
            return np.concatenate((base, self._no_draft))
        tail = [0.2 * c for c in draft.chosen]
        tail += (
            draft.total * self._ms,
            (draft.limit + 1) / self.n_notes,
            max(draft.base, 0) * self._ms,
        )
        return np.concatenate((base, np.array(tail, dtype=np.float32)))

    def _rel(self, seat: int | None, me: int) -> list[float]:
        out = self._zero_seats.copy()
        if seat is not None and seat >= 0:
            out[(seat - me) % self.seats] = 1.0
        return out

    def _holdings(self, obs: KuhhandelObservation, me: int) -> list[float]:
        """Herds, pedigrees, rats per seat and the cards drawn: they change only when cards
        move, so the block is cached on their values."""
        key = (me, obs.herds, obs.pedigrees, obs.rats, obs.drawn)
        hit = self._holding_cache.get(key)
        if hit is not None:
            return hit
        n, S, inv = self.seats, self.n_species, self._inv_size
        out: list[float] = []
        for r in range(n):
            s = (me + r) % n
            out += [h * f for h, f in zip(obs.herds[s], inv, strict=True)]
            ped = [0.0] * S
            for p in obs.pedigrees[s]:
                ped[p] = 1.0
            out += ped
            out.append(obs.rats[s] * self._rats)
        out += [d * f for d, f in zip(obs.drawn, inv, strict=True)]
        if len(self._holding_cache) > 4096:
            self._holding_cache.clear()
        self._holding_cache[key] = out
        return out

    def _encode_base(self, obs: KuhhandelObservation, request: Request | None) -> list[float]:
        me = obs.seat if obs.seat is not None else 0
        n = self.seats
        S = self.n_species
        ms = self._ms
        kind = [0.0] * len(KINDS)
        if request is not None:
            kind[_KIND_INDEX[request.kind]] = 1.0
        out = kind
        out += (float(obs.end_phase), obs.deck_size / self._deck, obs.turns * 0.01)
        out += self._holdings(obs, me)
        auction = obs.auction
        caps = auction.caps if auction is not None else {}
        turn_seat = obs.turn_seat
        counts_n = obs.note_counts
        for r in range(n):
            s = (me + r) % n
            cap = caps.get(s) if caps else None
            out += (
                counts_n[s] * 0.1,
                1.0 if s == turn_seat else 0.0,
                0.0 if cap is None else 1.0,
                0.0 if cap is None else cap * ms,
            )
        counts = [0.0] * self.n_notes
        idx = self.note_index
        for v in obs.wallet or ():
            counts[idx[v]] += 0.2
        out += counts
        out.append(obs.money * ms)
        out += [0.1 * c for c in obs.bank] if obs.bank is not None else self._zero_notes
        out += [0.1 * c for c in obs.reserve] if obs.reserve is not None else self._zero_notes
        # the auction
        lot = [0.0] * self._cards
        if auction is None:
            out.append(0.0)
            out += lot
            out += (0.0, 0.0)
            out += self._zero_seats
        else:
            out.append(1.0)
            for c in auction.lot:
                lot[c] += 1.0
            out += lot
            out += (auction.high * ms, auction.round * 0.1)
            out += self._rel(auction.high_bidder, me)
        # the cow trade
        trade = obs.trade
        species = [0.0] * (S + 1)
        if trade is None:
            out += (0.0, 0.0, 0.0, 0.0, 0.0)
            out += self._zero_seats
            out += self._zero_seats
        else:
            species[trade.species] = 1.0
            out += (
                1.0,
                trade.cards * 0.25,
                0.0 if trade.offer_count is None else 0.1 * (trade.offer_count + 1),
                1.0 if trade.again else 0.0,
                0.0 if trade.my_offer is None else sum(trade.my_offer) * ms,
            )
            out += self._rel(trade.challenger, me)
            out += self._rel(trade.opponent, me)
        out += species
        # the payment
        pay = obs.payment
        if pay is None:
            out += (0.0, 0.0, 0.0, 0.0)
            out += self._zero_seats
        else:
            pedigree = pay["for"] == "pedigree"
            out += (
                1.0,
                0.0 if pedigree else pay["amount"] * ms,
                pay["amount"] * 0.1 if pedigree else 0.0,
                1.0 if pay["payer"] == me else 0.0,
            )
            out += self._rel(pay["payee"], me)
        # the pedigree countdown
        cd = obs.countdown
        ped_species = [0.0] * S
        if cd is None:
            out += (0.0, 0.0, 0.0, 0.0)
            out += self._zero_seats
        else:
            ped_species[cd["card"] - S] = 1.0
            out += (
                1.0,
                len(cd["chosen"]) / n,
                0.1 * (cd["count"] or 0),
                0.1 * (cd["my_claim"] or 0),
            )
            out += self._rel(cd["claimant"], me)
        out += ped_species
        out.append(0.0 if obs.rat_pile is None else 0.1 * (obs.rat_pile + 1))
        peek = [0.0] * self._cards
        if obs.peek is not None:
            peek[obs.peek] = 1.0
        out += peek
        # what bounds a bid
        if request is not None and request.kind == "bid":
            info = request.info or {}
            cap = info.get("max")
            out += (info["min"] * ms, (info["money"] if cap is None else cap) * ms)
        else:
            out += (0.0, 0.0)
        return out


def _blank_observation(rules: RuleSet, seats: int) -> KuhhandelObservation:
    """An observation of the right shape (used to size the vector)."""
    n = len(rules.species)
    return KuhhandelObservation(
        seat=0,
        seats=seats,
        rules=rules.name,
        stage="turn",
        turn_seat=0,
        end_phase=False,
        deck_size=0,
        herds=tuple((0,) * n for _ in range(seats)),
        note_counts=(0,) * seats,
        wallet=(),
        bank=None,
        drawn=(0,) * n,
        pedigrees=tuple(() for _ in range(seats)),
        rats=(0,) * seats,
        auction=None,
        trade=None,
        payment=None,
        turns=0,
        over=False,
    )
