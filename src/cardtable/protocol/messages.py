"""Message schemas of protocol version 1 and the parser for client frames.

Client frames are checked against :data:`CLIENT_SCHEMAS`; fields a schema does not name are
ignored (so newer clients can add optional fields). Server frames always match
:data:`SERVER_SCHEMAS` (the tests check every frame the server sends).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cardtable.protocol.schema import SchemaError, validate

try:  # the server extra installs orjson; without it the standard library encodes the same JSON
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the installation
    _orjson = None  # type: ignore[assignment]

PROTOCOL_VERSION = 1
#: What checks frames against the schemas (``cardtable bench --frames`` reports it); which of
#: the two decides is :func:`cardtable.protocol.schema.selected_validator`.
VALIDATOR = (
    "fastjsonschema (compiled, the default) or jsonschema (CARDTABLE_VALIDATOR), Draft 2020-12, "
    "one check per schema built once"
)
#: Frames larger than this (in UTF-8 bytes) are refused with ``too_large``.
MAX_FRAME_BYTES = 64 * 1024
LOBBIES = ("ranked", "practice", "private", "tournament", "challenge")
#: The lobby a game_start names: a join's, or ``validation`` (a new bot's unrated first game,
#: which its first ranked join starts: docs/server.md, "Lobbies").
GAME_LOBBIES = (*LOBBIES, "validation")

#: Every ``error``/``rejected`` code and what it means (also in docs/protocol.md).
ERROR_CODES: dict[str, str] = {
    "bad_json": "the frame is not a JSON object",
    "bad_message": "the message does not match its schema, or its type is unknown",
    "unsupported_protocol": "the hello names a protocol version this server does not speak",
    "bad_token": "unknown bot name or wrong token, or a person's hello without a valid session "
    "cookie (or from another site's page)",
    "throttled": "this name and token were wrong moments ago (each try doubles the wait), or too "
    "many wrong tokens came from this address; the reason says when to retry",
    "bad_name": "a guest name with control or invisible characters, or a bot's name (or one "
    "that looks like it)",
    "too_large": "the frame exceeds the size limit",
    "flood": "too many messages too fast; the connection is closed",
    "not_hello": "the first message must be a hello",
    "spectator_cannot_act": "a spectator sent a message only a seat may send (action, join, "
    "fault, resume, chat); nothing changes and it goes on watching",
    "not_your_turn": "the request_id is not an open request of this connection",
    "illegal_action": "the action is well formed but the rules do not allow it now",
    "invalid_action": "the action is malformed for this request",
    "timeout": "the deadline and the time bank ran out",
    "suspended": "this bot is suspended for repeated faults: a join of any lobby but a "
    "tournament's is refused, and a queued bot is taken out of the ranked queue (the reason "
    "says until when; see GET /api/bots/{name})",
    "unknown_game": "no such game, rule set or bot",
    "bad_join": "the join cannot be served (wrong lobby for this identity, full table...)",
    "unknown_invite": "no open private table has this invite code",
    "not_validated": "a hosted bot's worker joined the ranked or tournament lobby, or a rated "
    "game, while the bot's chosen version has not passed its validation game "
    "(docs/hosted-bots.md)",
    "tournament_over": "the tournament is finished or cancelled (or the organiser banned or "
    "disqualified you from it): no more games to join",
    "challenge_declined": "the bot you challenged declined, or did not answer in time",
    "busy": "this connection is already queued or seated",
    "replaced": "the same identity connected again; this connection is closed",
    "shutdown": "the server is shutting down",
    "disconnect": "the client disconnected or was not connected when asked (a fault)",
    "left": "the client left a running game; the fallback plays its seat",
    "taken_over": "after repeated faults the fallback bot plays the rest of this game for you",
    "raised": "the bot raised an exception on this decision (reported by its client)",
    "late": "the bot missed its client's time limit for this decision (reported by its client)",
    "client_error": "the client library could not handle this request (reported by the client)",
    "chat_off": "there is no chat at this table for you (ranked and tournament tables, tables "
    "with fewer than two people, spectators, a bot that did not say chat: true in hello)",
    "chat_too_long": "a chat line longer than 200 characters (after NFKC); nothing was sent",
    "chat_rate": "more than 5 chat lines within 10 s from one seat; wait, nothing was sent",
    "bad_chat": "a chat line that is empty or holds control or invisible characters, or a "
    "report of a line that is not there (or your own); nothing changed",
}

#: The preset quick messages of table chat: codes on the wire, words in the page (translatable).
CHAT_PRESETS = ("hello", "good_luck", "gg", "well_played", "thanks", "oops", "sorry")
#: The longest chat line, in characters after NFKC normalisation (``chat_too_long`` beyond).
CHAT_MAX_CHARS = 200
#: Chat lines one seat may send within :data:`CHAT_WINDOW_S` seconds (``chat_rate`` beyond).
CHAT_RATE = 5
CHAT_WINDOW_S = 10.0

#: The kinds of a ``fault`` report: what went wrong on the client's side of one decision. Each
#: is stored as a fault with this code (``invalid_action``: the bot's answer is no action).
FAULT_KINDS = ("raised", "invalid_action", "late", "client_error")

_NAME = {"type": "string", "minLength": 1, "maxLength": 32}
_GAME_ID = {"type": "string", "minLength": 1, "maxLength": 64}
_RULES = {
    "description": "a preset name, or a full rule set as JSON (private tables only)",
    "type": ["string", "object"],
}
_MESSAGE_ID = {"type": "string", "minLength": 1, "maxLength": 64}
_OBJECT: dict[str, Any] = {"type": "object"}
PACES = ("normal", "fast", "instant")
_RATED = {
    "type": "boolean",
    "description": "practice and private tables: rate the game (openskill, per game and rule "
    "set) for every seat with an identity (people with an account, bots, house bots); guests "
    "cannot sit at a rated table. Default false",
}
_PACE = {
    "enum": list(PACES),
    "description": "the tempo of the moves a person did not make: normal (a bot's move 0.6-1 s "
    "after the one before, a finished trick stays 1.2 s, open-auction bids 0.8-3 s), fast (a "
    "third of that) or instant. Default: normal when a person is seated, else instant; ranked "
    "tables are always instant",
}
_SPECTATOR_DELAY = {
    "type": "integer",
    "minimum": 0,
    "maximum": 600000,
    "description": "spectators get every event and view this many ms later (default 0)",
}


def _message(
    type_: str,
    description: str,
    props: Mapping[str, Any],
    required: list[str],
    *,
    closed: bool = False,
    variants: list[Any] | None = None,
) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": type_,
        "description": description,
        "type": "object",
        "properties": {"type": {"const": type_}, **props},
        "required": ["type", *required],
    }
    if closed:
        schema["additionalProperties"] = False
    if variants:
        schema["anyOf"] = variants
    return schema


CLIENT_SCHEMAS: dict[str, dict[str, Any]] = {
    "hello": _message(
        "hello",
        "First message. A bot names itself and its token; a person signed in says person: true "
        "(its session cookie names it); a guest names a display name; "
        "a spectator names the game to watch. A guest may send the resume token from its welcome. "
        "Two options (off unless true): events_in_request, push_observations. A bot may send "
        "its version.",
        {
            "protocol": {"type": "integer", "description": "protocol version, 1"},
            "bot": _NAME,
            "token": {"type": "string", "minLength": 1, "maxLength": 200},
            "guest": {"type": "string", "minLength": 1, "maxLength": 32},
            "person": {
                "const": True,
                "description": "a person with an account: the identity is the session cookie "
                "sent with the WebSocket handshake (POST /api/account/signin sets it)",
            },
            "spectate": _GAME_ID,
            "events_in_request": {
                "type": "boolean",
                "description": "hold this connection's events and send them in the `events` list "
                "of its next request (the events still held when a game ends come as event "
                "messages just before game_end): one frame per decision",
            },
            "push_observations": {
                "type": "boolean",
                "description": "send an `observation` message whenever the seat's view changed "
                "(spectators: the public view)",
            },
            "version": {
                "type": "string",
                "maxLength": 64,
                "description": "a bot's version (a commit, a file hash): recorded with every "
                "game it plays on this connection (the record's meta.bot_versions, its games "
                "and standings); ignored for others",
            },
            "chat": {
                "type": "boolean",
                "description": "a bot: receive (and may send) table chat at tables where chat "
                "is on (default false: a bot never gets a chat frame). People always get it",
            },
        },
        ["protocol"],
        variants=[
            {"required": ["bot", "token"]},
            {"required": ["guest"]},
            {"required": ["person"]},
            {"required": ["spectate"]},
        ],
    ),
    "join": _message(
        "join",
        "Ask for a game. ranked: matched by rating (bots only). practice: against house bots "
        "(opponents = a house bot name or one per seat), unrated unless rated: true. private: "
        "create a table (create) or join one (invite), or play a game that just ended again "
        "with the same seats and rules (again: its game_id). tournament: wait for the next "
        "game of a tournament (tournament = its id); join again after each game. challenge: "
        "challenge the registered bot opponent (house bots fill the other seats; unrated "
        "unless rated: true), answer a challenge (accept or decline: its challenge_id), or, "
        "with neither, wait for challenges.",
        {
            "lobby": {"enum": list(LOBBIES)},
            "game": {"type": "string", "minLength": 1, "maxLength": 32},
            "rules": _RULES,
            "seats": {"type": "integer", "minimum": 1, "maximum": 16},
            "opponents": {
                "anyOf": [
                    {"type": "string", "maxLength": 32},
                    {"type": "array", "items": {"type": "string", "maxLength": 32}, "maxItems": 16},
                ]
            },
            "invite": {"type": "string", "minLength": 1, "maxLength": 32},
            "again": {
                **_GAME_ID,
                "description": "private: play this game (which just ended, and where you held "
                "a seat) again with the same seats and rules; each person confirms by sending "
                "the same join, house bots are seated again at once",
            },
            "rated": _RATED,
            "tournament": {
                "type": "string",
                "minLength": 1,
                "maxLength": 16,
                "description": "tournament lobby: the tournament's id (docs/competitions.md)",
            },
            "pace": _PACE,
            "spectator_delay_ms": _SPECTATOR_DELAY,
            "opponent": {**_NAME, "description": "challenge: the registered bot to challenge"},
            "accept": {
                "type": "string",
                "minLength": 1,
                "maxLength": 32,
                "description": "challenge: accept this challenge_id (the game starts)",
            },
            "decline": {
                "type": "string",
                "minLength": 1,
                "maxLength": 32,
                "description": "challenge: decline this challenge_id",
            },
            "create": {
                "type": "object",
                "properties": {
                    "rules": _RULES,
                    "seats": {"type": "integer", "minimum": 1, "maximum": 16},
                    "bots": {
                        "type": "array",
                        "items": {"type": "string", "maxLength": 32},
                        "maxItems": 16,
                        "description": "house bots to seat (the rest are open seats)",
                    },
                    "quiet_ms": {
                        "type": "integer",
                        "minimum": 500,
                        "maximum": 60000,
                        "description": "open auctions at this table close after this quiet "
                        "period (default: the server's)",
                    },
                    "listed": {
                        "type": "boolean",
                        "description": "show the table in the lobby (GET /api/tables) so anyone "
                        "may take an open seat (default false: invite code only)",
                    },
                    "pace": _PACE,
                    "spectator_delay_ms": _SPECTATOR_DELAY,
                    "rated": _RATED,
                },
            },
        },
        ["lobby"],
    ),
    "action": _message(
        "action",
        "Answer an open request with an action (the game's JSON encoding).",
        {"game_id": _GAME_ID, "request_id": _MESSAGE_ID, "action": {}},
        ["game_id", "request_id", "action"],
    ),
    "fault": _message(
        "fault",
        "Report a decision your bot failed: it raised (`raised`, with the exception and the "
        "bot's own frame), answered with something that is no action (`invalid_action`), was "
        "too late for your own time limit (`late`), or the client library could not handle the "
        "request (`client_error`). The server stores it as a fault of that kind. `answered: "
        "true`: an action from your own fallback follows for this request (at ranked and "
        "tournament tables the server's fallback answers all the same and that action is "
        "refused); otherwise (the default) none follows and the server's fallback answers now, "
        "without waiting for the deadline. Send it before that action. A report for a request "
        "that is not open for you gets `rejected` with `not_your_turn` and changes nothing.",
        {
            "game_id": _GAME_ID,
            "request_id": _MESSAGE_ID,
            "kind": {"enum": list(FAULT_KINDS)},
            "reason": {"type": "string", "maxLength": 1000},
            "exception": {
                "type": "object",
                "description": "for `raised`: the exception and the innermost frame of the "
                "bot's own code",
                "properties": {
                    "type": {"type": "string", "minLength": 1, "maxLength": 200},
                    "message": {"type": "string", "maxLength": 1000},
                    "file": {"type": "string", "maxLength": 500},
                    "line": {"type": "integer", "minimum": 0},
                    "function": {"type": "string", "maxLength": 200},
                },
                "required": ["type"],
                "additionalProperties": False,
            },
            "answered": {
                "type": "boolean",
                "description": "true: your client's fallback answers this request (its action "
                "follows; not at ranked and tournament tables, where the server's does); false "
                "(default): the server's fallback answers it now",
            },
        },
        ["game_id", "request_id", "kind"],
    ),
    "resume": _message(
        "resume",
        "Take the seat of this identity back after a reconnect (game_id optional: any running "
        "game of this identity). The server resends game_start, the events from `since` (default "
        "0) and the open requests.",
        {"game_id": _GAME_ID, "since": {"type": "integer", "minimum": 0}},
        [],
    ),
    "chat": _message(
        "chat",
        "Say something at the table of a running game where you hold a seat: a `text` (plain "
        "text, at most 200 characters after NFKC; control and invisible characters are refused) "
        "or a `preset` quick message (a code; the page shows it in the reader's words). Every "
        "seat with chat gets it back as a `chat` message (you too); spectators never do. At most "
        "5 lines per 10 s per seat (`chat_rate`).",
        {
            "game_id": _GAME_ID,
            "text": {"type": "string", "minLength": 1, "maxLength": 2000},
            "preset": {"enum": list(CHAT_PRESETS)},
        },
        ["game_id"],
        variants=[{"required": ["text"]}, {"required": ["preset"]}],
    ),
    "chat_report": _message(
        "chat_report",
        "Report a chat line (its `id`) of another seat to the server's operator; answered with "
        "`chat_reported`. The operator reads reports at GET /api/chat/reports (docs/server.md).",
        {
            "game_id": _GAME_ID,
            "id": {"type": "integer", "minimum": 1},
            "reason": {"type": "string", "maxLength": 500},
        },
        ["game_id", "id"],
    ),
    "leave": _message(
        "leave",
        "Leave the queue or the waiting private table; during a game the fallback plays the "
        "rest of it (a person's connection keeps watching the seat until resume). With "
        "`again`: decline the rematch of that ended game (its players are told: `declined`).",
        {
            "again": {
                **_GAME_ID,
                "description": "decline playing this game again (a `table` with `offer`)",
            }
        },
        [],
    ),
}

_EVENT = _message(
    "event",
    "Something happened that this seat may see (spectators: public events only). `index` "
    "is the event's place in the whole game, so a seat sees gaps.",
    {
        "game_id": {"type": "string"},
        "index": {"type": "integer", "minimum": 0},
        "event": {
            "type": "object",
            "properties": {"kind": {"type": "string"}, "data": {"type": "object"}},
            "required": ["kind", "data"],
        },
    },
    ["game_id", "index", "event"],
)

_RESULT = {
    "type": "object",
    "properties": {
        "termination": {"enum": ["normal", "cap", "forfeit", "aborted"]},
        "scores": {"type": "array", "items": {"type": "number"}},
        "places": {"type": "array", "items": {"type": "integer"}},
        "reason": {"type": "string"},
        "details": {"type": "object"},
    },
    "required": ["termination", "scores", "places"],
}

SERVER_SCHEMAS: dict[str, dict[str, Any]] = {
    "welcome": _message(
        "welcome",
        "Reply to hello. `you.resume_token` (guests only) lets a person reconnect; `games` lists "
        "running games where this identity holds a seat (send resume to take it back).",
        {
            "protocol": {"const": PROTOCOL_VERSION},
            "server_version": {"type": "string"},
            "you": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "kind": {"enum": ["bot", "person", "guest", "spectator"]},
                    "resume_token": {"type": "string"},
                },
                "required": ["name", "kind"],
            },
            "games": {"type": "array", "items": {"type": "string"}},
        },
        ["protocol", "server_version", "you", "games"],
    ),
    "challenge": _message(
        "challenge",
        "Another bot challenges you (sent at once when you are connected and not playing, "
        "else at your next join). Answer with join {lobby: challenge, accept: challenge_id} "
        "or {..., decline: challenge_id}.",
        {
            "challenge_id": {"type": "string"},
            "from": {"type": "string", "description": "the challenging bot"},
            "game": {"type": "string"},
            "rules": {"type": "string", "description": "a preset name, or custom"},
            "seats": {"type": "integer", "minimum": 2},
            "rated": {"type": "boolean"},
        },
        ["challenge_id", "from", "game", "rules", "seats", "rated"],
    ),
    "waiting": _message(
        "waiting",
        "Queued in a ranked lobby; house bots fill the table after `fill_after_ms`.",
        {
            "lobby": {"enum": list(LOBBIES)},
            "game": {"type": "string"},
            "rules": {"type": "string"},
            "queued": {"type": "integer", "minimum": 0},
            "fill_after_ms": {"type": "integer", "minimum": 0},
            "tournament": {"type": "string"},
        },
        ["lobby", "game", "rules", "queued"],
    ),
    "table": _message(
        "table",
        "A private table waiting for players: share `invite`; it starts when every seat is taken.",
        {
            "invite": {"type": "string"},
            "game": {"type": "string"},
            "rules": {"type": "object"},
            "seats": {"type": "integer"},
            "players": {"type": "array", "items": {"type": "string"}},
            "open_seats": {"type": "integer", "minimum": 0},
            "pace": {"enum": list(PACES)},
            "spectator_delay_ms": {"type": "integer", "minimum": 0},
            "rated": {"type": "boolean", "description": "the game will be rated"},
            "again": {
                "type": "string",
                "description": "this table plays that game again; it waits for its players",
            },
            "offer": {
                "type": "boolean",
                "description": "you are not at this table: one of the players of game `again` "
                "offers a rematch; accept with join (private, again) or decline with leave "
                "(again)",
            },
        },
        ["invite", "game", "rules", "seats", "players", "open_seats"],
    ),
    "declined": _message(
        "declined",
        "A player of game `again` declined the rematch offered at your table.",
        {"again": {"type": "string"}, "name": {"type": "string"}},
        ["again", "name"],
    ),
    "game_start": _message(
        "game_start",
        "A game begins (or is resent on resume/spectate). `seat` is null for spectators.",
        {
            "game_id": {"type": "string"},
            "game": {"type": "string"},
            "rules": {"type": "object"},
            "rules_name": {"type": ["string", "null"]},
            "seat": {"type": ["integer", "null"]},
            "seats": {"type": "integer"},
            "names": {"type": "array", "items": {"type": "string"}},
            "pages": {
                "type": "array",
                "items": {"type": ["string", "null"]},
                "description": "per seat, the path of the page of its name: /players/NAME (a "
                "person with an account), /bots/NAME (a stored bot); null for a guest",
            },
            "lobby": {"enum": list(GAME_LOBBIES)},
            "rated": {"type": "boolean"},
            "pace": {
                "enum": list(PACES),
                "description": "the table's pace (see join); the server emits the moves of the "
                "other seats at this tempo",
            },
            "spectator_delay_ms": {
                "type": "integer",
                "minimum": 0,
                "description": "spectators get everything this many ms later",
            },
            "chat": {
                "type": "boolean",
                "description": "table chat is on for this seat (tables of two people or more; "
                "a bot only after hello with chat: true); spectators: false",
            },
            "bot_seed": {
                "type": "integer",
                "minimum": 0,
                "description": "tournament games: the seed the arena gives this seat's bot in "
                "this deal; the client library builds a named bot with it",
            },
        },
        ["game_id", "game", "rules", "seat", "seats", "names"],
    ),
    "event": _EVENT,
    "request": _message(
        "request",
        "Your decision. Answer with an action carrying request_id within deadline_ms; lateness "
        "is taken from the time bank, and when that is empty the fallback answers. A request "
        "with `optional: true` (open auctions) may be left unanswered without a fault. With "
        "events_in_request, `events` holds the event messages not sent yet, in order: handle "
        "them before the request.",
        {
            "game_id": {"type": "string"},
            "request_id": {"type": "string"},
            "request": {
                "type": "object",
                "properties": {
                    "seat": {"type": "integer"},
                    "kind": {"type": "string"},
                    "choices": {"type": ["array", "null"]},
                    "info": {"type": "object"},
                },
                "required": ["seat", "kind", "choices", "info"],
            },
            "observation": _OBJECT,
            "deadline_ms": {"type": "integer", "minimum": 0},
            "time_bank_ms": {"type": "integer", "minimum": 0},
            "optional": {"type": "boolean"},
            "events": {
                "type": "array",
                "items": {k: v for k, v in _EVENT.items() if k != "$schema"},
            },
        },
        ["game_id", "request_id", "request", "observation", "deadline_ms", "time_bank_ms"],
    ),
    "observation": _message(
        "observation",
        "Sent to a client that said hello with push_observations: the seat's current "
        "observation (spectators: the public one, seat null) after a step that changed it, "
        "once `events_seen` events have happened. A request carries it too, so none is pushed "
        "to a seat that was just asked.",
        {
            "game_id": {"type": "string"},
            "seat": {"type": ["integer", "null"]},
            "events_seen": {"type": "integer", "minimum": 0},
            "observation": _OBJECT,
        },
        ["game_id", "seat", "events_seen", "observation"],
    ),
    "cancel": _message(
        "cancel",
        "An open request vanished (the game moved on, e.g. someone outbid you); do not answer it.",
        {"game_id": {"type": "string"}, "request_id": {"type": "string"}},
        ["request_id"],
    ),
    "rejected": _message(
        "rejected",
        "Your action was not applied. For illegal/invalid actions and timeouts the fallback "
        "answered that decision; `not_your_turn` changes nothing.",
        {
            "game_id": {"type": "string"},
            "request_id": {"type": "string"},
            "code": {"enum": list(ERROR_CODES)},
            "reason": {"type": "string"},
            "rule": {
                "type": "string",
                "description": "for illegal_action and invalid_action, the engine's name of the "
                "rule that refused it (kuhhandel.bid_too_low; absent if it names none): a language"
                " neutral code people's clients show from the catalogs' refusal.{rule}",
            },
            "args": {
                "type": "object",
                "description": "the numbers and names the rule's sentence needs "
                '({"low": 30, "amount": 20}; animal: a species\' English name)',
            },
        },
        ["request_id", "code", "reason"],
    ),
    "game_end": _message(
        "game_end",
        "The game is over. The full record is at record_url (HTTP GET). `observation` is the "
        "seat's view after the last action (spectators: the public view), the board of the "
        "result; clients that asked for push_observations also got it as an observation first.",
        {
            "game_id": {"type": "string"},
            "result": _RESULT,
            "record_url": {"type": "string"},
            "rated": {"type": "boolean"},
            "observation": {
                "description": "the final view of this seat (spectators: the public view); "
                "null only if an aborted game could not be observed",
            },
        },
        ["game_id", "result", "record_url"],
    ),
    "error": _message(
        "error",
        "Something was refused. Fatal codes (bad_json after hello is not fatal; bad_token, "
        "throttled, bad_name, unsupported_protocol, too_large, flood, replaced, and "
        "not_hello before hello, are) close the connection.",
        {"code": {"enum": list(ERROR_CODES)}, "reason": {"type": "string"}},
        ["code", "reason"],
    ),
    "chat": _message(
        "chat",
        "A chat line at your table: `id` counts the table's lines from 1, `seat` and `from` "
        "say who, `at` is when (ms since the Unix epoch), with either `text` (plain text: show "
        "it as text, never as HTML) or a `preset` code. A resume sends the lines so far again.",
        {
            "game_id": {"type": "string"},
            "id": {"type": "integer", "minimum": 1},
            "seat": {"type": "integer", "minimum": 0},
            "from": {"type": "string"},
            "text": {"type": "string"},
            "preset": {"enum": list(CHAT_PRESETS)},
            "at": {"type": "integer", "minimum": 0},
        },
        ["game_id", "id", "seat", "from", "at"],
    ),
    "chat_reported": _message(
        "chat_reported",
        "Your report of chat line `id` is stored for the operator.",
        {"game_id": {"type": "string"}, "id": {"type": "integer", "minimum": 1}},
        ["game_id", "id"],
    ),
    "reconnect": _message(
        "reconnect",
        "The server closes this connection (close code 1013) and asks you to connect again: "
        "this process of a cluster holds more than its share of the connections. Wait a random "
        "time between half of after_ms and all of it, connect, and resume your seat (no fault, "
        "the seat is kept) or join again.",
        {"after_ms": {"type": "integer", "minimum": 0}, "reason": {"type": "string"}},
        ["after_ms", "reason"],
    ),
}


class ProtocolError(ValueError):
    """A client frame is refused; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


