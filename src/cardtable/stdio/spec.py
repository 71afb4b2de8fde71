"""``cmd:...``: how a program is named wherever a bot is named.

    cmd:./mybot                      the program, run in the current directory
    cmd:./mybot --depth 3            with arguments (split as a POSIX shell would, no shell run)
    cmd:"node bot.js"                quoted as a whole: the same as cmd:node bot.js
    cmd[cwd=bots/c,deadline=2]:./bot options in brackets, comma separated

Options: ``cwd`` (the program's working directory; a relative program path is taken from
there), ``deadline`` (seconds per decision when the caller gives none, default 5),
``startup`` (seconds to answer ``hello``, default 10), ``log`` (a file that gets every line both
ways, ``>`` to the program, ``<`` from it, ``!`` its stderr), ``keep=game`` (a new process for
every game, whatever the program's ``ready`` asks).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

PREFIX = "cmd"
DEFAULT_DEADLINE_S = 5.0
DEFAULT_STARTUP_S = 10.0


@dataclass(frozen=True)
class ProgramSpec:
    """A program to run as a bot: its command line, working directory and time limits."""

    argv: tuple[str, ...]
    cwd: str | None = None
    deadline_s: float = DEFAULT_DEADLINE_S
    startup_s: float = DEFAULT_STARTUP_S
    log: str | None = None
    #: ``game``: a new process for every game whatever the program asks in ``ready`` (the
    #: hosted bots' sandbox: its CPU limit counts per game, and no process outlives the thread
    #: that started it, which ``bwrap --die-with-parent`` would kill)
    keep: str | None = None

    @property
    def label(self) -> str:
        """A short name for people: the program's file name, or its script's when it is an
        interpreter's argument (``node bot.js`` -> ``bot``)."""
        for arg in self.argv[1:]:
            if not arg.startswith("-") and Path(arg).suffix:
                return Path(arg).stem
        return Path(self.argv[0]).name

    def describe(self) -> str:
        return shlex.join(self.argv) + (f" (in {self.cwd})" if self.cwd else "")


def is_program_ref(ref: str) -> bool:
    """Whether a bot reference names a program (``cmd:...`` or ``cmd[...]:...``)."""
    return ref.startswith((PREFIX + ":", PREFIX + "["))


def parse_program_ref(ref: str) -> ProgramSpec:
    """The :class:`ProgramSpec` of ``cmd:...``; :class:`ValueError` saying what is wrong."""
    if not is_program_ref(ref):
        raise ValueError(f"{ref!r} is not a program reference (cmd:./mybot)")
    rest = ref[len(PREFIX) :]
    options: dict[str, str] = {}
    if rest.startswith("["):
        inside, close, rest = rest[1:].partition("]")
        if not close:
            raise ValueError(f"bad program reference {ref!r}: no ']' after the options")
        for item in filter(None, (p.strip() for p in inside.split(","))):
            key, eq, value = item.partition("=")
            if not eq or key.strip() not in ("cwd", "deadline", "startup", "log", "keep"):
                raise ValueError(
                    f"bad program option {item!r} in {ref!r} "
                    "(known: cwd=DIR, deadline=SECONDS, startup=SECONDS, log=FILE, keep=game)"
                )
            options[key.strip()] = value.strip()
    if not rest.startswith(":"):
        raise ValueError(f"bad program reference {ref!r}: write cmd:COMMAND or cmd[...]:COMMAND")
    try:
        argv = shlex.split(rest[1:])
    except ValueError as exc:
        raise ValueError(f"bad command in {ref!r}: {exc}") from None
    if len(argv) == 1 and " " in argv[0]:  # cmd:"node bot.js": the whole command quoted
        argv = shlex.split(argv[0])
    if not argv:
        raise ValueError(f"bad program reference {ref!r}: no command")
    try:
        deadline = float(options.get("deadline", DEFAULT_DEADLINE_S))
        startup = float(options.get("startup", DEFAULT_STARTUP_S))
    except ValueError:
        deadline = startup = 0.0
    if options.get("keep", "game") != "game":
        raise ValueError(f"bad program option in {ref!r}: keep=game is the only choice")
    if not (deadline > 0 and startup > 0):
        raise ValueError(f"bad program option in {ref!r}: deadline and startup are seconds > 0")
    spec = ProgramSpec(
        tuple(argv),
        cwd=options.get("cwd"),
        log=options.get("log"),
        keep=options.get("keep"),
        deadline_s=deadline,
        startup_s=startup,
    )
    if spec.cwd is not None and not Path(spec.cwd).is_dir():
        raise ValueError(f"program directory {spec.cwd} not found (in {ref!r})")
    return spec
