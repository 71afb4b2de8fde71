"""Building a submitted program, and the command that runs it, per language.

Inside the sandbox the submission's files are at ``/bot`` and what the build made at ``/build``:

| language | build (in the sandbox) | run |
|---|---|---|
| python | - | ``/usr/bin/python3 -E -s /bot/ENTRY`` (no PYTHON* variables, no user site) |
| node | - | ``/usr/bin/node /bot/ENTRY`` |
| c | ``gcc -O2 -o /build/bot /bot/*.c -lm`` (ENTRY and the other .c files) | ``/build/bot`` |
| binary | - | ``/bot/ENTRY`` (a Linux x86-64 executable) |

The compiler runs under the same :class:`~cardtable.sandbox.jail.Limits` as the program, with
``/build`` its only writable folder: a hostile source cannot reach more while it is compiled
than while it plays.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cardtable.sandbox.jail import LANGUAGES, Limits, jail_argv

#: Seconds a build may take (wall) before it is stopped.
BUILD_TIMEOUT_S = 120.0
#: Characters of the compiler's output kept for the author.
BUILD_OUTPUT_CHARS = 8000


class BuildError(Exception):
    """The program could not be built; the text says why (the compiler's output included)."""


def run_command(language: str, entry: str) -> list[str]:
    """The program's command as seen inside the sandbox."""
    if language == "python":
        return ["/usr/bin/python3", "-E", "-s", f"/bot/{entry}"]
    if language == "node":
        return ["/usr/bin/node", f"/bot/{entry}"]
    if language == "c":
        return ["/build/bot"]
    if language == "binary":
        return [f"/bot/{entry}"]
    raise ValueError(f"language {language!r} is not one of {', '.join(LANGUAGES)}")


def build(folder: Path, build_dir: Path, language: str, entry: str, limits: Limits) -> str:
    """Build the program of ``folder`` into ``build_dir`` (made here); the build's output
    (empty when there is nothing to build). :class:`BuildError` when it fails."""
    build_dir.mkdir(parents=True, exist_ok=True)
    if language != "c":
        if language == "binary":
            (folder / entry).chmod(0o755)
        return ""
    sources = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.c"))
    if entry not in sources:
        raise BuildError(f"the entry point {entry} is not a .c file of the archive")
    os.chmod(build_dir, 0o777)  # the sandbox's own user writes the program here
    argv = ["/usr/bin/gcc", "-O2", "-o", "/build/bot"]
    argv += [f"/bot/{s}" for s in sources] + ["-lm"]
    command = jail_argv(folder, argv, limits, build_dir=build_dir, writable=build_dir)
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=BUILD_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"the build took longer than {BUILD_TIMEOUT_S:g} s") from None
    finally:
        os.chmod(build_dir, 0o755)
    output = (done.stdout + done.stderr).decode("utf-8", "replace")[-BUILD_OUTPUT_CHARS:]
    if done.returncode != 0 or not (build_dir / "bot").is_file():
        raise BuildError(f"gcc failed (exit code {done.returncode}):\n{output}")
    return output
