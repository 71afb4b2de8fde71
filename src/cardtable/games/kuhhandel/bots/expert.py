"""``expert``: a Kuhhandel player that searches over sampled worlds (every preset).

How it decides:

1. **Belief.** It follows the events its seat sees (:class:`.belief.Belief`): the other seats'
   money is estimated from start wallets, donkey payouts, public payment amounts, exposed wallets
   and note counts of cow trades; its own payments and trades are known exactly.
2. **Worlds.** For a decision it samples worlds consistent with its observation
   (:func:`.belief.sample_world`): unseen cards shuffled into the deck, the other seats' notes
   dealt to match their public note counts (exactly the notes outside the bank and its own wallet
   when the bank is finite) and its money estimates, hidden offers drawn from the sampled wallet
   with the observed note count.
3. **Playouts.** In each world it tries every candidate answer and plays the game to its end in a
   fast model (:mod:`.sim`) in which every seat follows the ``heuristic`` strategy, changed per
   seat by what the opponent model (:mod:`.opponents`) inferred from that seat's play so far
   (bids whatever it can afford, always sells, always accepts, ...); the same world
   and the same random continuation for every candidate. A playout scores 1 for a win (shared
   wins split), plus a small term for the score margin. It picks the candidate with the best mean;
   the heuristic's own answer is always a candidate and gets a small bonus (``priors``), because
   with a few worlds per candidate the best of many noisy means is mostly luck.
4. **Candidates.** Turn: auction (or divide) and the most promising cow trades. Auctions: a bid
   limit (pass, the heuristic's limit, and fractions of its money; with capped bidding rounds
   also a jump bid), chosen once per auction and then followed by bidding the minimum raise.
   Sell or buy; cow-trade offers (amounts from 0 to all its money, compact or padded with small
   notes); answers (accept, or counters of several amounts); pedigree claims (the heuristic's
   count within ``claim_window``, and the smallest);
   pre-emption; rats (take, or place each kind of note); the duel's keep or give.
5. **Guide.** Where the ``learned`` bot can play the table (``guide``, default ``learned``), its
   answer from the same observation and request is the prior instead of the heuristic's, it
   bids for the expert (but where it passes while the minimum bid is at most ``value_floor``,
   0.5, of the card's species value, the expert bids the minimum: the guide lets dear cards go
   for about 0.3 per point, issue #42), and a search departs from it only when the best
   candidate's gain over it, paired world by world, exceeds ``evidence`` standard errors (3):
   the playouts model such opponents only roughly, and the best of a few noisy means is mostly
   luck. An answer to a cow-trade offer whose worth the opponent model knows (``.opponents``)
   may be given a lower bar, ``offer_evidence`` (off by default; 1 tried in issue #42: the
   search has read what the guide cannot, but no gain was measured yet).
6. **Trivial requests** (a single choice, paying, knocking, a bid it cannot afford) are answered
   at once without search.

Budget: ``iterations`` playouts per decision, split over the candidates (at least ``min_worlds``
worlds per search); with an iteration budget the bot is deterministic for a seed. Without
``iterations`` the budget follows the rule set (:data:`RULES_ITERATIONS`, else
:data:`DEFAULT_ITERATIONS`): the most each preset affords within the server's limits of 50 ms mean
and 400 ms max per decision on one core (docs/strength.md has the tables and timings).
``time_per_decision`` (seconds) samples worlds until that time is used instead (not
reproducible). ``time_cap`` (default 0.25 s of wall time, checked inside every playout) ends
any search early, with the best candidate over the worlds finished so far, so that a slow
machine never misses a server deadline.
"""

from __future__ import annotations

import copyreg
import inspect
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from cardtable.core.contract import Event, Request
from cardtable.core.probe import SearchProbe
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots.belief import Belief, counts_of, sample_world
from cardtable.games.kuhhandel.bots.heuristic import HeuristicBot
from cardtable.games.kuhhandel.bots.opponents import OpponentModel
from cardtable.games.kuhhandel.bots.sim import COINS, Model, Sim, pay_counts
from cardtable.games.kuhhandel.observe import KuhhandelObservation

