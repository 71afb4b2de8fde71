"""Helpers shared by the Cunegonda tests: drive a game with simple policies."""

from __future__ import annotations

import random
from collections.abc import Callable

from cardtable.core.contract import Request
from cardtable.games.cunegonda import CunegondaGame, CunegondaRules, new_game
from cardtable.games.cunegonda.scoring import PENALTY

ONE_ROUND = CunegondaRules(rounds=1)


def random_action(game: CunegondaGame, request: Request, rng: random.Random) -> object:
    """A uniformly random legal answer to ``request`` (a pass reads the seat's own hand)."""
    if request.kind == "pass":
        return tuple(rng.sample(game.observe(request.seat).hand, 3))
    assert request.choices is not None
    return rng.choice(request.choices)


def play_out(
    game: CunegondaGame,
    rng: random.Random,
    *,
    until: Callable[[CunegondaGame], bool] | None = None,
) -> CunegondaGame:
    """Random legal play until the game is over (or ``until(game)`` holds)."""
    while not game.is_over() and not (until and until(game)):
        request = game.pending()[0]
        game.apply(request.seat, random_action(game, request, rng))
    return game


def random_game(seed: int, rules: CunegondaRules = ONE_ROUND) -> CunegondaGame:
    return play_out(new_game(rules, 4, seed), random.Random(seed))


def moon_game(seed: int, shooter: int = 0) -> CunegondaGame:
    """One round where every seat helps ``shooter`` take all the points (a moon is likely)."""
    game = new_game(ONE_ROUND, 4, seed)
    while not game.is_over():
        request = game.pending()[0]
        seat = request.seat
        obs = game.observe(seat)
        if request.kind == "pass":
            high_first = seat == (shooter + 1) % 4  # the seat that passes to the shooter
            cards = sorted(obs.hand, key=lambda c: c % 13, reverse=high_first)[:3]
            game.apply(seat, tuple(cards))
            continue
        choices = request.choices
        assert choices is not None
        trick = obs.trick
        led = trick[0] // 13 if trick else -1
        if seat == shooter:
            action = max(choices, key=lambda c: (c // 13 == led, c % 13))
        elif trick and choices[0] // 13 != led:
            action = max(choices, key=lambda c: PENALTY[c])
        else:
            action = min(choices, key=lambda c: c % 13)
        game.apply(seat, action)
    return game
