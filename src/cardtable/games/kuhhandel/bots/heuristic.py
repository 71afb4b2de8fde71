"""``heuristic``: a reasonable, documented Kuhhandel strategy.

How it thinks:

1. **What a card is worth to me.** A card of species *k* (quartet value *v*, set size *c*) is
   worth ``v * (h + 1) / c`` to a seat that holds *h* of them, times 1.5 when it completes the
   quartet (completing sets also raises the multiplier). Taking a card an opponent is collecting
   is worth half of what it is worth to that opponent (denial).
2. **From points to money.** Money in play is finite (start wallets plus payouts), so a card's
   worth is turned into a money limit: my money times the card's share of the value still to be
   won, scaled up for cards I need most, and never above ``money - reserve``.
3. **Reserve.** It keeps about one note of 10 per species it could be challenged on, to defend.
4. **Auctions.** Bids the minimum raise while below its limit; as auctioneer it buys when the high
   bid is below its own limit for the card and it can pay, else sells. Pays with the cheapest
   valid payment.
5. **Cow trades.** Challenges when it holds at least as many cards of a species as the opponent
   and the set is valuable, or whenever the deck is empty (compulsory). Offers about the card's
   worth in money, padded with 0-notes as a bluff; as opponent it counters when the offer's note
   count suggests less than the cards are worth to it, and accepts otherwise. In the end phase it
   challenges where it holds at least as many cards as the opponent when it can (so that trades
   gather a species instead of passing it back and forth), and it accepts a challenge it already
   answered with every herd as it is now (the trades since went round in a circle).
6. **Master.** Pedigree cards are claimed at a count that fits their bonus and its wallet; rats are
   avoided by placing its smallest note, unless the pile beside the rat is worth taking.
"""

from __future__ import annotations

import random
from typing import Any

