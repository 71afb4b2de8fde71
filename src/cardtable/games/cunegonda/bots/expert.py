"""The ``expert`` Cunegonda bot: information-set Monte Carlo over sampled hands.

At every decision with more than one legal answer the bot samples *worlds*: deals of the cards it
cannot see to the other seats that agree with everything its observation shows (its own hand, the
cards played this round and by whom, the suits a seat showed out of, the 3 cards it passed, which
the receiver holds until they are played). In each world it tries every candidate and plays the
round to its end with fast rules of thumb (:mod:`.playout`) for all four seats, the same world and
the same continuation for every candidate (common random numbers), and keeps the candidate with the
best mean round score. Only the observation is read, never the engine.

- **Play**: every legal card is a candidate; a single legal card is played at once.
- **Pass**: the candidates are the ``heuristic`` bot's pass and the other triples of its six most
  dangerous cards; in each world the other seats pass like the ``heuristic`` bot would with their
  sampled hands, then the whole round is played out.

Budget: ``iterations`` playouts per decision (split over the candidates; default 160), which makes
the bot deterministic for a seed. ``time_per_decision`` (seconds) instead samples worlds until the
time is used (stronger on a fast machine, not reproducible). ``time_cap`` (default 0.3 s) stops a
search early whatever the budget, so a slow machine never breaks a server's deadline; it cannot
trigger at the default budget on the development machine (a decision takes ~15 ms there).
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

from cardtable.core.contract import Request
from cardtable.core.probe import SearchProbe
from cardtable.games.cunegonda.bots.heuristic import HeuristicBot
from cardtable.games.cunegonda.bots.playout import QS, SEATS, playout, sample_hands
from cardtable.games.cunegonda.observe import Observation
from cardtable.games.cunegonda.scoring import PENALTY

DEFAULT_ITERATIONS = 160
PASS_POOL = 6  # the pass candidates are triples of this many most dangerous cards


class ExpertBot:
    """Samples hidden hands and plays each candidate out (see the module docstring)."""

    def __init__(
        self,
        seed: int = 0,
        iterations: int = DEFAULT_ITERATIONS,
        time_per_decision: float | None = None,
        time_cap: float | None = 0.3,
    ) -> None:
        self.rng = random.Random(seed)
        self.iterations = max(1, int(iterations))
        self.time_per_decision = time_per_decision
        self.time_cap = time_cap
        self._heuristic = HeuristicBot(seed)
        #: Worlds sampled by the last search (for tests and benchmarks).
        self.last_worlds = 0
        #: Set by the analysis (``cardtable analyse``): the next search reports into it.
        self.probe: SearchProbe | None = None

    def act(self, observation: Observation, request: Request) -> Any:
        if request.kind == "pass":
            count = int(request.info["count"]) if request.info else 3
            return self.choose_pass(observation, count)
        choices = tuple(request.choices or ())
        if len(choices) == 1:
            return choices[0]
        return self.choose_play(observation, choices)

    # -- the search loop --------------------------------------------------------------------

    def _budget_worlds(self, candidates: int) -> int:
        return max(1, self.iterations // max(1, candidates))

    def _search(self, candidates: list[Any], world: Any, me: int) -> Any:
        """Mean score of each candidate over sampled worlds; ``world(rng)`` returns a scorer
        (a candidate's round scores, one per seat)."""
        probe = self.probe
        if probe is not None:
            candidates = probe.open(candidates)
        totals = [0.0] * len(candidates)
        start = time.perf_counter()
        worlds = self._budget_worlds(len(candidates))
        if probe is not None and probe.worlds is not None:
            worlds = probe.worlds
        timed = self.time_per_decision
        done = 0
        while True:
            if timed is not None:
                if done and time.perf_counter() - start >= timed:
                    break
            elif done >= worlds:
                break
            if self.time_cap is not None and done and time.perf_counter() - start >= self.time_cap:
                break
            scorer = world(self.rng)
            if scorer is None:
                break
            for i, cand in enumerate(candidates):
                scores = scorer(cand)
                totals[i] += scores[me]
                if probe is not None:
                    win, margin = probe.judge(scores) if probe.judge is not None else (0.0, 0.0)
                    probe.add(i, float(scores[me]), win, margin)
            done += 1
        self.last_worlds = done
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]

    # -- play -------------------------------------------------------------------------------

    def choose_play(self, obs: Observation, choices: tuple[int, ...]) -> int:
        assert obs.seat is not None
        me = obs.seat
        unknown, sizes, voids, known = _hidden(obs)
        played = obs.played()
        qs_live = QS not in played
        points0 = list(obs.round_points)
        taken0 = [0] * SEATS
        for t in obs.tricks:
            taken0[t.winner] += sum(1 for c in t.cards if PENALTY[c])
        leader = obs.leader
        trick0 = list(obs.trick)
        hand0 = list(obs.hand)

        def world(rng: random.Random) -> Any:
            hands = sample_hands(rng, me, unknown, sizes, voids, known)
            if hands is None:
                hands = sample_hands(rng, me, unknown, sizes, [set()] * SEATS, known)
            if hands is None:
                return None
            hands[me] = hand0

            def score(card: int) -> list[int]:
                hs = [list(h) for h in hands]
                hs[me].remove(card)
                return playout(hs, leader, [*trick0, card], list(points0), list(taken0), qs_live)

            return score

        best: int = self._search(list(choices), world, me)
        return best

    # -- pass -------------------------------------------------------------------------------

    def pass_candidates(self, obs: Observation, count: int) -> list[tuple[int, ...]]:
        """The heuristic's pass first, then every other triple of the most dangerous cards."""
        hand = obs.hand
        first = tuple(sorted(self._heuristic.choose_pass(obs, count)))
        ranked = sorted(hand, key=lambda c: (-HeuristicBot._danger(c, hand), -c))
        pool = ranked[: max(count, PASS_POOL)]
        out = [first]
        for combo in itertools.combinations(sorted(pool), count):
            if combo != first:
                out.append(combo)
        return out

    def choose_pass(self, obs: Observation, count: int = 3) -> tuple[int, ...]:
        assert obs.seat is not None
        me = obs.seat
        candidates = self.pass_candidates(obs, count)
        mine = set(obs.hand)
        unknown = [c for c in range(52) if c not in mine]
        leader = obs.round % SEATS
        hand0 = list(obs.hand)

        def world(rng: random.Random) -> Any:
            cards = list(unknown)
            rng.shuffle(cards)
            hands: list[list[int]] = [[] for _ in range(SEATS)]
            others = [s for s in range(SEATS) if s != me]
            for i, s in enumerate(others):
                hands[s] = sorted(cards[13 * i : 13 * (i + 1)])
            passes = {s: _heuristic_pass(hands[s], count) for s in others}

            def score(passed: tuple[int, ...]) -> list[int]:
                hs = [list(h) for h in hands]
                hs[me] = list(hand0)
                chosen = dict(passes)
                chosen[me] = passed
                for s in range(SEATS):
                    for c in chosen[s]:
                        hs[s].remove(c)
                for s in range(SEATS):
                    hs[(s - 1) % SEATS].extend(chosen[s])
                for h in hs:
                    h.sort()
                return playout(hs, leader, [], [0] * SEATS, [0] * SEATS, True)

            return score

        best: tuple[int, ...] = self._search(candidates, world, me)
        return best


