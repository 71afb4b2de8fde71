"""A local agent gets the same values over the wire as in-process (the client's GameCodec).

For every built-in game and rule set, random games are played; at every request the seat's
observation and the request are sent through their JSON form and decoded again, and must equal
the engine's own values. Then each built-in bot plays twice from the same seed, once fed the
engine's values and once fed decoded JSON, and must take exactly the same actions: that is what
"a bot plays remotely unchanged" means.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cardtable.client import GameCodec
from cardtable.core import Game, Request, game_spec, load_bot

CASES = [
    ("kuhhandel", "classic", 4),
    ("kuhhandel", "competition", 3),
    ("kuhhandel", "master", 5),
    ("kuhhandel", "master-duel", 2),
    ("cunegonda", "short", 4),
]


def wire(data: Any) -> Any:
    """What the other end of a WebSocket reads."""
    return json.loads(json.dumps(data))


def new(game: str, rules: str, seats: int, seed: int) -> tuple[Game, GameCodec]:
    spec = game_spec(game)
    g = spec.new_game(spec.presets[rules], seats, seed)
    return g, GameCodec(game, wire(g.rules_json()), seats)


@pytest.mark.parametrize(("game", "rules", "seats"), CASES)
def test_observation_and_request_round_trip(game: str, rules: str, seats: int) -> None:
    for seed in range(3):
        g, codec = new(game, rules, seats, seed)
        bot = load_bot(game, "random", seed=seed)
        steps = 0
        while not g.is_over() and steps < 400:
            request = g.pending()[0]
            obs = g.observe(request.seat)
            decoded_obs = codec.observation(wire(g.observe_json(request.seat)))
            assert decoded_obs == obs
            decoded = codec.request(wire(g.request_to_json(request)))
            assert decoded.seat == request.seat and decoded.kind == request.kind
            assert decoded.choices == request.choices
            assert wire(decoded.info) == wire(dict(request.info or {}))
            g.apply(request.seat, bot.act(obs, request))
            steps += 1
        assert steps > 5


class Twin:
    """Feeds one bot the engine's values and its twin the decoded JSON; they must agree."""

    def __init__(self, game: str, ref: str, seed: int, codec: GameCodec, g: Game) -> None:
        self.local = load_bot(game, ref, seed=seed)
        self.remote = load_bot(game, ref, seed=seed)
        self.codec, self.g = codec, g

    def act(self, obs: Any, request: Request) -> Any:
        mine = self.local.act(obs, request)
        seat = request.seat
        theirs = self.remote.act(
            self.codec.observation(wire(self.g.observe_json(seat))),
            self.codec.request(wire(self.g.request_to_json(request))),
        )
        assert self.codec.action_from_json(wire(self.codec.action_to_json(theirs))) == mine
        return mine


@pytest.mark.parametrize(("game", "rules", "seats"), CASES)
@pytest.mark.parametrize("ref", ["random", "heuristic"])
def test_built_in_bots_decide_the_same_from_decoded_json(
    game: str, rules: str, seats: int, ref: str
) -> None:
    g, codec = new(game, rules, seats, 11)
    twins = [Twin(game, ref, 100 + s, codec, g) for s in range(seats)]
    steps = 0
    while not g.is_over() and steps < 3000:
        request = g.pending()[0]
        g.apply(request.seat, twins[request.seat].act(g.observe(request.seat), request))
        steps += 1
    assert steps > 5
