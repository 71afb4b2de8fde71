"""A server that stops charges its bots no fault; a bot that leaves is charged one (issue 34,
item 5; server/departure.py).

One ``cardtable serve`` process (SQLite: no PostgreSQL or Redis needed), started for real and
stopped with SIGTERM as an operator (or ``--workers``, or systemd) stops it. The ASGI server
closes every WebSocket before the application aborts its tables: on the code before, each seated
bot's closed socket was a ``disconnect`` fault, stored with the aborted game and counted
towards takeover and suspension. A bot that closes its own connection still is one.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from cardtable.server.store.models import faults, games, players
from loopback import LOOPBACK
from server.test_cluster import CARDTABLE
from server.wire import Wire

#: a few seconds; the SIGTERM's graceful shutdown is the longest part
pytestmark = pytest.mark.timeout(90)


def serve(db: str, log: Path, **env: str) -> tuple[subprocess.Popen[str], str]:
    """``cardtable serve`` on a free port: the process and its URL (once it answers)."""
    proc = subprocess.Popen(
        [CARDTABLE, "serve", "--port", "0", "--db", db, "--log-level", "info"],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        # a request stays open until the test acts: no timeout can be the fault seen
        env={**os.environ, "CARDTABLE_DEADLINE_MS": "60000", **env},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
    assert match, f"serve printed {line!r}; see {log}"
    url = match.group(1)
    end = time.monotonic() + 30
    while True:
        try:
            if LOOPBACK.get(f"{url}/api/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        assert time.monotonic() < end and proc.poll() is None, f"see {log}"
        time.sleep(0.1)


def _seated(url: str, name: str) -> tuple[Wire, str]:
    """Bot ``name`` registered, connected, at a practice table with a request open: the
    connection and the game."""
    reply = LOOPBACK.post(f"{url}/api/bots", json={"name": name})
    assert reply.status_code == 201, reply.text
    wire = Wire(url.replace("http", "ws", 1) + "/ws")
    assert wire.hello_bot(name, str(reply.json()["token"]))["type"] == "welcome"
    wire.send(
        {"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short",
         "opponents": "random"}
    )  # fmt: skip
    request = wire.expect("request")
    return wire, str(request["game_id"])


def faults_of_game(db: str, game_id: str) -> list[tuple[Any, ...]]:
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            query = (
                select(players.c.name, faults.c.code, faults.c.reason)
                .join(players, players.c.id == faults.c.player_id)
                .where(faults.c.game_id == game_id)
            )
            return [tuple(r) for r in conn.execute(query)]
    finally:
        engine.dispose()


def _status(db: str, game_id: str) -> str:
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            return str(conn.execute(select(games.c.status).where(games.c.id == game_id)).scalar())
    finally:
        engine.dispose()


def test_sigterm_stores_no_fault_for_a_seated_bot_but_a_bot_closing_is_one(
    tmp_path: Path,
) -> None:
    """Rule: the disconnects a stopping server causes are no fault of its bots (nothing stored,
    shown or counted); a bot's own disconnect while the server is healthy is one fault."""
    db = f"sqlite:///{tmp_path / 'server.db'}"
    log = tmp_path / "server.log"
    proc, url = serve(db, log)
    try:
        # a bot closes its own connection with a request open: one disconnect fault, stored
        quitter, quit_game = _seated(url, "quitter")
        quitter.close()
        end = time.monotonic() + 30
        while not faults_of_game(db, quit_game):
            assert time.monotonic() < end, f"the bot's own disconnect was not stored; see {log}"
            time.sleep(0.1)
        assert [(n, c) for n, c, _ in faults_of_game(db, quit_game)] == [("quitter", "disconnect")]

        # a bot with a request open when the server is stopped (SIGTERM): no fault
        stayer, stay_game = _seated(url, "stayer")
        proc.send_signal(signal.SIGTERM)
        # uvicorn raises the signal again after its graceful shutdown
        assert proc.wait(timeout=60) in (0, -signal.SIGTERM), f"see {log}"
        stayer.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _status(db, stay_game) == "aborted"
    assert faults_of_game(db, stay_game) == [], f"a stopping server charged its bot; see {log}"
