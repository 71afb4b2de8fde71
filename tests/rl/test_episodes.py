"""Episodes: replay from the seed, the single-seat Gymnasium wrapper, the policy adapter."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from cardtable.core import load_bot, run_match
from cardtable.core.match import MatchLog
from cardtable.core.record import verify
from cardtable.rl import CardtableEnv, PolicyAgent, SingleSeatEnv, make_codec

from .conftest import ENV_IDS, ENVIRONMENTS, random_index


def _play(env: CardtableEnv, seed: int, actions: list[int] | None = None) -> list[Any]:
    """A whole episode; with ``actions`` those are replayed instead of random choices."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    trajectory: list[Any] = []
    replay = iter(actions) if actions is not None else None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            trajectory.append((agent, reward))
            env.step(None)
            continue
        index = next(replay) if replay is not None else random_index(obs["action_mask"], rng)
        trajectory.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), index)
        )
        env.step(index)
    return trajectory


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_episode_replays_from_its_seed(game: str, rules: Any, seats: int) -> None:
    env = CardtableEnv(game, rules, seats)
    first = _play(env, 11)
    actions = [step[3] for step in first if len(step) == 4]
    again = _play(CardtableEnv(game, rules, seats), 11, actions)
    assert again == first
    # the engine's own record of the episode re-simulates on the engine (the server's too)
    ok, why = verify(env.game.record())
    assert ok, why
    rewards = [step[1] for step in first if len(step) == 2]
    assert len(rewards) == seats
    assert sum(rewards) == pytest.approx(0.0)  # rank rewards are zero-sum without ties
    other = _play(CardtableEnv(game, rules, seats), 12)
    assert other != first


def _final_rewards(trajectory: list[Any]) -> dict[str, float]:
    return {step[0]: step[1] for step in trajectory if len(step) == 2}


def test_rewards_follow_the_result() -> None:
    """rank: 1 - 2·place/(n-1); win: 1 for first place; score: score minus the mean, scaled."""
    for scheme in ("rank", "win", "score"):
        env = CardtableEnv("kuhhandel", "classic", 3, reward=scheme)
        final = _final_rewards(_play(env, 4))
        result = env.game.result()
        for seat, agent in enumerate(env.possible_agents):
            place, score = result.places[seat], result.scores[seat]
            want = {
                "rank": 1 - place,
                "win": float(place == 0),
                "score": (score - sum(result.scores) / 3) / 1000,
            }[scheme]
            assert final[agent] == pytest.approx(want)
    env = CardtableEnv("cunegonda", {"rounds": 1}, reward="score", reward_scale=10)
    final = _final_rewards(_play(env, 2))
    scores = env.game.result().scores
    for seat, agent in enumerate(env.possible_agents):
        assert final[agent] == pytest.approx((scores[seat] - sum(scores) / 4) / 10)


@pytest.mark.parametrize(
    ("game", "rules", "seats", "opponents"),
    [
        ("kuhhandel", "classic", 4, "heuristic"),
        ("kuhhandel", "master", 3, "random"),
        ("kuhhandel", "master-duel", 2, "heuristic"),
        ("cunegonda", {"rounds": 1}, 4, "expert"),
    ],
)
def test_single_seat_env_runs_episodes(game: str, rules: Any, seats: int, opponents: str) -> None:
    env = SingleSeatEnv(game, rules, seats, seat=None, opponents=opponents)
    rng = random.Random(0)
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        assert env.observation_space.contains(obs)
        done, steps, reward = False, 0, 0.0
        while not done:
            assert env.action_masks().any()
            obs, reward, terminated, truncated, info = env.step(
                random_index(obs["action_mask"], rng)
            )
            done = terminated or truncated
            steps += 1
        assert env.game.is_over()
        place = env.game.result().places[env.seat]
        assert reward == pytest.approx(1 - 2 * place / (seats - 1))
        assert info["place"] == place


def test_single_seat_env_refuses_a_masked_out_index() -> None:
    env = SingleSeatEnv("kuhhandel", "classic", 4, opponents="random")
    obs, _ = env.reset(seed=0)
    forbidden = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not allowed"):
        env.step(forbidden)
    assert env.observation_space.contains(obs) and env.action_space.n == len(obs["action_mask"])


