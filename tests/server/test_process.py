"""The real thing: ``cardtable serve`` as a process, ``cardtable bot`` processes playing through
it, and a ``kill -9`` in the middle of a game."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cardtable.core import Record, verify
from loopback import LOOPBACK
from server.wire import Wire, play_until_end

pytestmark = pytest.mark.timeout(120)

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


@contextmanager
def serve(db: str, **env: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start ``cardtable serve --port 0``; yields the process and its base URL."""
    environment = {**os.environ, "CARDTABLE_FILL_WAIT_MS": "300", **env}
    proc = subprocess.Popen(
        [CARDTABLE, "serve", "--port", "0", "--db", db, "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        assert match, f"serve printed {line!r}"
        url = match.group(1)
        end = time.monotonic() + 30
        while True:
            try:
                if LOOPBACK.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < end and proc.poll() is None, "the server did not start"
            time.sleep(0.1)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _register(url: str, name: str) -> str:
    reply = LOOPBACK.post(f"{url}/api/bots", json={"name": name})
    assert reply.status_code == 201, reply.text
    return str(reply.json()["token"])


def test_bot_processes_play_ranked_games_through_a_real_port(tmp_path: Path) -> None:
    with serve(f"sqlite:///{tmp_path / 'smoke.db'}") as (_proc, url):
        bots = []
        for i, strength in enumerate(["heuristic", "random", "random"]):
            name = f"smoke{i}"
            token = _register(url, name)
            bots.append(
                subprocess.Popen(
                    [
                        CARDTABLE,
                        "bot",
                        "--server",
                        url.replace("http", "ws") + "/ws",
                        "--name",
                        name,
                        "--bot",
                        strength,
                        "--lobby",
                        "ranked",
                        "--game",
                        "cunegonda",
                        "--rules",
                        "short",
                        "--games",
                        "2",
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    env={**os.environ, "CARDTABLE_TOKEN": token},
                )
            )
        outputs = []
        for proc in bots:
            out, _ = proc.communicate(timeout=90)
            assert proc.returncode == 0, out
            outputs.append(out)
        for out in outputs:
            assert len(re.findall(r"place \d/4", out)) == 2, out
        board = LOOPBACK.get(f"{url}/api/leaderboard?game=cunegonda&rules=short").json()
        rated = {e["name"]: e for e in board["entries"]}
        for i in range(3):
            assert rated[f"smoke{i}"]["games"] == 2
        games = LOOPBACK.get(f"{url}/api/games?status=finished").json()["games"]
        assert len(games) >= 2 and all(g["rated"] for g in games)


def test_kill_9_mid_game_loses_no_finished_game_and_aborts_the_running_one(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'crash.db'}"
    with serve(db, CARDTABLE_DEADLINE_MS="20000") as (proc, url):
        token = _register(url, "survivor")
        ws = url.replace("http", "ws") + "/ws"
        with Wire(ws) as wire:
            wire.hello_bot("survivor", token)
            wire.send({"type": "join", "lobby": "ranked", "game": "cunegonda", "rules": "short"})
            finished = play_until_end(wire, "cunegonda")
        board_before = LOOPBACK.get(
            f"{url}/api/leaderboard?game=cunegonda&rules=short", timeout=10
        ).json()
        with Wire(ws) as wire:
            wire.hello_bot("survivor", token)
            wire.send({"type": "join", "lobby": "ranked", "game": "cunegonda", "rules": "short"})
            running = wire.expect("request", timeout=20)  # mid-game, waiting for us
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
    with serve(db) as (_proc, url):
        finished_detail = LOOPBACK.get(f"{url}/api/games/{finished['game_id']}").json()
        assert finished_detail["status"] == "finished"
        record = Record.from_json(finished_detail["record"])
        ok, why = verify(record)
        assert ok, why
        assert [s["place"] for s in finished_detail["seats_detail"]] == [
            p + 1 for p in finished["result"]["places"]
        ]  # API places count from 1, the wire's result from 0
        aborted = LOOPBACK.get(f"{url}/api/games/{running['game_id']}").json()
        assert aborted["status"] == "aborted"
        assert aborted["result"]["termination"] == "aborted"
        assert all(s["place"] is None for s in aborted["seats_detail"])
        board_after = LOOPBACK.get(
            f"{url}/api/leaderboard?game=cunegonda&rules=short", timeout=10
        ).json()
        assert board_after == board_before  # the aborted game changed no rating
        health = LOOPBACK.get(f"{url}/api/health").json()
        assert health["games"] == {"finished": 1, "aborted": 1}
