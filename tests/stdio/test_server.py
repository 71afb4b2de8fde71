"""``cardtable bot --cmd``: a program plays ranked games on a real server (issue 39), through the
client library with the server's deadlines, and its faults are reported as a Python bot's are."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from stdio_games import KITS, misbehaving

from server.wire import RunningServer, db_url, fast_settings, running_server

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """A fresh server with deadlines a starting program meets on a loaded machine."""
    settings = fast_settings(db_url(tmp_path), deadline_ms=4000, time_bank_ms=4000)
    with running_server(settings) as running:
        yield running


def play_ranked(
    server: RunningServer, name: str, command: str, *extra: str, game: str = "kuhhandel"
) -> subprocess.CompletedProcess[str]:
    token = server.register(name)
    env = {**os.environ, "CARDTABLE_TOKEN": token}
    argv = [CARDTABLE, "bot", "--server", server.ws, "--name", name, "--cmd", command]
    argv += ["--game", game, *extra]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180)


def test_the_python_kit_plays_a_ranked_game_through_bot_cmd_with_no_fault(
    server: RunningServer, tmp_path: Path
) -> None:
    log = tmp_path / "lines.log"
    command = shlex.join([sys.executable, str(KITS / "python" / "bot.py")])
    done = play_ranked(server, "pykit", command, "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert "1 games:" in done.stdout and "0 faults" in done.stdout, done.stdout
    lines = [(line[0], json.loads(line[2:])) for line in log.read_text().splitlines()]
    assert lines[0][0] == ">" and lines[0][1]["type"] == "hello"
    assert ("<", "action") in {(way, message["type"]) for way, message in lines}


def test_the_python_kit_plays_a_practice_game_of_cunegonda_through_bot_cmd(
    server: RunningServer,
) -> None:
    command = shlex.join([sys.executable, str(KITS / "python" / "bot.py")])
    extra = ["--lobby", "practice", "--opponents", "random", "--rules", "short"]
    done = play_ranked(server, "pykitcg", command, *extra, game="cunegonda")
    assert done.returncode == 0, done.stderr
    assert "1 games:" in done.stdout and "0 faults" in done.stdout, done.stdout


def test_a_late_program_on_a_server_is_a_late_fault_and_the_game_ends(
    server: RunningServer, tmp_path: Path
) -> None:
    ref = misbehaving(tmp_path, "slow", 2, "6")
    command = ref.removeprefix("cmd:")
    done = play_ranked(server, "slowkit", command)
    assert done.returncode == 0, done.stderr
    assert "1 games:" in done.stdout, done.stdout
    assert "fault:" in done.stdout and "late" in done.stdout, done.stdout


def test_a_client_cannot_make_the_server_run_a_program_as_a_house_bot(
    server: RunningServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: a practice join naming ``cmd:...`` as its opponents. Only built-in names are house
    bots: the join is refused and nothing is run."""
    from server.wire import Wire

    monkeypatch.chdir(tmp_path)  # the server runs in this process: a relative path is here
    marker = tmp_path / "ran"
    with Wire(server.ws) as wire:
        wire.hello_guest("Mallory")
        opponents = "cmd:touch ran"
        wire.send(
            {"type": "join", "lobby": "practice", "game": "kuhhandel", "opponents": opponents}
        )
        reply = wire.expect("game_start", "error")
    assert reply["type"] == "error" and reply["code"] == "unknown_game", reply
    assert not marker.exists()
