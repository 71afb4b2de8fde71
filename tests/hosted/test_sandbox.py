"""The sandbox stops a hostile program with the right fault and harms nothing else (issue 40).

Each program plays as the starter kit until its first request and then tries the network,
writes outside its folder, forks, allocates or computes without end; each test plays the whole
game in process, sandboxed exactly as a hosted-bot worker runs it (:func:`jail_argv`), and
checks the fault, what the program itself saw (its stderr), and that the host is untouched.
"""

from __future__ import annotations

import shlex
import socket
import subprocess
import time
from pathlib import Path

import pytest
from hosted_bots import hostile_folder
from stdio_games import play

from cardtable.sandbox import Limits, jail_argv
from cardtable.sandbox.jail import sandbox_uid
from patience import patience

pytestmark = pytest.mark.timeout(180)


def hostile(folder: Path, mode: str, *args: str, limits: Limits | None = None) -> tuple[str, int]:
    """The ``cmd:`` reference of the hostile program in ``mode``, and its user id."""
    uid = sandbox_uid()
    argv = ["/usr/bin/python3", "-E", "-s", "/bot/hostile.py", mode, *args]
    command = jail_argv(hostile_folder(folder / "bot"), argv, limits or Limits(), uid=uid)
    return "cmd:" + shlex.join(command), uid


def processes_of(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def wait_until_gone(uid: int) -> None:
    end = time.monotonic() + patience(10)
    while processes_of(uid):
        assert time.monotonic() < end, f"processes of {uid} left: {processes_of(uid)}"
        time.sleep(0.05)


def test_the_network_is_unreachable_and_a_name_lookup_fails(open_dir: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    ref, uid = hostile(open_dir, "network", str(port))
    game, log = play("kuhhandel", ref, deadline=10)
    assert game.is_over()
    first = log.faults[0]
    assert first.error == "ProgramCrashed" and "exit code 5" in first.reason, first.reason
    assert "connect: [Errno 111] Connection refused" in first.reason, first.reason
    assert "lookup:" in first.reason and "RESOLVED" not in first.reason, first.reason
    with pytest.raises(BlockingIOError):  # nothing reached the host's port
        listener.accept()
    listener.close()
    wait_until_gone(uid)


def test_writes_outside_its_private_tmp_fail_and_the_host_is_untouched(open_dir: Path) -> None:
    host_file = open_dir / "escaped.txt"
    targets = ["/bot/escaped.txt", "/usr/escaped.txt", str(host_file), "/tmp/inside.txt"]
    ref, uid = hostile(open_dir, "write", *targets)
    game, log = play("kuhhandel", ref, deadline=10)
    assert game.is_over()
    reason = log.faults[0].reason
    assert log.faults[0].error == "ProgramCrashed" and "exit code 6" in reason, reason
    assert "/bot/escaped.txt: Read-only file system" in reason, reason
    assert "/usr/escaped.txt: Read-only file system" in reason, reason
    assert f"{host_file}: No such file or directory" in reason, reason
    assert "WROTE /tmp/inside.txt" in reason, reason  # its own /tmp, gone with it
    assert not host_file.exists() and not (open_dir / "bot" / "escaped.txt").exists()
    assert not Path("/tmp/inside.txt").exists()
    wait_until_gone(uid)


def test_a_fork_bomb_hits_the_process_limit_is_late_and_is_killed_whole(
    open_dir: Path,
) -> None:
    ref, uid = hostile(open_dir, "fork", limits=Limits(processes=16))
    game, log = play("kuhhandel", ref, deadline=2)
    assert game.is_over()  # the fallback played its seat to the end
    kinds = [f.error for f in log.faults]
    assert kinds[:2] == ["ProgramLate", "ProgramLate"], kinds
    assert set(kinds[2:]) <= {"ProgramGone"}, kinds
    wait_until_gone(uid)  # every process it forked went with it
    assert subprocess.run(["true"], check=False).returncode == 0  # the host still forks


def test_endless_allocation_stops_at_the_memory_limit(open_dir: Path) -> None:
    ref, uid = hostile(open_dir, "memory", limits=Limits(memory_bytes=256 * 1024 * 1024))
    game, log = play("kuhhandel", ref, deadline=10)
    assert game.is_over()
    first = log.faults[0]
    assert first.error == "ProgramCrashed" and "MemoryError" in first.reason, first.reason
    wait_until_gone(uid)


def test_a_decision_past_its_deadline_is_late_and_the_spinner_is_killed(open_dir: Path) -> None:
    ref, uid = hostile(open_dir, "spin")
    game, log = play("kuhhandel", ref, deadline=1)
    assert game.is_over()
    kinds = [f.error for f in log.faults]
    assert kinds[:2] == ["ProgramLate", "ProgramLate"], kinds
    wait_until_gone(uid)


def test_cpu_time_past_the_game_budget_is_stopped_by_the_kernel(open_dir: Path) -> None:
    ref, uid = hostile(open_dir, "spin", limits=Limits(cpu_s=1))
    game, log = play("kuhhandel", ref, deadline=60)
    assert game.is_over()
    first = log.faults[0]
    # killed by the kernel (SIGXCPU: bwrap exits 128 + 24) after 1 s of CPU, not late at 60 s
    assert first.error == "ProgramCrashed" and "exit code 152" in first.reason, first.reason
    wait_until_gone(uid)


@pytest.mark.parametrize(
    ("language", "source", "entry"),
    [
        ("python", "python/bot.py", "bot.py"),
        ("node", "node/bot.js", "bot.js"),
        ("c", "c/bot.c", "bot.c"),
    ],
)
def test_each_starter_kit_plays_a_whole_game_in_the_sandbox_without_a_fault(
    open_dir: Path, language: str, source: str, entry: str
) -> None:
    from hosted_bots import KITS

    from cardtable.sandbox import build, run_command
    from cardtable.server.submissions.archive import write_files

    if language == "node" and not Path("/usr/bin/node").exists():
        pytest.skip("node is not installed (/usr/bin/node; Debian package nodejs)")
    folder, build_dir = open_dir / "bot", open_dir / "build"
    write_files({entry: (KITS / source).read_bytes()}, folder)
    build(folder, build_dir, language, entry, Limits())
    command = jail_argv(folder, run_command(language, entry), Limits(), build_dir=build_dir)
    game, log = play("kuhhandel", "cmd[keep=game]:" + shlex.join(command), deadline=10)
    assert game.is_over() and log.faults == [], log.faults
