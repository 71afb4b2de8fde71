"""The training example in docs/rl.md runs (a few episodes; the real run is in the docs)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

from cardtable.core import load_bot

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl" / "masked_pg.py"


def _load() -> object:
    spec = importlib.util.spec_from_file_location("masked_pg_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["masked_pg_example"] = module
    spec.loader.exec_module(module)
    return module


def test_example_trains_saves_and_plays_as_a_bot(tmp_path: Path, monkeypatch: object) -> None:
    pg = _load()
    args = argparse.Namespace(
        game="kuhhandel",
        rules="master-duel",
        seats=2,
        opponents="random",
        episodes=20,
        lr=0.01,
        seed=0,
        report=10,
        eval_games=4,
        out=None,
    )
    policy = pg.train(args)  # type: ignore[attr-defined]
    assert np.abs(policy.W).sum() > 0  # it learned something (zero weights = uniform)
    result = pg.evaluate(policy, args, 4)  # type: ignore[attr-defined]
    assert 0.0 <= result["win_rate"] <= 1.0
    weights = tmp_path / "pg.npz"
    policy.save(str(weights))
    monkeypatch.setenv("CARDTABLE_PG_WEIGHTS", str(weights))  # type: ignore[attr-defined]
    bot = load_bot("kuhhandel", f"{EXAMPLE}:Bot")
    from cardtable.core import run_match
    from cardtable.games import kuhhandel

    game = kuhhandel.new_game(kuhhandel.MASTER_DUEL, 2, 1)
    run_match(game, [bot, load_bot("kuhhandel", "random")])
    assert game.is_over()
