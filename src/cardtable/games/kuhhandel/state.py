"""The Kuhhandel game: state, requests, validation and the rules of play.

The state is plain lists of small ints (counts per species, counts per note value) so that a game
is cheap to play and to copy. Each ``_on_<kind>`` handler first validates the action completely and
only then mutates, so a refused action changes nothing.

Sections of ``kuhhandel-rules.md`` are named next to the code that implements them.
"""

from __future__ import annotations

import copy
import random
import sys
from collections.abc import Sequence
from itertools import compress
from typing import Any, Final, NoReturn

from cardtable.core.contract import (
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    Request,
    Result,
    Termination,
    places_from_keys,
)
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import payment_problem, to_notes, wallet_value
from cardtable.games.kuhhandel.observe import KuhhandelObservation, observe
from cardtable.games.kuhhandel.rules import RuleSet
from cardtable.games.kuhhandel.stages import (
    AUCTION_STAGES,
    BID,
    CLAIM,
    DIVIDE,
    OFFER,
    OVER,
    PAY,
    PREEMPT,
    RAT,
    RESPOND,
    SELL_OR_BUY,
    TURN,
)

# Hot path: build Request/Event tuples without the Python-level NamedTuple constructor. (``Final``
# module names are constants to the optional compiled build, not looked up at every use.)
_new: Final = tuple.__new__
_REQUEST: Final = Request
_EVENT: Final = Event
# The action classes and values used at run time, as module constants: one name each instead of
# ``A.<name>`` (the compiled build reads ``Final`` names as C constants, not by lookup).
_Accept: Final = A.Accept
_Auction: Final = A.Auction
_Bid: Final = A.Bid
_Buy: Final = A.Buy
_Challenge: Final = A.Challenge
_Claim: Final = A.Claim
_Counter: Final = A.Counter
_Draw: Final = A.Draw
_Keep: Final = A.Keep
_Offer: Final = A.Offer
_Pass: Final = A.Pass
_Pay: Final = A.Pay
_PlaceNote: Final = A.PlaceNote
_Preempt: Final = A.Preempt
_Sell: Final = A.Sell
_TakeRat: Final = A.TakeRat
_AUCTION: Final = A.AUCTION
_BUY: Final = A.BUY
_DRAW: Final = A.DRAW
_GIVE: Final = A.GIVE
_KEEP: Final = A.KEEP
_KNOCK: Final = A.KNOCK
_PASS: Final = A.PASS
_PREEMPT: Final = A.PREEMPT
_RELEASE: Final = A.RELEASE
_SELL: Final = A.SELL
_TAKE_RAT: Final = A.TAKE_RAT
_from_json: Final = A.from_json
_SELL_OR_BUY: Final[tuple[A.Action, ...]] = (_SELL, _BUY)
_SELL_ONLY: Final[tuple[A.Action, ...]] = (_SELL,)
# Every possible challenge per (seats, species), built once (actions are immutable values).
_CHALLENGES: Final[dict[tuple[int, int], list[list[A.Challenge]]]] = {}


def _challenges(seats: int, n_species: int) -> list[list[A.Challenge]]:
    """``[opponent][species]``: the challenge values (species ``n_species`` is the rats)."""
    table = _CHALLENGES.get((seats, n_species))
    if table is None:
        table = [[_Challenge(o, k) for k in range(n_species + 1)] for o in range(seats)]
        _CHALLENGES[seats, n_species] = table
    return table


# Events are logged compactly as ``(maker, *values)`` on the hot paths and built into
# :class:`Event` values only when someone reads them (:meth:`KuhhandelGame.events`). Every value
# logged is immutable (ints, strings, tuples), so a late build gives the event it would have been.
def _seat_event(kind: str, seat: int) -> Event:
    event: Event = _new(_EVENT, (kind, {"seat": seat}, None))
    return event


def _seat_count_event(kind: str, seat: int, count: int) -> Event:
    event: Event = _new(_EVENT, (kind, {"seat": seat, "count": count}, None))
    return event


def _bid_event(seat: int, amount: int) -> Event:
    event: Event = _new(_EVENT, ("bid", {"seat": seat, "amount": amount}, None))
    return event


def _turn_event(seat: int, turn: int) -> Event:
    event: Event = _new(_EVENT, ("turn", {"seat": seat, "turn": turn}, None))
    return event


def _card_event(kind: str, seat: int, card: int, name: str) -> Event:
    event: Event = _new(_EVENT, (kind, {"seat": seat, "card": card, "name": name}, None))
    return event


def _draw_event(kind: str, seat: int, card: int, name: str, deck: int) -> Event:
    data = {"seat": seat, "card": card, "name": name, "deck": deck}
    event: Event = _new(_EVENT, (kind, data, None))
    return event


def _auction_event(seat: int, card: int) -> Event:
    event: Event = _new(_EVENT, ("auction", {"seat": seat, "card": card}, None))
    return event


def _closed_event(high: int, high_bidder: int) -> Event:
    event: Event = _new(_EVENT, ("closed", {"high": high, "high_bidder": high_bidder}, None))
    return event


def _decision_event(seat: int, buy: bool, why: str) -> Event:
    event: Event = _new(_EVENT, ("decision", {"seat": seat, "buy": buy, "for": why}, None))
    return event


def _payment_event(payer: int, payee: int, count: int, amount: int, why: str) -> Event:
    data = {"from": payer, "to": payee, "count": count, "amount": amount, "for": why}
    event: Event = _new(_EVENT, ("payment", data, None))
    return event


def _payment_notes_event(payer: int, payee: int, notes: tuple[int, ...]) -> Event:
    data = {"from": payer, "to": payee, "notes": list(notes)}
    event: Event = _new(_EVENT, ("payment_notes", data, (payer, payee)))
    return event


def _challenge_event(seat: int, opponent: int, species: int, name: str, cards: int) -> Event:
    data = {"seat": seat, "opponent": opponent, "species": species, "name": name, "cards": cards}
    event: Event = _new(_EVENT, ("challenge", data, None))
    return event


def _trade_event(
    c: int,
    o: int,
    k: int,
    name: str,
    n: int,
    winner: int,
    offer: tuple[int, ...],
    counter: tuple[int, ...] | None,
) -> Event:
    data = {
        "challenger": c,
        "opponent": o,
        "species": k,
        "name": name,
        "cards": n,
        "winner": winner,
        "offer_count": len(offer),
        "counter_count": None if counter is None else len(counter),
    }
    event: Event = _new(_EVENT, ("trade", data, None))
    return event


def _trade_notes_event(
    c: int, o: int, offer: tuple[int, ...], counter: tuple[int, ...] | None
) -> Event:
    data = {
        "challenger": c,
        "opponent": o,
        "offer": list(offer),
        "counter": None if counter is None else list(counter),
    }
    event: Event = _new(_EVENT, ("trade_notes", data, (c, o)))
    return event


