"""The CPU a command and everything it starts used, however they end: the command runs in a
cgroup of its own (cgroup v1 ``cpuacct``, needs root), whose counter includes every process in
it, also those no parent waited for.

    python tools/cpu_of.py -- .venv/bin/pytest -q -n 0 tests/web/test_languages.py

``/usr/bin/time`` counts only the children that were waited for, and Chromium's renderers are
not (their zygote outlives the browser process that started it): for tests/web/test_languages.py
it said 23.4 s of CPU where the cgroup counted 53.6 s, for one Cunegonda match through the page
5.9 s where it counted 9.6 s. Compare runs of browser tests with this, not with ``time``.

    python tools/cpu_of.py --kinds -- .venv/bin/pytest -q -n 0 tests/web/test_play.py

``--kinds`` also says which kind of process used it: Chromium's browser, renderer, GPU and
utility processes, Playwright's driver (node), the Python processes (their main thread, where
a browser test and Playwright's client run, apart from their other threads, where a test
server in a thread and its executors run), and the rest. It reads ``/proc`` every 0.1 s, so a
process that ends between two reads loses its last tenth of a second: what is left unnamed is
printed as such.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


TICK = os.sysconf("SC_CLK_TCK")


def kind_of(pid: int) -> str:
    """The kind of a process, from its command line."""
    try:
        # Chromium rewrites its processes' command lines into one string with spaces
        line = (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return "ended"
    words = line.split()
    if not words:
        return "ended"  # a zombie's command line is empty
    program = Path(words[0]).name if words else ""
    if program.startswith("chrome_crashpad"):
        return "chromium crashpad"
    if "chrom" in program:
        for word in words:
            if word.startswith("--type="):
                kind = word.removeprefix("--type=")
                if kind == "utility":
                    for w in words:
                        if w.startswith("--utility-sub-type="):
                            return "chromium utility " + w.split(".")[-1]
                return "chromium " + kind
        return "chromium browser"
    if program == "node" or ("playwright" in line and "driver" in line):
        return "playwright driver"
    if program.startswith("python") or "pytest" in line:
        return "python"
    return program or "?"


def seconds_of(stat_path: str) -> float:
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Kinds:
    """The CPU of every process in the group, by kind, read from /proc every 0.1 s."""

    def __init__(self, group: Path) -> None:
        self.group = group
        self.kinds: dict[int, str] = {}
        #: per process its CPU so far by kind (a Python process's main thread and the others)
        self.used: dict[int, dict[str, float]] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def read(self) -> None:
        # the kind is read every time: a process seen between its fork and its exec changes kind
        for word in (self.group / "cgroup.procs").read_text().split():
            pid = int(word)
            kind = kind_of(pid)
            if kind == "ended":  # an ended process keeps the kind it had
                kind = self.kinds.get(pid, kind)
            self.kinds[pid] = kind
            try:
                if kind == "python":
                    main_thread = seconds_of(f"/proc/{pid}/task/{pid}/stat")
                    total = seconds_of(f"/proc/{pid}/stat")
                    self.used[pid] = {
                        "python main thread": main_thread,
                        "python other threads": total - main_thread,
                    }
                else:
                    self.used[pid] = {kind: seconds_of(f"/proc/{pid}/stat")}
            except (OSError, IndexError, ValueError):
                pass

    def run(self) -> None:
        while not self.done.wait(0.1):
            self.read()

    def report(self, total: float) -> str:
        by_kind: dict[str, float] = {}
        for of_process in self.used.values():
            for kind, used in of_process.items():
                by_kind[kind] = by_kind.get(kind, 0.0) + used
        lines = [
            f"  {kind:<34} {used:8.2f} s"
            for kind, used in sorted(by_kind.items(), key=lambda item: -item[1])
        ]
        lines.append(f"  {'(ended between reads)':<34} {total - sum(by_kind.values()):8.2f} s")
        return "\n".join(lines)


def main(argv: list[str]) -> int:
    kinds_wanted = bool(argv[:1] == ["--kinds"])
    if kinds_wanted:
        argv = argv[1:]
    command = argv[1:] if argv[:1] == ["--"] else argv
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    if not (CPUACCT / "cpuacct.usage").exists():
        print("no cgroup v1 cpuacct at /sys/fs/cgroup/cpuacct", file=sys.stderr)
        return 2
    group = CPUACCT / f"cpu_of_{os.getpid()}"
    group.mkdir()
    kinds = Kinds(group)
    try:
        start = time.monotonic()
        child = subprocess.Popen(
            command, preexec_fn=lambda: (group / "tasks").write_text(str(os.getpid()))
        )
        if kinds_wanted:
            kinds.thread.start()
        code = child.wait()
        wall = time.monotonic() - start
        time.sleep(0.5)  # processes the command left behind end (or are counted as they are)
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        left = (group / "tasks").read_text().split()
        note = f", {len(left)} processes still running" if left else ""
        print(f"cpu_of: {cpu:.2f} s CPU, {wall:.1f} s wall{note}", file=sys.stderr)
        if kinds_wanted:
            kinds.done.set()
            kinds.thread.join()
            print(kinds.report(cpu), file=sys.stderr)
        return code
    finally:
        if not (group / "tasks").read_text().split():
            group.rmdir()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