DEFAULT_ITERATIONS = 32
#: Default budget by rule-set name. ``competition`` games are short for the expert (few
#: decisions need a search): 384 playouts since December 6 2026 (issue #42: against three
#: reference-style SimplePlayers +5.5 points [+1.0, +10.0] over 128, against four ``heuristic``
#: +16.5 [+7.2, +25.8], paired; CPU per decision mean 7.8-15.4 ms, max 163 ms at four to six
#: seats, compiled build: docs/strength.md); ``master`` affords 64. The duel stays at the
#: default: its trading games run long (about 500 decisions) and at 64 playouts its mean
#: decision time passed 50 ms.
#: ``classic`` affords 96 since issue #27 (the guided expert departs from ``learned`` only on
#: evidence, and three times the worlds prove three times more: +6.0 points [+0.6, +11.4] against
#: three ``learned``, +4.8 [-0.1, +9.6] against three ``heuristic``, 400 paired games each),
#: and 192 since December 3 2026 (against ``learned``, ValueBidder and PriceBlind, the one panel
#: seating it did not lead: +4.8 points [-1.5, +11.0], mean score +472 [+132, +813], 400 paired
#: games; 9.3 ms of CPU per decision on average in the compiled build, at most 260 ms of wall
#: time under ``stress --cpu 2``: docs/strength.md).
RULES_ITERATIONS: dict[str, int] = {"classic": 192, "competition": 384, "master": 64}
MONEY_FRACTIONS = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0)
TURN_TRADES = 5  # cow trades considered on a turn, by the heuristic's appeal
#: Bonus per world for the heuristic's own answer: with a few playouts per candidate the best mean
#: is partly luck, so another answer must beat the heuristic's by a margin to be preferred.
PRIOR_BONUS = 0.02
#: The bot whose answers are the prior where it can play the table (``guide``): ``learned`` won
#: 25% against three copies of itself where the heuristic-guided expert won 10-15%.
DEFAULT_GUIDE = "learned"
#: Standard errors of paired gain an answer to a cow-trade offer needs to replace the guide's
#: when the opponent model knows the challenger's offer worth (``offer_evidence``): on a
#: December 5 2026 decision (issue #42) the guide countered 190 against a known 500-note offer
#: (the model said 411); the search's best counter, 600, was held back by the bar of 3.
OFFER_EVIDENCE = 1.0
#: Standard errors of paired gain a candidate needs to replace the guide's answer (``evidence``):
#: with 3-8 worlds per candidate the best of several means is mostly luck, and the playouts model
#: a guide-like opponent only roughly. 3 rather than 2: +6.0 points [+0.8, +11.2] of win share
#: against three ``heuristic`` and +2.2 [-2.8, +7.3] against three ``learned`` (400 games each,
#: paired); 4 plays as 3 (docs/strength.md, *Issue #27*).
GUIDED_EVIDENCE = 3.0
#: ``value_floor``'s default: the guide lets dear cards go for about 0.3 money per point of
#: their species' value; at 0.5 a value bidder alone against three experts fell from 31.5% to
#: 22.5% of 400 games and the expert against three ``learned`` rose from 33.2% to 37.2% of 1,000
#: (issue #42, docs/strength.md, *the value floor*).
VALUE_FLOOR = 0.5

#: A candidate's playout: apply the candidate's episode to a world (context from ``prepare``).
Runner = Callable[[Sim, Any, Any], None]


def _model_fields() -> tuple[str, ...]:
    """The attributes of a compiled :class:`Model` (its class's data descriptors)."""
    return tuple(
        n for n, v in vars(Model).items() if inspect.isgetsetdescriptor(v) and n[:2] != "__"
    )


def _reduce_model(model: Model) -> tuple[Any, ...]:
    """Pickling and deep copies of the compiled build's :class:`Model` (an expert opponent in a
    copied environment): its attributes, set again on a bare instance. The default protocol
    cannot rebuild a compiled class; plain Python never gets here."""
    state = {n: getattr(model, n) for n in _model_fields() if hasattr(model, n)}
    return (_restore_model, (state,))


def _restore_model(state: dict[str, Any]) -> Model:
    # A compiled class always runs its __init__: the smallest model, then every attribute.
    model = Model({"species": [], "notes": (), "start_wallet": ()}, 1)
    for name, value in state.items():
        setattr(model, name, value)
    return model


if _model_fields():  # the compiled build (mypyc): attributes are descriptors of the class
    copyreg.pickle(Model, _reduce_model)


