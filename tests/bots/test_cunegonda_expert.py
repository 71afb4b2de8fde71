"""The Cunegonda ``expert`` bot: legal, seeded, blind to hidden cards, and stronger than heuristic.

The strength test is a smoke test over a few dozen one-round matches; the real measurement is the
1,000-game arena table in docs/strength.md.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from cardtable.core import Request, load_bot, run_match
from cardtable.games.cunegonda import CunegondaRules, Observation, new_game
from cardtable.games.cunegonda.bots import ExpertBot
from cardtable.games.cunegonda.bots.expert import _hidden
from cardtable.games.cunegonda.bots.playout import playout, sample_hands

ONE_ROUND = CunegondaRules(rounds=1)


class Recorder:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.times: list[float] = []

    def act(self, obs: Any, request: Request) -> Any:
        t = time.perf_counter()
        action = self.bot.act(obs, request)
        self.times.append(time.perf_counter() - t)
        return action


def test_expert_plays_legal_matches_at_every_seat() -> None:
    """Spec "Round": passes of 3 own cards, following suit; the engine refuses anything else."""
    game = new_game(CunegondaRules(rounds=2), 4, 3)
    bots = [Recorder(ExpertBot(seed=s, iterations=8)) for s in range(4)]
    result = run_match(game, bots)
    assert game.is_over() and sum(result.scores) == 0
    for b in bots:
        assert len(b.times) == 2 * 14
        assert max(b.times) < 5.0  # generous smoke bound; speed is measured by the benchmark


def _match(seed: int, iterations: int) -> list[tuple[int, Any]]:
    game = new_game(ONE_ROUND, 4, seed)
    agents: list[Any] = [ExpertBot(seed=5, iterations=iterations)]
    agents += [load_bot("cunegonda", "heuristic", seed=s) for s in range(1, 4)]
    run_match(game, agents)
    return list(game.history())


def test_expert_is_deterministic_for_a_seed_with_an_iteration_budget() -> None:
    assert _match(4, 40) == _match(4, 40)


def _mid_round(seed: int, tricks: int) -> tuple[Any, int]:
    """A game in its play phase after ``tricks`` tricks, and the seat to play."""
    game = new_game(ONE_ROUND, 4, seed)
    bots = [load_bot("cunegonda", "heuristic", seed=s) for s in range(4)]
    while True:
        req = game.pending()[0]
        obs = game.observe(req.seat)
        if req.kind == "play" and len(obs.tricks) >= tricks:
            return game, req.seat
        game.apply(req.seat, bots[req.seat].act(obs, req))


def test_sampled_hands_agree_with_what_the_seat_saw() -> None:
    """Information section: sizes, shown voids, passed cards and played cards are respected."""
    for seed in range(6):
        game, seat = _mid_round(seed, 5 + seed % 4)
        obs: Observation = game.observe(seat)
        unknown, sizes, voids, known = _hidden(obs)
        true_hands = [set(game.observe(s).hand) for s in range(4)]
        for s in range(4):  # the real deal is one of the possible deals
            if s != seat:
                assert len(true_hands[s]) == sizes[s]
                assert not any(c // 13 in voids[s] for c in true_hands[s])
                assert set(known.get(s, ())) <= true_hands[s]
        rng = random.Random(seed)
        for _ in range(30):
            hands = sample_hands(rng, seat, unknown, sizes, voids, known)
            assert hands is not None
            dealt = [c for s in range(4) if s != seat for c in hands[s]]
            assert sorted(dealt) == sorted([*unknown, *(c for cs in known.values() for c in cs)])
            for s in range(4):
                if s != seat:
                    assert len(hands[s]) == sizes[s]
                    assert not any(c // 13 in voids[s] for c in hands[s])
                    assert set(known.get(s, ())) <= set(hands[s])


def test_expert_decides_from_its_observation_only() -> None:
    """Two deals that differ only in cards the seat cannot see get the same card from it."""
    game, seat = _mid_round(2, 4)
    obs = game.observe(seat)
    request = game.pending()[0]
    unknown, sizes, voids, known = _hidden(obs)
    rng = random.Random(0)
    answers = set()
    for _ in range(3):
        other = sample_hands(rng, seat, unknown, sizes, voids, known)
        assert other is not None
        # Give the game another deal of the hidden cards: the seat's observation is unchanged.
        for s in range(4):
            if s != seat:
                game._hands[s] = other[s]
        assert game.observe(seat) == obs
        answers.add(ExpertBot(seed=1, iterations=60).act(game.observe(seat), request))
    assert len(answers) == 1


def test_playout_scores_a_round_to_zero_sum() -> None:
    """Spec "Scoring": every playout round sums to zero (moons included)."""
    rng = random.Random(3)
    for _ in range(200):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [sorted(deck[13 * s : 13 * s + 13]) for s in range(4)]
        scores = playout(hands, rng.randrange(4), [], [0] * 4, [0] * 4, True)
        assert sum(scores) == 0 and all(not h for h in hands)


def test_expert_beats_heuristic_over_one_round_matches() -> None:
    """Strength smoke test: over 12 deals x 4 seats of one-round matches, the expert's score minus
    the mean of the three heuristic bots at its table is positive on average."""
    margins = []
    for deal in range(12):
        for seat in range(4):
            game = new_game(ONE_ROUND, 4, 1000 + deal)
            agents: list[Any] = [load_bot("cunegonda", "heuristic", seed=s) for s in range(4)]
            agents[seat] = ExpertBot(seed=deal)
            scores = run_match(game, agents).scores
            margins.append(scores[seat] - (sum(scores) - scores[seat]) / 3)
    assert statistics.mean(margins) > 2.0
