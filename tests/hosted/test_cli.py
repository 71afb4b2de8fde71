"""``cardtable hosted-worker --check`` says what the sandbox promises on this machine, and
``--print-command`` gives the sandboxed command that ``cardtable bench --bots cmd:...`` runs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from hosted_bots import KITS

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


def test_check_says_what_the_sandbox_cannot_promise_here() -> None:
    done = subprocess.run(
        [CARDTABLE, "hosted-worker", "--check"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("sandbox: usable"), done.stderr
    assert "cgroups" in done.stderr  # this machine's cgroups are not the sandbox's: said


def test_print_command_builds_a_c_bot_and_its_command_answers_hello(open_dir: Path) -> None:
    folder = open_dir / "c"
    folder.mkdir()
    (folder / "bot.c").write_bytes((KITS / "c" / "bot.c").read_bytes())
    os.chmod(folder / "bot.c", 0o644)
    done = subprocess.run(
        [CARDTABLE, "hosted-worker", "--print-command", str(folder), "c", "bot.c"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    argv = shlex.split(done.stdout)
    assert "bwrap" in argv[argv.index("--") + 1] or "bwrap" in argv[0]
    assert "--unshare-all" in argv and "--die-with-parent" in argv and "--new-session" in argv
    hello = {
        "type": "hello",
        "protocol": "cardtable-stdio",
        "version": 1,
        "game": "kuhhandel",
        "rules": {},
        "seat": 0,
        "seats": 3,
        "names": [],
    }
    ran = subprocess.run(
        argv, input=json.dumps(hello) + "\n", capture_output=True, text=True, timeout=60
    )
    assert json.loads(ran.stdout.splitlines()[0])["type"] == "ready", (ran.stdout, ran.stderr)
