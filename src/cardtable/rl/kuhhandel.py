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

The observation vector (``float32``, length :attr:`KuhhandelCodec.obs_size`) is built by
:meth:`KuhhandelCodec.encode` from the seat's observation
(:func:`~cardtable.games.kuhhandel.observe.observe`) and the request, nothing else. It is a fixed
layout of parts, in this order, each written by one method named after it. Seats are in
*relative* order (0 is the observing seat, 1 the seat on its left...), amounts are divided by the
start money, card counts by the species' size.

==================  ================================================================  =========
part                what                                                              values
==================  ================================================================  =========
request             the request's kind, one-hot (:data:`KINDS`)                       11
table               end phase, cards left in the deck, turns played                   3
herds               per seat: cards per species, pedigrees (Master), rats (Master)    N·(2S+1)
drawn               cards drawn so far per species                                    S
seats               per seat: note count, whose turn, capped (§4.7), the cap          4N
wallet              own notes per value, own money, bank and duel reserve per value  3D+1
auction             under way, the lot (per card), high bid, round, high bidder       2S+4+N
cow trade           under way, cards at stake, offer's note count, again, own offer;  2N+S+6
                    challenger, opponent, species
payment             under way, amount, pedigree note count, payer is me; payee        N+4
countdown           under way, share of seats that chose, count, own claim;           N+S+4
                    claimant, pedigree species (Master §9.2)
rat pile            notes beside the rat (Master §9.3)                                1
peek                the card the duel's divider looked at                             2S+1
bid bounds          the bid's minimum and the most the seat may bid                   2
draft               notes chosen so far per value, their value, largest note still    D+3
                    allowed, the bid menu's base
==================  ================================================================  =========

Classic with 4 seats: 254 values. ``tests/rl/test_kuhhandel_vectors.py`` checks the vectors
against frozen ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.observe import KuhhandelObservation
from cardtable.games.kuhhandel.rules import RuleSet
from cardtable.rl.codec import WAIT, Build, Codec, Draft, Step

#: The version of what the parts mean, part of :attr:`KuhhandelCodec.layout`: raise it when a
#: value's meaning or scale changes without any part changing size (a change of size, part or
#: action name changes the fingerprint by itself).
ENCODING = 1

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
_RAISE = Step("raise")
# Answers built when chosen (see :meth:`KuhhandelCodec.build`): the k-th bid of the menu, an
# offer and a counter-offer of the notes chosen so far.
_BIDS = [Build("bid", k) for k in range(BID_MENU)]
_OFFER = Build("offer", -1)
_COUNTER = Build("counter", -1)
_NOTES: dict[str, Any] = {"offer": A.Offer, "counter": A.Counter}

