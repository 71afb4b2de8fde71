"""The value bidders of the mirror panel (``styles``; issue #42): legal play in every seat
against the built-in bots, the same game from the same seeds, and each shape's own bid rule."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from cardtable.core import GameInfo, load_bot, run_match
from cardtable.games.kuhhandel import PRESETS, new_game
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.bots import styles

SHAPES = ("TableBidder", "HerdBidder", "ShareBidder", "Pushover", "Newcomer")


def _play(cls: str, seed: int, rules: str = "classic") -> list[tuple[str, Any]]:
    game = new_game(PRESETS[rules], 4, seed)
    agents: list[Any] = [getattr(styles, cls)(seed)]
    agents += [load_bot("kuhhandel", "heuristic", seed=seed + s) for s in (1, 2, 3)]
    run_match(game, agents)  # no fallback: an illegal answer raises
    assert game.is_over()
    return [(e.kind, e.data) for e in game.events()]


@pytest.mark.parametrize("cls", SHAPES)
@pytest.mark.parametrize("rules", ["classic", "master"])
def test_each_shape_plays_legal_games_to_the_end(cls: str, rules: str) -> None:
    for seed in (1, 2):
        _play(cls, seed, rules)


@pytest.mark.parametrize("cls", SHAPES)
def test_each_shape_plays_the_same_game_from_the_same_seeds(cls: str) -> None:
    assert _play(cls, 7) == _play(cls, 7)


def test_the_shapes_bid_by_their_own_rules() -> None:
    """A table bidder never bids above half a quartet's value; a share bidder never above
    the value of its herd over four; the pushover only opens."""
    values = [sp["value"] for sp in PRESETS["classic"].to_json()["species"]]
    game = new_game(PRESETS["classic"], 4, 3)
    bot = styles.TableBidder(3)
    agents: list[Any] = [bot] + [load_bot("kuhhandel", "heuristic", seed=s) for s in (1, 2, 3)]
    asked = []

    class Watch:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def start(self, seat: int, info: Any) -> None:
            self.inner.start(seat, info)

        def act(self, obs: Any, request: Any) -> Any:
            answer = self.inner.act(obs, request)
            if request.kind == "bid":
                asked.append((request.info, answer, obs.money))
            return answer

    agents[0] = Watch(bot)
    run_match(game, agents)
    assert asked
    for info, answer, money in asked:
        if isinstance(answer, A.Bid):
            assert answer.amount == info["min"]
            assert answer.amount <= min(money, values[info["card"]] // 2)
        else:
            assert info["min"] > min(money, values[info["card"]] // 2) or info["min"] > money
    raises = 0
    for seed in (1, 2, 3):
        game = new_game(PRESETS["classic"], 4, seed)
        agents = [styles.Pushover(seed)]
        agents += [load_bot("kuhhandel", "heuristic", seed=seed + s) for s in (1, 2, 3)]
        run_match(game, agents)
        high = 0
        for ev in game.events():
            if ev.kind == "auction":
                high = 0
            elif ev.kind == "bid":
                if ev.data["seat"] == 0 and high:
                    raises += 1
                high = ev.data["amount"]
    assert raises == 0  # it bids only when nobody has yet


def test_the_herd_bidder_values_a_species_more_the_more_of_it_is_held() -> None:
    game = new_game(PRESETS["classic"], 4, 1)
    bot = styles.HerdBidder(1)
    bot.start(0, GameInfo("kuhhandel", game.rules_json(), 4, 0))
    obs = game.observe(0)
    herds = [list(h) for h in obs.herds]
    base = bot.worth(obs, 9)
    herds[0][9] = 1
    mine = bot.worth(replace(obs, herds=tuple(map(tuple, herds))), 9)
    herds[0][9] = 0
    herds[2][9] = 1
    theirs = bot.worth(replace(obs, herds=tuple(map(tuple, herds))), 9)
    assert base < theirs < mine
