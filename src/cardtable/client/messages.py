"""The client's side of the native protocol, version 1: the messages it sends and reads.

Only the fields the client relies on are checked; unknown fields are ignored so that a newer
server can add information without breaking older bots. The server's own definitions (and the
JSON schema of every message) live in :mod:`cardtable.protocol` and ``docs/protocol.md``; this
module keeps the bot library free of server dependencies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

#: The protocol version this client speaks.
PROTOCOL_VERSION = 1

#: The lobbies a client may join.
LOBBIES = ("ranked", "practice", "private", "tournament", "challenge")


class ProtocolError(RuntimeError):
    """The server sent something this client cannot understand."""


class ServerError(RuntimeError):
    """The server refused us with an ``error`` message; ``code`` is machine-readable."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


def http_base(server: str) -> str:
    """``http://host:port`` of a ``ws://host:port/ws`` URL (the server's HTTP API)."""
    parts = urlsplit(server)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}"


def encode(message: Mapping[str, Any]) -> str:
    """One text frame (compact JSON)."""
    return json.dumps(message, separators=(",", ":"))


def decode(frame: str | bytes) -> dict[str, Any]:
    """Parse one frame from the server; raises :class:`ProtocolError` if it is not a message."""
    try:
        data = json.loads(frame)
    except ValueError as exc:
        raise ProtocolError(f"frame is not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError("frame is not an object with a string 'type'")
    return data


def hello(
    *,
    bot: str | None = None,
    token: str | None = None,
    guest: str | None = None,
    events_in_request: bool = False,
    version: str | None = None,
) -> dict[str, Any]:
    """The first message: a bot names itself and its token; a person joins as a guest.

    ``version`` (a bot's, up to 64 characters) is recorded with every game the bot plays on
    this connection and shown in standings, records and the bot's page.

    ``events_in_request`` asks the server to hold our events and send them inside our next
    request (one frame per decision; an older server ignores the field and sends them one by
    one, which the client handles the same way).
    """
    message: dict[str, Any]
    if guest is not None:
        message = {"type": "hello", "protocol": PROTOCOL_VERSION, "guest": guest}
    elif not bot or not token:
        raise ValueError("a bot needs a name and a token (or connect as a guest)")
    else:
        message = {"type": "hello", "protocol": PROTOCOL_VERSION, "bot": bot, "token": token}
    if events_in_request:
        message["events_in_request"] = True
    if version and guest is None:
        message["version"] = version[:64]
    return message


def join(
    lobby: str,
    game: str,
    *,
    rules: str | None = None,
    seats: int | None = None,
    opponents: str | None = None,
    invite: str | None = None,
    tournament: str | None = None,
    opponent: str | None = None,
    rated: bool = False,
) -> dict[str, Any]:
    """Ask for a seat: ``rules`` is a preset name (``None``: the game's default); the
    ``tournament`` lobby takes the tournament's id; the ``challenge`` lobby the ``opponent``
    (a registered bot) to challenge, or none to wait for challenges. ``rated`` asks for a rated
    practice table or challenge."""
    if lobby not in LOBBIES:
        raise ValueError(f"unknown lobby {lobby!r} (known: {', '.join(LOBBIES)})")
    message: dict[str, Any] = {"type": "join", "lobby": lobby, "game": game}
    if rules is not None:
        message["rules"] = rules
    if seats is not None:
        message["seats"] = seats
    if opponents is not None:
        message["opponents"] = opponents
    if invite is not None:
        message["invite"] = invite
    if tournament is not None:
        message["tournament"] = tournament
    if opponent is not None:
        message["opponent"] = opponent
    if rated:
        message["rated"] = True
    return message


def answer_challenge(challenge_id: str, accept: bool) -> dict[str, Any]:
    """Accept (the game starts) or decline a ``challenge`` the server sent us."""
    return {"type": "join", "lobby": "challenge", "accept" if accept else "decline": challenge_id}


def action(game_id: str, request_id: Any, action: Any) -> dict[str, Any]:
    """The answer to one request (``action`` is already the game's action JSON)."""
    return {"type": "action", "game_id": game_id, "request_id": request_id, "action": action}


def resume(game_id: str | None = None, since: int | None = None) -> dict[str, Any]:
    """After a reconnect: give me back my seat (in ``game_id``; events from index ``since``)."""
    message: dict[str, Any] = {"type": "resume"}
    if game_id is not None:
        message["game_id"] = game_id
    if since is not None:
        message["since"] = since
    return message


def leave() -> dict[str, Any]:
    """Leave the queue (or the table, between games)."""
    return {"type": "leave"}


def fault(
    game_id: str,
    request_id: Any,
    kind: str,
    reason: str,
    exception: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Report a decision the bot failed (``kind``: ``raised``, ``invalid_action``, ``late``,
    ``client_error``); the caller sets ``answered`` (whether its own fallback's action follows).
    """
    message: dict[str, Any] = {
        "type": "fault",
        "game_id": game_id,
        "request_id": request_id,
        "kind": kind,
        "reason": reason[:1000],
    }
    if exception is not None:
        message["exception"] = dict(exception)
    return message
