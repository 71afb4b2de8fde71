"""``cardtable bench ... --env`` reports env steps/s beside the engine's decisions/s."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.cli import main
from cardtable.rl.aec import CardtableEnv
from cardtable.rl.speed import measure_env


@pytest.mark.parametrize(("game", "rules"), [("kuhhandel", "master"), ("cunegonda", "short")])
def test_bench_env_section(game: str, rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["bench", game, "--rules", rules, "--games", "2", "--env", "--env-repeat", "2", "--json"]
    )
    assert code in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["decisions_per_second"] > 0  # the engine part is still there
    assert out["env_steps_per_second"] > 0
    assert out["env_steps_per_decision"] >= 1.0  # a step never answers more than one request
    assert out["observed_decisions_per_second"] > 0
    assert out["plain_decisions_per_second"] > 0  # measured again, interleaved with the env
    assert out["env_repeat"] == 2
    assert out["env_vs_engine"] == pytest.approx(
        out["env_steps_per_second"] / out["plain_decisions_per_second"], abs=0.01
    )
    assert out["env_vs_observed"] == pytest.approx(
        out["env_steps_per_second"] / out["observed_decisions_per_second"], abs=0.01
    )
    # The environment measured has played other games first; its own first games are
    # reported beside it.
    assert out["env_new_steps_per_second"] > 0
    assert out["env_new_vs_engine"] == pytest.approx(
        out["env_new_steps_per_second"] / out["plain_decisions_per_second"], abs=0.01
    )


def test_bench_without_env_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "kuhhandel", "--games", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert "env_steps_per_second" not in out


@pytest.mark.parametrize(
    ("game", "rules", "seats"), [("kuhhandel", "classic", 4), ("cunegonda", "short", 4)]
)
def test_the_measuring_policy_draws_a_uniform_pick_from_the_mask(
    game: str, rules: str, seats: int
) -> None:
    """The bench's policy is a uniform pick from ``mask.nonzero()``: the same random numbers
    play the same games (same steps, same decisions)."""
    games, seed = 3, 5
    env = CardtableEnv(game, rules, seats)
    rng = random.Random(seed)
    steps = decisions = 0
    histories = []
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        decisions += len(env.game.history())
        histories.append(list(env.game.history()))
    measured = measure_env(game, rules, seats, games, seed, env=env)
    assert measured["env_steps"] == steps
    assert measured["env_steps_per_decision"] == round(steps / decisions, 2)
    assert list(env.game.history()) == histories[-1]  # the last game, move by move


def test_bench_train_reports_learner_steps_per_cpu_second_and_the_env_share(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue #41 item 3: ``bench kuhhandel --train`` compares one env with the default batch,
    the rollout kept (the rates themselves are for the docs, not for a test)."""
    pytest.importorskip("torch", reason="the train extra (torch, sb3-contrib) is not installed")
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    from cardtable.rl.train import ENVS, ROLLOUT

    args = ["bench", "kuhhandel", "--train", "--train-steps", "64", "--train-repeat", "1"]
    assert main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["train"]
    assert [r["envs"] for r in rows] == [1, ENVS]
    for row in rows:
        assert row["envs"] * row["n_steps"] == ROLLOUT  # the rollout kept
        assert row["steps"] >= ROLLOUT  # one whole rollout and update at least
        assert row["steps_per_cpu_second"] > 0
        assert 0 < row["env_share"] < 1
    assert rows[0]["vs_first"] == 1.0
    assert main(["bench", "cunegonda", "--train"]) != 0
    assert "kuhhandel only" in capsys.readouterr().err
