"""Game-neutral contracts, the match loop, records and the game/bot registry."""

from cardtable.core.contract import (
    JSON,
    ActionError,
    Agent,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    InvalidAction,
    Request,
    Result,
    Termination,
    places_from_keys,
)
from cardtable.core.match import Fault, MatchLog, run_match
from cardtable.core.record import Record, RecordError, replay, verify
from cardtable.core.registry import (
    GameSpec,
    game_names,
    game_spec,
    load_bot,
    split_bot_list,
    split_bot_ref,
)

__all__ = [
    "JSON",
    "ActionError",
    "Agent",
    "Event",
    "Fault",
    "Game",
    "GameInfo",
    "GameSpec",
    "IllegalAction",
    "InvalidAction",
    "MatchLog",
    "Record",
    "RecordError",
    "Request",
    "Result",
    "Termination",
    "game_names",
    "game_spec",
    "load_bot",
    "places_from_keys",
    "replay",
    "run_match",
    "split_bot_list",
    "split_bot_ref",
    "verify",
]
