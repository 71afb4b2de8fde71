"""The reference-style ``simple`` house bot (kuh-handel-wire.md §5.1) on our engine."""

from __future__ import annotations

import pytest

from cardtable.core import GameInfo, run_match
from cardtable.games.kuhhandel import COMPETITION, new_game
from cardtable.server.compat.simple import SimpleBot, risk_text


@pytest.mark.parametrize(("seats", "mean"), [(3, 4280), (4, 2407), (5, 1540), (6, 1070)])
def test_s5_1_mean_points_threshold_per_table_size(seats: int, mean: int) -> None:
    bot = SimpleBot(risk=0.5)
    game = new_game(COMPETITION, seats, 1)
    bot.start(0, GameInfo("kuhhandel", game.rules_json(), seats, 0))
    assert bot.mean_points == mean


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_s5_1_simple_bots_play_whole_competition_games_legally(seats: int) -> None:
    for seed in range(3):
        game = new_game(COMPETITION, seats, seed)
        bots = [SimpleBot(seed=seed * 10 + s) for s in range(seats)]
        # no fallback: an illegal action raises and fails the test
        result = run_match(game, bots)
        assert game.is_over() and len(result.places) == seats


def test_s5_1_risk_zero_pays_nothing_over_its_budget_and_always_accepts() -> None:
    game = new_game(COMPETITION, 3, 5)
    bot = SimpleBot(risk=0.0)
    bot.start(1, GameInfo("kuhhandel", game.rules_json(), 3, 1))
    request = game.next_request()
    assert request is not None and request.kind == "turn"
    assert bot.risk == 0.0
    from cardtable.core import Request
    from cardtable.games.kuhhandel import actions as A

    respond = Request(1, "respond", None, {"challenger": 0, "species": 0, "cards": 1})
    assert bot.act(game.observe(1), respond) == A.ACCEPT
    bid = Request(1, "bid", None, {"card": 0, "high": 20, "high_bidder": 0, "min": 21})
    assert bot.act(game.observe(1), bid) == A.PASS  # 20 is over a budget of 0


def test_s1_3_server_bot_risk_is_printed_like_rust() -> None:
    assert risk_text(0.37) == "0.37"
    assert risk_text(1.0) == "1"
    assert risk_text(0.0) == "0"
    assert risk_text(0.5) == "0.5"