#: The index of each answer that has one index of its own.
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
        self._pay_with = [Build("pay", i) for i in range(D)]  # the payment ends with this note
        self._note_steps = [Step("note", i) for i in range(D)]  # one more note of this value
        # Scales of the observation (see the module docstring).
        self._per_card = [1.0 / s.cards for s in rules.species]  # of each species
        self._per_money = 1.0 / max(rules.start_money, 10)
        self._per_rat = 1.0 / max(rules.rats, 1)
        self._deck = max(1, rules.animal_cards + (S if rules.pedigrees else 0) + rules.rats)
        self._cards = 2 * S + 1  # card indices: species, pedigree cards, the rat
        self._layout()

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
        """Pass (first step only), the bids of the menu up to the limit, and ``raise`` if the
        limit is at least a menu further up."""
        first = draft.base < 0
        base = info["min"] if first else draft.base
        r = self.raise_
        limit = self._bid_limit(info)
        opts: dict[int, Any] = {PASS: A.PASS} if first else {}
        for k in range(BID_MENU):
            if limit is not None and base + k * r > limit:
                break
            opts[BID0 + k] = _BIDS[k]  # made into a bid only when chosen
        if limit is None or base + BID_MENU * r <= limit:
            opts[RAISE] = _RAISE
        return opts

    def _bid_limit(self, info: Mapping[str, Any]) -> int | None:
        """The highest bid a menu offers (``None``: no bound): the request's cap (§4.7) and,
        unless ``overbid``, the seat's money."""
        limit: int | None = info.get("max")
        if not self.overbid:
            money: int = info["money"]
            if limit is None or money < limit:
                limit = money
        return limit

    def _note_options(self, kind: str, info: Mapping[str, Any], draft: Draft) -> dict[int, Any]:
        """The options of a payment, offer or counter-offer now."""
        avail = draft.available  # the notes not chosen yet (advance() takes each one chosen)
        if avail is None:  # the first step of this answer: count the wallet once
            idx = self.note_index
            avail = draft.available = [0] * self.n_notes
            for v in info["wallet"]:
                avail[idx[v]] += 1
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
                        opts[note0 + i] = self._pay_with[i] if need == 1 else self._note_steps[i]
                return opts
            need = info["amount"] - total
            pool = 0
            for i in range(top + 1):
                a = avail[i]
                if a:
                    v = notes[i]
                    pool += a * v  # value of every available note no larger than this one
                    if pool >= need and v:  # (a 0-note never belongs to a payment, §4.6)
                        opts[note0 + i] = self._pay_with[i] if v >= need else self._note_steps[i]
            return opts
        for i in range(top + 1):
            if avail[i]:
                opts[note0 + i] = self._note_steps[i]
        if kind == "offer":
            opts[DONE] = _OFFER
        else:
            opts[DONE] = _COUNTER
            if not draft.count:
                opts[ACCEPT] = A.ACCEPT
        return opts

    def _notes_with(self, draft: Draft, extra: int) -> tuple[int, ...]:
        """The notes chosen in ``draft`` and one more of index ``extra`` (-1: none), smallest
        first (the extra note is never larger: notes are chosen largest first)."""
        notes, chosen = self.notes, draft.chosen
        out = [notes[extra]] if extra >= 0 else []
        for i in range(draft.limit, self.n_notes):  # none chosen below the limit
            c = chosen[i]
            if c:
                v = notes[i]
                out += (v,) * c
        return tuple(out)

    def advance(self, draft: Draft, step: Step, request: Request) -> None:
        if step.what == "raise":
            base = draft.base if draft.base >= 0 else (request.info or {})["min"]
            draft.base = base + BID_MENU * self.raise_
            return
        i = step.value  # one more note of value notes[i]; the next may not be larger
        if draft.available is not None:
            draft.available[i] -= 1
        draft.chosen[i] += 1
        draft.total += self.notes[i]
        draft.count += 1
        draft.limit = i

    def build(self, obs: Any, request: Request, draft: Draft, token: Build) -> Any:
        what, arg = token.what, token.value
        if what == "bid":
            base = draft.base if draft.base >= 0 else (request.info or {})["min"]
            return A.Bid(base + arg * self.raise_)
        notes = self._notes_with(draft, arg)
        return A.Pay(notes) if what == "pay" else _NOTES[what](notes)

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
    def _layout(self) -> None:
        """Where each part of the vector starts (the order of the module docstring's table)."""
        n, S, D, cards = self.seats, self.n_species, self.n_notes, self._cards
        sizes = {
            "request": len(KINDS),
            "table": 3,
            "herds": n * (2 * S + 1),
            "drawn": S,
            "seats": 4 * n,
            "wallet": 3 * D + 1,
            "auction": 1 + cards + 2 + n,
            "trade": 5 + 2 * n + S + 1,
            "payment": 4 + n,
            "countdown": 4 + n + S,
            "rat_pile": 1,
            "peek": cards,
            "bid_bounds": 2,
            "draft": D + 3,
        }
        self.offsets: dict[str, int] = {}
        at = 0
        for part, size in sizes.items():
            self.offsets[part] = at
            at += size
        self.obs_size = at
        self.parts = sizes
        self._kind_index = {kind: i for i, kind in enumerate(KINDS)}
        #: ``_places[me][seat]``: where ``seat`` sits seen from ``me`` (0: ``me``, 1: its left...)
        self._places = [[(seat - me) % n for seat in range(n)] for me in range(n)]

    @property
    def layout(self) -> str:
        """The fingerprint of this codec's observation and action layout (16 hex digits): a
        hash of :data:`ENCODING`, every part's name and size in order and every action's name.
        A policy stores the one it was trained on (:mod:`cardtable.rl.learned`): a feature
        added, a part resized or an action renamed changes it."""
        text = json.dumps([ENCODING, list(self.parts.items()), self.action_names])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe_layout(self) -> str:
        """The layout in words: fingerprint, inputs, actions (for refusals)."""
        return f"layout {self.layout} ({self.obs_size} inputs, {self.n_actions} actions)"

    def encode(
        self, obs: KuhhandelObservation, request: Request | None, draft: Draft | None
    ) -> np.ndarray:
        """The vector of ``obs``'s seat answering ``request`` with ``draft`` so far (either may
        be ``None``): a new array, zeros but for what each part writes."""
        v = np.zeros(self.obs_size, dtype=np.float32)
        me = obs.seat if obs.seat is not None else 0
        places = self._places[me]  # each seat's place seen from ``me`` (0: me, 1: my left...)
        at = self.offsets
        self._request(v, at["request"], request)
        self._table(v, at["table"], obs)
        self._herds(v, at["herds"], obs, places)
        self._drawn(v, at["drawn"], obs)
        self._seats(v, at["seats"], obs, places)
        self._wallet(v, at["wallet"], obs)
        if obs.auction is not None:
            self._auction(v, at["auction"], obs.auction, places)
        if obs.trade is not None:
            self._cow_trade(v, at["trade"], obs.trade, places)
        if obs.payment is not None:
            self._payment(v, at["payment"], obs.payment, me, places)
        if obs.countdown is not None:
            self._countdown(v, at["countdown"], obs.countdown, places)
        if obs.rat_pile is not None:
            v[at["rat_pile"]] = 0.1 * (obs.rat_pile + 1)
        if obs.peek is not None:
            v[at["peek"] + obs.peek] = 1.0
        if request is not None and request.kind == "bid":
            self._bid_bounds(v, at["bid_bounds"], request.info or {})
        if draft is not None and draft.started:
            self._draft(v, at["draft"], draft)
        return v

    # Each part below writes its values from ``o``, where the part starts (``self.offsets``).

    def _request(self, v: np.ndarray, o: int, request: Request | None) -> None:
        if request is not None:
            v[o + self._kind_index[request.kind]] = 1.0

    def _table(self, v: np.ndarray, o: int, obs: KuhhandelObservation) -> None:
        if obs.end_phase:
            v[o] = 1.0
        v[o + 1] = obs.deck_size / self._deck
        v[o + 2] = obs.turns * 0.01

    def _herds(self, v: np.ndarray, o: int, obs: KuhhandelObservation, places: list[int]) -> None:
        """Per seat, in its row: its herd, its pedigree cards, its rats."""
        S = self.n_species
        width = 2 * S + 1
        per_card = self._per_card
        rows = zip(places, obs.herds, obs.pedigrees, obs.rats, strict=True)
        for place, herd, pedigrees, rats in rows:
            row = o + place * width
            for species, count in enumerate(herd):
                if count:
                    v[row + species] = count * per_card[species]
            for species in pedigrees:
                v[row + S + species] = 1.0
            if rats:
                v[row + 2 * S] = rats * self._per_rat

    def _drawn(self, v: np.ndarray, o: int, obs: KuhhandelObservation) -> None:
        per_card = self._per_card
        for species, count in enumerate(obs.drawn):
            if count:
                v[o + species] = count * per_card[species]

    def _seats(self, v: np.ndarray, o: int, obs: KuhhandelObservation, places: list[int]) -> None:
        """Per seat, in its row of 4: how many notes it holds, whether it is its turn, whether it
        is capped (§4.7) and its cap."""
        for place, count in zip(places, obs.note_counts, strict=True):
            if count:
                v[o + 4 * place] = count * 0.1
        turn = obs.turn_seat
        if turn is not None and 0 <= turn < self.seats:
            v[o + 4 * places[turn] + 1] = 1.0
        if obs.auction is not None:
            for seat, cap in obs.auction.caps.items():
                row = o + 4 * places[seat]
                v[row + 2] = 1.0
                v[row + 3] = cap * self._per_money

    def _wallet(self, v: np.ndarray, o: int, obs: KuhhandelObservation) -> None:
        """Own notes per value and money; the bank's and the duel reserve's notes per value."""
        D = self.n_notes
        counts = [0] * D
        for note in obs.wallet or ():
            counts[self.note_index[note]] += 1
        for i, count in enumerate(counts, o):
            if count:
                v[i] = 0.2 * count
        v[o + D] = obs.money * self._per_money
        if obs.bank is not None:
            for i, count in enumerate(obs.bank, o + D + 1):
                v[i] = 0.1 * count
        if obs.reserve is not None:
            for i, count in enumerate(obs.reserve, o + 2 * D + 1):
                v[i] = 0.1 * count

    def _auction(self, v: np.ndarray, o: int, auction: Any, places: list[int]) -> None:
        v[o] = 1.0
        for card in auction.lot:
            v[o + 1 + card] += 1.0
        o += 1 + self._cards
        v[o] = auction.high * self._per_money
        v[o + 1] = auction.round * 0.1
        if auction.high_bidder is not None and auction.high_bidder >= 0:
            v[o + 2 + places[auction.high_bidder]] = 1.0

    def _cow_trade(self, v: np.ndarray, o: int, trade: Any, places: list[int]) -> None:
        n = self.seats
        v[o] = 1.0
        v[o + 1] = trade.cards * 0.25
        if trade.offer_count is not None:
            v[o + 2] = 0.1 * (trade.offer_count + 1)
        if trade.again:
            v[o + 3] = 1.0
        if trade.my_offer is not None:
            v[o + 4] = sum(trade.my_offer) * self._per_money
        o += 5
        if trade.challenger is not None and trade.challenger >= 0:
            v[o + places[trade.challenger]] = 1.0
        if trade.opponent is not None and trade.opponent >= 0:
            v[o + n + places[trade.opponent]] = 1.0
        v[o + 2 * n + trade.species] = 1.0

    def _payment(
        self, v: np.ndarray, o: int, payment: Mapping[str, Any], me: int, places: list[int]
    ) -> None:
        v[o] = 1.0
        if payment["for"] == "pedigree":  # §9.2 paid with a number of notes
            v[o + 2] = payment["amount"] * 0.1
        else:
            v[o + 1] = payment["amount"] * self._per_money
        if payment["payer"] == me:
            v[o + 3] = 1.0
        payee = payment["payee"]
        if payee is not None and payee >= 0:
            v[o + 4 + places[payee]] = 1.0

    def _countdown(
        self, v: np.ndarray, o: int, countdown: Mapping[str, Any], places: list[int]
    ) -> None:
        n = self.seats
        v[o] = 1.0
        v[o + 1] = len(countdown["chosen"]) / n
        v[o + 2] = 0.1 * (countdown["count"] or 0)
        v[o + 3] = 0.1 * (countdown["my_claim"] or 0)
        claimant = countdown["claimant"]
        if claimant is not None and claimant >= 0:
            v[o + 4 + places[claimant]] = 1.0
        v[o + 4 + n + countdown["card"] - self.n_species] = 1.0  # a pedigree card: n + species

    def _bid_bounds(self, v: np.ndarray, o: int, info: Mapping[str, Any]) -> None:
        cap = info.get("max")
        v[o] = info["min"] * self._per_money
        v[o + 1] = (info["money"] if cap is None else cap) * self._per_money

    def _draft(self, v: np.ndarray, o: int, draft: Draft) -> None:
        D = self.n_notes
        for i, count in enumerate(draft.chosen):
            if count:
                v[o + i] = 0.2 * count
        v[o + D] = draft.total * self._per_money
        v[o + D + 1] = (draft.limit + 1) / D
        if draft.base > 0:
            v[o + D + 2] = draft.base * self._per_money
