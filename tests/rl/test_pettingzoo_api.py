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