# The game's attributes: its slots, and what a copy takes over.
_STATE: Final = (
    "_seats",
    "_ask",
    "_challenges",
    "_draw_action",
    "_events",
    "_history",
    "_log",
    "_n_species",
    "_note_index",
    "_notes",
    "_obs_cache",
    "_open",
    "_order",
    "_orders",
    "_pass_logged",
    "_passed",
    "_payouts",
    "_pending",
    "_purse",
    "_raise",
    "_rat_ask",
    "_rat_card",
    "_rng",
    "_rounds",
    "_rules",
    "_set_size",
    "_species_range",
    "_turn_choices",
    "amount",
    "arranged",
    "bank",
    "bid_round",
    "bids",
    "caps",
    "card",
    "card_moves",
    "card_names",
    "card_to",
    "challenger",
    "claim_count",
    "claimant",
    "claims",
    "deck",
    "drawn",
    "end_phase",
    "end_reason",
    "end_turns",
    "exposed",
    "first_seat",
    "herds",
    "high",
    "high_bidder",
    "lot",
    "note_moves",
    "offer",
    "opponent",
    "pay_reason",
    "payee",
    "payer",
    "pedigrees",
    "peek",
    "quiet",
    "rat_pile",
    "rats",
    "removed",
    "reserve",
    "round_bid",
    "seats",
    "seed",
    "stage",
    "stake",
    "termination",
    "tie_rounds",
    "trade_species",
    "traded_this_turn",
    "turn_seat",
    "turns",
    "wallets",
)
_UNSET: Final = object()


#: The English words of a refusal to a seat whose turn it is not, by request kind (the catalog's
#: ``refusal.kuhhandel.not_your_turn`` says them in a person's language).
_TURN_WORDS: Final = {
    "turn": "choose a turn",
    "sell_or_buy": "sell or buy",
    "offer": "make an offer",
    "respond": "answer the cow trade",
    "preempt": "pre-empt or release",
    "divide": "keep or give",
    "rat": "answer the rat",
}