class ExpertBot:
    """Information-set Monte Carlo over the :mod:`.sim` model (see the module docstring)."""

    def __init__(
        self,
        seed: int = 0,
        iterations: int | None = None,
        time_per_decision: float | None = None,
        time_cap: float | None = 0.25,
        jump_bids: bool = False,
        min_worlds: int = 0,
        priors: bool = True,
        claim_window: int | None = 2,
        opponents: bool = True,
        guide: str | None = DEFAULT_GUIDE,
        guide_bonus: float | None = None,
        guided_search: str | None = None,
        evidence: float | None = None,
        note_values: bool = True,
        pooled_offers: bool = False,
        offer_evidence: float | None = None,
        fitted: bool = False,
        value_floor: float = VALUE_FLOOR,
    ) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        #: A built-in bot whose answers are the search's prior (the candidate with the bonus)
        #: instead of the heuristic's, and which bids for the expert; ``None``: the heuristic.
        #: A guide that cannot play the table (``bot_refusal``: no weights for the rule set or
        #: the seat count, numpy missing) leaves the heuristic in place.
        self.guide_name = guide
        self.guide: Any = None
        self.prior_bonus = PRIOR_BONUS if guide_bonus is None else float(guide_bonus)
        #: With a guide: the request kinds still searched ("+"-separated); the others are the
        #: guide's answers. ``None``: every kind the expert searches.
        self.guided_search = None if guided_search is None else set(str(guided_search).split("+"))
        #: The search departs from the prior's answer only when the best candidate's mean gain
        #: over it, paired world by world, exceeds this many standard errors (0: the best mean).
        #: ``None``: :data:`GUIDED_EVIDENCE` with a guide, else 0 (set by ``start``).
        self.evidence_option = None if evidence is None else float(evidence)
        self.evidence = self.evidence_option or 0.0
        #: Infer each seat's habits and play them out (``.opponents``); off: every seat is
        #: played out like ``heuristic`` (the behaviour before December 2026).
        self.use_opponents = opponents
        #: With the opponent model: a challenger's hidden offer is drawn at the worth its offers
        #: in this seat's own trades showed (``OpponentModel.offer_worth``); off: the
        #: heuristic's offer trimmed to the note count (the behaviour before issue #42).
        self.note_values = note_values
        #: With ``note_values``: before a challenger's own offers were seen, its hidden offer is
        #: drawn at what every seat's offers to this seat paid per point at stake (issue #42,
        #: December 5 2026 evening; off by default: no gain measured yet, docs/strength.md);
        #: off: the heuristic's offer trimmed to the note count.
        self.pooled_offers = pooled_offers
        #: The evidence an answer to a cow-trade offer needs to replace the guide's when the
        #: opponent model knows what the challenger's offers are worth (``_offer_worth``): the
        #: guide reads no events, so there the search knows more than its prior (issue #42).
        #: ``None`` (the default: no gain measured yet, docs/strength.md): ``evidence``, as
        #: before; :data:`OFFER_EVIDENCE` is the value tried.
        self.offer_evidence = None if offer_evidence is None else float(offer_evidence)
        #: With the opponent model: each other seat's bid limit and acceptance curve fitted to
        #: its decisions in this game (``.fitted``) play that seat in the playouts; off: the
        #: habit switches alone.
        self.fitted = fitted
        #: Bid on for a card of a species while the minimum bid is at most this share of the
        #: species' value, whatever the guide answers (issue #42: the guide lets dear cards go
        #: for about 0.3 per point, below what a value bidder pays); 0: the guide's bids alone
        #: (the behaviour before December 6 2026).
        self.value_floor = float(value_floor)
        self.opponents: OpponentModel | None = None
        self.min_worlds = max(0, int(min_worlds))
        self.priors = priors
        self.claim_window = claim_window
        self.jump_bids = jump_bids
        #: ``None``: the budget follows the rule set (set by ``start`` or the first observation).
        self.iterations_option = None if iterations is None else max(1, int(iterations))
        self.iterations = self.iterations_option or DEFAULT_ITERATIONS
        self.time_per_decision = time_per_decision
        self.time_cap = time_cap
        self.heuristic = HeuristicBot(seed)
        self.rules: dict[str, Any] = {}
        self.model: Model | None = None
        self.belief: Belief | None = None
        self._plan_key: tuple[Any, ...] | None = None
        self._plan: tuple[int, int] = (0, 0)
        #: Worlds sampled by the last search (tests and benchmarks read it).
        self.last_worlds = 0
        #: Whether the last search was ended by ``time_cap`` (tests and benchmarks read it).
        self.last_capped = False
        #: Searches run and searches ended early by ``time_cap``, over the bot's life (one game
        #: in the arena, which reports both: docs/arena.md, *Time cap*).
        self.searches = 0
        self.capped_searches = 0
        #: Set by the analysis (``cardtable analyse``): the next search reports into it.
        self.probe: SearchProbe | None = None
        #: The wall clock of ``time_cap`` and ``time_per_decision`` (tests give a fake one); the
        #: playouts compare ``time.perf_counter`` against the deadline, so a replacement must
        #: keep its timeline.
        self.clock: Callable[[], float] = time.perf_counter
        #: When the current decision began (``act``): the cap counts from there, so the work
        #: before a search (belief, opponent model, candidates, the heuristic's answer) counts.
        self._decision_start: float | None = None

    # ------------------------------------------------------------------ hooks
    def start(self, seat: int, info: Any) -> None:
        self.rules = dict(info.rules)
        self._set_budget(str(self.rules.get("name", "")))
        self.heuristic.start(seat, info)
        self.model = Model(self.rules, info.seats)
        self.belief = Belief(self.model, seat)
        self.opponents = OpponentModel(self.model, self.belief)
        self.guide = self._load_guide(seat, info)
        if self.evidence_option is None:
            self.evidence = GUIDED_EVIDENCE if self.guide is not None else 0.0

    def _load_guide(self, seat: int, info: Any) -> Any:
        if not self.guide_name:
            return None
        from cardtable.core.registry import bot_refusal, game_spec, load_bot

        spec = game_spec("kuhhandel")
        rules = spec.rules_from_json(info.rules)
        if bot_refusal(spec, self.guide_name, rules, info.seats) is not None:
            return None
        guide = load_bot("kuhhandel", self.guide_name, seed=self.seed)
        hook = getattr(guide, "start", None)
        if hook is not None:
            hook(seat, info)
        return guide

    def _usual(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        """The prior's answer: the guide's if there is one (and it answers), else the
        heuristic's."""
        if self.guide is not None:
            try:
                answer: A.Action = self.guide.act(obs, request)
            except ValueError:  # a policy's index its mask refuses: the heuristic answers
                return self.heuristic.act(obs, request)
            return answer
        return self.heuristic.act(obs, request)

    def event(self, event: Event) -> None:
        hook = getattr(self.guide, "event", None)
        if hook is not None:
            hook(event)
        if self.opponents is not None:
            self.opponents.event(event)  # before the belief: money estimates before a payment
        if self.belief is not None:
            self.belief.event(event)

    def _ensure(self, obs: KuhhandelObservation) -> tuple[Model, Belief]:
        if self.model is None or self.belief is None:
            # No start() hook: the named preset's rules, money estimates without events.
            from cardtable.games.kuhhandel.rules import PRESETS

            self.rules = PRESETS[obs.rules].to_json()
            self._set_budget(obs.rules)
            self.heuristic.rules = dict(self.rules)
            self.model = Model(self.rules, obs.seats)
            self.belief = Belief(self.model, obs.seat or 0)
            self.opponents = OpponentModel(self.model, self.belief)
        return self.model, self.belief

    def _set_budget(self, rules_name: str) -> None:
        if self.iterations_option is None:
            self.iterations = RULES_ITERATIONS.get(rules_name, DEFAULT_ITERATIONS)

    # ------------------------------------------------------------------ answers
    def act(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        self._decision_start = self.clock()
        try:
            return self._act(obs, request)
        finally:
            self._decision_start = None

    def _act(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        model, belief = self._ensure(obs)
        belief.sync(obs)
        if self.use_opponents and self.opponents is not None:
            self.opponents.apply(fitted=self.fitted)
        kind = request.kind
        choices = request.choices
        if choices is not None and len(choices) == 1:
            only: A.Action = choices[0]
            return only
        info = request.info or {}
        if (
            self.guide is not None
            and self.guided_search is not None
            and kind not in self.guided_search
        ):
            return self._usual(obs, request)
        if kind == "bid":
            if self.guide is not None and (
                self.guided_search is None or "bid" not in self.guided_search
            ):
                low, cap = info["min"], info["max"]
                if low > obs.money or (cap is not None and low > cap):
                    return A.PASS
                answer = self._usual(obs, request)
                card = info["card"]
                if (
                    isinstance(answer, A.Pass)
                    and card < model.K
                    and low <= self.value_floor * model.value[card]
                ):
                    return A.Bid(low)
                return answer
            return self._bid(obs, info)
        if kind == "turn":
            return self._turn(obs, request)
        if kind == "sell_or_buy":
            return self._sell_or_buy(obs, request, info)
        if kind == "offer":
            return self._offer(obs, request, info)
        if kind == "respond":
            return self._respond(obs, request, info)
        if kind == "claim":
            return self._claim(obs, request, info)
        if kind == "preempt":
            return self._preempt(obs, request, info)
        if kind == "rat":
            return self._rat(obs, request, info)
        if kind == "divide":
            return self._divide(obs, request, info)
        # pay, knock and anything new: the prior's answer is right (or harmless)
        return self._usual(obs, request)

    # ------------------------------------------------------------------ the search
    def _search(
        self,
        obs: KuhhandelObservation,
        candidates: Sequence[Any],
        run: Runner,
        prepare: Callable[[Sim, random.Random], Any] | None = None,
        prior: int | None = None,
        usual: Any = None,
        evidence: float | None = None,
    ) -> Any:
        assert obs.seat is not None and self.model is not None and self.belief is not None
        bar = self.evidence if evidence is None else evidence
        probe = self.probe
        if probe is not None:
            candidates = probe.open(candidates)
        if len(candidates) == 1:
            return candidates[0]
        if prior is None and usual is not None and self.priors and usual in candidates:
            prior = list(candidates).index(usual)
        me = obs.seat
        totals = [0.0] * len(candidates)
        worlds = max(1, self.min_worlds, self.iterations // len(candidates))
        if probe is not None and probe.worlds is not None:
            worlds = probe.worlds
        clock = self.clock
        # The cap bounds the whole decision: it counts from ``act`` (the work before the search
        # too) and is checked before each world, each candidate's playout and inside every
        # playout (each turn); a world cut short is thrown away, so the answer is the best
        # candidate over the worlds that every candidate finished.
        start = self._decision_start if self._decision_start is not None else clock()
        deadline = None if self.time_cap is None else start + self.time_cap
        if self.time_per_decision is not None:
            until = start + self.time_per_decision
            deadline = until if deadline is None else min(deadline, until)
        done = 0
        rng = self.rng
        values = [0.0] * len(candidates)
        paired = prior is not None and bar > 0 and probe is None
        #: per candidate: sums of its gain over the prior's answer, world by world, and squares
        gain = [0.0] * len(candidates)
        gain_sq = [0.0] * len(candidates)
        self.last_capped = False
        while True:
            if self.time_per_decision is None and done >= worlds:
                break
            if deadline is not None and clock() >= deadline:
                self.last_capped = self.time_cap is not None and clock() >= start + self.time_cap
                break
            base = sample_world(obs, self.model, self.belief, rng)
            base.coins = [rng.random() for _ in range(COINS)]
            base.herd_stats()
            ctx = prepare(base, rng) if prepare is not None else None
            seed = rng.getrandbits(32)
            finished = True
            for i, cand in enumerate(candidates):
                sim = base.clone(seed)
                run(sim, cand, ctx)
                if not sim.run(deadline):
                    finished = False
                    break
                values[i] = sim.utility(me)
                if probe is not None:
                    win, margin = sim.outcome(me)
                    probe.add(i, values[i], win, margin)
            if not finished:
                continue  # the loop head sees the deadline and stops
            for i in range(len(candidates)):
                totals[i] += values[i]
            if paired:
                assert prior is not None
                base_value = values[prior]
                for i in range(len(candidates)):
                    d = values[i] - base_value
                    gain[i] += d
                    gain_sq[i] += d * d
            done += 1
        self.last_worlds = done
        self.searches += 1
        self.capped_searches += self.last_capped
        if prior is not None and probe is None:
            totals[prior] += self.prior_bonus * done
        if not done:
            # Out of time before a single world was finished: the heuristic's answer if it is a
            # candidate (the prior), else the first candidate.
            return candidates[prior if prior is not None else 0]
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        if (
            paired
            and prior is not None
            and best != prior
            and not self._proven(gain[best], gain_sq[best], done, bar)
        ):
            return candidates[prior]
        return candidates[best]

    def _proven(self, total: float, squares: float, n: int, bar: float) -> bool:
        """Whether a mean gain over ``n`` paired worlds exceeds ``bar`` standard errors."""
        if n < 2:
            return False
        mean = total / n
        var = max(0.0, (squares - n * mean * mean) / (n - 1))
        return mean > bar * math.sqrt(var / n)

    @staticmethod
    def _next(sim: Sim, seat: int) -> None:
        sim.turn = (seat + 1) % sim.m.n

    def _levels(self, money: int, low: int, step: int) -> list[int]:
        """Amounts from ``low`` to ``money``: fractions of the money, on the raise grid."""
        out = set()
        for f in MONEY_FRACTIONS:
            v = int(money * f) // step * step
            if v >= low:
                out.add(v)
        return sorted(out)

    # ------------------------------------------------------------------ turn
    def _turn(self, obs: KuhhandelObservation, request: Request) -> A.Action:
        assert obs.seat is not None and self.model is not None
        me = obs.seat
        choices: tuple[A.Action, ...] = tuple(request.choices or ())
        draws = [c for c in choices if not isinstance(c, A.Challenge)]
        trades = [c for c in choices if isinstance(c, A.Challenge)]
        species = self.model.value

        def appeal(c: A.Challenge) -> float:
            if c.species >= len(species):
                return 1.0 * obs.rats[me]
            mine = obs.herds[me][c.species]
            theirs = obs.herds[c.opponent][c.species]
            weak = 1.0 / (1 + obs.note_counts[c.opponent])
            return species[c.species] * (mine + min(mine, theirs)) * (1 + weak) + (
                5 if mine >= theirs else 0
            )

        trades.sort(key=appeal, reverse=True)
        candidates: list[A.Action] = [*draws, *trades[:TURN_TRADES]]

        m = self.model
        accepters = self.note_values and self.use_opponents

        def run(sim: Sim, cand: A.Action, ctx: Any) -> None:
            if isinstance(cand, A.Challenge):
                o = cand.opponent
                offer = None
                if accepters and m.always_accept[o]:
                    # the opponent model says it accepts any offer: the offer search would
                    # offer the least it may (its 0-notes, else its smallest note)
                    offer = _least_offer(sim.wallets[me], m.notes)
                sim.trade(me, o, cand.species, offer)
            elif isinstance(cand, A.Auction):
                sim.draw_and_sell(me)
            elif isinstance(cand, A.Draw):
                sim.divide(me, None)
            self._next(sim, me)

        usual = self._usual(obs, request) if self.priors else None
        if usual is not None and usual not in candidates:
            candidates.append(usual)
        choice: A.Action = self._search(obs, candidates, run, usual=usual)
        return choice

    # ------------------------------------------------------------------ auctions
    def _bid(self, obs: KuhhandelObservation, info: Any) -> A.Action:
        assert obs.seat is not None and self.model is not None and obs.auction is not None
        me = obs.seat
        auction = obs.auction
        low, cap, money = info["min"], info["max"], obs.money
        if low > money or (cap is not None and low > cap):
            return A.PASS
        key = (obs.turns, auction.auctioneer, auction.card, len(auction.exposed), obs.deck_size)
        if key != self._plan_key:
            self._plan_key = key
            self._plan = self._plan_auction(obs, info)
        limit, jump = self._plan
        if jump and low <= jump and (cap is None or jump <= cap) and jump <= money:
            self._plan = (limit, 0)
            return A.Bid(jump)
        if low <= limit and (cap is None or low <= cap) and low <= money:
            return A.Bid(low)
        del me
        return A.PASS

    def _plan_auction(self, obs: KuhhandelObservation, info: Any) -> tuple[int, int]:
        assert obs.seat is not None and self.model is not None and obs.auction is not None
        me = obs.seat
        m = self.model
        auction = obs.auction
        money = obs.money
        cap = info["max"]
        top = money if cap is None else min(money, cap)
        low = info["min"]
        card = auction.card
        h = self.heuristic.money_limit(obs, card) if card < m.K else min(money // 4, 60)
        # Around the heuristic's own limit (what the model's players would pay), and all-in.
        step = m.raise_
        raw = {int(h * f) // step * step for f in (0.5, 1.0, 1.5, 2.2)} | {top // step * step}
        levels = sorted(v for v in raw if low <= v <= top)
        candidates: list[tuple[int, int]] = [(0, 0)] + [(v, 0) for v in levels]
        if m.max_rounds is not None and self.jump_bids:
            candidates += [(v, v) for v in levels]
        a, high = auction.auctioneer, auction.high
        hb = auction.high_bidder if auction.high_bidder is not None else -1
        caps = dict(auction.caps) or None
        done_rounds = max(0, auction.round - 1)

        def run(sim: Sim, cand: tuple[int, int], ctx: Any) -> None:
            lim, jump = cand
            sim.auction(a, card, high, hb, (me, lim, jump), caps, done_rounds)
            self._next(sim, a)

        prior = candidates.index((h, 0)) if (h, 0) in candidates else 0
        plan: tuple[int, int] = self._search(obs, candidates, run, prior=prior)
        return plan

    def _sell_or_buy(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None and obs.auction is not None
        me = obs.seat
        card, high, hb = info["card"], info["high"], info["high_bidder"]
        caps = dict(obs.auction.caps) or None
        candidates = list(request.choices or (A.SELL,))

        def run(sim: Sim, cand: A.Action, ctx: Any) -> None:
            sim.settle(me, card, high, hb, isinstance(cand, A.Buy), caps)
            self._next(sim, me)

        usual = self._usual(obs, request)
        prior = candidates.index(usual) if usual in candidates else None
        choice: A.Action = self._search(obs, candidates, run, prior=prior)
        return choice

    # ------------------------------------------------------------------ cow trades
    def _offer_candidates(self, wallet: list[int], *, padded: bool) -> list[tuple[int, ...]]:
        assert self.model is not None
        notes = self.model.notes
        money = sum(c * v for c, v in zip(wallet, notes, strict=True))
        out: dict[tuple[int, ...], None] = {tuple([0] * len(notes)): None}
        if padded and notes[0] == 0 and wallet[0]:
            zeros = [0] * len(notes)
            zeros[0] = wallet[0]
            out[tuple(zeros)] = None
        for amount in self._levels(money, 1, 1):
            pay = pay_counts(wallet, notes, amount)
            if pay is None:
                continue
            out[tuple(pay)] = None
            if padded:
                if notes[0] == 0:
                    pay = list(pay)
                    pay[0] = wallet[0]
                    out[tuple(pay)] = None
                small = [0] * len(notes)  # the same amount in the most notes: smallest first
                total = 0
                for i, v in enumerate(notes):
                    while small[i] < wallet[i] and (total < amount or v == 0):
                        small[i] += 1
                        total += v
                out[tuple(small)] = None
        return list(out)

    def _offer(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None and self.model is not None
        me = obs.seat
        m = self.model
        wallet = counts_of(info["wallet"], m.notes)
        o, k, again = info["opponent"], info["species"], bool(info.get("again"))
        candidates = self._offer_candidates(wallet, padded=True)

        def run(sim: Sim, cand: tuple[int, ...], ctx: Any) -> None:
            sim.trade(me, o, k, list(cand), False, again)
            self._next(sim, obs.turn_seat)

        usual: tuple[int, ...] | None = None
        if self.priors:
            said = self._usual(obs, request)
            usual = tuple(counts_of(said.notes, m.notes))  # type: ignore[attr-defined]
            if usual not in candidates:
                candidates.append(usual)
        best: tuple[int, ...] = self._search(obs, candidates, run, usual=usual)
        return A.Offer(_notes(best, m.notes))

    def _respond(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None and self.model is not None
        me = obs.seat
        m = self.model
        wallet = counts_of(info["wallet"], m.notes)
        c, k, count, again = (
            info["challenger"],
            info["species"],
            info["offer_notes"],
            bool(info.get("again")),
        )
        cards = info["cards"]
        candidates: list[tuple[int, ...] | None] = [None]
        candidates += self._offer_candidates(wallet, padded=False)

        def prepare(sim: Sim, rng: random.Random) -> list[int]:
            # The challenger's hidden offer: what the heuristic would offer from the sampled
            # wallet, trimmed or filled to the note count everybody saw.
            offer = sim.trade_offer(c, me, k, cards, attack=True)
            have = sim.wallets[c]
            n_off = sum(offer)
            i = 0
            while n_off > count and i < len(offer):
                if offer[i]:
                    offer[i] -= 1
                    n_off -= 1
                else:
                    i += 1
            spare = [j for j in range(len(have)) for _ in range(have[j] - offer[j])]
            rng.shuffle(spare)
            spare.sort(key=lambda j: m.notes[j] > 0)  # zeros first: the heuristic pads with them
            for j in spare[: max(0, count - n_off)]:
                offer[j] += 1
            zi = m.index.get(0)
            share = m.zero_share[c]
            if zi is not None and share >= 0:
                # what this seat saw of the challenger's offers: its share of 0-notes
                want = min(have[zi], round(share * count))
                while offer[zi] < want:
                    j = max(range(len(offer)), key=lambda x: (offer[x] > 0 and x != zi, x))
                    if j == zi or not offer[j]:
                        break
                    offer[j] -= 1
                    offer[zi] += 1
                while offer[zi] > want and any(
                    have[j] > offer[j] for j in range(len(offer)) if j != zi
                ):
                    j = min(j for j in range(len(offer)) if j != zi and have[j] > offer[j])
                    offer[zi] -= 1
                    offer[j] += 1
            worth = self._offer_worth(c, k, cards, count)
            if worth >= 0:
                # what this seat's trades with the challenger showed: the money of its offers
                # per point at stake (else per note), in the note count everybody saw
                offer = _offer_near(have, m.notes, count, worth)
            return offer

        def run(sim: Sim, cand: tuple[int, ...] | None, offer: list[int]) -> None:
            sim.trade(c, me, k, list(offer), None if cand is None else list(cand), again)
            self._next(sim, obs.turn_seat)

        usual: tuple[int, ...] | None = None
        if self.priors:
            said = self._usual(obs, request)
            if isinstance(said, A.Counter):
                usual = tuple(counts_of(said.notes, m.notes))
                if usual not in candidates:
                    candidates.append(usual)
        known = self.offer_evidence is not None and self._offer_worth(c, k, cards, count) >= 0
        best: tuple[int, ...] | None = self._search(
            obs,
            candidates,
            run,
            prepare,
            prior=candidates.index(usual) if self.priors else None,
            evidence=min(self.evidence, self.offer_evidence or 0.0) if known else None,
        )
        if best is None:
            return A.ACCEPT
        return A.Counter(_notes(best, m.notes))

    def _offer_worth(self, seat: int, k: int, cards: int, count: int) -> float:
        """The challenger's hidden offer in money as the opponent model learned it (-1: not
        enough seen, or the option is off)."""
        if not (self.note_values and self.use_opponents and self.opponents is not None):
            return -1.0
        return self.opponents.offer_worth(seat, k, cards, count, pooled=self.pooled_offers)

    # ------------------------------------------------------------------ Master
    def _claim(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None
        me = obs.seat
        candidates = [c for c in (request.choices or ()) if isinstance(c, A.Claim)]
        a, card = obs.turn_seat, info["card"]
        usual = self._usual(obs, request) if self.priors else None
        if isinstance(usual, A.Claim) and self.claim_window is not None and candidates:
            # Up to 11 counts share the budget: search near the heuristic's claim and the
            # smallest, so each candidate gets enough worlds for its mean to mean something.
            w = self.claim_window
            lowest = min(c.count for c in candidates)
            candidates = [
                c for c in candidates if abs(c.count - usual.count) <= w or c.count == lowest
            ]

        def run(sim: Sim, cand: A.Claim, ctx: Any) -> None:
            sim.countdown(a, card, {me: cand.count})
            self._next(sim, a)

        choice: A.Action = self._search(obs, candidates, run, usual=usual)
        return choice

    def _preempt(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None
        me = obs.seat
        claimant, count, card = info["claimant"], info["count"], info["card"]

        def run(sim: Sim, cand: A.Action, ctx: Any) -> None:
            sim.resolve_claim(me, card, claimant, count, isinstance(cand, A.Preempt))
            self._next(sim, me)

        usual = self._usual(obs, request) if self.priors else None
        choice: A.Action = self._search(obs, list(request.choices or ()), run, usual=usual)
        return choice

    def _rat(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None and self.model is not None and self.belief is not None
        me = obs.seat
        m = self.model
        a = obs.turn_seat
        candidates = list(request.choices or (A.TAKE_RAT,))
        mine = [m.index[v] for v in self.belief.my_rat_notes]
        others = max(0, int(info.get("pile", 0)) - len(mine))
        per_note = self.belief.pile_value / others if others else 0.0

        def prepare(sim: Sim, rng: random.Random) -> list[int]:
            pile = list(mine)
            for _ in range(others):  # the notes of the others: near their estimated value
                pile.append(min(range(len(m.notes)), key=lambda j: abs(m.notes[j] - per_note)))
            return pile

        def run(sim: Sim, cand: A.Action, pile: list[int]) -> None:
            choice = -1 if isinstance(cand, A.TakeRat) else m.index[cand.note]  # type: ignore[attr-defined]
            sim.rat_round(a, list(pile), me, choice)
            sim.draw_and_sell(a)
            self._next(sim, a)

        usual = self._usual(obs, request) if self.priors else None
        choice: A.Action = self._search(obs, candidates, run, prepare, usual=usual)
        return choice

    def _divide(self, obs: KuhhandelObservation, request: Request, info: Any) -> A.Action:
        assert obs.seat is not None
        me = obs.seat
        peek = info["card"]

        def run(sim: Sim, cand: A.Action, ctx: Any) -> None:
            sim.divide(me, isinstance(cand, A.Keep), peek)
            self._next(sim, me)

        usual = self._usual(obs, request) if self.priors else None
        choice: A.Action = self._search(obs, list(request.choices or ()), run, usual=usual)
        return choice


def _least_offer(wallet: Sequence[int], notes: Sequence[int]) -> list[int] | None:
    """The cheapest offer from ``wallet``: its 0-notes, else its smallest note (``None``: an
    empty wallet, the heuristic's offer)."""
    offer = [0] * len(notes)
    for i, v in sorted(enumerate(notes), key=lambda x: x[1]):
        if wallet[i]:
            if v == 0:
                offer[i] = wallet[i]
                return offer
            offer[i] = 1
            return offer
    return None


def _offer_near(have: Sequence[int], notes: Sequence[int], count: int, target: float) -> list[int]:
    """``count`` notes of the wallet ``have`` (counts per note value) worth about ``target``:
    note by note, the note closest to what is left per note still to choose."""
    avail = list(have)
    offer = [0] * len(notes)
    left = min(count, sum(avail))
    rest = target
    while left > 0:
        per = rest / left
        j = min((i for i in range(len(notes)) if avail[i]), key=lambda i: abs(notes[i] - per))
        avail[j] -= 1
        offer[j] += 1
        rest -= notes[j]
        left -= 1
    return offer


def _notes(counts: Sequence[int], values: Sequence[int]) -> tuple[int, ...]:
    return tuple(v for c, v in zip(counts, values, strict=True) for _ in range(c))


def expert_bot(seed: int = 0, **options: Any) -> ExpertBot:
    return ExpertBot(seed=seed, **options)
