"""The native wire protocol (version 1): JSON text frames over a WebSocket, a `type` each.

Every message has a JSON schema (:data:`CLIENT_SCHEMAS`, :data:`SERVER_SCHEMAS`, bundled by
:func:`schema_document`), and the server checks every incoming frame against it with
:func:`parse_client_message`, so a bot in any language can rely on the schemas alone.
"""

from cardtable.protocol.messages import (
    CHAT_MAX_CHARS,
    CHAT_PRESETS,
    CHAT_RATE,
    CHAT_WINDOW_S,
    CLIENT_SCHEMAS,
    ERROR_CODES,
    FAULT_KINDS,
    LOBBIES,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    SERVER_SCHEMAS,
    ProtocolError,
    dumps,
    parse_client_message,
    schema_document,
    validate_server_message,
)
from cardtable.protocol.schema import SchemaError, validate

__all__ = [
    "CHAT_MAX_CHARS",
    "CHAT_PRESETS",
    "CHAT_RATE",
    "CHAT_WINDOW_S",
    "CLIENT_SCHEMAS",
    "ERROR_CODES",
    "FAULT_KINDS",
    "LOBBIES",
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "SERVER_SCHEMAS",
    "ProtocolError",
    "SchemaError",
    "dumps",
    "parse_client_message",
    "schema_document",
    "validate",
    "validate_server_message",
]
