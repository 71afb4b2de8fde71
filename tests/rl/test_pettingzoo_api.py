"""PettingZoo's own acceptance tests (api_test, seed_test) on every environment."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, seed_test

from cardtable.rl import CardtableEnv

from .conftest import ENV_IDS, ENVIRONMENTS


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_api(game: str, rules: object, seats: int) -> None:
    api_test(CardtableEnv(game, rules, seats), num_cycles=300)


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
def test_seed(game: str, rules: object, seats: int) -> None:
    seed_test(lambda: CardtableEnv(game, rules, seats), num_cycles=300)


def test_render_uses_the_game_words() -> None:
    env = CardtableEnv("kuhhandel", "classic", 4, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "seat_0 starts" in text
    env.step(1)  # draw: auction the top card
    assert "draws the" in env.render()


@pytest.mark.parametrize("kind", ["int", "numpy integer", "numpy array", "float"])
def test_an_action_in_any_integer_form_takes_the_same_step(kind: str) -> None:
    """``step()`` takes an index as an int, a NumPy integer, a NumPy array of one number or a
    whole float alike: the same game follows."""
    import random

    import numpy as np

    forms = {
        "int": int,
        "numpy integer": np.int64,
        "numpy array": np.array,
        "float": float,
    }
    records = []
    for convert in (int, forms[kind]):
        env = CardtableEnv("kuhhandel", "classic", 4)
        env.reset(seed=3)
        rng = random.Random(3)
        for _ in range(300):
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                break
            legal = obs["action_mask"].nonzero()[0].tolist()
            env.step(convert(rng.choice(legal)))
        records.append(env.game.history())
    assert records[0] == records[1] and len(records[0]) > 100
