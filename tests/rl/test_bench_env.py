"""``cardtable bench ... --env`` reports env steps/s beside the engine's decisions/s."""

from __future__ import annotations

import json

import pytest

from cardtable.cli import main


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


def test_bench_without_env_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "kuhhandel", "--games", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert "env_steps_per_second" not in out