class KuhhandelGame(Game):
    """A game of Kuhhandel under any :class:`RuleSet` (create it with :func:`new_game`).

    Besides the state the rules need, two public read-only counters say when things moved, for
    followers such as the RL environment (which keep copies of the engine's lists and need not
    compare them while a counter stands still):

    - ``card_moves`` goes up whenever the deck, ``drawn``, ``herds``, ``rats`` or ``pedigrees``
      change (a card drawn, laid, given or traded);
    - ``note_moves`` goes up whenever ``wallets``, ``bank`` or ``reserve`` change (a payout, a
      payment, a trade's notes, a rat's pile).

    Only the change of a counter means something (not its value); a copy keeps them.
    """

    name = "kuhhandel"
    record_version = 1
    # Slots: CPython 3.11 keeps at most 30 attributes in an instance's shared-key values; this game
    # has about 75, so without slots its instances fall back to a plain dict, and every method call
    # on ``self`` looks the name up there (unspecialised). Names not listed still work (``Game``
    # has no slots, so instances keep a ``__dict__``).
    __slots__ = _STATE

    def __init__(self, rules: RuleSet, seats: int, seed: int) -> None:
        if not rules.min_seats <= seats <= rules.max_seats:
            raise ValueError(
                f"rule set {rules.name!r} is for {rules.min_seats}–{rules.max_seats} seats, "
                f"not {seats}"
            )
        self._rules = rules
        self._open = rules.auction_style == "open"
        self._rounds = not self._open
        self._raise = rules.min_raise
        self.seats = seats
        # internal reads use _seats: in the compiled build ``seats`` (declared by ``Game``) lives in
        # the instance dict, _seats in the native object
        self._seats = seats
        self.seed = seed
        self._rng = random.Random(seed)
        self._notes = rules.notes
        self._note_index = {v: i for i, v in enumerate(rules.notes)}
        self._set_size = [s.cards for s in rules.species]
        n_species = len(rules.species)
        self._n_species = n_species
        self._species_range = range(n_species)
        # Cards: species k is k; (Master) the pedigree of species k is n_species + k; a rat is
        # 2 * n_species.
        self._rat_card = 2 * n_species
        names = [s.name for s in rules.species]
        self.card_names = names + [f"{n} pedigree" for n in names] + ["Rat"]
        deck = [k for k, s in enumerate(rules.species) for _ in range(s.cards)]
        if rules.pedigrees:
            deck += [n_species + k for k in range(n_species)]
        deck += [self._rat_card] * rules.rats
        self._rng.shuffle(deck)
        self.deck: list[int] = deck  # the top card is the last one
        self.herds: list[list[int]] = [[0] * n_species for _ in range(seats)]
        self.pedigrees: list[list[int]] = [[] for _ in range(seats)]
        self.rats: list[int] = [0] * seats
        self.wallets: list[list[int]] = [list(rules.start_wallet) for _ in range(seats)]
        if rules.supply is None:
            self.bank: list[int] | None = None
        else:
            self.bank = [
                s - w * seats for s, w in zip(rules.supply, rules.start_wallet, strict=True)
            ]
        self.drawn = [0] * n_species
        self.card_moves = 0  # see the class docstring
        self.note_moves = 0
        first = 0 if rules.first_seat == "zero" else self._rng.randrange(seats)
        self.first_seat = first
        self.turn_seat = first
        self.turns = 0  # turns begun in the draw phase
        self.end_phase = False
        self.end_turns = 0  # turns (taken or skipped) in the end phase
        self.stage = TURN
        self.termination: Termination | None = None
        self.end_reason = ""
        self._history: list[tuple[int, A.Action]] = []
        # Every event in order: an Event, or (maker, *values) for one built when read.
        self._log: list[Any] = []
        self._events: list[Event] = []  # the events built so far (a prefix of the log)
        # auction
        self.card = -1
        self.high = 0
        self.high_bidder = -1
        self.bids: list[tuple[int, int]] = []  # (seat, amount); amount 0 = pass
        self.bid_round = 0
        self.round_bid = False
        self._order: tuple[int, ...] = ()
        # Each seat's money while an auction is open (no note moves during the bidding).
        self._purse: list[int] = []
        self._ask = 0
        self.caps: dict[int, int] = {}  # seat -> most it may bid (exposed this card)
        self.exposed: dict[int, tuple[int, ...]] = {}  # seat -> revealed notes (this card)
        self.quiet: set[int] = set()  # open auctions: bidders that passed since the last bid
        # payment
        self.payer = -1
        self.payee = -1
        self.amount = 0
        self.pay_reason = ""
        # cow trade
        self.challenger = -1
        self.opponent = -1
        self.trade_species = -1
        self.stake = 0
        self.offer: tuple[int, ...] | None = None
        self.tie_rounds = 0
        self.card_to = -1  # who receives the lot once the payment is made
        self.lot: list[int] = []  # cards sold together (one, or two with double_auction)
        # Master (§9, §10)
        self.rat_pile: list[int] = []  # note values placed face down beside the rat
        self._rat_ask = 0
        self.claims: dict[int, int] = {}  # sealed pedigree claims (count; 0 = none)
        self.claimant = -1
        self.claim_count = 0
        self.peek = -1  # the duel: the card the divider looked at
        self.traded_this_turn = False
        self.reserve: list[int] | None = None  # the duel: donkey notes laid aside openly
        self.removed: list[int] = [0] * len(rules.notes)  # the duel: notes taken out at random
        if rules.duel:
            self._set_aside_duel_notes()
        self._pending: tuple[Request, ...] | None = None
        self._turn_choices: tuple[A.Action, ...] | None = None
        self._obs_cache: tuple[tuple[int, int], dict[str, Any]] | None = None
        self._challenges = _challenges(seats, n_species)
        self._draw_action: A.Action = _DRAW if rules.duel else _AUCTION
        self._payouts = [s.payouts for s in rules.species]
        # The other seats in order from each seat's left (auctions, countdowns).
        # Shared by every auction and countdown, so tuples (nobody may change them).
        self._orders = [tuple((t + i) % seats for i in range(1, seats)) for t in range(seats)]
        # A pass as it goes into ``bids`` and into the log (immutable, so shared).
        self._passed = [(s, 0) for s in range(seats)]
        self._pass_logged = [(_seat_event, "pass", s) for s in range(seats)]
        self._event("start", {"seats": seats, "first": first, "deck": len(deck)})
        self._begin_turn()

    # Copies: what ``copy.copy``/``copy.deepcopy`` would do by default, written out so that the
    # compiled build (whose classes the default protocol cannot rebuild) copies the same way. A
    # fresh game of the same table, then every attribute that is set taken over (deep-copied for
    # deepcopy).
    def __copy__(self) -> KuhhandelGame:
        return self._twin(None)

    def __deepcopy__(self, memo: dict[int, Any]) -> KuhhandelGame:
        return self._twin(memo)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling: the same fresh game and attributes (stages are compared with ``is``: the
        # rebuilt game interns its strings again, see _rebuild).
        state = {n: v for n in _STATE if (v := getattr(self, n, _UNSET)) is not _UNSET}
        return (_rebuild, (self._rules, self._seats, self.seed, state))

    def _twin(self, memo: dict[int, Any] | None) -> KuhhandelGame:
        twin = KuhhandelGame(self._rules, self._seats, self.seed)
        if memo is not None:
            memo[id(self)] = twin
        for name in _STATE:
            value = getattr(self, name, _UNSET)
            if value is not _UNSET:
                setattr(twin, name, value if memo is None else copy.deepcopy(value, memo))
        return twin

    def _set_aside_duel_notes(self) -> None:
        """§10 setup: the payout notes are laid aside openly, ten random notes leave the game."""
        bank = self.bank
        if bank is None:
            return
        reserve = [0] * len(self._notes)
        for sp in self._rules.species:
            for p in sp.payouts:
                if p:
                    i = self._note_index[p]
                    take = min(self._seats, bank[i])
                    reserve[i] += take
                    bank[i] -= take
        self.reserve = reserve
        self.note_moves += 1
        pool = [i for i, c in enumerate(bank) for _ in range(c)]
        for i in self._rng.sample(pool, min(self._rules.duel_removed_notes, len(pool))):
            bank[i] -= 1
            self.removed[i] += 1

    def arrange(
        self,
        *,
        deck: Sequence[int] | None = None,
        herds: Sequence[Sequence[int]] | None = None,
        wallets: Sequence[Sequence[int]] | None = None,
        turn_seat: int | None = None,
        drawn: Sequence[int] | None = None,
        rats: Sequence[int] | None = None,
        pedigrees: Sequence[Sequence[int]] | None = None,
    ) -> KuhhandelGame:
        """Set up a position by hand before the first action (for tests, puzzles and teaching).

        ``deck`` lists cards with the top card *first*; ``wallets`` are counts per note value. The
        bank is not adjusted. An arranged game has no seed record (:meth:`record` refuses).
        """
        if self._history:
            raise RuntimeError("arrange() only before the first action")
        if deck is not None:
            self.deck = list(reversed(deck))
        if herds is not None:
            self.herds = [list(h) for h in herds]
        if wallets is not None:
            self.wallets = [list(w) for w in wallets]
        if drawn is not None:
            self.drawn = list(drawn)
        if rats is not None:
            self.rats = list(rats)
        if pedigrees is not None:
            self.pedigrees = [list(p) for p in pedigrees]
        if turn_seat is not None:
            self.turn_seat = turn_seat
        self.arranged = True
        self.card_moves += 1
        self.note_moves += 1
        self._obs_cache = None
        self.turns = 0
        self._log.clear()
        self._events.clear()
        self._pending = None
        self._begin_turn()
        return self

    def record(self) -> Any:
        if getattr(self, "arranged", False):
            raise RuntimeError("an arranged position has no seed record")
        return super().record()

    # ------------------------------------------------------------------ contract: reading
    @property
    def rules(self) -> RuleSet:
        return self._rules

    def rules_json(self) -> dict[str, Any]:
        return self._rules.to_json()

    def is_over(self) -> bool:
        return self.stage is OVER

    def history(self) -> Sequence[tuple[int, A.Action]]:
        return self._history

    def events(self, since: int = 0) -> Sequence[Event]:
        events = self._events
        if len(events) < len(self._log):
            for entry in self._log[len(events) :]:
                events.append(entry if type(entry) is Event else entry[0](*entry[1:]))
        return events[since:] if since else events

    def action_to_json(self, action: Any) -> dict[str, Any]:
        if not isinstance(action, A.Action):
            action = _from_json(action)  # its JSON form is accepted, as apply() accepts it
        data: dict[str, Any] = action.to_json()
        return data

    def action_from_json(self, data: Any) -> A.Action:
        return _from_json(data)

    def money(self, seat: int) -> int:
        """Total value of ``seat``'s notes."""
        return wallet_value(self.wallets[seat], self._notes)

    def note_count(self, seat: int) -> int:
        return sum(self.wallets[seat])

    def can_trade(self, seat: int) -> bool:
        """Whether ``seat`` may start a cow trade (§3): a species both it and another seat own."""
        mine = self.herds[seat]
        for other in range(self._seats):
            if other != seat:
                theirs = self.herds[other]
                for k in range(self._n_species):
                    if mine[k] and theirs[k]:
                        return True
        return False

    def legal_trades(self, seat: int) -> list[A.Challenge]:
        """Every cow trade ``seat`` may start (§5.1): both own the species, neither completely."""
        out: list[A.Challenge] = []
        self._add_trades(out, seat)
        return out

    def _add_trades(self, out: list[Any], seat: int) -> None:
        """Append :meth:`legal_trades` of ``seat`` to ``out``."""
        mine = self.herds[seat]
        owned = list(compress(self._species_range, mine))  # the species it owns, in order
        rats = self.rats
        my_rats = rats[seat]
        if not owned and not my_rats:
            return
        herds = self.herds
        challenges = self._challenges
        n = self._n_species
        for other in range(self._seats):
            if other == seat:
                continue
            theirs = herds[other]
            row = challenges[other]
            # both own >= 1 card, so neither can own the whole set (§5.6)
            for k in owned:
                if theirs[k]:
                    out.append(row[k])
            if my_rats and rats[other]:  # §9.4 rats are challenged like a species
                out.append(row[n])

    def pending(self) -> Sequence[Request]:
        p = self._pending
        if p is None:
            if self.stage is BID and self._rounds:  # the most frequent request by far
                seat = self._order[self._ask]
                high = self.high
                caps = self.caps
                info = {
                    "card": self.card,
                    "high": high,
                    "high_bidder": self.high_bidder if self.high_bidder >= 0 else None,
                    "min": high + self._raise if high else self._raise,
                    "max": caps.get(seat) if caps else None,
                    "round": self.bid_round,
                    "money": self._purse[seat],
                }
                p = (_new(_REQUEST, (seat, BID, None, info)),)
            else:
                p = self._build_pending()
            self._pending = p
        return p

    def _build_pending(self) -> tuple[Request, ...]:
        stage = self.stage
        if stage is BID:
            if not self._open:
                return (self._bid_request(self._order[self._ask]),)
            reqs = [self._bid_request(s) for s in self._open_bidders()]
            reqs.append(
                Request(self.turn_seat, "knock", (_KNOCK,), {"card": self.card, "high": self.high})
            )
            return tuple(reqs)
        if stage is TURN:
            info: dict[str, Any] = {"end_phase": self.end_phase}
            return (_new(_REQUEST, (self.turn_seat, TURN, self._turn_choices, info)),)
        if stage is PAY:
            key = "count" if self.pay_reason == "pedigree" else "amount"
            info = {
                key: self.amount,
                "to": self.payee,
                "for": self.pay_reason,
                "wallet": self._wallet_list(self.payer),
            }
            return (_new(_REQUEST, (self.payer, PAY, None, info)),)
        if stage is SELL_OR_BUY:
            can_buy = self.turn_seat not in self.caps or self._purse[self.turn_seat] >= self.high
            choices: tuple[A.Action, ...] = _SELL_OR_BUY if can_buy else _SELL_ONLY
            info = {"card": self.card, "high": self.high, "high_bidder": self.high_bidder}
            return (_new(_REQUEST, (self.turn_seat, SELL_OR_BUY, choices, info)),)
        if stage is OFFER:
            info = {
                "opponent": self.opponent,
                "species": self.trade_species,
                "cards": self.stake,
                "again": self.tie_rounds > 0,
                "wallet": self._wallet_list(self.challenger),
            }
            return (_new(_REQUEST, (self.challenger, OFFER, None, info)),)
        if stage is CLAIM:
            return tuple(
                self._claim_request(s) for s in self._countdown_order() if s not in self.claims
            )
        if stage is PREEMPT:
            can = sum(self.wallets[self.turn_seat]) >= self.claim_count
            return (
                Request(
                    self.turn_seat,
                    PREEMPT,
                    (_PREEMPT, _RELEASE) if can else (_RELEASE,),
                    {"claimant": self.claimant, "count": self.claim_count, "card": self.card},
                ),
            )
        if stage is RAT:
            return (self._rat_request(),)
        if stage is DIVIDE:
            return (
                Request(
                    self.turn_seat,
                    DIVIDE,
                    (_KEEP, _GIVE),
                    {
                        "card": self.peek,
                        "name": self.card_names[self.peek],
                        "next": bool(self.deck),
                    },
                ),
            )
        if stage is RESPOND:
            info = {
                "challenger": self.challenger,
                "species": self.trade_species,
                "cards": self.stake,
                "offer_notes": len(self.offer or ()),
                "again": self.tie_rounds > 0,
                "wallet": self._wallet_list(self.opponent),
            }
            return (_new(_REQUEST, (self.opponent, RESPOND, None, info)),)
        return ()

    def _wallet_list(self, seat: int) -> list[int]:
        """The seat's own notes, smallest first, for the info of a request addressed to it only."""
        out: list[int] = []
        notes = self._notes
        for i, c in enumerate(self.wallets[seat]):
            if c:
                out += [notes[i]] * c
        return out

    def _bid_request(self, seat: int) -> Request:
        high = self.high
        info = {
            "card": self.card,
            "high": high,
            "high_bidder": self.high_bidder if self.high_bidder >= 0 else None,
            "min": high + self._raise if high else self._raise,
            "max": self.caps.get(seat),
            "round": self.bid_round,
            "money": self._purse[seat],
        }
        request: Request = _new(_REQUEST, (seat, BID, None, info))
        return request

    def _open_bidders(self) -> list[int]:
        low = self.high + self._rules.min_raise if self.high else self._rules.min_raise
        return [
            s
            for s in self._order
            if s != self.high_bidder and s not in self.quiet and self.caps.get(s, low) >= low
        ]

    # ------------------------------------------------------------------ contract: acting
    def apply(self, seat: object, action: Any) -> None:
        # ``seat`` is checked here, not by its type: the compiled build would otherwise turn a
        # wrong type into a TypeError (and take ``True`` for seat 1) instead of InvalidAction.
        # The checks below narrow it to an int.
        if self.stage is BID and self._rounds and type(seat) is int:
            # The most frequent answer by far: a bid or a pass from the seat asked (§4.3).
            kind = type(action)
            if (kind is _Pass or kind is _Bid) and seat == self._order[self._ask]:
                if kind is _Pass:
                    self.bids.append(self._passed[seat])
                    self._log.append(self._pass_logged[seat])
                else:
                    amount = action.amount
                    high = self.high
                    if self.caps or amount < (high + self._raise if high else self._raise):
                        self._take_bid(seat, amount)  # the checks with caps (or the refusal)
                    else:  # _take_bid without caps, for a bid that raises enough
                        self.high = amount
                        self.high_bidder = seat
                        self.round_bid = True
                        self.bids.append((seat, amount))
                        self._log.append((_bid_event, seat, amount))
                # the next seat in order, unless that needs the full rules
                ask = self._ask + 1
                order = self._order
                if ask < len(order) and not self.caps and order[ask] != self.high_bidder:
                    self._ask = ask
                else:
                    self._advance_bidding()
                self._history.append((seat, action))
                self._pending = None
                return
        if type(seat) is not int or not 0 <= seat < self._seats:
            raise InvalidAction(
                f"no seat {seat!r} in a {self._seats}-seat game",
                "kuhhandel.no_seat",
                seat=repr(seat),
                seats=self._seats,
            )
        if not isinstance(action, A.Action):
            action = _from_json(action)
        stage = self.stage
        if stage is OVER:
            raise IllegalAction("the game is over", "kuhhandel.game_over")
        if stage is BID:
            self._on_bid(seat, action)
        elif stage is TURN:
            if seat != self.turn_seat:
                self._check_seat(seat, self.turn_seat, "turn")
            self._on_turn(seat, action)
        elif stage is PAY:
            if seat != self.payer:
                self._check_seat(seat, self.payer, "pay")
            self._on_pay(seat, action)
        elif stage is SELL_OR_BUY:
            if seat != self.turn_seat:
                self._check_seat(seat, self.turn_seat, "sell_or_buy")
            self._on_sell_or_buy(seat, action)
        elif stage is OFFER:
            if seat != self.challenger:
                self._check_seat(seat, self.challenger, "offer")
            self._on_offer(seat, action)
        elif stage is RESPOND:
            if seat != self.opponent:
                self._check_seat(seat, self.opponent, "respond")
            self._on_respond(seat, action)
        elif stage is CLAIM:
            self._on_claim(seat, action)
        elif stage is PREEMPT:
            if seat != self.turn_seat:
                self._check_seat(seat, self.turn_seat, "preempt")
            self._on_preempt(seat, action)
        elif stage is RAT:
            self._on_rat(seat, action)
        elif stage is DIVIDE:
            if seat != self.turn_seat:
                self._check_seat(seat, self.turn_seat, "divide")
            self._on_divide(seat, action)
        else:  # pragma: no cover - every stage is handled above
            raise IllegalAction(
                f"nothing to do in stage {stage}", "kuhhandel.no_stage", stage=str(stage)
            )
        self._history.append((seat, action))
        self._pending = None

    def _check_seat(self, seat: int, expected: int, what: str) -> None:
        """Refuse ``seat`` when ``expected`` must decide; ``what`` is the request kind."""
        if seat != expected:
            words = _TURN_WORDS.get(what, what)
            raise IllegalAction(
                f"it is seat {expected}'s turn to {words}, not seat {seat}'s",
                "kuhhandel.not_your_turn",
                expected=expected,
                seat=seat,
                what=what,
            )

    def _expect(self, action: A.Action, *types: type[A.Action]) -> None:
        if not isinstance(action, types):
            wanted = " or ".join(t.kind for t in types)
            raise IllegalAction(
                f"expected {wanted} now (stage {self.stage}), not {action.kind}",
                "kuhhandel.expected",
                wanted="/".join(t.kind for t in types),
                kind=action.kind,
            )

    def _event(self, kind: str, data: dict[str, Any], to: tuple[int, ...] | None = None) -> None:
        self._log.append(_new(_EVENT, (kind, data, to)))

    # ------------------------------------------------------------------ §3 turn
    def _begin_turn(self) -> None:
        """Start the turn of ``turn_seat`` (or skip, or end the game)."""
        rules = self._rules
        while True:
            if not self.end_phase:
                if self.deck:
                    if self.turns >= rules.max_turns:
                        self._finish(Termination.CAP, f"max_turns ({rules.max_turns}) reached")
                        return
                    self.turns += 1
                    self.traded_this_turn = False
                    choices = [self._draw_action]
                    self._add_trades(choices, self.turn_seat)
                    self._turn_choices = tuple(choices)
                    self.stage = TURN
                    self._log.append((_turn_event, self.turn_seat, self.turns))
                    return
                self.end_phase = True
                self._event("end_phase", {})
            # §6: the end phase, a compulsory cow trade each turn; seats that cannot are skipped
            if not any(self.can_trade(s) for s in range(self._seats)):
                self._finish(Termination.NORMAL, "every quartet is complete")
                return
            if self.end_turns >= rules.max_end_phase_rounds * self._seats:
                self._finish(
                    Termination.CAP,
                    f"max_end_phase_rounds ({rules.max_end_phase_rounds}) reached",
                )
                return
            self.end_turns += 1
            challenges = self.legal_trades(self.turn_seat)
            # §9.4 rats never make a trade compulsory: a seat with only rat trades is skipped
            if any(t.species < self._n_species for t in challenges):
                self._turn_choices = tuple(challenges)
                self.stage = TURN
                self._event("turn", {"seat": self.turn_seat, "end_phase": True})
                return
            self._event("skip", {"seat": self.turn_seat})
            self.turn_seat = (self.turn_seat + 1) % self._seats

    def _end_turn(self) -> None:
        self.turn_seat = (self.turn_seat + 1) % self._seats
        self._begin_turn()

    def _on_turn(self, seat: int, action: A.Action) -> None:
        choices = self._turn_choices or ()
        for choice in choices:  # the request's own choice objects are found by identity
            if choice is action:
                break
        else:
            if action not in choices:
                self._refuse_turn(seat, action)
        if isinstance(action, _Auction):
            self._draw()
        elif isinstance(action, _Draw):
            self._start_division(seat)
        elif isinstance(action, _Pass):  # the super trade's optional auction declined
            self._end_turn()
        else:
            assert isinstance(action, _Challenge)
            self._start_trade(seat, action.opponent, action.species)

    def _refuse_turn(self, seat: int, action: A.Action) -> NoReturn:
        """Why ``action`` is not one of this turn's choices (always raises)."""
        if isinstance(action, _Auction | _Draw) and not self.deck:
            raise IllegalAction(
                "the deck is empty: every turn is a cow trade now (§6)", "kuhhandel.deck_empty"
            )
        if isinstance(action, _Auction) and self._rules.duel:
            raise IllegalAction(
                "the duel has no auctions: draw to divide instead (§10)",
                "kuhhandel.duel_no_auction",
            )
        if isinstance(action, _Draw) and not self._rules.duel:
            raise IllegalAction(
                "dividing is for the duel; here you auction (§4)", "kuhhandel.divide_duel_only"
            )
        if isinstance(action, _Pass):
            raise IllegalAction(
                "passing the turn is only possible after a super trade (§9.5)",
                "kuhhandel.pass_after_super_trade",
            )
        if isinstance(action, _Challenge):
            self._refuse_trade(seat, action)
        raise IllegalAction(
            f"on your turn, auction or challenge; not {action.kind}",
            "kuhhandel.turn_choice",
            kind=action.kind,
        )

    def _refuse_trade(self, seat: int, c: A.Challenge) -> NoReturn:
        """Why the cow trade ``c`` is not one of this turn's choices (always raises)."""
        opponent = c.opponent
        if not 0 <= opponent < self._seats or opponent == seat:
            raise IllegalAction(
                f"seat {opponent} is not another seat at this table",
                "kuhhandel.trade_no_opponent",
                opponent=opponent,
            )
        if c.species == self._n_species and self._rules.rats:
            raise IllegalAction(
                "a rat trade needs rats on both sides (§9.4)", "kuhhandel.rat_trade_needs_rats"
            )
        if not 0 <= c.species < self._n_species:
            raise IllegalAction(
                f"there is no species {c.species}", "kuhhandel.no_species", species=c.species
            )
        name = self._rules.species[c.species].name
        if not self.herds[seat][c.species]:
            raise IllegalAction(
                f"you own no {name} (§5.1)", "kuhhandel.trade_you_own_none", animal=name
            )
        if not self.herds[opponent][c.species]:
            raise IllegalAction(
                f"seat {opponent} owns no {name} (§5.1)",
                "kuhhandel.trade_they_own_none",
                opponent=opponent,
                animal=name,
            )
        raise IllegalAction(
            f"that cow trade is not allowed now ({name})", "kuhhandel.trade_not_now", animal=name
        )

    # ------------------------------------------------------------------ §4 auction
    def _draw(self) -> None:
        card = self.deck.pop()
        self.card_moves += 1
        self.card = card
        self.lot = [card]
        n = self._n_species
        self._announce(card)
        if card >= n:
            if card == self._rat_card:
                self._start_rat_round()
            else:
                self._start_countdown()
            return
        if self._rules.double_auction and self.deck and self.deck[-1] < n:
            second = self.deck.pop()  # §9.5 double auction: two animals as one lot
            self.lot.append(second)
            self._announce(second)
        self.caps = {}
        self.exposed = {}
        self._open_auction()

    def _announce(self, card: int, laid_for: int | None = None) -> None:
        """Show a drawn card and pay its donkey money (§4.1).

        ``laid_for``: the duel lays a divided card face up in front of that seat (§10).
        """
        payout = 0
        if card < self._n_species:
            nth = self.drawn[card]
            self.drawn[card] = nth + 1
            payout = self._payouts[card][nth]
        name = self.card_names[card]
        if laid_for is None:
            self._log.append((_draw_event, "draw", self.turn_seat, card, name, len(self.deck)))
        else:
            self._log.append((_draw_event, "laid", laid_for, card, name, len(self.deck)))
        if payout:
            self._pay_out(payout)

    def _pay_out(self, value: int) -> None:
        """§4.1 donkey payout: every seat, auctioneer included, gets a note of ``value``."""
        i = self._note_index[value]
        got = []
        stock = self.reserve if self.reserve is not None else self.bank
        for s in range(self._seats):
            if stock is not None:
                if stock[i] == 0:
                    continue  # §2: an exhausted stock pays nothing
                stock[i] -= 1
            self.wallets[s][i] += 1
            got.append(s)
        self.note_moves += 1
        self._event("payout", {"note": value, "seats": got})

    def _open_auction(self) -> None:
        self._order = self._orders[self.turn_seat]
        self.high = 0
        self.high_bidder = -1
        self.bids = []
        self.bid_round = 1
        self.round_bid = False
        self.quiet = set()
        self._ask = -1
        notes = self._notes
        purse = []
        for w in self.wallets:  # wallet_value() inline (hot path): a native loop when compiled
            money = 0
            for i, c in enumerate(w):
                if c:
                    money += c * notes[i]
            purse.append(money)
        self._purse = purse
        self.stage = BID
        self._log.append((_auction_event, self.turn_seat, self.card))
        self._advance_bidding()

    def _advance_bidding(self) -> None:
        """Rounds style: move to the next seat to ask, or close the auction (§4.3)."""
        if self._open:
            if not self._open_bidders():
                self._close_auction()
            return
        order = self._order
        high_bidder = self.high_bidder
        caps = self.caps
        ask = self._ask
        while True:
            ask += 1
            if ask >= len(order):
                limit = self._rules.max_bidding_rounds
                if not self.round_bid or (limit is not None and self.bid_round >= limit):
                    self._ask = ask
                    self._close_auction()
                    return
                self.bid_round += 1
                self.round_bid = False
                ask = 0
            seat = order[ask]
            if seat == high_bidder:
                continue
            if caps:
                low = self.high + self._raise if self.high else self._raise
                if caps.get(seat, low) < low:
                    continue  # an exposed seat that may not bid this much is not asked
            self._ask = ask
            return

    def _on_bid(self, seat: int, action: A.Action) -> None:
        if self._open:
            self._on_open_bid(seat, action)
            return
        expected = self._order[self._ask]
        if seat != expected:
            self._check_seat(seat, expected, "bid")
        if isinstance(action, _Pass):
            self.bids.append((seat, 0))
            self._log.append((_seat_event, "pass", seat))
        elif isinstance(action, _Bid):
            self._take_bid(seat, action.amount)
        else:
            raise IllegalAction(
                f"expected bid or pass now, not {action.kind}",
                "kuhhandel.expected",
                wanted="bid/pass",
                kind=action.kind,
            )
        self._advance_bidding()

    def _take_bid(self, seat: int, amount: int) -> None:
        low = self.high + self._raise if self.high else self._raise
        if amount < low:
            raise IllegalAction(
                f"a bid must be at least {low} (§4.2), not {amount}",
                "kuhhandel.bid_too_low",
                low=low,
                amount=amount,
            )
        caps = self.caps
        if caps:
            cap = caps.get(seat)
            if cap is not None and amount > cap:
                raise IllegalAction(
                    f"your wallet was exposed: you may not bid more than {cap} on this card (§4.7)",
                    "kuhhandel.bid_over_cap",
                    cap=cap,
                )
        self.high = amount
        self.high_bidder = seat
        self.round_bid = True
        self.bids.append((seat, amount))
        self._log.append((_bid_event, seat, amount))

    def _on_open_bid(self, seat: int, action: A.Action) -> None:
        """Open auctions (§4.3): any bidder at any time; the auctioneer knocks it down."""
        if seat == self.turn_seat:
            self._expect(action, A.Knock)
            self._event("knock", {"seat": seat})
            self._close_auction()
            return
        if seat == self.high_bidder:
            raise IllegalAction("you hold the highest bid already", "kuhhandel.highest_bid_already")
        self._expect(action, A.Bid, A.Pass)
        if isinstance(action, _Bid):
            self._take_bid(seat, action.amount)
            self.quiet = set()
        else:
            if seat in self.quiet:
                raise IllegalAction(
                    "you passed already; bid, or wait for a new bid", "kuhhandel.passed_already"
                )
            self.bids.append((seat, 0))
            self.quiet.add(seat)
            self._event("pass", {"seat": seat})
        self._advance_bidding()

    def _close_auction(self) -> None:
        if self.high_bidder < 0:
            # §4.4 nobody bid: the auctioneer takes the card for free
            self._log.append(
                (_card_event, "no_bid", self.turn_seat, self.card, self.card_names[self.card])
            )
            for card in self.lot:
                self._give_card(self.turn_seat, card)
            self._end_turn()
            return
        self.stage = SELL_OR_BUY
        self._log.append((_closed_event, self.high, self.high_bidder))

    def _on_sell_or_buy(self, seat: int, action: A.Action) -> None:
        if not isinstance(action, (_Sell, _Buy)):
            self._expect(action, A.Sell, A.Buy)
        auctioneer = self.turn_seat
        if isinstance(action, _Buy):
            if auctioneer in self.caps and self._purse[auctioneer] < self.high:
                raise IllegalAction(
                    "your wallet was exposed: you may only buy when you can pay (§4.7)",
                    "kuhhandel.buy_exposed",
                )
            payer, payee = auctioneer, self.high_bidder
        else:
            payer, payee = self.high_bidder, auctioneer
        self._log.append((_decision_event, seat, isinstance(action, _Buy), "auction"))
        if self._purse[payer] < self.high:
            self._expose(payer)
            return
        self.payer, self.payee, self.amount, self.pay_reason = payer, payee, self.high, "auction"
        self.card_to = payer  # in an auction the payer gets the lot
        self.stage = PAY

    def _expose(self, seat: int) -> None:
        """§4.7 cannot pay: reveal the wallet, repeat the auction with a cap on that seat."""
        notes = to_notes(self.wallets[seat], self._notes)
        value = sum(notes)
        self.exposed[seat] = notes
        self.caps[seat] = value
        self._event("exposed", {"seat": seat, "notes": list(notes), "value": value})
        self._open_auction()

    def _on_pay(self, seat: int, action: A.Action) -> None:
        if not isinstance(action, _Pay):
            self._expect(action, A.Pay)
        assert isinstance(action, _Pay)
        left = self._own_notes(seat, action.notes)
        if self.pay_reason == "pedigree":
            # §9.2 paid by number of notes, not value (0-notes are fine)
            if len(action.notes) != self.claim_count:
                raise IllegalAction(
                    f"pay exactly {self.claim_count} notes of any value (§9.2), "
                    f"not {len(action.notes)}",
                    "kuhhandel.pedigree_pay_count",
                    count=self.claim_count,
                    given=len(action.notes),
                )
        else:
            problem = payment_problem(action.notes, self.amount)
            if problem:
                reason = f"not a valid payment of {self.amount}: {problem} (§4.6)"
                total, amount = sum(action.notes), self.amount
                if total < amount:
                    raise IllegalAction(reason, "kuhhandel.pay_short", total=total, amount=amount)
                least = min(action.notes)
                raise IllegalAction(
                    reason,
                    "kuhhandel.pay_no_change",
                    amount=amount,
                    note=least,
                    rest=total - least,
                )
        self._transfer(seat, self.payee, left, action.notes, self.pay_reason)
        for card in self.lot:
            self._give_card(self.card_to, card)
        self._end_turn()

    def _own_notes(self, seat: int, notes: tuple[int, ...]) -> list[int]:
        """Check that ``seat`` holds ``notes``; its wallet (counts) without them."""
        wallet = self.wallets[seat]
        left = wallet.copy()
        if not notes:
            return left
        index = self._note_index
        try:
            for v in notes:
                left[index[v]] -= 1
        except KeyError:
            raise InvalidAction(
                f"{list(notes)} holds a value that is not a note ({list(self._notes)})",
                "kuhhandel.not_notes",
                notes=", ".join(map(str, notes)),
                values=", ".join(map(str, self._notes)),
            ) from None
        if min(left) < 0:
            have = list(to_notes(wallet, self._notes))
            raise IllegalAction(
                f"you do not hold the notes {list(notes)} (you hold {have})",
                "kuhhandel.notes_not_held",
                notes=", ".join(map(str, notes)),
                have=", ".join(map(str, have)),
            )
        return left

    def _receive(self, seat: int, notes: tuple[int, ...]) -> None:
        wallet = self.wallets[seat]
        index = self._note_index
        for v in notes:
            wallet[index[v]] += 1
        self.note_moves += 1

    def _transfer(
        self, payer: int, payee: int, left: list[int], notes: tuple[int, ...], why: str
    ) -> None:
        """``payer`` (whose wallet becomes ``left``) hands ``notes`` to ``payee``."""
        self.wallets[payer][:] = left
        self._receive(payee, notes)  # counts the note moves
        log = self._log
        log.append((_payment_event, payer, payee, len(notes), self.amount, why))
        log.append((_payment_notes_event, payer, payee, notes))

    def _give_card(self, seat: int, card: int) -> None:
        n = self._n_species
        if card < n:
            self.herds[seat][card] += 1
        elif card == self._rat_card:
            self.rats[seat] += 1
        else:
            self.pedigrees[seat].append(card - n)
        self.card_moves += 1
        self._log.append((_card_event, "card", seat, card, self.card_names[card]))

    # ------------------------------------------------------------------ §5 cow trade
    def _start_trade(self, seat: int, opponent: int, species: int) -> None:
        self.challenger = seat
        self.opponent = opponent
        self.trade_species = species
        if species == self._n_species:
            self.stake = min(self.rats[seat], self.rats[opponent])
        else:
            self.stake = min(self.herds[seat][species], self.herds[opponent][species])
        self.tie_rounds = 0
        self.offer = None
        self.stage = OFFER
        self._log.append(
            (_challenge_event, seat, opponent, species, self.trade_name(species), self.stake)
        )

    def _on_offer(self, seat: int, action: A.Action) -> None:
        if not isinstance(action, _Offer):
            self._expect(action, A.Offer)
        assert isinstance(action, _Offer)
        self._own_notes(seat, action.notes)
        self.offer = action.notes
        self.stage = RESPOND
        self._log.append((_seat_count_event, "offer", seat, len(action.notes)))

    def _on_respond(self, seat: int, action: A.Action) -> None:
        if not isinstance(action, (_Accept, _Counter)):
            self._expect(action, A.Accept, A.Counter)
        offer = self.offer or ()
        c, o = self.challenger, self.opponent
        c_left = self._own_notes(c, offer)
        if isinstance(action, _Accept):
            self._log.append((_seat_event, "accept", seat))
            self.wallets[c][:] = c_left
            self._receive(o, offer)  # counts the note moves
            self._settle_trade(c, offer, None)
            return
        assert isinstance(action, _Counter)
        o_left = self._own_notes(seat, action.notes)
        self._log.append((_seat_count_event, "counter", seat, len(action.notes)))
        # §5.4: the offers are exchanged; each party keeps what it received
        self.wallets[c][:] = c_left
        self.wallets[o][:] = o_left
        self._receive(o, offer)  # counts the note moves
        self._receive(c, action.notes)
        a, b = sum(offer), sum(action.notes)
        if a == b and self._rules.trade_tie == "offer_again" and self.tie_rounds == 0:
            # §5.5 offer_again: exchanged, then the challenger offers again
            self.tie_rounds = 1
            self._event(
                "tie", {"challenger": c, "opponent": o, "count": [len(offer), len(action.notes)]}
            )
            self._event(
                "tie_notes",
                {
                    "challenger": c,
                    "opponent": o,
                    "offer": list(offer),
                    "counter": list(action.notes),
                },
                (c, o),
            )
            self.offer = None
            self.stage = OFFER
            return
        self._settle_trade(o if b > a else c, offer, action.notes)

    def _settle_trade(
        self, winner: int, offer: tuple[int, ...], counter: tuple[int, ...] | None
    ) -> None:
        c, o, k, n = self.challenger, self.opponent, self.trade_species, self.stake
        loser = o if winner == c else c
        if k == self._n_species:
            # §9.4 rats: the higher offer pays to give its rats away
            self.rats[winner] -= n
            self.rats[loser] += n
        else:
            self.herds[loser][k] -= n
            self.herds[winner][k] += n
        self.card_moves += 1
        log = self._log
        log.append((_trade_event, c, o, k, self.trade_name(k), n, winner, offer, counter))
        log.append((_trade_notes_event, c, o, offer, counter))
        if (
            self._rules.super_trade
            and not self.end_phase
            and self.deck
            and not self.traded_this_turn
            and self.challenger == self.turn_seat
        ):
            # §9.5 super trade: the same seat may still hold an auction this turn
            self.traded_this_turn = True
            self._turn_choices = (_AUCTION, _PASS)
            self.stage = TURN
            self._event("super_trade", {"seat": self.turn_seat})
            return
        self._end_turn()

    def cards_in_play(self) -> list[int]:
        """Cards drawn but not yet in anyone's hand (the lot, a pedigree, a rat, a divided card)."""
        stage = self.stage
        if stage in AUCTION_STAGES or (stage is PAY and self.pay_reason == "auction"):
            return list(self.lot)
        if stage in (CLAIM, PREEMPT, RAT) or (stage is PAY and self.pay_reason == "pedigree"):
            return [self.card]
        if stage is DIVIDE:
            return [self.peek]
        return []

    def trade_name(self, k: int) -> str:
        """The name of a tradable species index (the rats are index ``len(species)``)."""
        return "Rat" if k == self._n_species else self.card_names[k]

    # ------------------------------------------------------------------ §9.2 pedigree countdown
    def _countdown_order(self) -> tuple[int, ...]:
        return self._orders[self.turn_seat]

    def _start_countdown(self) -> None:
        self.claims = {}
        self.stage = CLAIM
        self._event(
            "countdown",
            {"seat": self.turn_seat, "card": self.card, "from": self._rules.countdown_from},
        )

    def _claim_request(self, seat: int) -> Request:
        most = min(self._rules.countdown_from, sum(self.wallets[seat]))
        return Request(
            seat,
            CLAIM,
            tuple(_Claim(c) for c in range(most + 1)),
            {
                "card": self.card,
                "species": self.card - self._n_species,
                "from": self._rules.countdown_from,
                "notes": sum(self.wallets[seat]),
            },
        )

    def _on_claim(self, seat: int, action: A.Action) -> None:
        if seat == self.turn_seat:
            raise IllegalAction(
                "the auctioneer counts down; it cannot claim (§9.2)",
                "kuhhandel.auctioneer_cannot_claim",
            )
        if seat in self.claims:
            raise IllegalAction(
                "you already chose your claim for this card", "kuhhandel.claim_chosen_already"
            )
        self._expect(action, A.Claim)
        assert isinstance(action, _Claim)
        count = action.count
        most = min(self._rules.countdown_from, sum(self.wallets[seat]))
        if not 0 <= count <= most:
            raise IllegalAction(
                f"claim at a count from 1 to {most} (you must hold that many notes), or 0 (§9.2)",
                "kuhhandel.claim_range",
                most=most,
            )
        self.claims[seat] = count
        self._event("claim_chosen", {"seat": seat})
        if len(self.claims) < self._seats - 1:
            return
        # The first claim at the highest count wins, in seat order from the auctioneer's left.
        best, claimant = 0, -1
        for s in self._countdown_order():
            if self.claims[s] > best:
                best, claimant = self.claims[s], s
        if claimant < 0:
            self._event(
                "no_claim",
                {"seat": self.turn_seat, "card": self.card, "name": self.card_names[self.card]},
            )
            self._give_card(self.turn_seat, self.card)
            self._end_turn()
            return
        self.claimant, self.claim_count = claimant, best
        self._event("claimed", {"seat": claimant, "count": best})
        self.stage = PREEMPT

    def _on_preempt(self, seat: int, action: A.Action) -> None:
        self._expect(action, A.Preempt, A.Release)
        a, c, count = self.turn_seat, self.claimant, self.claim_count
        if isinstance(action, _Preempt):
            if sum(self.wallets[a]) < count:
                raise IllegalAction(
                    f"to pre-empt you must hold {count} notes (§9.2)",
                    "kuhhandel.preempt_needs_notes",
                    count=count,
                )
            payer, payee = a, c
        else:
            payer, payee = c, a
        self._event(
            "decision", {"seat": seat, "buy": isinstance(action, _Preempt), "for": "pedigree"}
        )
        self.payer, self.payee, self.amount, self.pay_reason = payer, payee, count, "pedigree"
        self.card_to = payer
        self.stage = PAY

    # ------------------------------------------------------------------ §9.3 rats
    def _start_rat_round(self) -> None:
        self.rat_pile = []
        self._rat_ask = 0
        self.stage = RAT
        self._event("rat", {"seat": self.turn_seat})

    def _rat_seat(self) -> int:
        return (self.turn_seat + 1 + self._rat_ask) % self._seats

    def _rat_request(self) -> Request:
        seat = self._rat_seat()
        values = sorted({v for v, c in zip(self._notes, self.wallets[seat], strict=True) if c})
        choices: tuple[A.Action, ...] = (_TAKE_RAT, *(_PlaceNote(v) for v in values))
        info = {"pile": len(self.rat_pile), "wallet": self._wallet_list(seat)}
        return Request(seat, RAT, choices, info)

    def _on_rat(self, seat: int, action: A.Action) -> None:
        self._check_seat(seat, self._rat_seat(), "rat")
        if isinstance(action, _TakeRat):
            pile = self.rat_pile
            for v in pile:
                self.wallets[seat][self._note_index[v]] += 1
            self.rats[seat] += 1
            self.card_moves += 1
            self.note_moves += 1
            self._event("rat_taken", {"seat": seat, "count": len(pile)})
            self._event("rat_notes", {"seat": seat, "notes": sorted(pile)}, (seat,))
            self.rat_pile = []
            # The same seat stays auctioneer and draws again; its turn goes on (§9.3).
            if self.deck:
                self._draw()
            else:
                self._end_turn()
            return
        self._expect(action, A.PlaceNote)
        assert isinstance(action, _PlaceNote)
        i = self._note_index.get(action.note)
        if i is None or not self.wallets[seat][i]:
            raise IllegalAction(
                f"you hold no note of {action.note}", "kuhhandel.no_such_note", note=action.note
            )
        self.wallets[seat][i] -= 1
        self.note_moves += 1
        self.rat_pile.append(action.note)
        self._rat_ask += 1
        self._event("rat_note", {"seat": seat, "count": len(self.rat_pile)})
        self._event("rat_note_value", {"seat": seat, "note": action.note}, (seat,))

    # ------------------------------------------------------------------ §10 the duel
    def _start_division(self, seat: int) -> None:
        self.peek = self.deck.pop()
        self.card_moves += 1
        self.stage = DIVIDE
        self._event("divide", {"seat": seat, "deck": len(self.deck)})
        self._event(
            "peek", {"seat": seat, "card": self.peek, "name": self.card_names[self.peek]}, (seat,)
        )

    def _on_divide(self, seat: int, action: A.Action) -> None:
        self._expect(action, A.Keep, A.Give)
        other = (seat + 1) % self._seats
        keeper = seat if isinstance(action, _Keep) else other
        self._event("divided", {"seat": seat, "keep": isinstance(action, _Keep)})
        first, self.peek = self.peek, -1
        second = self.deck.pop() if self.deck else -1
        self.card_moves += 1
        # Both cards are laid face up; a donkey pays out when it is laid down.
        self._lay_down(keeper, first)
        if second >= 0:
            self._lay_down(other if keeper == seat else seat, second)
        self._end_turn()

    def _lay_down(self, seat: int, card: int) -> None:
        self._announce(card, laid_for=seat)
        self._give_card(seat, card)

    # ------------------------------------------------------------------ §6, §7 end and scoring
    def _finish(self, termination: Termination, reason: str) -> None:
        self.stage = OVER
        self.termination = termination
        self.end_reason = reason
        self._turn_choices = None
        result = self.result()
        self._event(
            "end",
            {
                "termination": termination.value,
                "reason": reason,
                "scores": list(result.scores),
                "places": list(result.places),
            },
        )
        # At the end every wallet is shown (money breaks ties, §7).
        self._event("wallets", {"wallets": [list(to_notes(w, self._notes)) for w in self.wallets]})

    def quartets(self, seat: int) -> list[int]:
        """Species of which ``seat`` holds every card."""
        herd = self.herds[seat]
        return [k for k in range(self._n_species) if herd[k] == self._set_size[k]]

    def score(self, seat: int) -> int:
        """§7: classic (set values × number of sets) or Master scoring; ``exam`` adds money."""
        sets = self.quartets(seat)
        if self._rules.scoring == "master":
            total = self._master_score(seat, sets)
        else:
            total = sum(self._rules.species[k].value for k in sets) * len(sets)
        if self._rules.exam:
            total += self.money(seat)
        return total

    def struck_quartet(self, seat: int) -> int | None:
        """§7 Master step 1: the quartet a holder of every rat strikes (the cheapest loss)."""
        rules = self._rules
        sets = self.quartets(seat)
        if not rules.rats or self.rats[seat] < rules.rats or not sets:
            return None
        return max(sets, key=lambda k: (self._master_points(seat, [q for q in sets if q != k]), -k))

    def _master_score(self, seat: int, sets: list[int]) -> int:
        struck = self.struck_quartet(seat)
        if struck is not None:
            sets = [k for k in sets if k != struck]
        return self._master_points(seat, sets)

    def _master_points(self, seat: int, sets: list[int]) -> int:
        """§7 Master steps 2–5 for the given remaining quartets."""
        bonus = self._rules.pedigree_bonus
        species = self._rules.species
        matching = [p for p in self.pedigrees[seat] if p in sets]
        base = sum(species[k].value for k in sets) + bonus * len(matching)
        return base * len(sets) + bonus * (len(self.pedigrees[seat]) - len(matching))

    def result(self) -> Result:
        if self.termination is None:
            raise RuntimeError("the game is not over")
        if self.termination is Termination.ABORTED:
            return Result(
                Termination.ABORTED, (0,) * self._seats, (0,) * self._seats, self.end_reason
            )
        scores = tuple(self.score(s) for s in range(self._seats))
        money = tuple(self.money(s) for s in range(self._seats))
        places = places_from_keys([(scores[s], money[s]) for s in range(self._seats)])
        return Result(
            self.termination,
            tuple(float(x) for x in scores),
            places,
            self.end_reason,
            {"money": list(money), "quartets": [self.quartets(s) for s in range(self._seats)]},
        )

    def abort(self, reason: str) -> None:
        if self.stage is OVER:
            return
        self.stage = OVER
        self.termination = Termination.ABORTED
        self.end_reason = reason
        self._pending = None
        self._event("end", {"termination": "aborted", "reason": reason})

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int | None) -> KuhhandelObservation:
        return observe(self, seat)


def new_game(rules: RuleSet, seats: int, seed: int) -> KuhhandelGame:
    """A new game of Kuhhandel; the seed fixes the shuffle (and the first seat if random)."""
    return KuhhandelGame(rules, seats, seed)


def _rebuild(rules: RuleSet, seats: int, seed: int, state: dict[str, Any]) -> KuhhandelGame:
    """A pickled game back (:meth:`KuhhandelGame.__reduce__`), its strings interned again."""
    game = KuhhandelGame(rules, seats, seed)
    for name, value in state.items():
        setattr(game, name, sys.intern(value) if isinstance(value, str) else value)
    return game
