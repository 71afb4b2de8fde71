"""The league trainer (:mod:`cardtable.rl.league`): the pool draws the opponents the learner beats
least, snapshots join and leave, episodes are played against the drawn entry and their results
recorded (numpy only); where the ``train`` extra is installed, a tiny league run writes its
chunks, resumes with its pool, and starts from the weights it is given."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardtable.core import game_spec, load_bot, run_match
from cardtable.games.kuhhandel.bots.expert import ExpertBot
from cardtable.rl.league import Pool
from cardtable.rl.learned import LearnedBot, weights_path

FIXED = ("heuristic", "expert:iterations=2", "learned")


def shipped() -> dict[str, np.ndarray]:
    with open(str(weights_path(4)), "rb") as f:
        return dict(np.load(f))


def test_the_pool_draws_the_opponents_the_learner_beats_least() -> None:
    pool = Pool(FIXED)
    never_met = pool.probabilities()
    assert set(never_met) == set(FIXED) and len(set(never_met.values())) == 1
    for i in range(40):
        pool.record("heuristic", 1)  # beaten every time
        pool.record("expert:iterations=2", 0)  # never beaten
        pool.record("learned", i % 4 == 0)  # beaten a quarter of the time
    p = pool.probabilities()
    assert p["expert:iterations=2"] > p["learned"] > p["heuristic"] > 0
    assert sum(p.values()) == pytest.approx(1.0)
    assert pool.win_rate("heuristic") == pytest.approx(40.5 / 42)
    rng = random.Random(3)
    drawn = Counter(pool.sample(rng) for _ in range(4000))
    assert drawn["expert:iterations=2"] > drawn["learned"] > drawn["heuristic"]
    for name, count in drawn.items():
        assert count / 4000 == pytest.approx(p[name], abs=0.03)
    # a larger power leans harder on the hardest opponent
    harsh = Pool(FIXED, power=4.0)
    harsh.results = pool.results
    assert harsh.probabilities()["expert:iterations=2"] > p["expert:iterations=2"]


def test_snapshots_join_the_oldest_leave_and_the_state_round_trips() -> None:
    weights = shipped()
    pool = Pool(FIXED, snapshots=2, window=5)
    for n in (1, 2, 3):
        pool.add_snapshot(f"self-{n:04d}", weights)
        pool.record(f"self-{n:04d}", 1)
    assert pool.names == [*FIXED, "self-0002", "self-0003"]
    pool.record("self-0001", 1)  # left the pool: ignored
    assert "self-0001" not in pool.results
    for _ in range(9):
        pool.record("learned", 0)
    assert len(pool.results["learned"]) == 5  # the window
    opponents = pool.opponents("self-0003")
    assert len(opponents) == 3
    bot = opponents[0](11)
    assert isinstance(bot, LearnedBot)
    assert pool.opponents("heuristic") == ["heuristic"] * 3

    state = json.loads(json.dumps(pool.state()))
    again = Pool(FIXED, snapshots=2, window=5)
    again.restore(state, {name: weights for name in state["snapshots"]})
    assert again.names == pool.names and again.probabilities() == pool.probabilities()


def test_league_episodes_are_played_against_the_drawn_entry_and_recorded() -> None:
    from cardtable.rl.league import LeagueEnv

    pool = Pool(FIXED, window=50)
    pool.add_snapshot("self-0001", shipped())
    env = LeagueEnv(pool, ["classic"], seed=5)
    rng = np.random.default_rng(0)
    kinds = {
        "heuristic": "HeuristicBot",
        "expert:iterations=2": "ExpertBot",
        "learned": "LearnedBot",
        "self-0001": "LearnedBot",
    }
    for episode in range(1, 6):
        env.reset()
        bots = list(env.env.bots.values())
        assert {type(b).__name__ for b in bots} == {kinds[env.opponent]}
        if env.opponent.startswith("expert"):
            assert all(isinstance(b, ExpertBot) and b.time_cap is None for b in bots)
            assert all(b.iterations == 2 for b in bots)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(env.action_masks()))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert sum(len(r) for r in pool.results.values()) == episode
        assert list(pool.results[env.opponent])[-1] == (1.0 if info["place"] == 0 else 0.0)


def _train_extra() -> None:
    pytest.importorskip("torch", reason="the train extra (torch, sb3-contrib) is not installed")
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")


def test_warm_start_copies_the_weights_it_is_given() -> None:
    _train_extra()
    from cardtable.rl.league import warm_start
    from cardtable.rl.train import DEFAULTS, PRESETS, build, export

    model, venv, _ = build({**DEFAULTS, **PRESETS["learned"]}, 1, 64)
    weights = shipped()
    assert not np.array_equal(export(model, venv, ["classic"], 4)["W0"], weights["W0"])
    warm_start(model, venv, weights)
    again = export(model, venv, ["classic"], 4)
    for key in ("obs_mean", "obs_var", "W0", "b0", "W1", "b1", "W2", "b2"):
        assert np.array_equal(again[key], weights[key]), key


def test_a_tiny_league_run_writes_chunks_and_resumes_with_its_pool(tmp_path: Path) -> None:
    _train_extra()
    from cardtable.rl.league import main

    args = ["--out", str(tmp_path), "--chunk", "2048", "--envs", "4"]
    args += ["--expert", "expert:iterations=2"]
    main([*args, "--steps", "2048"])
    state = json.loads((tmp_path / "pool.json").read_text())
    assert state["snapshots"] == ["self-0001"]
    assert sum(len(r) for r in state["results"].values()) > 0
    main([*args, "--steps", "4096"])  # the same --out: goes on from chunk 1
    again = json.loads((tmp_path / "pool.json").read_text())
    assert again["snapshots"] == ["self-0001", "self-0002"]
    for name, results in state["results"].items():
        assert again["results"][name][: len(results)] == results
    log = (tmp_path / "log.txt").read_text().splitlines()
    assert [line.split()[:2] for line in log] == [["chunk", "1"], ["chunk", "2"]]
    assert "expert:iterations=2" in log[-1] and "self-0001" in log[-1]
    # the successor plays by path, as the arena's ``learned:weights=PATH``
    bot = load_bot("kuhhandel", f"learned:weights={tmp_path / 'latest.npz'}")
    spec = game_spec("kuhhandel")
    bots = [bot] + [load_bot("kuhhandel", "heuristic", seed=s) for s in (1, 2, 3)]
    run_match(spec.new_game(spec.resolve_rules("classic"), 4, 3), bots)
    assert bot.steps > 0