from cardtable.core.compiled import mypyc_attr
from cardtable.core.contract import Request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cheapest_payment
from cardtable.games.kuhhandel.observe import KuhhandelObservation


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot may be subclassed
class HeuristicBot:
    """The rule-of-thumb player described in the module docstring."""

    def __init__(self, seed: int = 0, aggression: float = 1.0) -> None:
        self.rng = random.Random(seed)
        self.aggression = aggression
        self.rules: dict[str, Any] = {}
        #: End-phase cow trades it answered: (challenger, species, every herd) when challenged
        #: (underscored: bots that subclass this one keep their own names free)
        self._challenges_answered: set[tuple[Any, ...]] = set()

    def start(self, seat: int, info: Any) -> None:
        self.rules = dict(info.rules)
        self._challenges_answered = set()

    # ------------------------------------------------------------------ valuation
    def _species(self, obs: KuhhandelObservation) -> list[dict[str, Any]]:
        species: list[dict[str, Any]] = self.rules["species"]
        return species

    def card_worth(self, obs: KuhhandelObservation, seat: int, k: int) -> float:
        """Points-scale worth of one more card of species ``k`` to ``seat``.

        For rats (``k == len(species)``) this is the worth of getting rid of one: a quarter of
        the cheapest quartet a holder of every rat would have to strike.
        """
        species = self._species(obs)
        if k >= len(species):
            return min((sp["value"] for sp in species), default=0) / 4 + 40 * obs.rats[seat]
        sp = species[k]
        size = len(sp["payouts"])
        h = obs.herds[seat][k]
        if h >= size:
            return 0.0
        others = max((obs.herds[s][k] for s in range(obs.seats) if s != seat), default=0)
        own: float = sp["value"] * (h + 1) / size
        if h + 1 == size:
            own *= 1.5
        elif others and h + others >= size:
            own *= 0.7  # the set is split: I will have to trade for it
        deny = 0.0
        for s in range(obs.seats):
            if s != seat and obs.herds[s][k]:
                deny = max(deny, sp["value"] * obs.herds[s][k] / size * 0.5)
        return own + deny

    def money_limit(self, obs: KuhhandelObservation, k: int) -> int:
        """The most this bot would pay for one card of species ``k``."""
        assert obs.seat is not None
        money = obs.money
        remaining = 0.0
        for j, sp in enumerate(self._species(obs)):
            left = len(sp["payouts"]) - max(obs.herds[s][j] for s in range(obs.seats))
            remaining += sp["value"] * max(left, 1)
        worth = self.card_worth(obs, obs.seat, k)
        share = min(1.0, 4.0 * worth / max(remaining, 1.0) * obs.seats)
        reserve = self._reserve(obs)
        limit = int(money * min(0.9, 0.2 + 0.7 * share) * self.aggression)
        return max(0, min(limit, money - reserve))

    def _reserve(self, obs: KuhhandelObservation) -> int:
        assert obs.seat is not None
        exposed = sum(
            1
            for k, h in enumerate(obs.herds[obs.seat])
            if h and any(obs.herds[s][k] for s in range(obs.seats) if s != obs.seat)
        )
        return 10 * exposed

    # ------------------------------------------------------------------ answers
    def act(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        if not self.rules:  # no start() hook was called: fall back to the named preset
            from cardtable.games.kuhhandel.rules import PRESETS

            self.rules = PRESETS[obs.rules].to_json()
        kind = request.kind
        info = request.info or {}
        if kind == "bid":
            limit = (
                self.money_limit(obs, info["card"])
                if info["card"] < len(self.rules["species"])
                else self._special_limit(obs, info["card"])
            )
            cap = info["max"]
            amount = info["min"]
            if amount <= limit and (cap is None or amount <= cap):
                return A.Bid(amount)
            return A.PASS
        if kind == "knock":
            return A.KNOCK
        if kind == "sell_or_buy":
            card = info["card"]
            limit = (
                self.money_limit(obs, card)
                if card < len(self.rules["species"])
                else self._special_limit(obs, card)
            )
            if (
                A.BUY in (request.choices or ())
                and info["high"] <= limit
                and obs.money >= info["high"]
            ):
                return A.BUY
            return A.SELL
        if kind == "pay":
            return self._pay(obs, info)
        if kind == "turn":
            return self._turn(obs, request)
        if kind == "offer":
            return A.Offer(
                self._trade_notes(
                    obs, info["opponent"], info["species"], info["cards"], attack=True
                )
            )
        if kind == "respond":
            return self._respond(obs, info)
        if kind == "claim":
            return self._claim(obs, request, info)
        if kind == "preempt":
            return (
                A.RELEASE
                if A.RELEASE in (request.choices or ())
                else (request.choices or (A.RELEASE,))[0]
            )
        if kind == "rat":
            return self._rat(obs, info)
        if kind == "divide":
            card = info.get("card", -1)
            worth = (
                self.card_worth(obs, obs.seat or 0, card)
                if 0 <= card < len(self.rules["species"])
                else 0
            )
            return A.KEEP if card != 2 * len(self.rules["species"]) and worth >= 0 else A.GIVE
        assert request.choices, f"heuristic bot cannot answer {kind!r}"
        first: A.Action = request.choices[0]
        return first

    def _special_limit(self, obs: KuhhandelObservation, card: int) -> int:
        return min(obs.money // 4, 60)

    def _pay(self, obs: KuhhandelObservation, info: Any) -> A.Action:
        wallet = list(info["wallet"])
        if "count" in info:
            return A.Pay(tuple(sorted(wallet)[: info["count"]]))
        values = sorted(set(wallet))
        counts = [wallet.count(v) for v in values]
        pay = cheapest_payment(counts, values, info["amount"])
        assert pay is not None
        return A.Pay(pay)

    def _turn(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        assert obs.seat is not None
        choices: tuple[A.Action, ...] = request.choices or ()
        n_species = len(self._species(obs))
        trades = [c for c in choices if isinstance(c, A.Challenge) and c.species < n_species]
        if not trades:
            return choices[0]
        me = obs.seat
        species = self._species(obs)

        def appeal(c: A.Challenge) -> float:
            mine = obs.herds[me][c.species]
            theirs = obs.herds[c.opponent][c.species]
            weakness = 1.0 / (1 + obs.note_counts[c.opponent])
            value: float = species[c.species]["value"]
            return value * (mine + min(mine, theirs)) * (1 + weakness) + (
                5 if mine >= theirs else 0
            )

        if A.AUCTION not in choices:
            # The end phase (§6): challenge where it holds at least as many cards as the
            # opponent when it can. Winning there (a tie goes to the challenger, §5.5) gathers the
            # species; a challenger with fewer cards that wins only swaps the roles, and two bots
            # doing that in turn pass one card back and forth (each swapping the same notes) until
            # the end-phase cap ends the game with incomplete sets.
            gathering = [
                c for c in trades if obs.herds[me][c.species] >= obs.herds[c.opponent][c.species]
            ]
            return max(gathering or trades, key=appeal)
        best = max(trades, key=appeal)
        mine = obs.herds[me][best.species]
        theirs = obs.herds[best.opponent][best.species]
        rich = obs.money >= 40 and obs.money > 2 * 10 * obs.note_counts[best.opponent] // 3
        if mine >= 2 and mine >= theirs and rich and self.rng.random() < 0.6:
            return best
        return A.AUCTION

    def _trade_notes(
        self, obs: KuhhandelObservation, other: int, k: int, cards: int, *, attack: bool
    ) -> tuple[int, ...]:
        assert obs.seat is not None
        wallet = sorted(obs.wallet or ())
        worth = self.card_worth(obs, obs.seat, k) * cards
        total_value = sum(sp["value"] for sp in self._species(obs))
        money_in_play = max(1, obs.money + 90 * (obs.seats - 1))
        target = int(worth / max(total_value, 1) * money_in_play * 1.2 * self.aggression)
        target = min(
            target, max(0, obs.money - (0 if obs.deck_size == 0 else self._reserve(obs) // 2))
        )
        positive = [v for v in wallet if v > 0]
        counts_vals = sorted(set(positive))
        counts = [positive.count(v) for v in counts_vals]
        notes: list[int] = []
        if target > 0 and counts_vals:
            pay = cheapest_payment(counts, counts_vals, target)
            if pay is not None:
                notes = list(pay)
        zeros = [v for v in wallet if v == 0]
        if attack and zeros:
            notes += zeros[: self.rng.randint(0, len(zeros))]  # bluff with 0-notes
        return tuple(sorted(notes))

    def _respond(self, obs: KuhhandelObservation, info: Any) -> A.Action:
        assert obs.seat is not None
        k, cards, challenger = info["species"], info["cards"], info["challenger"]
        offered_notes = info["offer_notes"]
        if k >= len(self._species(obs)):
            # Rats: the higher offer gives its rats away. Outbid a thin offer if we can.
            estimate = offered_notes * self._average_note(obs)
            notes = sorted(v for v in obs.wallet or () if v > 0)
            values = sorted(set(notes))
            counts = [notes.count(v) for v in values]
            pay = cheapest_payment(counts, values, int(estimate) + 10) if values else None
            if pay is not None and sum(pay) <= obs.money // 3:
                return A.Counter(pay)
            return A.ACCEPT
        if obs.end_phase:
            # The same challenge with every herd as it was when it last answered it: the trades
            # since went round in a circle (the winner alternating as the same notes change hands).
            # Conceding lets the challenger gather the species (it challenges where it holds at
            # least as many cards, see _turn), so the game moves on.
            position = (challenger, k, obs.herds)
            if position in self._challenges_answered:
                return A.ACCEPT
            self._challenges_answered.add(position)
        avg = self._average_note(obs)
        estimate = offered_notes * avg
        mine = self.card_worth(obs, obs.seat, k) * cards
        total_value = sum(sp["value"] for sp in self._species(obs))
        money_in_play = max(1, obs.money + 90 * (obs.seats - 1))
        my_price = mine / max(total_value, 1) * money_in_play
        if estimate >= my_price * 1.3 and offered_notes > 0:
            return A.ACCEPT
        counter = self._trade_notes(obs, challenger, k, cards, attack=False)
        if sum(counter) == 0 and offered_notes > 0:
            return A.ACCEPT
        return A.Counter(counter)

    def _average_note(self, obs: KuhhandelObservation) -> float:
        notes = sum(obs.note_counts)
        money_total = obs.money + sum(
            nc * 18 for s, nc in enumerate(obs.note_counts) if s != obs.seat
        )
        return money_total / max(notes, 1)

    def _claim(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        choices = [c for c in (request.choices or ()) if isinstance(c, A.Claim)]
        if not choices:
            return A.Claim(0)
        k = info.get("species", -1)
        have = obs.herds[obs.seat or 0][k] if 0 <= k < len(obs.herds[0]) else 0
        want = 4 if have >= 2 else 2
        best = max(
            (c for c in choices if c.count <= want), key=lambda c: c.count, default=choices[0]
        )
        return best

    def _rat(self, obs: KuhhandelObservation, info: Any) -> A.Action:
        wallet = sorted(info["wallet"])
        pile = info.get("pile", 0)
        if not wallet or pile >= 4:
            return A.TAKE_RAT
        return A.PlaceNote(wallet[0])
