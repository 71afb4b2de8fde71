"""Bots in any language: the stdio bot protocol and the adapter that runs a program as a seat.

A bot may be any program that reads JSON lines on stdin and writes JSON lines on stdout
(docs/stdio-bots.md). This package owns that protocol (:mod:`cardtable.stdio.messages`: its
messages, version and JSON schemas), the reference ``cmd:...`` that names such a program wherever
a bot is named (:mod:`cardtable.stdio.spec`), the child process with bounded reads
(:mod:`cardtable.stdio.program`) and :class:`ProgramAgent`, the agent that plays a seat through
it: in-process games (``play``, ``arena``, ``replay --ask``, ``analyse``) and, inside the client
library, on a server (``cardtable bot --cmd``).
"""

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