def parse_client_message(text: str | bytes) -> dict[str, Any]:
    """Decode and check one client frame; raises :class:`ProtocolError`.

    Returns the message as a dict whose fields match its schema.
    """
    if isinstance(text, bytes | bytearray):
        size = len(text)
    else:
        # len(str) counts characters; the byte limit only matters near the limit
        size = len(text) if len(text) * 4 < MAX_FRAME_BYTES else len(text.encode("utf-8"))
    if size > MAX_FRAME_BYTES:
        raise ProtocolError("too_large", f"frame of {size} bytes exceeds {MAX_FRAME_BYTES}")
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError("bad_json", f"not JSON: {exc}") from None
    except RecursionError:  # '[' x 30,000 fits in a frame; the decoder recurses per level
        raise ProtocolError("bad_json", "not JSON this server reads: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object")
    kind = data.get("type")
    if kind == "action" and "action" in data:
        # the hot path (one per decision), checked exactly as its schema says
        game_id, request_id = data.get("game_id"), data.get("request_id")
        if (
            type(game_id) is str
            and type(request_id) is str
            and 0 < len(game_id) <= 64
            and 0 < len(request_id) <= 64
        ):
            return data
    if not isinstance(kind, str) or kind not in CLIENT_SCHEMAS:
        known = ", ".join(CLIENT_SCHEMAS)
        raise ProtocolError("bad_message", f"unknown message type {kind!r} (known: {known})")
    try:
        validate(data, CLIENT_SCHEMAS[kind])
    except SchemaError as exc:
        raise ProtocolError("bad_message", f"{kind}: {exc}") from None
    return data


