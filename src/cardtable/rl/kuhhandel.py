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

import math
import sys
import sysconfig
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel import stages as ST
from cardtable.games.kuhhandel.money import wallet_value
from cardtable.games.kuhhandel.observe import KuhhandelObservation
from cardtable.games.kuhhandel.rules import RuleSet
from cardtable.rl.codec import WAIT, Build, Codec, Draft, Step, read_only_mask, set_flags

#: Bids offered in one step (``min``, ``min + raise``, ... ``min + (K-1)·raise``).
BID_MENU = 10

# Observation vectors are handed out read-only, and the codec writes into one again only once
# nothing but the codec holds it: CPython's reference count says so exactly (a caller's array,
# a view of it, a memoryview or a dict holding it all count), as NumPy's own elision of
# temporaries relies on. So a vector the caller keeps never changes, and a vector it dropped
# costs no new array (allocating, copying and freeing one was about 7 % of a step in place).
# The counts compared below are the codec's own references plus the call's argument. Vectors
# are made read-only with ``set_flags`` (see :mod:`cardtable.rl.codec`).
_RING = 3  # vectors :meth:`KuhhandelCodec.follow` takes turns with

#: Whether vectors are written into again (CPython 3.11-3.13 with the GIL, whose counts the
#: checks below are written for). From 3.14 the interpreter may borrow references on its stack
#: (``sys.getrefcount`` then reads lower), and a free-threaded build counts differently: there
#: ``_refs`` says every vector is still held, so each step goes on in a new one.
REUSE_VECTORS = (
    sys.implementation.name == "cpython"
    and sys.version_info < (3, 14)
    and not sysconfig.get_config_var("Py_GIL_DISABLED")
)


def _held_always(_vector: Any) -> int:
    """A reference count no check below takes for free (vectors are never written again)."""
    return 1 << 30


