"""Bots that come back (issue 22): a real ``cardtable serve`` is killed with SIGKILL while bots
play, and started again on the same port and database.

- every ``cardtable bot`` process finishes the games it was asked for, all of them finished
  games (the game that died with the server is not counted), and none hangs (timeouts);
- a client whose server never comes back raises ``ConnectionLost`` within ``give_up_after``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cardtable.client import Backoff, Client, ConnectionLost, GameReport
from cardtable.client.load import register_bot
from cardtable.core import GameInfo, Request, Result, load_bot
from patience import patience

pytestmark = pytest.mark.timeout(240)
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
RESULT_LINE = re.compile(r"game (\w+) (\w+) seat (\d+): place (\d+)/(\d+), .* \((\w+)\)")
SETTINGS = {
    "CARDTABLE_DEADLINE_MS": "1500",
    "CARDTABLE_TIME_BANK_MS": "500",
    "CARDTABLE_FILL_WAIT_MS": "300",
    "CARDTABLE_BOT_QUIET_MS": "300",
}
#: House bots (the seats the ranked queue fills, the fallback) that think for nothing: what is
#: tested is our bots' coming back, not the house's play. With the default, expert, a game with
#: house seats cost ~10x one of our random bots alone (2.4 s against 0.25 s beside load).
HOUSE = '[server]\nhouse_bots = { cunegonda = "random" }\n'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return json.loads(reply.read())


def start(
    port: int, db: str, config: str | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``cardtable serve`` on ``port`` with ``db``; returns once it answers /api/health."""
    command = [CARDTABLE, "serve", "--port", str(port), "--db", db, "--log-level", "warning"]
    process = subprocess.Popen(
        [*command, *(["--config", config] if config else [])],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **SETTINGS, **(env or {})},
    )
    deadline = time.monotonic() + patience(30)  # longer on a loaded machine
    while True:
        try:
            if get(port, "/api/health")["status"] == "ok":
                return process
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the server did not start")
        time.sleep(0.1)


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextmanager
def server(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A server to kill and start again: ``box["process"]`` is the current process."""
    port = free_port()
    db = f"sqlite:///{tmp_path / 'comeback.db'}"
    config = tmp_path / "house.toml"
    config.write_text(HOUSE)
    box: dict[str, Any] = {"port": port, "db": db, "config": str(config)}
    box["process"] = start(port, db, box["config"])
    try:
        yield box
    finally:
        stop(box["process"])


def wait_until(check: Any, timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_bot_processes_come_back_after_a_kill_9_and_finish_their_games(tmp_path: Path) -> None:
    names = [f"back{i}" for i in range(4)]
    games_each = 3
    with server(tmp_path) as box:
        port = box["port"]
        bots = []
        for i, name in enumerate(names):
            env = {**os.environ, "CARDTABLE_TOKEN": register_bot(f"http://127.0.0.1:{port}", name)}
            command = [CARDTABLE, "bot", "--server", f"127.0.0.1:{port}", "--name", name]
            command += ["--bot", "random", "--lobby", "ranked", "--game", "cunegonda"]
            command += ["--rules", "short", "--games", str(games_each), "--seed", str(i)]
            bots.append(
                subprocess.Popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
                )
            )
        try:
            # every bot connected (a bot killed while it says its first hello has nothing to
            # come back to: ConnectionLost, exit 1)
            wait_until(lambda: get(port, "/api/metrics")["connections"] >= 4, 60, "4 bots")

            def running_with_our_bots() -> list[str]:
                games = get(port, "/api/games?status=running")["games"]
                return [g["id"] for g in games if set(names) & set(g["names"])]

            died = wait_until(running_with_our_bots, 60, "a running game of our bots")
            box["process"].send_signal(signal.SIGKILL)
            box["process"].wait(timeout=10)
            time.sleep(0.5)  # the bots notice and start knocking
            box["process"] = start(port, box["db"], box["config"])
            outputs = []
            for name, bot in zip(names, bots, strict=True):
                out, err = bot.communicate(timeout=150)
                assert bot.returncode == 0, (name, out, err)
                outputs.append((out, err))
        finally:
            for bot in bots:
                if bot.poll() is None:
                    bot.kill()
                    bot.communicate()
        for game_id in died:
            assert get(port, f"/api/games/{game_id}")["status"] == "aborted"
        lost_somewhere = False
        for out, err in outputs:
            lines = RESULT_LINE.findall(out)
            assert len(lines) == games_each, out
            for game_id, game, _seat, _place, _seats, termination in lines:
                assert game == "cunegonda" and termination == "normal", out
                assert game_id not in died  # the game that died is not counted
                assert get(port, f"/api/games/{game_id}")["status"] == "finished"
            assert out.strip().splitlines()[-1].startswith(f"{games_each} games:")
            lost_somewhere |= "not counted" in err
        assert lost_somewhere  # at least one bot was seated in the game that died, and said so


class Recording:
    """The random bot, a little slow, remembering its ``start`` and ``end`` calls."""

    def __init__(self) -> None:
        self.inner = load_bot("cunegonda", "random", seed=5)
        self.calls = 0
        self.starts: list[str] = []
        self.ends: list[Result] = []

    def start(self, seat: int, info: GameInfo) -> None:
        self.starts.append(info.game)

    def end(self, result: Result) -> None:
        self.ends.append(result)

    def act(self, observation: Any, request: Request) -> Any:
        self.calls += 1
        time.sleep(0.005)
        return self.inner.act(observation, request)


def test_the_client_library_ends_the_dead_game_for_the_agent_and_plays_on(
    tmp_path: Path,
) -> None:
    with server(tmp_path) as box:
        port = box["port"]
        token = register_bot(f"http://127.0.0.1:{port}", "library")
        agent = Recording()

        async def main() -> tuple[list[GameReport], Client]:
            client = Client(f"ws://127.0.0.1:{port}/ws", agent, name="library", token=token)
            async with client:
                playing = asyncio.ensure_future(
                    client.play("practice", "cunegonda", rules="short", opponents="random", games=2)
                )
                while agent.calls < 5:
                    await asyncio.sleep(0.01)
                box["process"].send_signal(signal.SIGKILL)
                await asyncio.to_thread(box["process"].wait, 10)
                box["process"] = await asyncio.to_thread(start, port, box["db"], box["config"])
                reports = await asyncio.wait_for(playing, 120)
            return reports, client

        reports, client = asyncio.run(main())
    assert len(reports) == 2 and client.stats.games == 2 and client.stats.lost_games == 1
    assert all(r.result.termination.value == "normal" for r in reports)
    # every start has its end: the game that died ended for the agent as aborted
    assert len(agent.starts) == len(agent.ends) == 3
    assert agent.ends[0].termination.value == "aborted"
    assert "not counted" in agent.ends[0].reason


class Steady:
    """The random bot, a little slow (so that a game is surely under way when we kill)."""

    def __init__(self) -> None:
        self.inner = load_bot("cunegonda", "random", seed=3)
        self.calls = 0

    def act(self, observation: Any, request: Request) -> Any:
        self.calls += 1
        time.sleep(0.01)
        return self.inner.act(observation, request)


def test_a_client_whose_server_never_returns_raises_connection_lost_in_time(
    tmp_path: Path,
) -> None:
    give_up_after = 2.0
    with server(tmp_path) as box:
        port = box["port"]
        token = register_bot(f"http://127.0.0.1:{port}", "orphan")
        agent = Steady()
        backoff = Backoff(first=0.05, most=0.5, give_up_after=give_up_after, attempts=1000)

        async def main() -> float:
            client = Client(f"ws://127.0.0.1:{port}/ws", agent, name="orphan", token=token)
            client.backoff = backoff
            async with client:
                playing = asyncio.ensure_future(
                    client.play("practice", "cunegonda", rules="short", opponents="random")
                )
                while agent.calls < 5:
                    await asyncio.sleep(0.01)
                box["process"].send_signal(signal.SIGKILL)
                box["process"].wait(timeout=10)
                killed = time.monotonic()
                with pytest.raises(ConnectionLost):
                    await asyncio.wait_for(playing, 30)
                return time.monotonic() - killed

        took = asyncio.run(main())
    # Documented: ConnectionLost at most give_up_after seconds after the connection dropped.
    # (0.5 s for the event loop to wake on an idle machine, more on a loaded one)
    assert took <= give_up_after + patience(0.5), took


def test_a_bot_started_without_a_server_fails_at_once_with_connection_lost() -> None:
    """The first connection is tried once (a wrong address fails fast, documented), and its
    failure is the same ConnectionLost as a server that never came back: a clear error and
    exit status 1 from ``cardtable bot``, not a traceback."""
    port = free_port()  # nobody listens there
    started = time.monotonic()
    out = subprocess.run(
        [CARDTABLE, "bot", "--server", f"127.0.0.1:{port}", "--name", "nobody", "--token", "x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1, out
    assert out.stderr.startswith("cardtable bot: error: cannot connect to ws://127.0.0.1:")
    assert "Traceback" not in out.stderr
    assert time.monotonic() - started < 30  # at once (the process start is most of it)
