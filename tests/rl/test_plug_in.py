"""The environments plug into the libraries' own checkers and conventions (issue #24):
Gymnasium's and SB3's ``check_env``, ``gym.make``/``make_vec``, ``pickle``/``deepcopy`` mid-episode,
opponents as agent objects, the ``illegal_action`` choices, zero-sum rank rewards with ties, the
terminal mask under Gymnasium's default autoreset."""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardtable.rl  # noqa: F401  (registers the Gymnasium ids)
from cardtable.core.contract import Result, Termination
from cardtable.games import kuhhandel
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots import HeuristicBot, RandomBot
from cardtable.rl import CardtableEnv, PolicyAgent, SingleSeatEnv, final_rewards

from .conftest import ENV_IDS, ENVIRONMENTS, random_index
from .copies import aec_runs, play_on, play_on_aec, single_seat_runs


def _single(game: str, rules: Any, seats: int, **kw: Any) -> SingleSeatEnv:
    return SingleSeatEnv(game, rules, seats, **kw)


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
@pytest.mark.parametrize("illegal", ["penalize", "first_legal"])
def test_gymnasium_check_env_passes(game: str, rules: Any, seats: int, illegal: str) -> None:
    """Gymnasium's checker steps random actions: with ``illegal_action`` "penalize" or
    "first_legal" every preset and Cunegonda pass it. The only warnings left say that the
    vector's Box is unbounded (-inf, inf), which it is by design (docs/rl.md)."""
    name = "cardtable/Kuhhandel-v0" if game == "kuhhandel" else "cardtable/Cunegonda-v0"
    env = gym.make(name, rules=rules, seats=seats, opponents="random", illegal_action=illegal)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    left = {str(w.message) for w in caught} - {
        f"\x1b[33mWARN: A Box observation space {end} value is {inf}. This is probably too {way}."
        "\x1b[0m"
        for end, inf, way in (("minimum", "-infinity", "low"), ("maximum", "infinity", "high"))
    }
    assert not left


REGISTERED = [
    ("cardtable/Kuhhandel-v0", {}),
    *[("cardtable/Kuhhandel-v0", {"rules": p}) for p in ("competition", "master", "master-duel")],
    ("cardtable/Cunegonda-v0", {}),
    ("cardtable/Cunegonda-v0", {"rules": "short"}),
]


@pytest.mark.parametrize(("name", "kw"), REGISTERED, ids=lambda v: str(v))
def test_registered_ids_pass_the_checkers_with_their_defaults(name: str, kw: Any) -> None:
    """Issue #41 item 2: ``gym.make(id)`` as registered (``illegal_action`` left at its
    default) passes Gymnasium's ``check_env``, and SB3's when it is installed; ``raise`` is
    one keyword away."""
    env = gym.make(name, **kw)
    assert env.unwrapped.illegal_action == "penalize"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbounded Box (see the test above)
        check_env(env.unwrapped)
    try:
        from stable_baselines3.common.env_checker import check_env as sb3_check_env
    except ImportError:
        pass
    else:
        sb3_check_env(gym.make(name, **kw).unwrapped, warn=True)
    strict = gym.make(name, illegal_action="raise", **kw)
    obs, _ = strict.reset(seed=2)
    with pytest.raises(ValueError, match="not allowed"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_stable_baselines3_check_env_passes(game: str, rules: Any, seats: int) -> None:
    sb3_env_checker = pytest.importorskip(
        "stable_baselines3.common.env_checker", reason="stable-baselines3 (the train extra)"
    )
    env = _single(game, rules, seats, opponents="random", illegal_action="penalize")
    sb3_env_checker.check_env(env, warn=True)


def test_illegal_action_raise_penalize_first_legal() -> None:
    bad = 0  # "pass" is not allowed on the learner's first turn (draw or trade)
    env = _single("kuhhandel", "classic", 4, opponents="random")
    obs, _ = env.reset(seed=2)
    assert obs["action_mask"][bad] == 0
    with pytest.raises(ValueError):
        env.step(bad)
    env = _single("kuhhandel", "classic", 4, opponents="random", illegal_action="penalize")
    env.reset(seed=2)
    obs, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError):
        env.step(1)
    first = _single("kuhhandel", "classic", 4, opponents="random", illegal_action="first_legal")
    plain = _single("kuhhandel", "classic", 4, opponents="random")
    first.reset(seed=2)
    o2, _ = plain.reset(seed=2)
    a = first.step(bad)
    b = plain.step(int(np.flatnonzero(o2["action_mask"])[0]))
    assert a[4]["illegal"] is True
    assert np.array_equal(a[0]["observation"], b[0]["observation"])
    with pytest.raises(ValueError, match="illegal_action"):
        _single("kuhhandel", "classic", 4, illegal_action="ignore")


