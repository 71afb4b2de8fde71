"""The sandbox a hosted bot runs in: bubblewrap namespaces plus resource limits.

This package owns how an uploaded program is run on the server's machines (docs/hosted-bots.md):
the command line that puts a program under ``bwrap`` (:mod:`cardtable.sandbox.jail`: no network,
a read-only system, the bot's folder read-only, a private size-capped ``/tmp``, its own process,
IPC and UTS namespaces, a user id of its own) with ``prlimit`` limits (CPU seconds per process,
address space, processes, file size, open files); what this machine can and cannot promise,
detected at run time (:func:`~cardtable.sandbox.jail.capabilities`); and building a submitted
program in the same sandbox (:mod:`cardtable.sandbox.build`: C compiled by gcc, the command of
each language). The result is an ordinary ``cmd:`` program of the stdio protocol, so deadlines,
faults and fallback are those of ``cardtable bot --cmd``.
"""

from cardtable.sandbox.build import BuildError, build, run_command
from cardtable.sandbox.jail import (
    LANGUAGES,
    Capabilities,
    Limits,
    capabilities,
    jail_argv,
)

__all__ = [
    "LANGUAGES",
    "BuildError",
    "Capabilities",
    "Limits",
    "build",
    "capabilities",
    "jail_argv",
    "run_command",
]
