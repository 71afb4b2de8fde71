"""The stdio bot protocol, version 1: its messages and their JSON schemas.

One JSON object per line, UTF-8, ``\\n`` ended, a ``type`` each. The adapter writes ``hello``
(a game starts), ``request`` (a decision), ``event`` (something this seat may see), ``game_end``
and ``bye``; the program writes ``ready`` (after each ``hello``) and ``action`` (after each
``request``, in order). Observations, requests, actions and events are encoded exactly as in the
native WebSocket protocol (:mod:`cardtable.protocol`, docs/protocol.md), so one decoder serves
both. Every line the program writes is checked against :data:`PROGRAM_SCHEMAS`.
"""

from __future__ import annotations

import json
from typing import Any

from cardtable.protocol import SERVER_SCHEMAS, SchemaError, validate

PROTOCOL = "cardtable-stdio"
VERSION = 1
#: The longest line a program may write (bytes, newline included); a longer one is a flood.
MAX_LINE_BYTES = 64 * 1024

_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
_REQUEST = SERVER_SCHEMAS["request"]["properties"]["request"]
_EVENT = SERVER_SCHEMAS["event"]["properties"]["event"]


def _message(type_: str, description: str, props: dict[str, Any], required: list[str]) -> Any:
    return {
        "$schema": _SCHEMA,
        "title": type_,
        "description": description,
        "type": "object",
        "properties": {"type": {"const": type_}, **props},
        "required": ["type", *required],
    }


#: What the adapter writes to the program.
ADAPTER_SCHEMAS: dict[str, dict[str, Any]] = {
    "hello": _message(
        "hello",
        "A game starts: the game, its full rule set as JSON, this program's seat (0-based), "
        "the number of seats and their names. Answer with ready.",
        {
            "protocol": {"const": PROTOCOL},
            "version": {"const": VERSION},
            "game": {"type": "string"},
            "rules": {"type": "object"},
            "seat": {"type": "integer", "minimum": 0},
            "seats": {"type": "integer", "minimum": 1},
            "names": {"type": "array", "items": {"type": "string"}},
        },
        ["protocol", "version", "game", "rules", "seat", "seats"],
    ),
    "request": _message(
        "request",
        "A decision of this seat: its id (1, 2... per process), its observation, the request "
        "(kind, choices or null, info) and the milliseconds the program has to answer with an "
        "action.",
        {
            "id": {"type": "integer", "minimum": 1},
            "observation": {"type": "object"},
            "request": _REQUEST,
            "deadline_ms": {"type": "integer", "minimum": 0},
        },
        ["id", "observation", "request", "deadline_ms"],
    ),
    "event": _message(
        "event",
        "Something happened that this seat may see (nothing is ever sent about another seat's "
        "hidden cards). No answer.",
        {"event": _EVENT},
        ["event"],
    ),
    "game_end": _message(
        "game_end",
        "The game is over: termination, scores and places per seat (0 is first). No answer.",
        {"result": {"type": "object"}},
        ["result"],
    ),
    "bye": _message("bye", "Exit now (the program is killed a second later).", {}, []),
}

#: What the program writes.
PROGRAM_SCHEMAS: dict[str, dict[str, Any]] = {
    "ready": _message(
        "ready",
        "The answer to hello: the bot's name, and whether it is started once per game (keep: "
        "game, the default: bye after game_end, a new process for the next game) or kept for "
        "the whole match (keep: match: the next game's hello comes on the same stdin).",
        {
            "name": {"type": "string", "minLength": 1, "maxLength": 64},
            "keep": {"enum": ["game", "match"]},
        },
        ["name"],
    ),
    "action": _message(
        "action",
        "The answer to a request: the action, encoded as in the native protocol (one of the "
        "request's choices when it has them, else within its info's bounds). id: the request's "
        "id (recommended: an answer with an earlier id is skipped as late; without ids, answers "
        "are matched to requests in order).",
        {"action": {}, "id": {"type": "integer"}},
        ["action"],
    ),
}


class MessageError(ValueError):
    """A line the program wrote is not a message of the protocol (``line`` is what it wrote)."""

    def __init__(self, line: str, reason: str) -> None:
        shown = line if len(line) <= 200 else line[:200] + f"... ({len(line)} characters)"
        super().__init__(f"{reason}: {shown!r}")
        self.line = line
        self.reason = reason


def parse_program_line(line: str, expected: str) -> dict[str, Any]:
    """The message of ``line``, which must be a program message of type ``expected``."""
    try:
        data = json.loads(line)
    except ValueError:
        raise MessageError(line, "not JSON") from None
    if not isinstance(data, dict):
        raise MessageError(line, "not a JSON object")
    if data.get("type") != expected:
        raise MessageError(line, f"expected a {expected!r} message")
    try:
        validate(data, PROGRAM_SCHEMAS[expected])
    except SchemaError as exc:
        raise MessageError(line, f"not a valid {expected} message ({exc})") from None
    return data


def dumps(message: Any) -> str:
    """One line of the protocol (compact JSON, no newline)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def schema_document() -> dict[str, Any]:
    """Every schema of the protocol in one document (docs/stdio-schema.json is this)."""
    return {
        "protocol": PROTOCOL,
        "version": VERSION,
        "max_line_bytes": MAX_LINE_BYTES,
        "adapter": ADAPTER_SCHEMAS,
        "program": PROGRAM_SCHEMAS,
    }