def warm_client_checks() -> int:
    """Build the check of every client schema now (compiling them all takes a few hundred ms,
    which the server spends at its start rather than on its first clients' event loop)."""
    from cardtable.protocol.schema import compiled_for, selected_validator, validator_for

    build = compiled_for if selected_validator() == "fast" else validator_for
    for schema in CLIENT_SCHEMAS.values():
        build(schema)
    return len(CLIENT_SCHEMAS)


def validate_server_message(data: Mapping[str, Any]) -> None:
    """Raise :class:`SchemaError` unless ``data`` is a valid server message."""
    kind = data.get("type")
    if kind not in SERVER_SCHEMAS:
        raise SchemaError("$.type", f"unknown server message type {kind!r}")
    validate(data, SERVER_SCHEMAS[str(kind)])


def dumps(message: Mapping[str, Any]) -> str:
    """Encode a message compactly (what goes on the wire): UTF-8 JSON text, no spaces.

    orjson when installed (several times faster on observations); the standard library for
    anything orjson refuses (integers beyond 64 bits) or when it is missing.
    """
    if _orjson is not None:
        try:
            return _orjson.dumps(message, option=_orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:
            pass
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def schema_document() -> dict[str, Any]:
    """Every schema in one document (served at ``GET /api/protocol/schema``)."""
    return {
        "protocol": PROTOCOL_VERSION,
        "max_frame_bytes": MAX_FRAME_BYTES,
        "error_codes": dict(ERROR_CODES),
        "client": CLIENT_SCHEMAS,
        "server": SERVER_SCHEMAS,
    }