_refs = sys.getrefcount if REUSE_VECTORS else _held_always

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
_NOTE_KINDS = frozenset(("pay", "offer", "respond"))  # answered note by note
# Answered from a few choices that the engine keeps as the same objects game after game.
_FIXED_KINDS = frozenset(("turn", "knock", "sell_or_buy", "preempt", "divide"))

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
# The answers built from the draft when chosen (one shared token per index).
_BIDS = [Build("bid", k) for k in range(BID_MENU)]
_OFFER = Build("offer", -1)
_COUNTER = Build("counter", -1)
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
    # Options, choices and answers read only the request and the draft.
    blind_kinds = frozenset(KINDS)
    follows = True
    always_follows = True
    renews_drafts = True

    def __init__(self, rules: RuleSet, seats: int, *, overbid: bool = False) -> None:
        super().__init__()
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
        self._bid_menus: dict[tuple[bool, int, bool], tuple[dict[int, Any], np.ndarray]] = {}
        self._menu_masks: dict[int, np.ndarray] = {}
        # The menus of a bid's first and later steps, by how far the limit is above the base.
        self._first_views: dict[int | None, tuple[dict[int, Any], np.ndarray]] = {}
        self._bid_views: dict[int | None, tuple[dict[int, Any], np.ndarray]] = {}
        self._bid_actions: dict[int, A.Bid] = {}
        self._pay_with = [Build("pay", i) for i in range(D)]  # the payment ends with this note
        self._note_steps = [Step("note", i) for i in range(D)]  # one more note of this value
        self._inv_size_np = np.array(self._inv_size)
        self._hold_width = 2 * S + 1
        self._hold_key: tuple[Any, ...] = ()
        self._hold_abs = np.zeros(0, dtype=np.float32)
        self._seats_key: tuple[Any, ...] = ()
        self._seats_abs = np.zeros(0, dtype=np.float32)
        self._counts_cache: dict[Any, np.ndarray] = {}
        self._layout()
        self._last: tuple[Any, Any, np.ndarray] = (None, None, self._zeros)
        self._follower: _Follower | None = None
        self._start: tuple[Any, ...] = ()  # what the first follower showed first (snapshot())
        #: The vector of the payment or offer being answered, with its draft so far (see
        #: :meth:`follow`).
        self._held = _Held(None, -1, -1, self._zeros, None)
        #: Vectors for :meth:`follow` to hand out, each with its writer (see _RING).
        ring = [_read_only_copy(self._zeros) for _ in range(_RING)]
        self._ring = [vector for vector, _ in ring]
        self._ring_writers: list[Any] = [writer for _, writer in ring]
        self._ring_at = 0
        #: The bidding's templates (:meth:`_bid_template`): the auction's list of bids and a
        #: template per seat.
        self._templates: tuple[Any, list[_BidTemplate | None]] = (None, [])
        #: Templates of earlier auctions, whose vectors may be written into again.
        self._spare_templates: list[_BidTemplate] = []
        #: Options, mask and choices of requests with fixed choices, by kind, seat and the ids
        #: of the choices (see :meth:`choosing`).
        self._choice_menus: dict[tuple[Any, ...], tuple[dict[int, Any], np.ndarray, Any]] = {}
        #: The menus of a first step with the limit far enough above (:meth:`_full_up_to`),
        #: by the minimum bid: their bids are the engine's actions (see :meth:`_full_menu`).
        self._full_menus: dict[int, tuple[dict[int, Any], np.ndarray]] = {}

    # ------------------------------------------------------------------ actions
    def new_draft(self, request: Request | None) -> Draft:
        return Draft(request, self.n_notes)

    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        kind = request.kind
        if kind == "bid":
            return self._bid_menu(request.info or {}, draft)[0]
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

    def _bid_limit(self, info: Mapping[str, Any]) -> int | None:
        """The highest bid a menu offers (``None``: no bound): the request's cap (§4.7) and,
        unless ``overbid``, the seat's money."""
        limit: int | None = info.get("max")
        if not self.overbid:
            money: int = info["money"]
            if limit is None or money < limit:
                limit = money
        return limit

    def _bid_menu(self, info: Mapping[str, Any], draft: Draft) -> tuple[dict[int, Any], np.ndarray]:
        """The options of a bid now and their mask (both shared: read them only)."""
        base = draft.base
        limit = self._bid_limit(info)
        if base < 0:  # the first step
            return self._first_bid_menu(info["min"], limit, self._full_up_to(limit))
        # After a raise the menu depends only on how far the limit is above the base (its
        # tokens are relative, ``bid+k``, made into bids when chosen): one lookup finds it.
        key = None if limit is None else limit - base
        menu = self._bid_views.get(key)
        if menu is None:
            if len(self._bid_views) > 4096:
                self._bid_views.clear()
            menu = self._bid_views[key] = self._new_bid_menu(False, base, limit)
        return menu

    def _full_up_to(self, limit: int | None) -> int | float:
        """The highest minimum bid for which a first step under ``limit`` offers the full menu
        (pass, all ``BID_MENU`` bids, raise: :meth:`_new_bid_menu` with the limit at least
        ``BID_MENU`` raises above the minimum)."""
        return math.inf if limit is None else limit - BID_MENU * self.raise_

    def _first_bid_menu(
        self, low: int, limit: int | None, full_up_to: int | float
    ) -> tuple[dict[int, Any], np.ndarray]:
        """:meth:`_bid_menu` of a bid's first step, from the request's minimum, the limit and
        :meth:`_full_up_to` of the limit."""
        if low <= full_up_to:
            menu = self._full_menus.get(low)
            return self._full_menu(low) if menu is None else menu
        key = None if limit is None else limit - low
        menu = self._first_views.get(key)
        if menu is None:
            if len(self._first_views) > 4096:
                self._first_views.clear()
            menu = self._first_views[key] = self._new_bid_menu(True, low, limit)
        return menu

    def _full_menu(self, low: int) -> tuple[dict[int, Any], np.ndarray]:
        """The full menu of a first step from the minimum ``low`` (pass, ``BID_MENU`` bids,
        raise), with the engine's bids themselves (nothing to build when one is chosen: a bid's
        first step is a good part of all steps), kept by ``low``; its mask is its shape's."""
        menus = self._full_menus
        if len(menus) > 4096:
            menus.clear()
        shape, mask = self._new_bid_menu(True, low, None)
        r = self.raise_
        opts = {
            i: self._bid_action(low + v.value * r) if type(v) is Build else v
            for i, v in shape.items()
        }
        menu = menus[low] = (opts, mask)
        return menu

    def _bid_action(self, amount: int) -> A.Bid:
        """The engine's bid of ``amount`` (actions are frozen values: one per amount)."""
        bid = self._bid_actions.get(amount)
        if bid is None:
            if len(self._bid_actions) > 4096:  # overbid: bids without bound
                self._bid_actions.clear()
            bid = self._bid_actions[amount] = A.Bid(amount)
        return bid

    def _new_bid_menu(
        self, first: bool, base: int, limit: int | None
    ) -> tuple[dict[int, Any], np.ndarray]:
        """The menu of :meth:`_bid_menu` from the bid it starts at and the highest allowed."""
        r = self.raise_
        if limit is None:
            count, more = BID_MENU, True
        else:
            count = 0 if base > limit else min(BID_MENU, (limit - base) // r + 1)
            more = base + BID_MENU * r <= limit
        # A few dicts serve every bid (shared: read-only, like every options dict).
        key = (first, count, more)
        menu = self._bid_menus.get(key)
        if menu is None:
            opts: dict[int, Any] = {PASS: A.PASS} if first else {}
            for k in range(count):
                opts[BID0 + k] = _BIDS[k]  # made into an action only when chosen
            if more:
                opts[RAISE] = _RAISE
            menu = self._bid_menus[key] = (opts, read_only_mask(self.n_actions, opts))
            self._menu_masks[id(opts)] = menu[1]
        return menu

    def shared_mask(self, obs: Any, request: Request, draft: Draft, wait: bool) -> np.ndarray:
        opts = draft.options
        if opts is None:
            if request.kind == "bid":  # the most frequent request by far: no dispatch
                menu = self._bid_menu(request.info or {}, draft)
                draft.options = menu[0]
                return menu[1]
            opts = draft.options = self.options(obs, request, draft, wait=wait)
        # A bid menu is one of a few shared dicts, each with its mask (kept as long as the menu:
        # its id stays its own); any other set of options goes through the generic cache.
        m = self._menu_masks.get(id(opts))
        if m is None:
            return super().shared_mask(obs, request, draft, wait)
        return m

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
            return self._bid_action(base + arg * self.raise_)
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
    # The vector is written into one preallocated buffer (a copy of a zero template) at fixed
    # offsets: building a list of every feature and converting it cost more than the engine's
    # decision. Blocks that change only when cards or notes move (herds, pedigrees, rats,
    # drawn; wallet, bank, reserve) are cached on their values; a later step of the same answer
    # (same observation object and request) reuses the whole base and only writes the draft.
    # ``tests/rl/reference.py`` is the same layout written plainly; a test compares the two.

    def _layout(self) -> None:
        n, S, D, cards = self.seats, self.n_species, self.n_notes, self._cards
        o = len(KINDS)
        self._o_scalars = o  # end phase, deck left, turns
        o += 3
        self._o_hold = o  # per seat: herd (S), pedigrees (S), rats; then drawn (S)
        o += n * (2 * S + 1)
        self._o_drawn = o
        o += S
        self._o_seats = o  # per seat: note count, on turn, capped, cap
        o += 4 * n
        self._o_money = o  # own notes per value (D), money, bank (D), reserve (D)
        o += 3 * D + 1
        self._o_auction = o  # flag, lot (cards), high bid, round, high bidder (n)
        self._o_high = o + 1 + cards
        #: The high bidder's cell in the vector of each seat, by the high bidder (-1: none).
        self._high_cells = [
            [self._o_high + 2 + (s - me) % n for s in range(n)] + [-1] for me in range(n)
        ]
        o += 1 + cards + 2 + n
        self._o_trade = o  # flag, cards, offers, again, own offer; challenger, opponent; species
        o += 5 + 2 * n + S + 1
        self._o_payment = o  # flag, amount, pedigree note count, payer is me; payee (n)
        o += 4 + n
        self._o_countdown = o  # flag, chosen, count, own claim; claimant (n); species (S)
        o += 4 + n + S
        self._o_rat_pile = o
        o += 1
        self._o_peek = o
        o += cards
        self._o_bounds = o  # the bid's minimum and maximum
        o += 2
        self._o_draft = o  # notes chosen per value (D), their value, largest allowed, bid base
        o += D + 3
        self.obs_size = o
        self._zeros = np.zeros(o, dtype=np.float32)

    def encode(
        self, obs: KuhhandelObservation, request: Request | None, draft: Draft | None
    ) -> np.ndarray:
        last = self._last
        if last[0] is obs and last[1] is request:
            out = last[2].copy()  # a later step of the same answer: only the draft changed
        else:
            base = self._encode_base(obs, request)
            self._last = (obs, request, base)
            out = base.copy()
        if draft is not None and draft.started:
            self._write_draft(out.data, draft)  # single values cost less through a memoryview
        return out

    def _write_draft(self, w: Any, draft: Draft) -> None:
        """The draft's block, on a vector whose block is all zeros."""
        o = self._o_draft
        D = self.n_notes
        if draft.count:
            chosen = draft.chosen
            for i in range(draft.limit, D):  # notes go largest first: none below the limit
                c = chosen[i]
                if c:
                    w[o + i] = 0.2 * c
            w[o + D] = draft.total * self._ms
        w[o + D + 1] = (draft.limit + 1) / D
        base = draft.base
        if base > 0:
            w[o + D + 2] = base * self._ms

    def follow(
        self, game: Any, seat: int, request: Request | None, draft: Draft | None
    ) -> np.ndarray | None:
        # The seat's slow blocks come from the follower (kept up to date, see
        # :class:`_Follower`); the features of the moment are written on a copy.
        held = self._held
        if held.request is request and held.seat == seat and held.moves == len(game.history()):
            # A later step of the same payment or offer: nothing but the draft has changed.
            if draft is not held.draft or (draft is not None and draft.count != held.count):
                self._held_draft(held, draft)
            return held.vector
        f = self._follower
        if f is None or f.game is not game:
            f = self._follow_game(game)
        bidding = game.stage is ST.BID
        if not bidding or game.bids is not f.bids:  # as sync() checks first, one call less
            f.sync()
        noting = request is not None and request.kind in _NOTE_KINDS  # (never while bidding)
        if noting:  # answered note by note: the vector is kept for the next steps
            out, w, spare, spare_writer = self._held_vector(f.bases[seat], f.writers[seat])
        else:  # the seat's kept vector into a vector of the ring nobody holds any more
            ring = self._ring
            i = self._ring_at = (self._ring_at + 1) % _RING
            out = ring[i]
            if _refs(out) == 4:  # the ring, the vector's writer, ``out`` and the call: free
                w = self._ring_writers[i]
                w[:] = f.writers[seat]
            else:
                out, w = _read_only_copy(f.bases[seat])
                ring[i], self._ring_writers[i] = out, w
        if request is not None:
            kind = request.kind
            w[_KIND_INDEX[kind]] = 1.0
            if kind == "bid":
                info = request.info or {}
                cap = info.get("max")
                o = self._o_bounds
                w[o] = info["min"] * self._ms
                w[o + 1] = (info["money"] if cap is None else cap) * self._ms
        if bidding:
            f._auction(w, seat)  # as moment() does, one call less
        else:
            f.moment(w, seat)
            if noting:  # kept with its request, seat and moves, and its draft written so far
                held = self._held = _Held(request, seat, len(game.history()), out, w)
                held.spare, held.spare_writer = spare, spare_writer
                if draft is not None:
                    if draft.count:  # draft.started (a payment or offer has no bid base)
                        self._write_draft(w, draft)
                    held.draft, held.count = draft, draft.count
                return out
        if draft is not None and (draft.count or draft.base >= 0):  # draft.started
            self._write_draft(w, draft)
        return out

    def _follow_game(self, game: Any) -> _Follower:
        """The follower, following ``game`` from now: made for the first game, then started
        again for each new one (:meth:`_Follower.restart`) from the vectors it showed when it
        was made. Games start alike, so little differs; writing every block into every seat's
        vector for each game cost about 1 % of a classic game's steps."""
        f = self._follower
        if f is None:
            f = self._follower = _Follower(self, game)
            self._start = f.snapshot()
        else:
            f.restart(game, self._start)
        return f

    def _held_vector(
        self, source: np.ndarray, source_writer: Any
    ) -> tuple[np.ndarray, Any, np.ndarray | None, Any]:
        """The vector (and its writer) for a new payment's or offer's answer, holding
        ``source``: the last answer's vector, with its spare, or that spare, whichever the
        caller has let go of (written into again), else a new one; then the spare and its
        writer for :func:`_own_held` (``None`` if none)."""
        last = self._held
        if last.writer is not None and _refs(last.vector) == 3:  # its slot, writer, the call
            vector, writer = last.vector, last.writer
            spare, spare_writer = last.spare, last.spare_writer
        elif last.spare is not None and _refs(last.spare) == 3:
            vector, writer = last.spare, last.spare_writer
            spare = spare_writer = None
        else:
            vector, writer = _read_only_copy(source)
            return vector, writer, None, None
        writer[:] = source_writer
        return vector, writer, spare, spare_writer

    def _held_draft(self, held: _Held, draft: Draft | None) -> None:
        """Write ``draft`` afresh into the kept vector of a payment or offer (the usual step,
        one note more, is written by :meth:`choosing`)."""
        if _refs(held.vector) > 3:  # handed out and still held: go on in a copy
            _own_held(held)
        w = held.writer
        o = self._o_draft
        end = o + self.n_notes + 3
        w[o:end] = self._zeros.data[o:end]
        if draft is not None and draft.started:
            self._write_draft(w, draft)
        held.draft = draft
        held.count = 0 if draft is None else draft.count

    def choosing(
        self, game: Any, seat: int, request: Request, draft: Draft
    ) -> dict[str, np.ndarray]:
        # :meth:`follow`, then the mask: a bid's comes with its menu, a request with a few fixed
        # choices finds its options and mask by the identity of its choices, any other request's
        # mask is found by the keys of its options (the generic path only for options not seen).
        kind = request.kind
        if kind == "bid":
            if draft.base < 0:  # a bid's first step (half of all steps; bids come while bidding)
                if self._templates[0] is not game.bids:  # the auction's first bid step
                    self._new_templates(game)
                # The seat's vector for this auction is kept (:class:`_BidTemplate`); the high
                # bid, the round, the high bidder and the minimum are written into it, and it
                # is the observation (read-only; once the caller has let go of it, the next
                # step writes into it again).
                t = self._templates[1][seat]
                if t is None:
                    t = self._templates[1][seat] = self._bid_template(
                        game, seat, request.info or {}
                    )
                elif _refs(t.vector) > 3:  # handed out and still held: go on in a copy
                    t.vector, t.writer = _read_only_copy(t.vector)
                w = t.writer
                ms = self._ms
                o = self._o_high
                w[o] = game.high * ms
                w[o + 1] = game.bid_round * 0.1
                cell = t.cells[game.high_bidder]  # (-1: nobody has bid yet)
                if cell != t.cell:
                    if t.cell >= 0:
                        w[t.cell] = 0.0
                    if cell >= 0:
                        w[cell] = 1.0
                    t.cell = cell
                low = request.info["min"]  # type: ignore[index]
                w[self._o_bounds] = low * ms
                # The full menu kept by the minimum at once, else _first_bid_menu's way.
                bids = self._full_menus.get(low) if low <= t.full_up_to else None
                if bids is None:
                    bids = self._first_bid_menu(low, t.limit, t.full_up_to)
                draft.options = bids[0]
                return {"observation": t.vector, "action_mask": bids[1]}
        elif kind in _NOTE_KINDS:
            held = self._held
            count = draft.count
            if (
                count == held.count + 1
                and held.draft is draft
                and held.request is request
                and held.moves == len(game.history())
            ):
                # A later step of the payment or offer kept (a quarter of a classic game's
                # steps): the note added (the smallest so far, at the draft's limit) is three
                # values of the kept vector; then the options for the next note.
                held.count = count
                if _refs(held.vector) > 3:  # handed out and still held: go on in a copy
                    _own_held(held)
                i = draft.limit
                w = held.writer
                o, D = self._o_draft, self.n_notes
                w[o + i] = 0.2 * draft.chosen[i]
                w[o + D] = draft.total * self._ms
                w[o + D + 1] = (i + 1) / D
                opts = draft.options = self._note_options(kind, request.info, draft)  # type: ignore[arg-type]
                mask = self._masks.get(tuple(opts))
                if mask is None:
                    mask = self.shared_mask(None, request, draft, True)
                return {"observation": held.vector, "action_mask": mask}
        elif kind in _FIXED_KINDS and draft.options is None:
            choices = request.choices or ()
            key = (kind, seat, *map(id, choices))
            menu = self._choice_menus.get(key)
            if menu is None:
                if len(self._choice_menus) > 4096:
                    self._choice_menus.clear()
                opts = self.options(None, request, draft, wait=True)
                # The choices are kept with their menu: while they live, no other object has
                # their ids, so a later request with the same ids has the same choices.
                fixed = read_only_mask(self.n_actions, opts)
                menu = self._choice_menus[key] = (opts, fixed, choices)
            draft.options = menu[0]
            vector: Any = self.follow(game, seat, request, draft)  # always a vector here
            return {"observation": vector, "action_mask": menu[1]}
        out: Any = self.follow(game, seat, request, draft)
        mask = None
        if draft.options is None:
            if kind == "bid":
                draft.options, mask = self._bid_menu(request.info or {}, draft)
            else:
                if kind in _NOTE_KINDS:
                    if draft.available is None:  # the first step: the seat's notes, counted
                        f = self._follower  # by the follower, if up to date (follow() above)
                        if f is not None and f.game is game and f.note_moves == game.note_moves:
                            draft.available = f.wallets[seat].copy()
                    opts = self._note_options(kind, request.info or {}, draft)
                else:
                    opts = self.options(None, request, draft, wait=True)
                draft.options = opts
                mask = self._masks.get(tuple(opts))
        if mask is None:  # not seen yet, or options already listed (shared_mask knows them)
            mask = self.shared_mask(None, request, draft, True)
        return {"observation": out, "action_mask": mask}

    def _new_templates(self, game: Any) -> None:
        """Start the bidding's templates for the auction going on: a template per seat, made
        when first asked (the auction's list of bids is new for each auction of each game, and
        stays so while kept), after bringing the follower up to date for it (nothing moves
        while bidding, so it stays so)."""
        f = self._follower
        if f is None or f.game is not game:
            f = self._follow_game(game)
        bids = game.bids
        if bids is not f.bids:
            f.sync()
        spares = self._spare_templates  # the last auction's, to write into again if let go of
        if len(spares) < 2 * self.seats:
            spares.extend(t for t in self._templates[1] if t is not None)
        self._templates = (bids, [None] * self.seats)

    def _bid_template(self, game: Any, seat: int, info: Mapping[str, Any]) -> _BidTemplate:
        """The vector of ``seat`` during the bidding of this auction with what stays the same
        while it goes on: its kept vector, the request kind, the auction's flag and lot, the
        caps (§4.7: set before an auction starts), the highest bid allowed (the seat's money
        or cap: no note moves while bidding), and the menu's limit."""
        f: Any = self._follower
        spares = self._spare_templates
        t = None
        while spares:  # a template of an earlier auction whose vector was let go of
            t = spares.pop()
            if _refs(t.vector) == 3:  # ``vector``, its writer, the call
                break
            t = None
        if t is None:
            vector, w = _read_only_copy(f.bases[seat])
        else:
            vector, w = t.vector, t.writer
            w[:] = f.writers[seat]
        w[_KIND_INDEX["bid"]] = 1.0
        o = self._o_auction
        w[o] = 1.0
        for card in game.lot:
            w[o + 1 + card] += 1.0
        caps = game.caps
        if caps:
            ms, n = self._ms, self.seats
            o = self._o_seats
            for s, c in caps.items():
                r = o + 4 * ((s - seat) % n)
                w[r + 2] = 1.0
                w[r + 3] = c * ms
        cap = info.get("max")
        w[self._o_bounds + 1] = (info["money"] if cap is None else cap) * self._ms
        limit = self._bid_limit(info)
        if t is None:
            return _BidTemplate(vector, w, limit, self._full_up_to(limit), self._high_cells[seat])
        t.limit, t.full_up_to = limit, self._full_up_to(limit)
        t.cells, t.cell = self._high_cells[seat], -1
        return t

    def _holdings(self, obs: KuhhandelObservation) -> np.ndarray:
        """Herds, pedigrees and rats per seat in seat order, then the cards drawn. They change
        only when cards move, so the block is rebuilt only then (the caller rotates it)."""
        key = (obs.herds, obs.pedigrees, obs.rats, obs.drawn)
        if key != self._hold_key:  # tuples: identical parts compare at once
            self._hold_key = key
            n, S = self.seats, self.n_species
            rows = np.zeros((n, 2 * S + 1))
            rows[:, :S] = np.array(obs.herds) * self._inv_size_np
            for s, peds in enumerate(obs.pedigrees):
                for p in peds:
                    rows[s, S + p] = 1.0
            rows[:, 2 * S] = np.array(obs.rats) * self._rats
            drawn = np.array(obs.drawn) * self._inv_size_np
            self._hold_abs = np.concatenate((rows.ravel(), drawn)).astype(np.float32)
        return self._hold_abs

    def _seat_rows(self, obs: KuhhandelObservation) -> np.ndarray:
        """Note count and turn per seat in seat order (4 values each; the caps are added by the
        caller); rebuilt when they change."""
        key = (obs.note_counts, obs.turn_seat)
        if key != self._seats_key:
            self._seats_key = key
            n = self.seats
            out = [0.0] * (4 * n)
            for s, c in enumerate(obs.note_counts):
                out[4 * s] = c * 0.1
            turn = obs.turn_seat
            if turn is not None and 0 <= turn < n:
                out[4 * turn + 1] = 1.0
            self._seats_abs = np.array(out, dtype=np.float32)
        return self._seats_abs

    def _money(self, obs: KuhhandelObservation) -> np.ndarray:
        """Own notes per value, money, bank and reserve (:meth:`_money_block` of its counts)."""
        counts = [0] * self.n_notes
        idx = self.note_index
        for v in obs.wallet or ():
            counts[idx[v]] += 1
        return self._money_block(tuple(counts), obs.bank, obs.reserve)

    def _money_block(
        self,
        counts: tuple[int, ...],
        bank: tuple[int, ...] | None,
        reserve: tuple[int, ...] | None,
    ) -> np.ndarray:
        """The block of :meth:`_money` from the seat's counts per note value (shared: read it,
        never change it)."""
        key = (counts, bank, reserve)
        block = self._counts_cache.get(key)
        if block is not None:
            return block
        D = self.n_notes
        out = [0.0] * (3 * D + 1)
        for i, c in enumerate(counts):
            if c:
                out[i] = 0.2 * c
        out[D] = sum(c * v for c, v in zip(counts, self.notes, strict=True)) * self._ms
        if bank is not None:
            out[D + 1 : 2 * D + 1] = [0.1 * c for c in bank]
        if reserve is not None:
            out[2 * D + 1 :] = [0.1 * c for c in reserve]
        if len(self._counts_cache) > 4096:
            self._counts_cache.clear()
        block = self._counts_cache[key] = np.array(out, dtype=np.float32)
        return block

    def _encode_base(self, obs: KuhhandelObservation, request: Request | None) -> np.ndarray:
        """Everything but the draft, for the seat of ``obs`` answering ``request`` (or none)."""
        me = obs.seat if obs.seat is not None else 0
        n = self.seats
        ms = self._ms
        out = self._zeros.copy()
        w: Any = out.data  # single values cost less through a memoryview
        if request is not None:
            kind = request.kind
            out[_KIND_INDEX[kind]] = 1.0
            if kind == "bid":
                info = request.info or {}
                cap = info.get("max")
                o = self._o_bounds
                w[o] = info["min"] * ms
                w[o + 1] = (info["money"] if cap is None else cap) * ms
        o = self._o_scalars
        if obs.end_phase:
            w[o] = 1.0
        w[o + 1] = obs.deck_size / self._deck
        w[o + 2] = obs.turns * 0.01
        # Per-seat blocks are kept in seat order; seen from ``me`` they are rotated: the rows
        # of seats me … n-1 first, then 0 … me-1 (two slice copies).
        o, d = self._o_hold, self._o_drawn
        block = self._holdings(obs)
        k = me * self._hold_width
        out[o : d - k] = block[k : d - o]
        out[d - k : d] = block[:k]
        out[d : self._o_seats] = block[d - o :]
        o = self._o_seats
        block = self._seat_rows(obs)
        k = 4 * me
        end = o + 4 * n
        out[o : end - k] = block[k:]
        out[end - k : end] = block[:k]
        auction = obs.auction
        if auction is not None and auction.caps:
            for s, cap in auction.caps.items():
                r = o + 4 * ((s - me) % n)
                w[r + 2] = 1.0
                w[r + 3] = cap * ms
        out[self._o_money : self._o_auction] = self._money(obs)
        if auction is not None:
            o = self._o_auction
            w[o] = 1.0
            for c in auction.lot:
                w[o + 1 + c] = w[o + 1 + c] + 1.0
            o += 1 + self._cards
            w[o] = auction.high * ms
            w[o + 1] = auction.round * 0.1
            hb = auction.high_bidder
            if hb is not None and hb >= 0:
                w[o + 2 + (hb - me) % n] = 1.0
        trade = obs.trade
        if trade is not None:
            o = self._o_trade
            w[o] = 1.0
            w[o + 1] = trade.cards * 0.25
            if trade.offer_count is not None:
                w[o + 2] = 0.1 * (trade.offer_count + 1)
            if trade.again:
                w[o + 3] = 1.0
            if trade.my_offer is not None:
                w[o + 4] = sum(trade.my_offer) * ms
            o += 5
            if trade.challenger is not None and trade.challenger >= 0:
                w[o + (trade.challenger - me) % n] = 1.0
            if trade.opponent is not None and trade.opponent >= 0:
                w[o + n + (trade.opponent - me) % n] = 1.0
            w[o + 2 * n + trade.species] = 1.0
        pay = obs.payment
        if pay is not None:
            o = self._o_payment
            w[o] = 1.0
            if pay["for"] == "pedigree":
                w[o + 2] = pay["amount"] * 0.1
            else:
                w[o + 1] = pay["amount"] * ms
            if pay["payer"] == me:
                w[o + 3] = 1.0
            payee = pay["payee"]
            if payee is not None and payee >= 0:
                w[o + 4 + (payee - me) % n] = 1.0
        cd = obs.countdown
        if cd is not None:
            o = self._o_countdown
            w[o] = 1.0
            w[o + 1] = len(cd["chosen"]) / n
            w[o + 2] = 0.1 * (cd["count"] or 0)
            w[o + 3] = 0.1 * (cd["my_claim"] or 0)
            claimant = cd["claimant"]
            if claimant is not None and claimant >= 0:
                w[o + 4 + (claimant - me) % n] = 1.0
            out[o + 4 + n + cd["card"] - self.n_species] = 1.0
        if obs.rat_pile is not None:
            w[self._o_rat_pile] = 0.1 * (obs.rat_pile + 1)
        if obs.peek is not None:
            w[self._o_peek + obs.peek] = 1.0
        return out


class _BidTemplate:
    """A seat's vector while the bidding of one auction goes on (see
    :meth:`KuhhandelCodec.choosing`): the vector, a writer on it, the menu's limit and the
    highest minimum bid with the full menu, the cell of each high bidder (the last: none) and
    the one written last (-1: none)."""

    __slots__ = ("cell", "cells", "full_up_to", "limit", "vector", "writer")

    def __init__(
        self,
        vector: np.ndarray,
        writer: Any,
        limit: int | None,
        full_up_to: int | float,
        cells: list[int],
    ) -> None:
        self.vector = vector
        self.writer = writer
        self.limit = limit
        self.full_up_to = full_up_to
        self.cells = cells
        self.cell = -1


class _Held:
    """The vector of the payment or offer being answered note by note (see
    :meth:`KuhhandelCodec.follow`): its request, seat and the length of the game's history
    then, the vector and a writer on it, and the draft written into it (at its count); a spare
    vector with its writer (see :func:`_own_held`)."""

    __slots__ = (
        "count",
        "draft",
        "moves",
        "request",
        "seat",
        "spare",
        "spare_writer",
        "vector",
        "writer",
    )

    def __init__(
        self, request: Request | None, seat: int, moves: int, vector: np.ndarray, writer: Any
    ) -> None:
        self.request = request
        self.seat = seat
        self.moves = moves
        self.vector = vector
        self.writer = writer
        self.draft: Draft | None = None
        self.count = 0
        self.spare: np.ndarray | None = None
        self.spare_writer: Any = None


def _own_held(held: _Held) -> None:
    """Go on with a copy of the kept vector of a payment or offer: the caller still holds the
    one handed out (which must not change; it has it at the next step of the same answer, as
    its last observation). The two vectors take turns: the spare, if the caller has let go of
    it, gets the kept one's values; else the kept one becomes the spare and a new one is made."""
    spare = held.spare
    if spare is not None and _refs(spare) == 4:  # ``spare``, its writer, ``spare``, the call
        writer = held.spare_writer
        writer[:] = held.writer
        held.spare, held.spare_writer = held.vector, held.writer
        held.vector, held.writer = spare, writer
        return
    held.spare, held.spare_writer = held.vector, held.writer
    held.vector, held.writer = _read_only_copy(held.vector)


def _read_only_copy(vector: np.ndarray) -> tuple[np.ndarray, Any]:
    """A copy of ``vector``, read-only for everyone but the codec, and the codec's writer on it
    (a ``memoryview`` taken before the flag is set: it stays writable)."""
    copy = vector.copy()
    writer = copy.data
    set_flags(copy, False)
    return copy, writer


class _Follower:
    """Every seat's vector of one game without the features of the moment (request, draft,
    auction, cow trade, payment, countdown, rat pile, peeked card, caps), kept up to date.

    The engine counts its moves (:class:`~cardtable.games.kuhhandel.state.KuhhandelGame`'s
    ``card_moves``: deck, drawn cards, herds, rats, pedigrees; ``note_moves``: wallets, bank,
    reserve). At each step the few scalars (turns, deck, whose turn, end phase) are compared and
    the counters read; only the blocks whose counter moved since are compared with the engine's
    lists (in C), and only what changed is written into the vector of every seat, each seat's own
    notes only into its own. While the bidding of the auction seen last goes on (the same list of
    bids: the engine starts each auction with a new one) nothing is compared: bids and passes
    move no card and no note. The features of the moment are read from the engine's state at
    every step (:meth:`moment`). (The engine's events would say what changed too, but the engine
    builds them only when read, and building them cost about a third of an engine decision.)

    Every read of the engine's state is in this class; it reads what
    :func:`~cardtable.games.kuhhandel.observe.observe` shows the seat and nothing else (of the
    private data, only the seat's own notes, its own offer and claim, the card it peeked at), and
    ``tests/rl`` check the vectors against :meth:`KuhhandelCodec.encode` of the observation.
    """

    __slots__ = (
        "bank",
        "bases",
        "bids",
        "card_moves",
        "codec",
        "deck",
        "drawn",
        "end_phase",
        "game",
        "herds",
        "hold_cells",
        "money",
        "ms",
        "n",
        "note_counts",
        "note_moves",
        "note_range",
        "notes",
        "o_auction",
        "o_high",
        "pedigrees",
        "rats",
        "reserve",
        "row_cells",
        "seat_range",
        "species_range",
        "turn_seat",
        "turns",
        "wallets",
        "writers",
    )

    def __init__(self, codec: KuhhandelCodec, game: Any) -> None:
        self.codec = codec
        self.game = game
        n, S = codec.seats, codec.n_species
        self.n, self.ms = n, codec._ms  # read at every step: one load each
        self.notes = codec.notes
        self.seat_range = range(n)
        self.species_range = range(S)
        self.note_range = range(codec.n_notes)
        self.o_auction = codec._o_auction  # the auction's flag, then its lot
        self.o_high = codec._o_auction + 1 + codec._cards  # high bid, round, high bidder
        self.bases = [codec._zeros.copy() for _ in range(n)]
        self.writers: list[Any] = [b.data for b in self.bases]
        # Where the row of seat ``s`` starts in the vector of seat ``me``: ``[s][me]``.
        width = codec._hold_width
        hold_at = [[codec._o_hold + (s - me) % n * width for me in range(n)] for s in range(n)]
        row_at = [[codec._o_seats + 4 * ((s - me) % n) for me in range(n)] for s in range(n)]
        # Paired with the vectors' writers: ``[s]`` is ``[(writer of me, offset), ...]``.
        self.hold_cells = [list(zip(self.writers, at, strict=True)) for at in hold_at]
        self.row_cells = [list(zip(self.writers, at, strict=True)) for at in row_at]
        # What the vectors show now (-1 / empty: not written yet, so all differs at first).
        self.bids: Any = None  # the auction's list of bids when the vectors were last brought up
        self.card_moves = self.note_moves = -1  # the engine's counters when last brought up
        self.turns = self.deck = self.turn_seat = -1
        self.end_phase: Any = None
        self.herds: list[list[int]] = [[-1] * S for _ in range(n)]
        self.pedigrees: list[list[int]] = [[-1] for _ in range(n)]
        self.rats = [-1] * n
        self.drawn = [-1] * S
        self.wallets: list[list[int]] = [[-1] * codec.n_notes for _ in range(n)]
        # The money and the number of notes of each kept wallet (-1 of each note at first),
        # kept up with each count that changes (cheaper than summing the wallet again).
        self.money = [-sum(codec.notes)] * n
        self.note_counts = [-codec.n_notes] * n
        self.bank: Any = ()
        self.reserve: Any = ()
        self.sync()

    def snapshot(self) -> tuple[Any, ...]:
        """What the vectors show now, and what they show it of (for :meth:`restart`)."""
        return (
            [b.copy().data for b in self.bases],
            [h.copy() for h in self.herds],
            [p.copy() for p in self.pedigrees],
            self.rats.copy(),
            self.drawn.copy(),
            [w.copy() for w in self.wallets],
            None if self.bank is None else list(self.bank),
            None if self.reserve is None else list(self.reserve),
            (self.turns, self.deck, self.turn_seat, self.end_phase),
        )

    def restart(self, game: Any, snapshot: tuple[Any, ...]) -> None:
        """Follow ``game``, starting from the vectors of ``snapshot``, as if they had followed
        a game to that point: the next :meth:`sync` (every caller's next call) compares every
        block with ``game`` and writes only what differs."""
        vectors, herds, peds, rats, drawn, wallets, bank, reserve, scalars = snapshot
        for w, v in zip(self.writers, vectors, strict=True):
            w[:] = v
        self.game = game
        self.herds = [h.copy() for h in herds]
        self.pedigrees = [p.copy() for p in peds]
        self.rats = rats.copy()
        self.drawn = drawn.copy()
        self.wallets = [w.copy() for w in wallets]
        self.money = [wallet_value(w, self.notes) for w in wallets]
        self.note_counts = [sum(w) for w in wallets]
        self.bank = None if bank is None else bank.copy()
        self.reserve = None if reserve is None else reserve.copy()
        self.turns, self.deck, self.turn_seat, self.end_phase = scalars
        self.bids = None
        self.card_moves = self.note_moves = -1  # every block is compared

    # ------------------------------------------------------------------ engine state, read here
    def sync(self) -> None:
        """Bring every seat's kept blocks up to date with the engine's state."""
        g = self.game
        if g.stage is ST.BID:
            bids = g.bids
            if bids is self.bids:
                # Still the bidding of the auction seen last (the engine starts every auction, a
                # repeated one too, with a new list of bids): bids and passes move no card and
                # no note, so nothing kept can have changed.
                return
            self.bids = bids
        else:
            self.bids = None
        if (
            g.turns != self.turns
            or len(g.deck) != self.deck
            or g.turn_seat != self.turn_seat
            or g.end_phase is not self.end_phase
        ):
            self._scalars()
        moves = g.card_moves
        if moves != self.card_moves:  # a card drawn, laid, given or traded
            self.card_moves = moves
            self._holdings()
            if g.drawn != self.drawn:
                self._drawn()
        moves = g.note_moves
        if moves != self.note_moves:  # notes paid out, paid, traded, placed or taken
            self.note_moves = moves
            self._money()

    def _scalars(self) -> None:
        """End phase, cards left in the deck, turns, whose turn it is (what changed)."""
        c, g = self.codec, self.game
        o = c._o_scalars
        end_phase = g.end_phase
        if end_phase is not self.end_phase:
            self.end_phase = end_phase
            flag = 1.0 if end_phase else 0.0
            for w in self.writers:
                w[o] = flag
        deck = len(g.deck)
        if deck != self.deck:
            self.deck = deck
            value = deck / c._deck
            for w in self.writers:
                w[o + 1] = value
        turns = g.turns
        if turns != self.turns:
            self.turns = turns
            value = turns * 0.01
            for w in self.writers:
                w[o + 2] = value
        turn, old = g.turn_seat, self.turn_seat
        if turn != old:
            if 0 <= old < c.seats:
                for w, r in self.row_cells[old]:
                    w[r + 1] = 0.0
            if 0 <= turn < c.seats:
                for w, r in self.row_cells[turn]:
                    w[r + 1] = 1.0
            self.turn_seat = turn

    def _holdings(self) -> None:
        """Herds, pedigrees and rats of the seats whose holdings changed; of a herd, only the
        counts that changed are written (found by a plain loop: cheaper here than ``map`` or
        ``zip``)."""
        g = self.game
        herds, kept = g.herds, self.herds
        if herds != kept:
            inv = self.codec._inv_size
            species = self.species_range
            for s in self.seat_range:
                herd, old = herds[s], kept[s]
                if herd != old:
                    cells = self.hold_cells[s]
                    for k in species:
                        count = herd[k]
                        if count != old[k]:
                            old[k] = count
                            value = count * inv[k]
                            for w, a in cells:
                                w[a + k] = value
        rats, kept_rats = g.rats, self.rats
        if rats != kept_rats:
            scale = self.codec._rats
            o = 2 * self.codec.n_species
            for s in self.seat_range:
                count = rats[s]
                if count != kept_rats[s]:
                    kept_rats[s] = count
                    value = count * scale
                    for w, a in self.hold_cells[s]:
                        w[a + o] = value
        pedigrees, kept_peds = g.pedigrees, self.pedigrees
        if pedigrees != kept_peds:
            S = self.codec.n_species
            for s in self.seat_range:
                peds, old = pedigrees[s], kept_peds[s]
                if peds != old:
                    cells = self.hold_cells[s]
                    for k in set(peds).symmetric_difference(old):
                        if k >= 0:  # (-1: the mark of a row not written yet)
                            value = 1.0 if k in peds else 0.0
                            for w, a in cells:
                                w[a + S + k] = value
                    kept_peds[s] = peds.copy()

    def _drawn(self) -> None:
        c, g = self.codec, self.game
        o = c._o_drawn
        drawn, kept = g.drawn, self.drawn
        inv = c._inv_size
        for k in self.species_range:
            count = drawn[k]
            if count != kept[k]:
                kept[k] = count
                value = count * inv[k]
                for w in self.writers:
                    w[o + k] = value

    def _money(self) -> None:
        """Note counts (public, in every vector), bank and reserve (public), each seat's own
        notes and money (its own only); only the values that changed are written."""
        c, g = self.codec, self.game
        o = c._o_money
        D = c.n_notes
        bank = g.bank
        if bank != self.bank:
            if bank is not None and not g.rules.duel:  # the duel's bank is face down
                self._notes_block(bank, self.bank, o + D + 1)
            self.bank = None if bank is None else bank.copy()
        reserve = g.reserve
        if reserve != self.reserve:
            if reserve is not None:
                self._notes_block(reserve, self.reserve, o + 2 * D + 1)
            self.reserve = None if reserve is None else reserve.copy()
        wallets, kept = g.wallets, self.wallets
        if wallets == kept:
            return
        for s in self.seat_range:
            wallet, old = wallets[s], kept[s]
            if wallet == old:
                continue
            w = self.writers[s]  # the seat's own notes: its own vector only
            notes = self.notes
            money, number = self.money[s], self.note_counts[s]
            for k in self.note_range:
                count = wallet[k]
                if count != old[k]:
                    more = count - old[k]
                    old[k] = count
                    money += more * notes[k]
                    number += more
                    w[o + k] = 0.2 * count
            self.money[s], self.note_counts[s] = money, number
            w[o + D] = money * c._ms
            value = number * 0.1
            for w, r in self.row_cells[s]:
                w[r] = value

    def _notes_block(self, counts: list[int], old: Any, o: int) -> None:
        """A public block of note counts (bank, reserve) at ``o`` in every seat's vector."""
        for k, count in enumerate(counts):
            if not old or count != old[k]:
                value = 0.1 * count
                for w in self.writers:
                    w[o + k] = value

    def moment(self, w: Any, me: int) -> None:
        """Write the features of the moment as ``me`` sees them (as
        :meth:`KuhhandelCodec._encode_base` does from the observation)."""
        g = self.game
        stage = g.stage
        if stage is ST.BID or stage is ST.SELL_OR_BUY:
            self._auction(w, me)
        elif stage is ST.TURN or stage is ST.OVER:
            return
        elif stage is ST.PAY:
            reason = g.pay_reason
            if reason == "auction":
                self._auction(w, me)
            elif reason == "pedigree":
                self._countdown(w, me, stage)
            c = self.codec
            n, o = c.seats, c._o_payment
            w[o] = 1.0
            if reason == "pedigree":
                w[o + 2] = g.amount * 0.1
            else:
                w[o + 1] = g.amount * c._ms
            if g.payer == me:
                w[o + 3] = 1.0
            payee = g.payee
            if payee >= 0:
                w[o + 4 + (payee - me) % n] = 1.0
        elif stage is ST.OFFER or stage is ST.RESPOND:
            c = self.codec
            n, o = c.seats, c._o_trade
            w[o] = 1.0
            w[o + 1] = g.stake * 0.25
            offer = g.offer
            challenger = g.challenger
            if offer is not None:
                w[o + 2] = 0.1 * (len(offer) + 1)
                if me == challenger:  # its own offer: the only notes of a trade it may see
                    w[o + 4] = sum(offer) * c._ms
            if g.tie_rounds > 0:
                w[o + 3] = 1.0
            o += 5
            if challenger >= 0:
                w[o + (challenger - me) % n] = 1.0
            opponent = g.opponent
            if opponent >= 0:
                w[o + n + (opponent - me) % n] = 1.0
            w[o + 2 * n + g.trade_species] = 1.0
        elif stage is ST.CLAIM or stage is ST.PREEMPT:
            self._countdown(w, me, stage)
        elif stage is ST.RAT:
            w[self.codec._o_rat_pile] = 0.1 * (len(g.rat_pile) + 1)
        elif stage is ST.DIVIDE and me == g.turn_seat:  # only the divider has seen the card
            w[self.codec._o_peek + g.peek] = 1.0

    def _auction(self, w: Any, me: int) -> None:
        g = self.game
        o = self.o_auction
        w[o] = 1.0
        for card in g.lot:
            w[o + 1 + card] += 1.0
        o = self.o_high
        ms = self.ms
        w[o] = g.high * ms
        w[o + 1] = g.bid_round * 0.1
        high_bidder = g.high_bidder
        if high_bidder >= 0:
            w[o + 2 + (high_bidder - me) % self.n] = 1.0
        caps = g.caps
        if caps:
            o = self.codec._o_seats
            n = self.n
            for s, cap in caps.items():
                r = o + 4 * ((s - me) % n)
                w[r + 2] = 1.0
                w[r + 3] = cap * ms

    def _countdown(self, w: Any, me: int, stage: str) -> None:
        g, c = self.game, self.codec
        n, o = c.seats, c._o_countdown
        w[o] = 1.0
        if stage is ST.CLAIM:
            claims = g.claims
            w[o + 1] = len(claims) / n
            w[o + 3] = 0.1 * (claims.get(me) or 0)  # its own sealed claim, nobody else's
        else:
            w[o + 2] = 0.1 * (g.claim_count or 0)
            claimant = g.claimant
            if claimant >= 0:
                w[o + 4 + (claimant - me) % n] = 1.0
        w[o + 4 + n + g.card - c.n_species] = 1.0
