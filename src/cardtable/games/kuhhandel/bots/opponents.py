"""How each other seat plays, inferred by the ``expert`` from the events its seat sees.

:class:`OpponentModel` keeps per seat counts of public behaviour (and of the notes of cow trades
this seat took part in, which it sees itself):

- **bidding**: auctions it bid in, the highest bid relative to its estimated money, and *cheap
  passes* (it passed while the minimum bid was at most half its estimated money: a bidder with a
  price in mind; a price-blind bidder bids whenever it can afford to);
- **selling**: as auctioneer, how often it sold and bought;
- **answering**: as the opponent of a cow trade, how often it accepted and countered;
- **offers**: the note counts it offered and, where this seat saw the notes (its own trades),
  how many were 0-notes (bluffing) and what they were worth, per note and per point of the value
  at stake (a seat that offers few large notes in proportion to the stake is not the
  heuristic's seat that pads with small ones);
- **counters** to this seat's own offers, in money (this seat sees both sides of its trades);
- **turns**: cards it drew and challenges it made while cards were left.

:meth:`OpponentModel.apply` turns the counts into the playout policy of each seat in a
:class:`~.sim.Model` (``bid_all``, ``bid_scale``, ``always_sell``, ``always_accept``,
``zero_share``, ``counter_ratio``, ``never_challenge``, ``bid_floor``): every seat plays like
``heuristic`` until the evidence says otherwise. The model
reads only the events given to its ``event`` hook (those the seat may see) and the belief's money
estimates, which come from the same events; tests check that hidden information does not change
it.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.core.contract import Event
from cardtable.games.kuhhandel.bots.belief import Belief
from cardtable.games.kuhhandel.bots.fitted import FittedOpponents
from cardtable.games.kuhhandel.bots.sim import Model

#: Evidence needed before a seat's playout policy departs from the heuristic's.
MIN_AUCTIONS = 3
MIN_ANSWERS = 5
MIN_SALES = 8
#: Cards drawn (auctions put up) without one challenge before a seat is played out as never
#: challenging while cards are left.
MIN_DRAWS = 8
#: The counter of a seat that never accepts, as a multiple of the offer, until this seat has seen
#: its counters to its own offers.
NEVER_ACCEPT_RATIO = 1.5
#: Notes of a seat's offers seen before their money per note shapes its hidden offers.
MIN_OFFER_NOTES = 4
#: Offers for a species seen before their money per point at stake shapes a seat's hidden offers.
MIN_OFFERS = 2
#: Mean highest bid per auction (share of its money) above which a seat bids at least that share.
HIGH_BIDDER = 0.55


@dataclass
class SeatHabits:
    """Counts of one seat's public behaviour (see the module docstring)."""

    auctions_bid: int = 0
    cheap_passes: int = 0
    high_ratio_sum: float = 0.0  # sum over auctions of the highest bid / estimated money
    sold: int = 0
    bought: int = 0
    accepted: int = 0
    countered: int = 0
    offers: int = 0
    offer_notes: int = 0
    seen_offer_notes: int = 0
    seen_zero_notes: int = 0
    seen_offer_value: int = 0  # money in its offers to this seat (this seat saw the notes)
    seen_offers: int = 0  # those offers (for a species, not rats)
    seen_offer_money: int = 0  # their money
    seen_offer_stake: float = 0.0  # the value at stake in them: value * cards / set size
    main_draws: int = 0  # turns it drew a card while cards were left
    main_challenges: int = 0  # turns it challenged while cards were left
    seen_counter_value: int = 0  # its counters to this seat's offers, in money (this seat saw them)
    seen_countered_value: int = 0  # the values of those offers

    def state(self) -> tuple[float, ...]:
        return (
            self.main_draws,
            self.main_challenges,
            self.seen_counter_value,
            self.seen_countered_value,
            self.auctions_bid,
            self.cheap_passes,
            round(self.high_ratio_sum, 9),
            self.sold,
            self.bought,
            self.accepted,
            self.countered,
            self.offers,
            self.offer_notes,
            self.seen_offer_notes,
            self.seen_zero_notes,
            self.seen_offer_value,
            self.seen_offers,
            self.seen_offer_money,
            round(self.seen_offer_stake, 9),
        )


