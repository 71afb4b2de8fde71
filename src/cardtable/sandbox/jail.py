"""The ``bwrap`` + ``prlimit`` command line that runs one program in the sandbox.

Every entrant gets the same :class:`Limits`. The command is::

    setpriv --reuid U --regid U --clear-groups --       (when the server runs as root)
    bwrap --unshare-all --die-with-parent --new-session --clearenv
          --ro-bind /usr /usr (+ the /bin, /lib... links of a merged-/usr system)
          --proc /proc --dev /dev --tmpfs /tmp (size-capped)
          --ro-bind FOLDER /bot [--ro-bind BUILD /build] --chdir /bot
          -- prlimit --cpu --as --nproc --fsize --nofile --core=0 -- PROGRAM...

``--unshare-all`` gives it new user, network (only a loopback of its own: nothing of the host is
reachable), PID, IPC, UTS and cgroup namespaces; nothing but ``/usr`` of the host is visible
(no ``/etc``: no name resolution, no accounts, no keys). ``U`` is a user id of its own per run
(:func:`sandbox_uid`), so ``RLIMIT_NPROC`` (which the kernel never applies to root, and counts
per user) bounds this program's processes and no one else's.
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

#: The languages a submission may declare, and how each is run (see build.py).
LANGUAGES = ("python", "node", "c", "binary")

#: User ids handed to sandboxed runs: [UID_BASE, UID_BASE + UID_SPAN); none is a real account.
UID_BASE = 200_000
UID_SPAN = 60_000
_uids = itertools.count()
_uid_lock = threading.Lock()


@dataclass(frozen=True)
class Limits:
    """What one sandboxed program may use; the same for every entrant.

    ``cpu_s`` is CPU seconds over the process's life (a game, or a match when the program keeps
    itself for one), after which the kernel kills it (SIGXCPU, then SIGKILL one second later);
    the time of each decision is the stdio deadline's. ``memory_bytes`` bounds each process's
    address space (RLIMIT_AS), ``processes`` its user's processes and threads (RLIMIT_NPROC),
    ``file_bytes`` any file it writes (RLIMIT_FSIZE, in its ``/tmp``), ``tmp_bytes`` the size of
    its ``/tmp``, ``open_files`` its descriptors.
    """

    cpu_s: int = 120
    memory_bytes: int = 1024 * 1024 * 1024
    processes: int = 32
    file_bytes: int = 16 * 1024 * 1024
    tmp_bytes: int = 64 * 1024 * 1024
    open_files: int = 64

    def prlimit_args(self) -> list[str]:
        return [
            f"--cpu={self.cpu_s}:{self.cpu_s + 1}",
            f"--as={self.memory_bytes}",
            f"--nproc={self.processes}",
            f"--fsize={self.file_bytes}",
            f"--nofile={self.open_files}",
            "--core=0",
        ]


@dataclass(frozen=True)
class Capabilities:
    """What this machine lets the sandbox promise (:func:`capabilities`)."""

    bwrap: str | None
    prlimit: str | None
    setpriv: str | None
    root: bool
    namespaces: bool
    cgroup_v2: bool
    notes: tuple[str, ...] = field(default=())

    @property
    def usable(self) -> bool:
        return bool(self.bwrap and self.prlimit and self.namespaces)

    def report(self) -> str:
        """Lines for the start-up log and ``cardtable hosted-worker --check``."""
        head = "sandbox: usable" if self.usable else "sandbox: NOT usable"
        return "\n".join([head, *(f"  - {note}" for note in self.notes)])


def capabilities() -> Capabilities:
    """What this machine can promise, found by trying (cheap: one ``bwrap ... true``)."""
    import subprocess

    bwrap = shutil.which("bwrap")
    prlimit = shutil.which("prlimit")
    setpriv = shutil.which("setpriv")
    root = os.geteuid() == 0
    notes: list[str] = []
    namespaces = False
    if bwrap is None:
        notes.append("bwrap is missing (Debian package bubblewrap): hosted bots cannot run")
    if prlimit is None:
        notes.append("prlimit is missing (util-linux): no CPU, memory or process limits")
    if bwrap is not None:
        probe = [bwrap, "--unshare-all", "--ro-bind", "/usr", "/usr", *_merged_usr_links()]
        probe += ["--", "/usr/bin/true"]
        if root and setpriv:
            probe = [
                setpriv,
                f"--reuid={UID_BASE}",
                f"--regid={UID_BASE}",
                "--clear-groups",
                "--",
                *probe,
            ]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=10)
            namespaces = done.returncode == 0
            if not namespaces:
                text = done.stderr.decode(errors="replace").strip()
                notes.append(f"bwrap cannot make namespaces here: {text}")
        except (OSError, subprocess.TimeoutExpired) as exc:
            notes.append(f"bwrap did not run: {exc}")
    if not (root and setpriv):
        notes.append(
            "not root (or no setpriv): every sandboxed program runs as this user, so the "
            "process limit (RLIMIT_NPROC) is shared with this user's other processes"
        )
    cgroup_v2 = Path("/sys/fs/cgroup/cgroup.controllers").is_file() and os.access(
        "/sys/fs/cgroup", os.W_OK
    )
    notes.append(
        "cgroups are not used (cgroup v2 is "
        + ("writable here" if cgroup_v2 else "not the writable root hierarchy here")
        + "): memory is bounded per process (RLIMIT_AS), not per bot; CPU time per process "
        "(RLIMIT_CPU); no CPU share: a bot's decisions compete for the machine's cores with "
        "whatever else runs, so the per-decision deadline is wall time"
    )
    return Capabilities(bwrap, prlimit, setpriv, root, namespaces, cgroup_v2, tuple(notes))


def _merged_usr_links() -> list[str]:
    """``/bin``, ``/lib``... as the host has them: links into ``/usr`` (merged /usr), or
    read-only binds of their own."""
    out: list[str] = []
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), f"/{top}"]
        elif path.is_dir():
            out += ["--ro-bind", f"/{top}", f"/{top}"]
    return out


def sandbox_uid() -> int:
    """A user id for one sandboxed run, not shared with another run of this process (nor,
    short of a wrap-around of 60,000 runs, of another worker process)."""
    with _uid_lock:
        n = next(_uids)
    return UID_BASE + (os.getpid() * 977 + n) % UID_SPAN


def jail_argv(
    folder: Path,
    argv: list[str],
    limits: Limits,
    *,
    build_dir: Path | None = None,
    writable: Path | None = None,
    uid: int | None = None,
) -> list[str]:
    """The command that runs ``argv`` (paths as seen inside: ``/bot``, ``/build``) in the
    sandbox with ``folder`` at ``/bot`` (read-only) and ``build_dir`` at ``/build`` (read-only,
    or read-write as ``writable``: the compiler's output)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    inner = [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--ro-bind",
        "/usr",
        "/usr",
        *_merged_usr_links(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        str(folder),
        "/bot",
    ]
    if build_dir is not None:
        inner += ["--bind" if writable == build_dir else "--ro-bind", str(build_dir), "/build"]
    inner += ["--chdir", "/bot", "--", prlimit, *limits.prlimit_args(), "--", *argv]
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:
        u = sandbox_uid() if uid is None else uid
        return [setpriv, f"--reuid={u}", f"--regid={u}", "--clear-groups", "--", *inner]
    return inner
