"""Kuhhandel in the analysis: the ``expert``'s candidates in words, and mistakes by kind.

The expert searches some decisions as plans: a bid decision is valued as a bid limit for the rest
of the auction (optionally opened by a jump bid). The answer given at a bid is valued as the plan
the seat actually followed in that auction: up to the highest bid it made there (its own later
answers, never anybody else's hidden information), opened by a jump when it bid above the minimum.
Only the seat's first bid decision in an auction is searched; its later bids there are that plan
carried out. The loss is counted in win chance, in percentage points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.analysis.review import (
    KUHHANDEL_THRESHOLD,
    UNSEARCHED,
    Adapter,
    Budget,
    paired,
)
from cardtable.core import Record, Request, replay
from cardtable.core.decision import open_request
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots.belief import counts_of
from cardtable.games.kuhhandel.bots.expert import ExpertBot


def _auction_key(obs: Any) -> tuple[int, int, int]:
    auction = obs.auction
    return (obs.turns, auction.auctioneer if auction else -1, auction.card if auction else -1)


#: What a review calls an action that carries nothing but its kind.
PLAIN_WORDS: dict[type, str] = {
    A.Auction: "auction the top card",
    A.Draw: "draw and divide",
    A.Sell: "sell to the high bidder",
    A.Buy: "buy it yourself",
    A.Preempt: "pre-empt the pedigree",
    A.Release: "let the claimant have it",
    A.TakeRat: "take the rat",
    A.Keep: "keep the card",
    A.Give: "give the card",
    A.Pass: "pass",
    A.Accept: "accept the offer",
    A.Knock: "knock",
}


class KuhhandelAdapter(Adapter):
    game = "kuhhandel"
    unit = "points of win chance"
    threshold = KUHHANDEL_THRESHOLD

    def __init__(self) -> None:
        self.bot_: ExpertBot | None = None
        #: Per record index of a bid decision: the highest bid the seat made in that auction from
        #: there on.
        self.top_bid: dict[int, int] = {}
        #: Bid decisions after the seat's first in the same auction: part of the plan valued at
        #: the first, not searched again.
        self.follow_up: set[int] = set()

    def bot(self, seed: int, budget: Budget) -> Any:
        # guide=None: the review searches every decision itself (with the learned guide the
        # expert takes the guide's bids unsearched, and a review would have nothing to compare)
        self.bot_ = ExpertBot(
            seed=seed,
            guide=None,
            iterations=1,
            min_worlds=budget.worlds or 1,
            time_per_decision=budget.seconds,
            time_cap=None,
        )
        return self.bot_

    def fresh(self, bot: Any) -> None:
        bot._plan_key = None

    def prepare(self, record: Record, seat: int) -> None:
        game = replay(record, upto=0)
        pending: dict[tuple[int, int, int], list[int]] = {}
        for index, (s, data) in enumerate(record.actions):
            action = game.action_from_json(data)
            if s == seat:
                request = open_request(game, seat)
                if request.kind == "bid":
                    key = _auction_key(game.observe(seat))
                    if key in pending:
                        self.follow_up.add(index)
                    pending.setdefault(key, []).append(index)
                    amount = action.amount if isinstance(action, A.Bid) else 0
                    for i in pending[key]:
                        self.top_bid[i] = max(self.top_bid.get(i, 0), amount)
            game.apply(s, action)

    # ---------------------------------------------------------------- the answer given
    def taken(self, obs: Any, request: Request, action: Any, index: int) -> Any:
        kind = request.kind
        info = request.info or {}
        notes = self._notes(obs)
        if kind == "bid":
            if index in self.follow_up:
                return UNSEARCHED
            if not isinstance(action, A.Bid):
                return (0, 0)
            top = max(self.top_bid.get(index, action.amount), action.amount)
            jump = action.amount if action.amount > int(info.get("min", 0)) else 0
            return (top, jump)
        if kind == "offer" and isinstance(action, A.Offer):
            return tuple(counts_of(list(action.notes), notes))
        if kind == "respond":
            if isinstance(action, A.Counter):
                return tuple(counts_of(list(action.notes), notes))
            return None if isinstance(action, A.Accept) else UNSEARCHED
        if kind in ("turn", "sell_or_buy", "claim", "preempt", "rat", "divide"):
            return action
        return UNSEARCHED

    def _notes(self, obs: Any) -> tuple[int, ...]:
        if self.bot_ is not None and self.bot_.model is not None:
            return self.bot_.model.notes
        from cardtable.games.kuhhandel.rules import PRESETS

        return tuple(PRESETS[obs.rules].notes)

    # ---------------------------------------------------------------- words
    def _species(self, card: int) -> str:
        bot = self.bot_
        rules = bot.rules if bot is not None else {}
        species = rules.get("species", [])
        if 0 <= card < len(species):
            return str(species[card]["name"])
        n = len(species)
        if n <= card < 2 * n:
            return f"a {species[card - n]['name']} pedigree card"
        return "a rat"

    def _name(self, seat: int) -> str:
        return f"seat {seat}"

    def _amount(self, counts: Sequence[int]) -> str:
        notes = self._notes(None)
        total = sum(c * v for c, v in zip(counts, notes, strict=True))
        n = sum(counts)
        return f"{total} in {n} note{'s' if n != 1 else ''}"

    def label(self, obs: Any, request: Request, candidate: Any) -> str:
        kind = request.kind
        if kind == "bid":
            lim, jump = candidate
            if lim <= 0:
                return "pass"
            if jump:
                return f"jump to {jump}, then bid up to {lim}"
            return f"bid up to {lim}"
        if kind in ("offer", "respond"):
            if candidate is None:
                return "accept the offer"
            if isinstance(candidate, tuple):
                word = "offer" if kind == "offer" else "counter with"
                return f"{word} {self._amount(candidate)}"
        return self._words(candidate)

    def _words(self, action: Any) -> str:
        plain = PLAIN_WORDS.get(type(action))
        if plain is not None:
            return plain
        if isinstance(action, A.Challenge):
            who, what = self._name(action.opponent), self._species(action.species)
            return f"cow trade: challenge {who} for the {what}"
        if isinstance(action, A.Claim):
            return f"claim at {action.count}"
        if isinstance(action, A.PlaceNote):
            return f"place a {action.note}"
        if isinstance(action, A.Bid):
            return f"bid {action.amount}"
        if isinstance(action, (A.Offer, A.Counter, A.Pay)):
            n = len(action.notes)
            return f"{action.kind} {sum(action.notes)} in {n} note{'s' if n != 1 else ''}"
        return str(action)

    def action_json(self, obs: Any, request: Request, candidate: Any) -> Any:
        if isinstance(candidate, A.Action):
            return candidate.to_json()
        if request.kind in ("offer", "respond") and isinstance(candidate, tuple):
            notes = self._notes(obs)
            values = [v for c, v in zip(candidate, notes, strict=True) for _ in range(c)]
            kind = "offer" if request.kind == "offer" else "counter"
            return {"kind": kind, "notes": values}
        if request.kind == "respond" and candidate is None:
            return A.ACCEPT.to_json()
        return None

    def describe_action(self, obs: Any, request: Request, action_json: Any) -> str:
        try:
            return self._words(A.from_json(action_json))
        except ValueError:
            return str(action_json)

    # ---------------------------------------------------------------- loss and kinds
    def loss(
        self, best: list[tuple[float, float, float]], taken: list[tuple[float, float, float]]
    ) -> tuple[float, float]:
        return paired(best, taken, 1, 100.0)

    def mistake_kind(self, obs: Any, request: Request, taken: Any, best: Any) -> str:
        kind = request.kind
        if kind == "bid":
            what = self._species(obs.auction.card) if obs.auction else "the card"
            if taken[0] > best[0]:
                return f"overpaid in an auction (the {what})"
            return f"let an animal go too cheap (the {what})"
        if kind == "sell_or_buy":
            if isinstance(taken, A.Buy):
                return "bought back too dear"
            return "sold too cheap"
        if kind == "turn":
            if isinstance(taken, A.Challenge):
                return "a poor cow trade to start"
            return "auctioned when a cow trade was better"
        if kind == "offer":
            if self._sum(taken) > self._sum(best):
                return "offered too much in a cow trade"
            return "a weak cow-trade offer"
        if kind == "respond":
            if taken is None:
                return "accepted a cow-trade offer it should have countered"
            if best is None:
                return "countered a cow-trade offer it should have accepted"
            if self._sum(taken) > self._sum(best):
                return "countered too dear in a cow trade"
            return "countered too weakly in a cow trade"
        return {
            "claim": "a poor pedigree claim",
            "preempt": "a poor pre-emption",
            "rat": "a poor rat choice",
            "divide": "kept or gave the wrong card",
        }.get(kind, f"a poor {kind}")

    def _sum(self, counts: Any) -> int:
        if not isinstance(counts, tuple):
            return 0
        notes = self._notes(None)
        return sum(c * v for c, v in zip(counts, notes, strict=True))