class _MaskedRandom:
    """A stand-in for a trained policy with the stable-baselines3 ``predict`` signature."""

    def __init__(self) -> None:
        self.rng = random.Random(5)

    def predict(self, obs: Any, action_masks: Any = None, deterministic: bool = True) -> Any:
        return np.int64(random_index(action_masks, self.rng)), None


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_policy_agent_plays_a_full_game_through_run_match(
    game: str, rules: Any, seats: int
) -> None:
    from cardtable.core import game_spec

    spec = game_spec(game)
    resolved = spec.resolve_rules(rules)
    rng = random.Random(1)
    agents: list[Any] = [
        PolicyAgent(lambda obs: random_index(obs["action_mask"], rng), game),
        PolicyAgent(_MaskedRandom(), game),
    ]
    agents += [load_bot(game, "random", seed=s) for s in range(seats - 2)]
    match = spec.new_game(resolved, seats, 3)
    log = MatchLog()
    result = run_match(match, agents, fallback=lambda s: load_bot(game, "random"), log=log)
    assert match.is_over() and len(result.places) == seats
    assert log.faults == []  # every answer of the policies was legal
    assert agents[0].steps > 0 and agents[1].steps > 0


def test_policy_agent_refuses_an_index_the_mask_forbids() -> None:
    from cardtable.games import kuhhandel

    codec = make_codec("kuhhandel", kuhhandel.CLASSIC, 4)
    bad = PolicyAgent(lambda obs: codec.n_actions - 1, "kuhhandel")  # a cow trade: not yet legal
    match = kuhhandel.new_game(kuhhandel.CLASSIC, 4, 0)
    log = MatchLog()
    agents = [bad] + [load_bot("kuhhandel", "random", seed=s) for s in range(3)]
    run_match(match, agents, fallback=lambda s: load_bot("kuhhandel", "random"), log=log)
    assert log.faults and log.faults[0].seat == 0
    lenient = PolicyAgent(lambda obs: codec.n_actions - 1, "kuhhandel", on_illegal="first")
    run_match(
        kuhhandel.new_game(kuhhandel.CLASSIC, 4, 0),
        [lenient] + [load_bot("kuhhandel", "random", seed=s) for s in range(3)],
    )
    assert lenient.illegal > 0


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_wire_observations_encode_the_same(game: str, rules: Any, seats: int) -> None:
    """A remote bot gets the observation as JSON: the vector must not change (server play)."""
    env = CardtableEnv(game, rules, seats)
    rng = random.Random(9)
    env.reset(seed=9)
    table = env.table
    obs_type = type(table.observation(table.seat))
    for _ in range(150):
        if table.seat < 0:
            break
        local = table.observation(table.seat)
        remote = obs_type.from_json(local.to_json())
        a = table.codec.encode(local, table.request, table.draft)
        b = table.codec.encode(remote, table.request, table.draft)
        assert np.array_equal(a, b)
        table.step(random_index(table.mask(), rng))


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_observations_and_masks_belong_to_the_caller(game: str, rules: Any, seats: int) -> None:
    """Every vector and mask handed out (``last``, ``observe``, ``action_mask``) is a fresh array
    the caller owns: it can be written to, and scribbling over all of them changes nothing the
    environment hands out later (a twin left alone sees the same episode)."""
    envs = [CardtableEnv(game, rules, seats), CardtableEnv(game, rules, seats)]
    for env in envs:
        env.reset(seed=11)
    rng = random.Random(11)
    held: list[np.ndarray] = []
    for agent in envs[0].agent_iter():
        obs, _reward, terminated, truncated, _info = envs[0].last()
        twin, *_ = envs[1].last()
        assert envs[1].agent_selection == agent
        assert np.array_equal(obs["observation"], twin["observation"])
        assert np.array_equal(obs["action_mask"], twin["action_mask"])
        if terminated or truncated:
            for env in envs:
                env.step(None)
            continue
        index = random_index(obs["action_mask"], rng)
        other = envs[0].observe(envs[0].possible_agents[(int(agent[5:]) + 1) % seats])
        for part in (
            obs["observation"],
            obs["action_mask"],
            other["observation"],
            other["action_mask"],
            envs[0].action_mask(),
        ):
            assert part.flags.writeable
            part[:] = 7  # the caller's own: scribbled over
            held.append(part)
        for env in envs:
            env.step(index)
    assert len({id(part) for part in held}) == len(held) > 100
