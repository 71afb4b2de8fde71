"""Kuhhandel in the analysis: the ``expert``'s candidates in words, and mistakes by kind.

The expert searches some decisions as plans: a bid decision is valued as a bid limit for the rest
of the auction (optionally opened by a jump bid). The answer given at a bid is valued as the plan
the seat actually followed in that auction: up to the highest bid it made there (its own later
answers, never anybody else's hidden information), opened by a jump when it bid above the minimum.
Only the seat's first bid decision in an auction is searched; its later bids there are that plan
carried out. The loss is counted in win chance, in percentage points.
"""

from __future__ import annotations

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
from cardtable.core.message import Message, msg
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots.belief import counts_of
from cardtable.games.kuhhandel.bots.expert import ExpertBot
from cardtable.games.kuhhandel.describe import animal, card


def _auction_key(obs: Any) -> tuple[int, int, int]:
    auction = obs.auction
    return (obs.turns, auction.auctioneer if auction else -1, auction.card if auction else -1)


#: Actions that carry nothing but their kind: a review calls them by the catalog's
#: ``analysis.kuhhandel.action.{kind}``.
PLAIN: tuple[type[A.Action], ...] = (
    A.Auction,
    A.Draw,
    A.Sell,
    A.Buy,
    A.Preempt,
    A.Release,
    A.TakeRat,
    A.Keep,
    A.Give,
    A.Pass,
    A.Accept,
    A.Knock,
)


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
    def _species(self, index: int) -> Message:
        """A card of the deck by its index: an animal, a pedigree card or the rat."""
        bot = self.bot_
        rules = bot.rules if bot is not None else {}
        species = rules.get("species", [])
        if 0 <= index < len(species):
            return animal(str(species[index]["name"]))
        n = len(species)
        if n <= index < 2 * n:
            return card(f"{species[index - n]['name']} pedigree")
        return card("Rat")

    def _notes_words(self, kind: str, total: int, count: int) -> Message:
        return msg("analysis.kuhhandel.notes", kind=kind, total=total, count=count)

    def label(self, obs: Any, request: Request, candidate: Any) -> Message:
        kind = request.kind
        if kind == "bid":
            lim, jump = candidate
            if lim <= 0:
                return msg("analysis.kuhhandel.action.pass")
            if jump:
                return msg("analysis.kuhhandel.bid_jump", jump=jump, limit=lim)
            return msg("analysis.kuhhandel.bid_up_to", limit=lim)
        if kind in ("offer", "respond"):
            if candidate is None:
                return msg("analysis.kuhhandel.action.accept")
            if isinstance(candidate, tuple):
                notes = self._notes(None)
                total = sum(c * v for c, v in zip(candidate, notes, strict=True))
                word = "offer" if kind == "offer" else "counter"
                return self._notes_words(word, total, sum(candidate))
        return self._words(candidate)

    def _words(self, action: Any) -> Message:
        if isinstance(action, PLAIN):
            return msg(f"analysis.kuhhandel.action.{action.kind}")
        if isinstance(action, A.Challenge):
            what = self._species(action.species)
            return msg("analysis.kuhhandel.challenge", seat=action.opponent, card=what)
        if isinstance(action, A.Claim):
            return msg("analysis.kuhhandel.claim", count=action.count)
        if isinstance(action, A.PlaceNote):
            return msg("analysis.kuhhandel.place_note", note=action.note)
        if isinstance(action, A.Bid):
            return msg("analysis.kuhhandel.bid", amount=action.amount)
        if isinstance(action, (A.Offer, A.Counter, A.Pay)):
            return self._notes_words(action.kind, sum(action.notes), len(action.notes))
        return msg("analysis.as_given", text=str(action))

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

    def describe_action(self, obs: Any, request: Request, action_json: Any) -> Message:
        try:
            return self._words(A.from_json(action_json))
        except ValueError:
            return msg("analysis.as_given", text=str(action_json))

    # ---------------------------------------------------------------- loss and kinds
    def loss(
        self, best: list[tuple[float, float, float]], taken: list[tuple[float, float, float]]
    ) -> tuple[float, float]:
        return paired(best, taken, 1, 100.0)

    def mistake_kind(self, obs: Any, request: Request, taken: Any, best: Any) -> Message:
        kind = request.kind
        m = "analysis.mistake.kuhhandel."
        if kind == "bid":
            if obs.auction is None:  # pragma: no cover - a bid request is always in an auction
                return msg(m + "bid")
            what = self._species(obs.auction.card)
            if taken[0] > best[0]:
                return msg(m + "overpaid", card=what)
            return msg(m + "too_cheap", card=what)
        if kind == "sell_or_buy":
            return msg(m + ("bought_dear" if isinstance(taken, A.Buy) else "sold_cheap"))
        if kind == "turn":
            if isinstance(taken, A.Challenge):
                return msg(m + "poor_trade_start")
            return msg(m + "auctioned_not_traded")
        if kind == "offer":
            if self._sum(taken) > self._sum(best):
                return msg(m + "offered_too_much")
            return msg(m + "weak_offer")
        if kind == "respond":
            if taken is None:
                return msg(m + "accepted_not_countered")
            if best is None:
                return msg(m + "countered_not_accepted")
            if self._sum(taken) > self._sum(best):
                return msg(m + "countered_dear")
            return msg(m + "countered_weak")
        poor = {
            "claim": m + "claim",
            "preempt": m + "preempt",
            "rat": m + "rat",
            "divide": m + "divide",
        }.get(kind)
        return msg(poor) if poor else msg(m + "other", kind=kind)

    def _sum(self, counts: Any) -> int:
        if not isinstance(counts, tuple):
            return 0
        notes = self._notes(None)
        return sum(c * v for c, v in zip(counts, notes, strict=True))
