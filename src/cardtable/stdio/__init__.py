"""Bots in any language: the stdio bot protocol and the adapter that runs a program as a seat.

A bot may be any program that reads JSON lines on stdin and writes JSON lines on stdout
(docs/stdio-bots.md). This package owns that protocol (:mod:`cardtable.stdio.messages`: its
messages, version and JSON schemas), the reference ``cmd:...`` that names such a program wherever
a bot is named (:mod:`cardtable.stdio.spec`), the child process with bounded reads
(:mod:`cardtable.stdio.program`) and :class:`ProgramAgent`, the agent that plays a seat through
it: in-process games (``play``, ``arena``, ``replay --ask``, ``analyse``) and, inside the client
library, on a server (``cardtable bot --cmd``).

The names are imported on first use: the server names programs (:mod:`cardtable.stdio.spec`)
without running one, and needs neither the adapter nor the client library it comes with.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.stdio.agent import (
        NotAMessage,
        ProgramAgent,
        ProgramCrashed,
        ProgramFlooded,
        ProgramGone,
        ProgramLate,
        close_kept_programs,
        program_agent,
    )
    from cardtable.stdio.messages import PROTOCOL, VERSION, schema_document
    from cardtable.stdio.spec import ProgramSpec, is_program_ref, parse_program_ref

#: Each name of the package -> the module it lives in.
_WHERE = {
    "NotAMessage": "cardtable.stdio.agent",
    "PROTOCOL": "cardtable.stdio.messages",
    "ProgramAgent": "cardtable.stdio.agent",
    "ProgramCrashed": "cardtable.stdio.agent",
    "ProgramFlooded": "cardtable.stdio.agent",
    "ProgramGone": "cardtable.stdio.agent",
    "ProgramLate": "cardtable.stdio.agent",
    "ProgramSpec": "cardtable.stdio.spec",
    "VERSION": "cardtable.stdio.messages",
    "close_kept_programs": "cardtable.stdio.agent",
    "is_program_ref": "cardtable.stdio.spec",
    "parse_program_ref": "cardtable.stdio.spec",
    "program_agent": "cardtable.stdio.agent",
    "schema_document": "cardtable.stdio.messages",
}

__all__ = [
    "PROTOCOL",
    "VERSION",
    "NotAMessage",
    "ProgramAgent",
    "ProgramCrashed",
    "ProgramFlooded",
    "ProgramGone",
    "ProgramLate",
    "ProgramSpec",
    "close_kept_programs",
    "is_program_ref",
    "parse_program_ref",
    "program_agent",
    "schema_document",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'cardtable.stdio' has no attribute {name!r}")
    return getattr(import_module(where), name)