def test_aec_penalize_ends_the_game_for_everyone() -> None:
    env = CardtableEnv("kuhhandel", "classic", 4, illegal_action="penalize")
    env.reset(seed=2)
    culprit = env.agent_selection
    env.step(0)  # pass: not allowed on a first turn
    assert all(env.terminations.values())
    assert env._cumulative_rewards[culprit] == -1.0
    assert sum(env._cumulative_rewards.values()) == -1.0
    assert env.infos[culprit]["illegal"] == culprit
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_render_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        _single("kuhhandel", "classic", 4, render_mode="rgb_array")
    env = _single("kuhhandel", "classic", 4, render_mode="ansi")
    env.reset(seed=1)
    assert "starts" in env.render()


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_pickle_and_deepcopy_mid_episode_continue_identically(
    game: str, rules: Any, seats: int
) -> None:
    env = _single(game, rules, seats, opponents="heuristic")
    obs, _ = env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(8):
        obs, *_ = env.step(random_index(obs["action_mask"], rng))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    runs = [play_on(e, copy.deepcopy(obs), random.Random(1)) for e in [env, *copies]]
    assert len(runs[0]) > 5 and runs[0] == runs[1] == runs[2]

    aec = CardtableEnv(game, rules, seats)
    aec.reset(seed=9)
    for _ in range(40):
        aec.step(random_index(aec.action_mask(), rng))
    copies_aec = [pickle.loads(pickle.dumps(aec)), copy.deepcopy(aec)]
    runs_aec = [play_on_aec(e, random.Random(2)) for e in [aec, *copies_aec]]
    assert len(runs_aec[0]) > 5 and runs_aec[0] == runs_aec[1] == runs_aec[2]


@pytest.mark.parametrize("opponents", ["random", "heuristic", "expert:iterations=8,time_cap=none"])
def test_copies_continue_identically_against_every_built_in_opponent(opponents: str) -> None:
    """Issue #41 item 1: a pickled game used to lose its action singletons (``A.AUCTION``) and
    the random bot found them by identity, so a copy against ``random`` played another game
    (221 against 174 steps here). Pickle and deepcopy mid-episode now continue identically
    against every built-in opponent (the expert with a fixed budget), and the AEC game too.
    The compiled build: test_compiled.py::test_copies_continue_identically_in_the_compiled_build."""
    runs = single_seat_runs(opponents)
    assert len(runs[0]) > 5
    assert runs[0] == runs[1], "pickle"
    assert runs[0] == runs[2], "deepcopy"
    runs = aec_runs()
    assert len(runs[0]) > 5 and runs[0] == runs[1] == runs[2]


def test_pickled_actions_and_rule_sets_are_equal_and_singletons_stay_themselves() -> None:
    game = kuhhandel.new_game(kuhhandel.CLASSIC, 4, 1)
    back = pickle.loads(pickle.dumps(game))
    assert back.pending()[0].choices[0] is A.AUCTION
    values = [A.AUCTION, A.PASS, A.Bid(30), A.Pay((10, 0)), A.Challenge(1, 2), A.Claim(3)]
    values += [A.PlaceNote(10), A.Offer(()), A.Counter((50,)), kuhhandel.MASTER]
    for value in values:
        assert pickle.loads(pickle.dumps(value)) == value
        assert type(pickle.loads(pickle.dumps(value))) is type(value)
    assert pickle.loads(pickle.dumps(A.GIVE)) is A.GIVE


