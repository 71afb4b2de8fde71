"""The shortcuts the engine, the random bot and the plain match loop take for speed give the same
games as the plain code would (docs/performance.md); none of these tests measures time."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from cardtable.core import Request, run_match
from cardtable.core.compiled import is_compiled
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel import state
from cardtable.games.kuhhandel.bots import RandomBot
from cardtable.games.kuhhandel.money import quick_payment, to_notes
from cardtable.games.kuhhandel.observe import KuhhandelObservation

NOTES = K.CLASSIC.notes


@pytest.mark.parametrize("seed", range(40))
def test_random_bot_pays_as_quick_payment_with_the_same_draws(seed: int) -> None:
    """The bot's payment is ``quick_payment`` with its generator: same notes, same draws used.

    Wallets up to 80 notes, past the precomputed shuffle steps (64)."""
    rng = random.Random(seed)
    counts = [rng.randrange(4) for _ in NOTES]
    if seed % 4 == 0:
        counts = [rng.randrange(20) for _ in NOTES]
    wallet = list(to_notes(counts, NOTES))
    worth = sum(wallet)
    if not worth:
        counts[1] += 1
        wallet = list(to_notes(counts, NOTES))
        worth = sum(wallet)
    amount = rng.randrange(1, worth + 1)
    bot = RandomBot(seed)
    info = {"amount": amount, "to": 1, "for": "auction", "wallet": wallet}
    action = bot.act(None, Request(0, "pay", None, info))
    twin = random.Random(seed)
    assert action == A.Pay(quick_payment(counts, NOTES, amount, twin) or ())
    assert bot.rng.getstate() == twin.getstate()


class Watcher:
    """The random bot's choices, asking for the observation (the loop must give it one)."""

    wants_observation = True

    def __init__(self, seed: int) -> None:
        self.inner = RandomBot(seed)
        self.seen: list[Any] = []

    def act(self, observation: Any, request: Request) -> A.Action:
        self.seen.append(observation)
        return self.inner.act(None, request)


class Blind(RandomBot):
    """The random bot, remembering what the loop gave it for an observation."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[Any] = []

    def act(self, observation: Any, request: Request) -> A.Action:
        self.seen.append(observation)
        return super().act(observation, request)


def test_plain_loop_gives_observations_only_to_agents_that_want_them() -> None:
    blind = run_match(K.new_game(K.CLASSIC, 4, 3), agents := [Blind(i) for i in range(4)])
    assert all(o is None for a in agents for o in a.seen)
    mixed_agents: list[Any] = [Blind(0), Watcher(1), Blind(2), Watcher(3)]
    mixed = run_match(K.new_game(K.CLASSIC, 4, 3), mixed_agents)
    assert mixed == blind  # the same choices, so the same game
    for seat, agent in enumerate(mixed_agents):
        assert agent.seen
        if isinstance(agent, Watcher):
            assert all(isinstance(o, KuhhandelObservation) and o.seat == seat for o in agent.seen)
        else:
            assert all(o is None for o in agent.seen)


RULES = [
    (K.CLASSIC, 4),
    (K.COMPETITION, 5),
    (K.MASTER, 4),
    (K.MASTER_DUEL, 2),
    (replace(K.CLASSIC, auction_style="open"), 3),
    (replace(K.MASTER, super_trade=True, double_auction=True, first_seat="random"), 3),
]


@pytest.mark.parametrize(("rules", "seats"), RULES)
def test_every_engine_attribute_has_a_slot(rules: K.RuleSet, seats: int) -> None:
    """A new attribute without a slot would still work, through ``__dict__``, but slower."""
    g = K.new_game(rules, seats, 5)
    g.arrange(turn_seat=0)
    run_match(g, [RandomBot(s) for s in range(seats)])
    g.observe(0)
    if is_compiled(state):  # native attributes, and a dict for the two ``Game`` declares
        assert set(vars(g)) == {"seats", "seed"}
    else:  # the instance dict (``Game`` has no slots of its own) stays empty
        assert vars(g) == {}


@pytest.mark.parametrize(("rules", "seats"), RULES)
def test_a_copied_game_plays_on_like_the_original(rules: K.RuleSet, seats: int) -> None:
    g = K.new_game(rules, seats, 11)
    bots = [RandomBot(s) for s in range(seats)]
    for _ in range(60):
        request = g.pending()[0]
        g.apply(request.seat, bots[request.seat].act(None, request))
    twin, twin_bots = copy.deepcopy(g), copy.deepcopy(bots)
    run_match(g, bots)
    run_match(twin, twin_bots)
    assert twin.record().to_json() == g.record().to_json()
    assert twin.events() == g.events()
