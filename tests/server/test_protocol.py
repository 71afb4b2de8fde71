"""The wire protocol's schemas and the parser of client frames (no server needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardtable.protocol import (
    CLIENT_SCHEMAS,
    ERROR_CODES,
    MAX_FRAME_BYTES,
    SERVER_SCHEMAS,
    ProtocolError,
    SchemaError,
    parse_client_message,
    schema_document,
    validate,
    validate_server_message,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "hello", "protocol": 1, "bot": "alice", "token": "x" * 43},
        {"type": "hello", "protocol": 1, "guest": "Ada"},
        {"type": "hello", "protocol": 1, "spectate": "abc123"},
        {"type": "join", "lobby": "ranked", "game": "kuhhandel", "rules": "classic"},
        {"type": "join", "lobby": "practice", "game": "cunegonda", "opponents": "random"},
        {"type": "join", "lobby": "private", "create": {"seats": 3, "bots": ["random"]}},
        {"type": "join", "lobby": "private", "invite": "ABC234"},
        {
            "type": "join",
            "lobby": "private",
            "game": "kuhhandel",
            "create": {"rules": "classic", "seats": 3, "quiet_ms": 2500, "listed": True},
        },
        {"type": "hello", "protocol": 1, "guest": "Ada", "push_observations": True},
        {"type": "hello", "protocol": 1, "bot": "b", "token": "t", "events_in_request": True},
        {"type": "action", "game_id": "g", "request_id": "1", "action": {"kind": "pass"}},
        {"type": "resume"},
        {"type": "leave"},
    ],
)
def test_valid_client_frames_parse(frame: dict) -> None:
    assert parse_client_message(json.dumps(frame)) == frame


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"type": "dance"}', "bad_message"),
        ('{"no_type": 1}', "bad_message"),
        ('{"type": "hello", "protocol": 1}', "bad_message"),
        ('{"type": "hello", "protocol": "one", "guest": "x"}', "bad_message"),
        ('{"type": "join", "lobby": "casino"}', "bad_message"),
        ('{"type": "action", "game_id": "g", "action": 1}', "bad_message"),
        ('{"type": "join", "lobby": "private", "create": {"quiet_ms": 100}}', "bad_message"),
        ('{"type": "join", "lobby": "private", "create": {"quiet_ms": 2.5}}', "bad_message"),
        ('{"type": "join", "lobby": "private", "create": {"listed": "yes"}}', "bad_message"),
        ('{"type": "hello", "protocol": 1, "guest": "x", "events_in_request": 1}', "bad_message"),
    ],
)
def test_bad_client_frames_are_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client_message(text)
    assert info.value.code == code
    assert info.value.reason


def test_oversized_frame_is_refused() -> None:
    frame = json.dumps({"type": "leave", "pad": "x" * MAX_FRAME_BYTES})
    with pytest.raises(ProtocolError) as info:
        parse_client_message(frame)
    assert info.value.code == "too_large"


def test_validator_reports_the_path() -> None:
    schema = SERVER_SCHEMAS["event"]
    with pytest.raises(SchemaError) as info:
        validate({"type": "event", "game_id": "g", "index": 0, "event": {"kind": 1}}, schema)
    assert info.value.path == "$.event"
    with pytest.raises(SchemaError):
        validate_server_message({"type": "error", "code": "no_such_code", "reason": ""})


def test_schema_document_covers_every_message_and_code() -> None:
    doc = json.loads(json.dumps(schema_document()))  # it is plain JSON
    assert set(doc["client"]) == {
        "hello",
        "join",
        "action",
        "fault",
        "resume",
        "leave",
        "chat",
        "chat_report",
    }
    assert set(doc["server"]) == {
        "welcome",
        "waiting",
        "table",
        "game_start",
        "event",
        "request",
        "observation",
        "cancel",
        "rejected",
        "game_end",
        "error",
        "reconnect",
        "challenge",
        "chat",
        "chat_reported",
        "declined",
    }
    for code in (
        "bad_json",
        "bad_message",
        "unsupported_protocol",
        "bad_token",
        "too_large",
        "flood",
        "not_your_turn",
        "illegal_action",
        "invalid_action",
        "timeout",
        "suspended",
    ):
        assert code in doc["error_codes"]


def test_docs_describe_every_message_and_error_code() -> None:
    text = DOCS.read_text()
    for name in [*CLIENT_SCHEMAS, *SERVER_SCHEMAS]:
        assert f"`{name}`" in text, f"docs/protocol.md does not describe {name}"
    for code in ERROR_CODES:
        assert f"`{code}`" in text, f"docs/protocol.md does not list error code {code}"


def test_docs_hold_the_current_schemas() -> None:
    text = DOCS.read_text()
    for schemas in (CLIENT_SCHEMAS, SERVER_SCHEMAS):
        for name, schema in schemas.items():
            dumped = json.dumps(schema, indent=2, ensure_ascii=False)
            assert dumped in text, f"docs/protocol.md has an outdated schema of {name}"


def test_docs_schema_part_is_exactly_what_the_generator_writes() -> None:
    """``python -m cardtable.protocol.document docs/protocol.md`` was run after the last
    schema change."""
    from cardtable.protocol.document import rewrite

    text = DOCS.read_text()
    assert rewrite(text) == text


def test_every_error_code_the_server_sends_is_published() -> None:
    """A code the server puts in an ``error``/``rejected`` must pass the published schema."""
    server = Path(__file__).resolve().parents[2] / "src" / "cardtable" / "server"
    # refusals.py: the HTTP API's refusal codes, not protocol errors (docs/server.md "Refusals
    # over HTTP"; tests/server/test_refusal_codes.py checks those)
    sources = [
        p
        for p in server.rglob("*.py")
        if "compat" not in p.parts and "web" not in p.parts and p.name != "refusals.py"
    ]
    used: set[str] = set()
    for path in sources:
        text = path.read_text()
        used |= set(re.findall(r'"code":\s*"([a-z_]+)"', text))
        used |= set(re.findall(r'\bcode: str = "([a-z_]+)"', text))  # a default, as leave()'s
        used |= set(
            re.findall(
                r'(?:fatal|_fault|JoinError|_record_fault)\(\s*(?:[\w.]+,\s*)*"([a-z_]+)"', text
            )
        )
    assert {"taken_over", "timeout", "bad_token", "not_your_turn", "left"} <= used, used
    for code in sorted(used):
        validate_server_message({"type": "error", "code": code, "reason": "x"})
        assert code in ERROR_CODES


@pytest.mark.parametrize("game", ["kuhhandel", "cunegonda"])
def test_dumps_writes_the_same_json_values_as_the_standard_library(game: str) -> None:
    """The wire encoder (orjson when installed) round-trips every observation and event of a
    played game to exactly what ``json`` would have written."""
    from cardtable.core import game_spec, load_bot
    from cardtable.protocol import dumps

    spec = game_spec(game)
    state = spec.new_game(spec.resolve_rules(None), 4, 7)
    bot = load_bot(game, "random", seed=1)
    checked = 0
    while not state.is_over() and checked < 400:
        for seat in (None, *range(4)):
            obs = state.observe_json(seat)
            assert json.loads(dumps(obs)) == json.loads(json.dumps(obs))
        request = state.pending()[0]
        state.apply(request.seat, bot.act(state.observe(request.seat), request))
        checked += 1
    for ev in state.events(0):
        message = {"kind": ev.kind, "data": dict(ev.data)}
        assert json.loads(dumps(message)) == json.loads(json.dumps(message))
    assert json.loads(dumps({"big": 2**70, "text": "Kuh ü"})) == {"big": 2**70, "text": "Kuh ü"}