class _Counting(HeuristicBot):
    """A heuristic bot that counts the requests it answered."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.answered = 0

    def act(self, observation: Any, request: Any) -> Any:
        self.answered += 1
        return super().act(observation, request)


def test_learner_trains_against_a_list_of_agent_objects() -> None:
    """Opponents as agent objects, at construction and per episode through
    ``reset(options={"opponents": ...})``: a linear masked policy improves its return against
    them with a few REINFORCE updates (it only has to move, not to win), and the objects passed
    are the ones that play."""
    first = [_Counting(1), RandomBot(seed=2), _Counting(3)]
    env = SingleSeatEnv("kuhhandel", "classic", 4, opponents=first, seat=0)
    n_obs, n_act = env.observation_space["observation"].shape[0], env.action_space.n
    rng = np.random.default_rng(0)
    weights = np.zeros((n_act, n_obs))
    league = [first, [_Counting(4), _Counting(5), RandomBot(seed=6)]]
    for episode in range(6):
        opponents = league[episode % 2]
        obs, _ = env.reset(seed=episode, options={"opponents": opponents})
        assert [env.bots[s] for s in (1, 2, 3)] == opponents
        grads, done, reward = [], False, 0.0
        while not done:
            logits = weights @ obs["observation"]
            logits[obs["action_mask"] == 0] = -np.inf
            p = np.exp(logits - logits.max())
            p /= p.sum()
            a = int(rng.choice(n_act, p=p))
            grads.append(np.outer(np.eye(n_act)[a] - p, obs["observation"]))
            obs, reward, terminated, truncated, _ = env.step(a)
            done = terminated or truncated
        weights += 0.01 * reward * sum(grads)
    assert all(bot.answered > 0 for bot in (league[0][0], league[0][2], *league[1][:2]))
    assert np.abs(weights).sum() > 0
    # a trained policy as an opponent object: PolicyAgent
    agent = PolicyAgent(lambda o: int(np.flatnonzero(o["action_mask"])[0]), "kuhhandel")
    obs, _ = env.reset(seed=1, options={"opponents": [agent, "heuristic", first[1]]})
    play_on(env, obs, random.Random(0))
    assert agent.steps > 0
    with pytest.raises(TypeError):
        env.reset(options={"opponents": [object(), "random", "random"]})
    with pytest.raises(ValueError):
        env.reset(options={"opponents": ["random"]})


def test_one_agent_object_for_several_seats_is_refused_and_a_factory_is_taken() -> None:
    """Issue #41 item 5: one agent object as ``opponents`` (or twice in the list) would be
    started three times and hear every event three times: refused with the fix named. A
    factory (a class or a callable seed -> agent) builds one agent per seat and episode."""
    bot = HeuristicBot(seed=1)
    with pytest.raises(ValueError, match="one agent object .* factory"):
        _single("kuhhandel", "classic", 4, opponents=bot)
    env = _single("kuhhandel", "classic", 4, opponents="random")
    with pytest.raises(ValueError, match="opponents 1 and 3"):
        env.reset(options={"opponents": [bot, "random", bot]})
    duel = _single("kuhhandel", "master-duel", 2, opponents=bot)  # one other seat: fine
    duel.reset(seed=1)
    assert duel.bots[1] is bot
    made: list[_Counting] = []

    def factory(seed: int) -> _Counting:
        made.append(_Counting(seed))
        return made[-1]

    for opponents in (factory, HeuristicBot, [factory, HeuristicBot, "random"]):
        env = _single("kuhhandel", "classic", 4, opponents=opponents)
        obs, _ = env.reset(seed=3)
        bots = [env.bots[s] for s in (1, 2, 3)]
        assert len({id(b) for b in bots}) == 3
        play_on(env, obs, random.Random(0))
        env.reset(seed=4)
        assert not {id(b) for b in bots} & {id(env.bots[s]) for s in (1, 2, 3)}  # fresh per episode
    assert made and all(b.answered > 0 for b in made[:3])
    with pytest.raises(TypeError, match="not an agent"):
        _single("kuhhandel", "classic", 4, opponents=lambda seed: None).reset(seed=1)


def test_gym_make_and_make_vec() -> None:
    env = gym.make("cardtable/Kuhhandel-v0", rules="classic", seats=4, opponents="heuristic")
    obs, _ = env.reset(seed=1)
    assert obs["action_mask"].sum() > 0
    assert env.spec is not None and env.spec.id == "cardtable/Kuhhandel-v0"
    cune = gym.make("cardtable/Cunegonda-v0", rules={"rounds": 1})
    obs, _ = cune.reset(seed=1)
    assert obs["action_mask"].sum() > 0
    envs = gym.make_vec("cardtable/Kuhhandel-v0", num_envs=2, rules="classic", seats=4)
    obs, _ = envs.reset(seed=3)
    assert obs["action_mask"].shape == (2, envs.single_action_space.n)


def test_next_step_autoreset_never_gives_an_empty_mask() -> None:
    """Gymnasium ≥ 1.0 vector environments hand out the terminal observation and reset on the
    next step (``NEXT_STEP``): that observation allows index 0 (a no-op), so a masked policy
    never sees an empty mask; the action it picks then is ignored."""
    envs = gym.make_vec(
        "cardtable/Kuhhandel-v0", num_envs=2, rules="master-duel", seats=2, opponents="random"
    )
    rng = random.Random(0)
    obs, _ = envs.reset(seed=5)
    ends = 0
    for _ in range(3000):
        masks = obs["action_mask"]
        assert masks.sum(axis=1).min() > 0
        obs, _r, terminated, truncated, _i = envs.step(
            np.array([random_index(m, rng) for m in masks])
        )
        ends += int(np.sum(terminated | truncated))
        if ends >= 3:
            break
    assert ends >= 3


def _result(places: list[int]) -> Result:
    return Result(Termination.NORMAL, tuple(0.0 for _ in places), tuple(places))


def test_rank_rewards_are_zero_sum_with_ties() -> None:
    rewards = final_rewards(_result([1, 0, 2, 2]), "rank")
    assert rewards == pytest.approx([1 / 3, 1, -2 / 3, -2 / 3])
    for places in ([0, 0, 1, 2], [0, 1, 1, 1], [0, 0, 0, 0], [2, 0, 1], [0, 1]):
        assert sum(final_rewards(_result(places), "rank")) == pytest.approx(0.0)


def test_max_steps_truncates_a_runaway_overbid_game() -> None:
    """Issue #41 item 9: ``max_turns`` counts turns, not bids, so random bids with
    ``overbid=True`` ran a classic game to ~30,000 index steps, never truncated. ``max_steps``
    (default 10,000) truncates both environments, reward 0; a game without overbid is not cut."""
    rng = random.Random(0)
    aec = CardtableEnv("kuhhandel", "classic", 4, overbid=True)
    assert aec.table.max_steps == 10_000
    aec.reset(seed=0)
    steps, ends = 0, []
    for _agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        if terminated or truncated:
            ends.append((reward, terminated, truncated, info["termination"]))
        steps += not (terminated or truncated)
        aec.step(None if terminated or truncated else random_index(obs["action_mask"], rng))
    assert steps == 10_000
    assert ends == [(0.0, False, True, "max_steps")] * 4
    assert aec.game.pending()  # the engine game itself was not over
    env = _single("kuhhandel", "classic", 4, opponents="random", overbid=True, max_steps=300)
    obs, _ = env.reset(seed=0)
    learner = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(random_index(obs["action_mask"], rng))
        learner += 1
        if terminated or truncated:
            break
    assert (reward, terminated, truncated, info["termination"]) == (0.0, False, True, "max_steps")
    assert env.table.steps == 300 and learner < 300  # the bots' answers count too
    plain = _single("kuhhandel", "classic", 4, opponents="random")
    assert plain.table.max_steps == 10_000
    obs, _ = plain.reset(seed=0)
    info = _play_info(plain, obs, rng)
    assert info["termination"] != "max_steps"
    with pytest.raises(ValueError, match="max_steps"):
        _single("kuhhandel", "classic", 4, max_steps=0)


def _play_info(env: Any, obs: Any, rng: random.Random) -> dict[str, Any]:
    while True:
        obs, _r, terminated, truncated, info = env.step(random_index(obs["action_mask"], rng))
        if terminated or truncated:
            return info


def test_expert_opponents_follow_the_seed_not_the_clock() -> None:
    """Issue #41 item 7: the expert's wall-clock cap (0.25 s) cut searches short on a busy
    machine, so two environments with the same seed diverged. Built by name in an environment
    it searches its iteration budget only, unless a clock option is asked for."""
    env = _single("kuhhandel", "classic", 4, opponents="expert")
    env.reset(seed=1)
    assert all(bot.time_cap is None for bot in env.bots.values())  # type: ignore[attr-defined]
    env.reset(seed=1, options={"opponents": "expert:time_cap=0.25"})
    assert all(bot.time_cap == 0.25 for bot in env.bots.values())  # type: ignore[attr-defined]
    runs = []
    for _ in range(2):
        env = _single("kuhhandel", "classic", 4, opponents="expert:iterations=12")
        obs, _ = env.reset(seed=7)
        rng, steps = random.Random(7), [obs["observation"].tobytes()]
        for _ in range(40):
            obs, _r, terminated, truncated, _i = env.step(random_index(obs["action_mask"], rng))
            steps.append(obs["observation"].tobytes())
            if terminated or truncated:
                break
        runs.append(steps)
    assert len(runs[0]) > 20 and runs[0] == runs[1]
