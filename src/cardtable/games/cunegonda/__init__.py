"""Cunegonda: a Hearts-like trick-taking game for 4 seats (spec: cunegonda-rules.md).

``SPEC`` registers the game with the platform; :func:`new_game` starts a match. See
``docs/cunegonda.md`` for how the engine maps the rules, its requests, actions and events.
"""

from __future__ import annotations

from typing import Any

from cardtable.core.registry import GameSpec
from cardtable.games.cunegonda import game as engine
from cardtable.games.cunegonda.bots import BOTS
from cardtable.games.cunegonda.cards import NAMES, QUEEN_OF_SPADES, card, long_name
from cardtable.games.cunegonda.describe import describe_event, describe_view
from cardtable.games.cunegonda.game import (
    SEATS,
    CunegondaGame,
    new_game,
    pass_target,
    round_leader,
)
from cardtable.games.cunegonda.observe import Observation, Trick
from cardtable.games.cunegonda.rules import PRESETS, SHORT, STANDARD, CunegondaRules


def _seat_range(rules: Any) -> tuple[int, int]:
    return (SEATS, SEATS)


SPEC = GameSpec(
    name="cunegonda",
    new_game=new_game,
    rules_from_json=CunegondaRules.from_json,
    presets=PRESETS,
    default_rules="standard",
    seat_range=_seat_range,
    describe_event=describe_event,
    bots=BOTS,
    engine=engine,
    describe_view=describe_view,
)

__all__ = [
    "NAMES",
    "PRESETS",
    "QUEEN_OF_SPADES",
    "SEATS",
    "SHORT",
    "SPEC",
    "STANDARD",
    "CunegondaGame",
    "CunegondaRules",
    "Observation",
    "Trick",
    "card",
    "describe_event",
    "long_name",
    "new_game",
    "pass_target",
    "round_leader",
]
