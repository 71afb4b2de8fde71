"""A server that stops charges its Kuh-Handel bots no fault (issue 34, item 5; issue 35, item 6:
"a server restart charged a Kuh-Handel entrant a ``disconnected`` fault 'the client closed the
connection (1012)'").

One ``cardtable serve`` process on SQLite, stopped with SIGTERM while a Kuh-Handel bot is seated
with a question open: uvicorn closes the bot's socket (1012) before the application aborts the
game, and the endpoint took that for the bot leaving. The native protocol's case is
``tests/server/test_departure.py``.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from compat.khclient import KhClient, Script
from loopback import LOOPBACK
from server.test_departure import faults_of_game, serve

pytestmark = pytest.mark.timeout(90)


def test_sigterm_stores_no_fault_for_a_seated_kuh_handel_bot(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'server.db'}"
    log = tmp_path / "server.log"
    # a question stays open until the test acts; house bots fill the table at once
    proc, url = serve(
        db,
        log,
        CARDTABLE_KH_REPLY_TIMEOUT_MS="60000",
        CARDTABLE_KH_FILL_WAIT_MS="300",
        CARDTABLE_KH_HOUSE_BOTS="simple:0.5",
    )
    name = "restarted"
    try:
        reply = LOOPBACK.post(
            f"{url}/kuh-handel/register", params={"player_id": name, "token": "secret"}
        )
        assert reply.status_code == 201, reply.text
        port = url.rsplit(":", 1)[1]
        client = KhClient(
            f"ws://127.0.0.1:{port}/kuh-handel/server_bot_game?player_id={name}&token=secret"
            "&raise_faulty_action_warning=true"
        )
        # every update is acknowledged (the endpoint waits for it); the first question is left
        # open: the bot is seated in a running game, the server waiting for its answer
        script = Script(name)
        while True:
            message = client.recv()
            assert message is not None, f"the game ended before a question; see {log}"
            if message["type"] != "GameUpdate":
                break
            client.send(script.answer(message))
        games = LOOPBACK.get(f"{url}/api/games", params={"player": name}).json()["games"]
        assert [g["status"] for g in games] == ["running"], games
        game_id = str(games[0]["id"])
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) in (0, -signal.SIGTERM), f"see {log}"
        client.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert faults_of_game(db, game_id) == [], f"a stopping server charged its bot; see {log}"
