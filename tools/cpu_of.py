"""The CPU a command and everything it starts used, however they end: the command runs in a
cgroup of its own (cgroup v1 ``cpuacct``, needs root), whose counter includes every process in
it, also those no parent waited for.

    python tools/cpu_of.py -- .venv/bin/pytest -q -n 0 tests/web/test_languages.py

``/usr/bin/time`` counts only the children that were waited for, and Chromium's renderers are
not (their zygote outlives the browser process that started it): for tests/web/test_languages.py
it said 23.4 s of CPU where the cgroup counted 53.6 s, for one Cunegonda match through the page
5.9 s where it counted 9.6 s. Compare runs of browser tests with this, not with ``time``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def main(argv: list[str]) -> int:
    command = argv[1:] if argv[:1] == ["--"] else argv
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    if not (CPUACCT / "cpuacct.usage").exists():
        print("no cgroup v1 cpuacct at /sys/fs/cgroup/cpuacct", file=sys.stderr)
        return 2
    group = CPUACCT / f"cpu_of_{os.getpid()}"
    group.mkdir()
    try:
        start = time.monotonic()
        child = subprocess.Popen(
            command, preexec_fn=lambda: (group / "tasks").write_text(str(os.getpid()))
        )
        code = child.wait()
        wall = time.monotonic() - start
        time.sleep(0.5)  # processes the command left behind end (or are counted as they are)
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        left = (group / "tasks").read_text().split()
        note = f", {len(left)} processes still running" if left else ""
        print(f"cpu_of: {cpu:.2f} s CPU, {wall:.1f} s wall{note}", file=sys.stderr)
        return code
    finally:
        if not (group / "tasks").read_text().split():
            group.rmdir()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