def _heuristic_pass(hand: list[int], count: int) -> tuple[int, ...]:
    """What the ``heuristic`` bot passes from ``hand`` (its danger order, without moon tries)."""
    ranked = sorted(hand, key=lambda c: (-HeuristicBot._danger(c, tuple(hand)), -c))
    return tuple(ranked[:count])


def _hidden(
    obs: Observation,
) -> tuple[list[int], list[int], list[set[int]], dict[int, list[int]]]:
    """What ``obs`` says about the other hands: unseen cards, hand sizes, voids, known cards.

    Only the observation is used: the seat's hand, the tricks of this round (who played what),
    and the cards it passed (still with the receiver unless played since).
    """
    assert obs.seat is not None
    me = obs.seat
    played = obs.played()
    sizes = [13] * SEATS
    voids: list[set[int]] = [set() for _ in range(SEATS)]
    tricks = [(t.leader, t.cards) for t in obs.tricks]
    if obs.trick:
        tricks.append((obs.leader, obs.trick))
    for leader, cards in tricks:
        led = cards[0] // 13
        for i, c in enumerate(cards):
            s = (leader + i) % SEATS
            sizes[s] -= 1
            if c // 13 != led:
                voids[s].add(led)
    known: dict[int, list[int]] = {}
    if obs.passed is not None and obs.pass_to is not None and obs.phase == "play":
        held = [c for c in obs.passed if c not in played]
        if held:
            known[obs.pass_to] = held
    mine = set(obs.hand)
    known_cards = {c for cs in known.values() for c in cs}
    unknown = [c for c in range(52) if c not in played and c not in mine and c not in known_cards]
    sizes[me] = len(obs.hand)
    return unknown, sizes, voids, known


def expert_bot(seed: int = 0, **options: Any) -> ExpertBot:
    return ExpertBot(seed=seed, **options)
