"""The Ray backend against a local Ray instance: the same tournament, the same results."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from cardtable.arena import Report, TournamentPlan, make_entries, run_tournament
from conftest import HERE, TOY, bot

pytest.importorskip("ray", reason="Ray is not installed: pip install 'cardtable[ray]'")


def machine_json(report: Report) -> dict[str, Any]:
    data = report.to_json()
    del data["timing"]
    return data


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_ray_backend_plays_the_same_tournament(monkeypatch: pytest.MonkeyPatch) -> None:
    # The local Ray instance the backend starts inherits this environment, so its workers can
    # import the test-only toy game; cardtable itself is installed in the same interpreter.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    entries = make_entries(["heuristic", "random", bot("raises")])
    plan = TournamentPlan(
        "toy", "standard", 3, entries, deals=12, seed=9, fallback="heuristic", extra_games=TOY
    )
    on_ray = run_tournament(plan, jobs=2, backend="ray")
    on_processes = run_tournament(plan, jobs=2, backend="process")
    assert on_ray.backend == "ray"
    assert json.dumps(machine_json(on_ray)) == json.dumps(machine_json(on_processes))
    assert on_ray.rows[2].faults["raised"] > 0
