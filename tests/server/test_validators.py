"""The compiled validator (fastjsonschema) and the reference (jsonschema) decide alike (issue 34).

The server checks frames with the compiled one by default; both read the same schemas. Here both
judge the same set of frames, valid ones and mutations of them (every named field given each
wrong kind of value, every required field dropped, an unknown field in a closed schema), and must
accept and refuse the same frames with the same reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from cardtable.protocol import CLIENT_SCHEMAS, SERVER_SCHEMAS, ProtocolError, parse_client_message
from cardtable.protocol.schema import (
    SchemaError,
    compiled_for,
    selected_validator,
    use_validator,
    validate,
)

VALID_CLIENT: list[dict[str, Any]] = [
    {"type": "hello", "protocol": 1, "bot": "alice", "token": "x" * 43},
    {"type": "hello", "protocol": 1, "guest": "Ada", "push_observations": True},
    {"type": "hello", "protocol": 1, "spectate": "abc123"},
    {"type": "hello", "protocol": 1, "person": True},
    {"type": "join", "lobby": "ranked", "game": "kuhhandel", "rules": "classic"},
    {"type": "join", "lobby": "practice", "game": "cunegonda", "opponents": ["random", "expert"]},
    {"type": "join", "lobby": "private", "create": {"seats": 3, "bots": ["random"]}},
    {"type": "join", "lobby": "private", "invite": "ABC234"},
    {
        "type": "join",
        "lobby": "private",
        "game": "kuhhandel",
        "create": {"rules": "classic", "seats": 3, "quiet_ms": 2500, "listed": True},
    },
    {"type": "action", "game_id": "g", "request_id": "1", "action": {"kind": "pass"}},
    {"type": "fault", "game_id": "g", "request_id": "1", "kind": "raised", "detail": "boom"},
    {"type": "resume", "game_id": "g1", "since": 10},
    {"type": "leave"},
]

#: Wrong values of every kind, put in each named field in turn (2.0 for an integer included:
#: the protocol's integers are ints, docs/protocol.md).
WRONG = [None, True, 2.0, -1, 10**7, "", "x" * 300, [], {}, [1, "a"], {"kind": 3}]


def _mutations(frame: dict[str, Any], schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in schema.get("properties", {}):
        for wrong in WRONG:
            yield {**frame, key: wrong}
    for key in schema.get("required", []):
        if key in frame:
            yield {k: v for k, v in frame.items() if k != key}
    yield {**frame, "unknown_field": 1}
    for key, value in frame.items():  # one level down, e.g. join.create
        if isinstance(value, dict):
            sub = schema.get("properties", {}).get(key, {})
            for inner in sub.get("properties", {}):
                for wrong in WRONG:
                    yield {**frame, key: {**value, inner: wrong}}
            yield {**frame, key: {**value, "unknown_field": 1}}


def _verdict(validator: str, check: Any) -> str:
    use_validator(validator)
    try:
        check()
    except (ProtocolError, SchemaError) as exc:
        return f"refused: {exc}"
    return "accepted"


@pytest.fixture(autouse=True)
def _restore_validator() -> Iterator[None]:
    before = selected_validator()
    yield
    use_validator(before)


def test_every_protocol_schema_is_a_valid_draft_2020_12_schema() -> None:
    """The compiled validator takes a schema as it is: the reference checks each of the
    protocol's schemas here, once, rather than at every process's start (schema.compiled_for)."""
    from cardtable.protocol.schema import protocol_validator
    from cardtable.stdio.messages import ADAPTER_SCHEMAS, PROGRAM_SCHEMAS

    schemas = [CLIENT_SCHEMAS, SERVER_SCHEMAS, ADAPTER_SCHEMAS, PROGRAM_SCHEMAS]
    for schema in (s for group in schemas for s in group.values()):
        protocol_validator().check_schema(schema)
    assert sum(len(group) for group in schemas) > 20


def test_the_server_checks_with_the_compiled_validator_by_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CARDTABLE_VALIDATOR"}
    code = "from cardtable.protocol.schema import selected_validator; print(selected_validator())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "fast", out.stderr
    env["CARDTABLE_VALIDATOR"] = "jsonschema"  # the A/B switch
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "jsonschema", out.stderr
    env["CARDTABLE_VALIDATOR"] = "quick"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "CARDTABLE_VALIDATOR" in out.stderr


def test_both_validators_accept_and_refuse_the_same_client_frames() -> None:
    frames = list(VALID_CLIENT)
    for frame in VALID_CLIENT:
        frames.extend(_mutations(frame, CLIENT_SCHEMAS[frame["type"]]))
    refused = 0
    for frame in frames:
        text = json.dumps(frame)
        fast = _verdict("fast", lambda text=text: parse_client_message(text))
        reference = _verdict("jsonschema", lambda text=text: parse_client_message(text))
        assert fast == reference, frame
        refused += fast.startswith("refused")
    for frame in VALID_CLIENT:
        assert _verdict("fast", lambda f=frame: parse_client_message(json.dumps(f))) == "accepted"
    assert refused > 500, refused  # the set is mostly hostile


def test_both_validators_judge_server_frames_alike() -> None:
    """Every request and event frame of a played game, and mutations of one of each kind."""
    from cardtable.core import game_spec, load_bot
    from cardtable.protocol import dumps

    spec = game_spec("kuhhandel")
    game = spec.new_game(spec.resolve_rules("classic"), 3, 3)
    bot = load_bot("kuhhandel", "random", seed=3)
    frames: list[dict[str, Any]] = []
    while not game.is_over():
        request = game.pending()[0]
        message = {
            "type": "request",
            "game_id": "g",
            "request_id": str(len(frames)),
            "request": game.request_to_json(request),
            "observation": game.observe_json(request.seat),
            "deadline_ms": 5000,
            "time_bank_ms": 60000,
        }
        frames.append(json.loads(dumps(message)))
        game.apply(request.seat, bot.act(game.observe(request.seat), request))
    for index, ev in enumerate(game.events(0)):
        event = {"kind": ev.kind, "data": dict(ev.data)}
        message = {"type": "event", "game_id": "g", "index": index, "event": event}
        frames.append(json.loads(dumps(message)))
    judged = [(SERVER_SCHEMAS[f["type"]], f) for f in frames]
    for kind in ("request", "event"):
        first = next(f for f in frames if f["type"] == kind)
        judged.extend((SERVER_SCHEMAS[kind], m) for m in _mutations(first, SERVER_SCHEMAS[kind]))
    verdicts = {"accepted": 0, "refused": 0}
    for schema, frame in judged:
        fast = _verdict("fast", lambda f=frame, s=schema: validate(f, s))
        assert fast == _verdict("jsonschema", lambda f=frame, s=schema: validate(f, s)), frame
        verdicts[fast.split(":")[0]] += 1
    assert verdicts["accepted"] > 500 and verdicts["refused"] > 50, verdicts


def test_the_compiled_check_itself_refuses_a_float_integer_and_a_bool() -> None:
    """fastjsonschema alone (not the wording step) holds the protocol's integers: 2.0 and true
    are no integers, 2 is."""
    from fastjsonschema import JsonSchemaValueException

    check = compiled_for(CLIENT_SCHEMAS["resume"])
    check({"type": "resume", "game_id": "g", "since": 2})
    for wrong in (2.0, True):
        with pytest.raises(JsonSchemaValueException):
            check({"type": "resume", "game_id": "g", "since": wrong})


def test_compiled_check_writes_no_default_into_the_frame() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "default": 5}}}
    frame: dict[str, Any] = {}
    compiled_for(schema)(frame)
    assert frame == {}