class OpponentModel:
    """Per-seat habits from the events one seat sees; see the module docstring."""

    def __init__(self, model: Model, belief: Belief) -> None:
        self.m = model
        self.belief = belief
        self.me = belief.me
        self.seats = [SeatHabits() for _ in range(model.n)]
        self._high = 0
        self._auction_top: dict[int, int] = {}  # seat -> its highest bid in this auction
        self._money_at_start: list[float] = []
        self._auctioneer = -1
        self._end_phase = False
        self._trade = (-1, 0)  # species and cards of the last cow trade (public)
        #: Each seat's bid limit and acceptance curve fitted to its decisions (``.fitted``);
        #: always followed, given to the playouts by ``apply(fitted=True)``.
        self.fit = FittedOpponents(model, belief)

    # ------------------------------------------------------------------ events
    def event(self, ev: Event) -> None:
        self.fit.event(ev)
        kind, d = ev.kind, ev.data
        if kind == "end_phase":
            self._end_phase = True
        elif kind == "draw" and not self._end_phase:
            self.seats[d["seat"]].main_draws += 1
        elif kind == "challenge" and not self._end_phase:
            self.seats[d["seat"]].main_challenges += 1
        if kind == "auction":
            self._high = 0
            self._auction_top = {}
            self._auctioneer = d["seat"]
            self._money_at_start = list(self.belief.money)
        elif kind == "bid":
            s, amount = d["seat"], d["amount"]
            self._high = amount
            self._auction_top[s] = max(amount, self._auction_top.get(s, 0))
        elif kind == "pass":
            s = d["seat"]
            low = self._high + self.m.raise_ if self._high else self.m.raise_
            money = self.belief.money[s]
            if money > 0 and low <= 0.5 * money:
                self.seats[s].cheap_passes += 1
        elif kind == "closed":
            for s, top in self._auction_top.items():
                habits = self.seats[s]
                habits.auctions_bid += 1
                money = self._money_at_start[s] if self._money_at_start else self.belief.money[s]
                habits.high_ratio_sum += min(2.0, top / money) if money > 0 else 1.0
            self._auction_top = {}
        elif kind == "decision" and d.get("for", "auction") in ("auction", "sale", ""):
            habits = self.seats[d["seat"]]
            if d["buy"]:
                habits.bought += 1
            else:
                habits.sold += 1
        elif kind == "trade":
            c, o = d["challenger"], d["opponent"]
            self._trade = (d["species"], d["cards"])
            self.seats[c].offers += 1
            self.seats[c].offer_notes += d["offer_count"]
            if d["counter_count"] is None:
                self.seats[o].accepted += 1
            else:
                self.seats[o].countered += 1
        elif kind == "trade_notes":
            # only the two seats of the trade see this; the challenger's notes are its offer
            c = d["challenger"]
            counter = d.get("counter")
            if c == self.me and counter is not None:
                # this seat's own offer and the counter it got: both seen by this seat
                o = self.seats[d["opponent"]]
                o.seen_counter_value += sum(counter)
                o.seen_countered_value += sum(d["offer"])
            if c != self.me and d["opponent"] == self.me:
                # its offer to this seat: this seat saw the notes (another pair's trade notes
                # are theirs alone; were they ever delivered, they are not read)
                offer = d["offer"]
                self.seats[c].seen_offer_notes += len(offer)
                self.seats[c].seen_zero_notes += sum(1 for v in offer if v == 0)
                self.seats[c].seen_offer_value += sum(offer)
                k, cards = self._trade
                if 0 <= k < self.m.K:
                    h = self.seats[c]
                    h.seen_offers += 1
                    h.seen_offer_money += sum(offer)
                    h.seen_offer_stake += self.m.value[k] * cards / self.m.size[k]

    # ------------------------------------------------------------------ the policy
    def apply(self, fitted: bool = False) -> None:
        """Set each other seat's playout policy in the model from its habits; with ``fitted``,
        a seat's fitted bid limit replaces the bidding switches (``bid_all``, ``bid_scale``,
        ``bid_floor``) and its fitted acceptance curve the heuristic's acceptance rule
        (:mod:`.fitted`)."""
        self._apply_habits()
        m = self.m
        if not fitted:
            for s in range(m.n):
                m.limit_coef[s] = None
                m.accept_ratio[s] = -1.0
            return
        self.fit.apply()
        for s in range(m.n):
            if m.limit_coef[s] is not None:
                m.bid_all[s] = False
                m.bid_scale[s] = 1.0
                m.bid_floor[s] = -1.0

    def _apply_habits(self) -> None:
        m = self.m
        for s, h in enumerate(self.seats):
            if s == self.me:
                m.bid_all[s] = False
                m.bid_scale[s] = 1.0
                m.always_sell[s] = False
                m.always_accept[s] = False
                m.zero_share[s] = -1.0
                m.counter_ratio[s] = -1.0
                m.never_challenge[s] = False
                m.bid_floor[s] = -1.0
                continue
            # a bidder that bids whatever it can afford: many auctions, never a cheap pass
            # (a money estimate that is off may make one pass look cheap: allow 1 in 10)
            m.bid_all[s] = h.auctions_bid >= MIN_AUCTIONS and h.cheap_passes * 10 <= h.auctions_bid
            scale = 1.0
            if h.auctions_bid >= 2 * MIN_AUCTIONS and not m.bid_all[s]:
                mean = h.high_ratio_sum / h.auctions_bid
                # The heuristic's highest bid per auction is 0.25-0.56 of its money in games
                # against its own kind: only a seat far outside that gets a scaled limit (a
                # scale on weaker evidence cost 8.6 points against three heuristics).
                if mean < 0.1 or mean > 0.8:
                    scale = max(0.5, min(2.0, mean / 0.35))
            m.bid_scale[s] = scale
            m.always_sell[s] = h.sold >= MIN_SALES and h.bought == 0
            answers = h.accepted + h.countered
            m.always_accept[s] = answers >= MIN_ANSWERS and h.countered == 0
            m.zero_share[s] = (
                h.seen_zero_notes / h.seen_offer_notes if h.seen_offer_notes >= 4 else -1.0
            )
            # a seat that never accepts: it counters; with the counters this seat got from it,
            # their multiple of the offer (else the multiple `learned` shows, about 1.5)
            ratio = -1.0
            if answers >= MIN_ANSWERS and h.accepted * 10 <= answers:
                ratio = NEVER_ACCEPT_RATIO
                if h.seen_countered_value >= 100:
                    ratio = max(0.5, min(3.0, h.seen_counter_value / h.seen_countered_value))
            m.counter_ratio[s] = ratio
            m.never_challenge[s] = h.main_draws >= MIN_DRAWS and h.main_challenges == 0
            # a bidder whose highest bids average above the heuristic's range bids that share
            # of its money at least
            floor = -1.0
            if h.auctions_bid >= 2 * MIN_AUCTIONS and not m.bid_all[s]:
                mean = h.high_ratio_sum / h.auctions_bid
                if mean > HIGH_BIDDER:
                    floor = min(1.0, mean)
            m.bid_floor[s] = floor

    def note_value(self, s: int) -> float:
        """Money per note in seat ``s``'s offers to this seat (-1 until it has seen
        :data:`MIN_OFFER_NOTES` notes of them): the worth of a hidden offer with a public note
        count, learned from the trades this seat took part in."""
        h = self.seats[s]
        if s == self.me or h.seen_offer_notes < MIN_OFFER_NOTES:
            return -1.0
        return h.seen_offer_value / h.seen_offer_notes

    def offer_worth(self, s: int, k: int, cards: int, count: int, *, pooled: bool = False) -> float:
        """The money of seat ``s``'s hidden offer of ``count`` notes for ``cards`` cards of
        species ``k``, as the offers this seat saw showed (-1: not enough seen). After
        :data:`MIN_OFFERS` offers of ``s`` for species: their money per point at stake (value ×
        cards / set size) times this stake, since a value bidder's offers follow the stake, not
        the note count. Before that, with ``pooled``: the money per point at stake of every
        seat's offers to this seat (after :data:`MIN_OFFERS` of them), since how much a table
        pays for a stake is a better first guess than the note count (issue #42: a newcomer's
        first one-note offer of 500 was drawn as one small note, and countered with 50). Else,
        after :data:`MIN_OFFER_NOTES` notes of ``s``: money per note times ``count``."""
        h = self.seats[s]
        if s == self.me:
            return -1.0
        stake = self.m.value[k] * cards / self.m.size[k] if 0 <= k < self.m.K else 0.0
        if stake > 0 and h.seen_offers >= MIN_OFFERS and h.seen_offer_stake > 0:
            return h.seen_offer_money / h.seen_offer_stake * stake
        if stake > 0 and pooled:
            offers = sum(o.seen_offers for o in self.seats)
            paid = sum(o.seen_offer_money for o in self.seats)
            staked = sum(o.seen_offer_stake for o in self.seats)
            if offers >= MIN_OFFERS and staked > 0:
                return paid / staked * stake
        value = self.note_value(s)
        return value * count if value >= 0 else -1.0

    def state(self) -> tuple[tuple[float, ...], ...]:
        """Everything the model has learnt (tests compare it between games)."""
        return tuple(h.state() for h in self.seats) + self.fit.state()
