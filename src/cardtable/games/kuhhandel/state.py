"""The Kuhhandel game: state, requests, validation and the rules of play.

The state is plain lists of small ints (counts per species, counts per note value) so that a game
is cheap to play and to copy. Each ``_on_<kind>`` handler first validates the action completely and
only then mutates, so a refused action changes nothing.

Sections of ``kuhhandel-rules.md`` are named next to the code that implements them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

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
from cardtable.games.kuhhandel.money import payment_problem, to_counts, to_notes, wallet_value
from cardtable.games.kuhhandel.rules import RuleSet

# Stages: what the game waits for.
TURN = "turn"
BID = "bid"
SELL_OR_BUY = "sell_or_buy"
PAY = "pay"
OFFER = "offer"
RESPOND = "respond"
CLAIM = "claim"
PREEMPT = "preempt"
RAT = "rat"
DIVIDE = "divide"
OVER = "over"


class KuhhandelGame(Game):
    """A game of Kuhhandel under any :class:`RuleSet` (create it with :func:`new_game`)."""

    name = "kuhhandel"
    record_version = 1

    def __init__(self, rules: RuleSet, seats: int, seed: int) -> None:
        if not rules.min_seats <= seats <= rules.max_seats:
            raise ValueError(
                f"rule set {rules.name!r} is for {rules.min_seats}–{rules.max_seats} seats, "
                f"not {seats}"
            )
        self._rules = rules
        self.seats = seats
        self.seed = seed
        self._rng = random.Random(seed)
        self._notes = rules.notes
        self._note_index = {v: i for i, v in enumerate(rules.notes)}
        self._set_size = [s.cards for s in rules.species]
        n_species = len(rules.species)
        self._n_species = n_species
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
        self._events: list[Event] = []
        # auction
        self.card = -1
        self.high = 0
        self.high_bidder = -1
        self.bids: list[tuple[int, int]] = []  # (seat, amount); amount 0 = pass
        self.bid_round = 0
        self.round_bid = False
        self._order: list[int] = []
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
        self._pending: tuple[Request, ...] | None = None
        self._turn_choices: tuple[A.Action, ...] | None = None
        self._event("start", {"seats": seats, "first": first, "deck": len(deck)})
        self._begin_turn()

    def arrange(
        self,
        *,
        deck: Sequence[int] | None = None,
        herds: Sequence[Sequence[int]] | None = None,
        wallets: Sequence[Sequence[int]] | None = None,
        turn_seat: int | None = None,
        drawn: Sequence[int] | None = None,
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
        if turn_seat is not None:
            self.turn_seat = turn_seat
        self.arranged = True
        self.turns = 0
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
        return self._events[since:] if since else self._events

    def action_to_json(self, action: Any) -> dict[str, Any]:
        if not isinstance(action, A.Action):
            raise InvalidAction(f"not a Kuhhandel action: {action!r}")
        return action.to_json()

    def action_from_json(self, data: Any) -> A.Action:
        return A.from_json(data)

    def money(self, seat: int) -> int:
        """Total value of ``seat``'s notes."""
        return wallet_value(self.wallets[seat], self._notes)

    def note_count(self, seat: int) -> int:
        return sum(self.wallets[seat])

    def can_trade(self, seat: int) -> bool:
        """Whether ``seat`` may start a cow trade (§3): a species both it and another seat own."""
        mine = self.herds[seat]
        for other in range(self.seats):
            if other != seat:
                theirs = self.herds[other]
                for k in range(self._n_species):
                    if mine[k] and theirs[k]:
                        return True
        return False

    def legal_trades(self, seat: int) -> list[A.Challenge]:
        """Every cow trade ``seat`` may start (§5.1): both own the species, neither completely."""
        out = []
        mine = self.herds[seat]
        for other in range(self.seats):
            if other == seat:
                continue
            theirs = self.herds[other]
            for k in range(self._n_species):
                # both own >= 1 card, so neither can own the whole set (§5.6)
                if mine[k] and theirs[k]:
                    out.append(A.Challenge(other, k))
        return out

    def pending(self) -> Sequence[Request]:
        p = self._pending
        if p is None:
            p = self._pending = self._build_pending()
        return p

    def _build_pending(self) -> tuple[Request, ...]:
        stage = self.stage
        if stage is BID:
            if self._rules.auction_style == "rounds":
                return (self._bid_request(self._order[self._ask]),)
            reqs = [self._bid_request(s) for s in self._open_bidders()]
            reqs.append(
                Request(self.turn_seat, "knock", (A.KNOCK,), {"card": self.card, "high": self.high})
            )
            return tuple(reqs)
        if stage is TURN:
            return (
                Request(self.turn_seat, TURN, self._turn_choices, {"end_phase": self.end_phase}),
            )
        if stage is PAY:
            return (
                Request(
                    self.payer,
                    PAY,
                    None,
                    {
                        "amount": self.amount,
                        "to": self.payee,
                        "for": self.pay_reason,
                        "wallet": self._wallet_list(self.payer),
                    },
                ),
            )
        if stage is SELL_OR_BUY:
            can_buy = self.turn_seat not in self.caps or self.money(self.turn_seat) >= self.high
            choices: tuple[A.Action, ...] = (A.SELL, A.BUY) if can_buy else (A.SELL,)
            info: dict[str, Any] = {
                "card": self.card,
                "high": self.high,
                "high_bidder": self.high_bidder,
            }
            return (Request(self.turn_seat, SELL_OR_BUY, choices, info),)
        if stage is OFFER:
            info = {
                "opponent": self.opponent,
                "species": self.trade_species,
                "cards": self.stake,
                "again": self.tie_rounds > 0,
                "wallet": self._wallet_list(self.challenger),
            }
            return (Request(self.challenger, OFFER, None, info),)
        if stage is RESPOND:
            info = {
                "challenger": self.challenger,
                "species": self.trade_species,
                "cards": self.stake,
                "offer_notes": len(self.offer or ()),
                "again": self.tie_rounds > 0,
                "wallet": self._wallet_list(self.opponent),
            }
            return (Request(self.opponent, RESPOND, None, info),)
        return ()

    def _wallet_list(self, seat: int) -> list[int]:
        """The seat's own notes, for the info of a request addressed to that seat only."""
        return list(to_notes(self.wallets[seat], self._notes))

    def _bid_request(self, seat: int) -> Request:
        high = self.high
        low = high + self._rules.min_raise if high else self._rules.min_raise
        return Request(
            seat,
            BID,
            None,
            {
                "card": self.card,
                "high": high,
                "high_bidder": self.high_bidder,
                "min": low,
                "max": self.caps.get(seat),
                "round": self.bid_round,
                "money": wallet_value(self.wallets[seat], self._notes),
            },
        )

    def _open_bidders(self) -> list[int]:
        low = self.high + self._rules.min_raise if self.high else self._rules.min_raise
        return [
            s
            for s in self._order
            if s != self.high_bidder and s not in self.quiet and self.caps.get(s, low) >= low
        ]

    # ------------------------------------------------------------------ contract: acting
    def apply(self, seat: int, action: Any) -> None:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise InvalidAction(f"no seat {seat!r} in a {self.seats}-seat game")
        if not isinstance(action, A.Action):
            action = A.from_json(action)
        stage = self.stage
        if stage is OVER:
            raise IllegalAction("the game is over")
        if stage is BID:
            self._on_bid(seat, action)
        elif stage is TURN:
            self._check_seat(seat, self.turn_seat, "choose a turn")
            self._on_turn(seat, action)
        elif stage is PAY:
            self._check_seat(seat, self.payer, "pay")
            self._on_pay(seat, action)
        elif stage is SELL_OR_BUY:
            self._check_seat(seat, self.turn_seat, "sell or buy")
            self._on_sell_or_buy(seat, action)
        elif stage is OFFER:
            self._check_seat(seat, self.challenger, "make an offer")
            self._on_offer(seat, action)
        elif stage is RESPOND:
            self._check_seat(seat, self.opponent, "answer the cow trade")
            self._on_respond(seat, action)
        else:  # pragma: no cover - every stage is handled above
            raise IllegalAction(f"nothing to do in stage {stage}")
        self._history.append((seat, action))
        self._pending = None

    def _check_seat(self, seat: int, expected: int, what: str) -> None:
        if seat != expected:
            raise IllegalAction(f"it is seat {expected}'s turn to {what}, not seat {seat}'s")

    def _expect(self, action: A.Action, *types: type[A.Action]) -> None:
        if not isinstance(action, types):
            wanted = " or ".join(t.kind for t in types)
            raise IllegalAction(f"expected {wanted} now (stage {self.stage}), not {action.kind}")

    def _event(self, kind: str, data: dict[str, Any], to: tuple[int, ...] | None = None) -> None:
        self._events.append(Event(kind, data, to))

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
                    trades: list[A.Action] = list(self.legal_trades(self.turn_seat))
                    self._turn_choices = (A.AUCTION, *trades)
                    self.stage = TURN
                    self._event("turn", {"seat": self.turn_seat, "turn": self.turns})
                    return
                self.end_phase = True
                self._event("end_phase", {})
            # §6: the end phase, a compulsory cow trade each turn; seats that cannot are skipped
            if not any(self.can_trade(s) for s in range(self.seats)):
                self._finish(Termination.NORMAL, "every quartet is complete")
                return
            if self.end_turns >= rules.max_end_phase_rounds * self.seats:
                self._finish(
                    Termination.CAP,
                    f"max_end_phase_rounds ({rules.max_end_phase_rounds}) reached",
                )
                return
            self.end_turns += 1
            trades = list(self.legal_trades(self.turn_seat))
            if trades:
                self._turn_choices = tuple(trades)
                self.stage = TURN
                self._event("turn", {"seat": self.turn_seat, "end_phase": True})
                return
            self._event("skip", {"seat": self.turn_seat})
            self.turn_seat = (self.turn_seat + 1) % self.seats

    def _end_turn(self) -> None:
        self.turn_seat = (self.turn_seat + 1) % self.seats
        self._begin_turn()

    def _on_turn(self, seat: int, action: A.Action) -> None:
        choices = self._turn_choices or ()
        if action not in choices:
            if isinstance(action, A.Auction):
                raise IllegalAction("the deck is empty: every turn is a cow trade now (§6)")
            if isinstance(action, A.Challenge):
                raise IllegalAction(self._why_not_trade(seat, action))
            raise IllegalAction(f"on your turn, auction or challenge; not {action.kind}")
        if isinstance(action, A.Auction):
            self._draw()
        else:
            assert isinstance(action, A.Challenge)
            self._start_trade(seat, action.opponent, action.species)

    def _why_not_trade(self, seat: int, c: A.Challenge) -> str:
        if not 0 <= c.opponent < self.seats or c.opponent == seat:
            return f"seat {c.opponent} is not another seat at this table"
        if not 0 <= c.species < self._n_species:
            return f"there is no species {c.species}"
        name = self._rules.species[c.species].name
        if not self.herds[seat][c.species]:
            return f"you own no {name} (§5.1)"
        if not self.herds[c.opponent][c.species]:
            return f"seat {c.opponent} owns no {name} (§5.1)"
        return f"that cow trade is not allowed now ({name})"

    # ------------------------------------------------------------------ §4 auction
    def _draw(self) -> None:
        card = self.deck.pop()
        self.card = card
        payout = 0
        if card < self._n_species:
            nth = self.drawn[card]
            self.drawn[card] = nth + 1
            payout = self._rules.species[card].payouts[nth]
        self._event(
            "draw",
            {
                "seat": self.turn_seat,
                "card": card,
                "name": self.card_names[card],
                "deck": len(self.deck),
            },
        )
        if payout:
            self._pay_out(payout)
        self.caps = {}
        self.exposed = {}
        self._open_auction()

    def _pay_out(self, value: int) -> None:
        """§4.1 donkey payout: every seat, auctioneer included, gets a note of ``value``."""
        i = self._note_index[value]
        got = []
        for s in range(self.seats):
            if self.bank is not None:
                if self.bank[i] == 0:
                    continue  # §2: an exhausted stock pays nothing
                self.bank[i] -= 1
            self.wallets[s][i] += 1
            got.append(s)
        self._event("payout", {"note": value, "seats": got})

    def _open_auction(self) -> None:
        n = self.seats
        self._order = [(self.turn_seat + i) % n for i in range(1, n)]
        self.high = 0
        self.high_bidder = -1
        self.bids = []
        self.bid_round = 1
        self.round_bid = False
        self.quiet = set()
        self._ask = -1
        self.stage = BID
        self._event("auction", {"seat": self.turn_seat, "card": self.card})
        self._advance_bidding()

    def _advance_bidding(self) -> None:
        """Rounds style: move to the next seat to ask, or close the auction (§4.3)."""
        if self._rules.auction_style == "open":
            if not self._open_bidders():
                self._close_auction()
            return
        order = self._order
        limit = self._rules.max_bidding_rounds
        low = self.high + self._rules.min_raise if self.high else self._rules.min_raise
        caps = self.caps
        while True:
            self._ask += 1
            if self._ask >= len(order):
                if not self.round_bid or (limit is not None and self.bid_round >= limit):
                    self._close_auction()
                    return
                self.bid_round += 1
                self.round_bid = False
                self._ask = 0
            seat = order[self._ask]
            if seat == self.high_bidder:
                continue
            if caps and caps.get(seat, low) < low:
                continue  # an exposed seat that may not bid this much is not asked
            return

    def _on_bid(self, seat: int, action: A.Action) -> None:
        open_style = self._rules.auction_style == "open"
        if open_style and seat == self.turn_seat:
            self._expect(action, A.Knock)
            self._event("knock", {"seat": seat})
            self._close_auction()
            return
        if not open_style:
            expected = self._order[self._ask]
            if seat != expected:
                raise IllegalAction(f"it is seat {expected}'s turn to bid, not seat {seat}'s")
        elif seat == self.high_bidder:
            raise IllegalAction("you hold the highest bid already")
        elif seat == self.turn_seat:
            raise IllegalAction("the auctioneer may not bid (§4.2)")
        self._expect(action, A.Bid, A.Pass)
        if open_style and isinstance(action, A.Pass) and seat in self.quiet:
            raise IllegalAction("you passed already; bid, or wait for a new bid")
        if isinstance(action, A.Bid):
            low = self.high + self._rules.min_raise if self.high else self._rules.min_raise
            amount = action.amount
            if amount < low:
                raise IllegalAction(f"a bid must be at least {low} (§4.2), not {amount}")
            cap = self.caps.get(seat)
            if cap is not None and amount > cap:
                raise IllegalAction(
                    f"your wallet was exposed: you may not bid more than {cap} on this card (§4.7)"
                )
            self.high = amount
            self.high_bidder = seat
            self.round_bid = True
            self.bids.append((seat, amount))
            self.quiet = set()
            self._event("bid", {"seat": seat, "amount": amount})
        else:
            self.bids.append((seat, 0))
            if open_style:
                self.quiet.add(seat)
            self._event("pass", {"seat": seat})
        self._advance_bidding()

    def _close_auction(self) -> None:
        if self.high_bidder < 0:
            # §4.4 nobody bid: the auctioneer takes the card for free
            self._event(
                "no_bid",
                {"seat": self.turn_seat, "card": self.card, "name": self.card_names[self.card]},
            )
            self._give_card(self.turn_seat, self.card)
            self._end_turn()
            return
        self.stage = SELL_OR_BUY
        self._event("closed", {"high": self.high, "high_bidder": self.high_bidder})

    def _on_sell_or_buy(self, seat: int, action: A.Action) -> None:
        self._expect(action, A.Sell, A.Buy)
        auctioneer = self.turn_seat
        if isinstance(action, A.Buy):
            if auctioneer in self.caps and self.money(auctioneer) < self.high:
                raise IllegalAction(
                    "your wallet was exposed: you may only buy when you can pay (§4.7)"
                )
            payer, payee = auctioneer, self.high_bidder
        else:
            payer, payee = self.high_bidder, auctioneer
        self._event("decision", {"seat": seat, "buy": isinstance(action, A.Buy)})
        if self.money(payer) < self.high:
            self._expose(payer)
            return
        self.payer, self.payee, self.amount, self.pay_reason = payer, payee, self.high, "auction"
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
        self._expect(action, A.Pay)
        assert isinstance(action, A.Pay)
        counts = self._own_notes(seat, action.notes)
        problem = payment_problem(action.notes, self.amount)
        if problem:
            raise IllegalAction(f"not a valid payment of {self.amount}: {problem} (§4.6)")
        self._transfer(seat, self.payee, counts, action.notes, self.pay_reason)
        winner = self.high_bidder if seat == self.high_bidder else self.turn_seat
        self._give_card(winner, self.card)
        self._end_turn()

    def _own_notes(self, seat: int, notes: tuple[int, ...]) -> list[int]:
        counts = to_counts(notes, self._notes)
        if counts is None:
            raise InvalidAction(
                f"{list(notes)} holds a value that is not a note ({list(self._notes)})"
            )
        wallet = self.wallets[seat]
        for c, w in zip(counts, wallet, strict=True):
            if c > w:
                have = list(to_notes(wallet, self._notes))
                raise IllegalAction(f"you do not hold the notes {list(notes)} (you hold {have})")
        return counts

    def _transfer(
        self, payer: int, payee: int, counts: list[int], notes: tuple[int, ...], why: str
    ) -> None:
        src = self.wallets[payer]
        dst = self.wallets[payee]
        for i, c in enumerate(counts):
            if c:
                src[i] -= c
                dst[i] += c
        amount = self.amount
        self._event(
            "payment",
            {"from": payer, "to": payee, "count": len(notes), "amount": amount, "for": why},
        )
        self._event(
            "payment_notes", {"from": payer, "to": payee, "notes": list(notes)}, (payer, payee)
        )

    def _give_card(self, seat: int, card: int) -> None:
        self.herds[seat][card] += 1
        self._event("card", {"seat": seat, "card": card, "name": self.card_names[card]})

    # ------------------------------------------------------------------ §5 cow trade
    def _start_trade(self, seat: int, opponent: int, species: int) -> None:
        self.challenger = seat
        self.opponent = opponent
        self.trade_species = species
        self.stake = min(self.herds[seat][species], self.herds[opponent][species])
        self.tie_rounds = 0
        self.offer = None
        self.stage = OFFER
        self._event(
            "challenge",
            {
                "seat": seat,
                "opponent": opponent,
                "species": species,
                "name": self.card_names[species],
                "cards": self.stake,
            },
        )

    def _on_offer(self, seat: int, action: A.Action) -> None:
        self._expect(action, A.Offer)
        assert isinstance(action, A.Offer)
        self._own_notes(seat, action.notes)
        self.offer = action.notes
        self.stage = RESPOND
        self._event("offer", {"seat": seat, "count": len(action.notes)})

    def _on_respond(self, seat: int, action: A.Action) -> None:
        self._expect(action, A.Accept, A.Counter)
        offer = self.offer or ()
        c, o = self.challenger, self.opponent
        offer_counts = to_counts(offer, self._notes) or []
        if isinstance(action, A.Accept):
            self._event("accept", {"seat": seat})
            self._move_notes(c, o, offer_counts)
            self._settle_trade(c, offer, None)
            return
        assert isinstance(action, A.Counter)
        counter_counts = self._own_notes(seat, action.notes)
        self._event("counter", {"seat": seat, "count": len(action.notes)})
        # §5.4: the offers are exchanged; each party keeps what it received
        self._move_notes(c, o, offer_counts)
        self._move_notes(o, c, counter_counts)
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

    def _move_notes(self, payer: int, payee: int, counts: Sequence[int]) -> None:
        src = self.wallets[payer]
        dst = self.wallets[payee]
        for i, n in enumerate(counts):
            if n:
                src[i] -= n
                dst[i] += n

    def _settle_trade(
        self, winner: int, offer: tuple[int, ...], counter: tuple[int, ...] | None
    ) -> None:
        c, o, k, n = self.challenger, self.opponent, self.trade_species, self.stake
        loser = o if winner == c else c
        self.herds[loser][k] -= n
        self.herds[winner][k] += n
        public = {
            "challenger": c,
            "opponent": o,
            "species": k,
            "name": self.card_names[k],
            "cards": n,
            "winner": winner,
            "offer_count": len(offer),
            "counter_count": None if counter is None else len(counter),
        }
        self._event("trade", public)
        private = {
            "challenger": c,
            "opponent": o,
            "offer": list(offer),
            "counter": None if counter is None else list(counter),
        }
        self._event("trade_notes", private, (c, o))
        self._end_turn()

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
        """§7 classic scoring: sum of complete-set values × number of complete sets."""
        species = self._rules.species
        sets = self.quartets(seat)
        total = sum(species[k].value for k in sets) * len(sets)
        if self._rules.exam:
            total += self.money(seat)
        return total

    def result(self) -> Result:
        if self.termination is None:
            raise RuntimeError("the game is not over")
        if self.termination is Termination.ABORTED:
            return Result(
                Termination.ABORTED, (0,) * self.seats, (0,) * self.seats, self.end_reason
            )
        scores = tuple(self.score(s) for s in range(self.seats))
        money = tuple(self.money(s) for s in range(self.seats))
        places = places_from_keys([(scores[s], money[s]) for s in range(self.seats)])
        return Result(
            self.termination,
            tuple(float(x) for x in scores),
            places,
            self.end_reason,
            {"money": list(money), "quartets": [self.quartets(s) for s in range(self.seats)]},
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
    def observe(self, seat: int | None) -> Any:
        from cardtable.games.kuhhandel.observe import observe

        return observe(self, seat)


def new_game(rules: RuleSet, seats: int, seed: int) -> KuhhandelGame:
    """A new game of Kuhhandel; the seed fixes the shuffle (and the first seat if random)."""
    return KuhhandelGame(rules, seats, seed)
