"""Honest faults (issue 28): a bot that raises, one that answers with garbage and one that
sleeps, each connected through ``cardtable bot`` (a subprocess) to a real ``cardtable serve``.

The client reports each failed decision at once; the server stores a fault of the right kind
for each (``raised`` with the bot's file and line, ``invalid_action``, ``late``) well before the
deadline and time bank would have run out, and ``GET /api/bots/{name}`` shows them. Before, the
client's fallback answered silently and the server stored nothing (a bot answering "banana" won
a ranked game with a clean record), or with ``--no-fallback`` the server waited for the whole
deadline and time bank and stored a ``timeout``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_comeback import CARDTABLE, free_port, get, start, stop

from cardtable.client.load import register_bot

pytestmark = pytest.mark.timeout(240)
BOTS = Path(__file__).with_name("faulty_bots.py")
DEADLINE_MS, BANK_MS = 1000, 10000


def test_the_server_stores_each_reported_fault_promptly_and_shows_it(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    # quick house and fallback bots: the test is about faults, not about thinking
    config.write_text('[house_bots]\nkuhhandel = "random"\n[fallback_bot]\nkuhhandel = "random"\n')
    port = free_port()
    env = {
        "CARDTABLE_DEADLINE_MS": str(DEADLINE_MS),
        "CARDTABLE_TIME_BANK_MS": str(BANK_MS),
        "CARDTABLE_FILL_WAIT_MS": "300",
    }
    process = start(port, f"sqlite:///{tmp_path / 'faults.db'}", config=str(config), env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        runs = {  # name: (bot class, lobby, extra options)
            "raiser": ("Raises", "ranked", []),
            "banana": ("Banana", "ranked", []),
            "sleeper": ("Sleeps", "ranked", []),
            # outside the ranked lobby the client's own fallback answers; still reported
            "banana2": ("Banana", "practice", ["--opponents", "random"]),
        }
        bots = {}
        for name, (cls, lobby, extra) in runs.items():
            token = register_bot(base, name)
            command = [CARDTABLE, "bot", "--server", f"127.0.0.1:{port}", "--name", name]
            command += ["--bot", f"{BOTS}:{cls}", "--lobby", lobby, "--game", "kuhhandel"]
            bots[name] = subprocess.Popen(
                [*command, *extra],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "CARDTABLE_TOKEN": token},
            )
        for name, bot in bots.items():
            out, err = bot.communicate(timeout=180)
            assert bot.returncode == 0, (name, out, err)
        stored = {name: get(port, f"/api/bots/{name}") for name in runs}
        board = get(port, "/api/leaderboard?game=kuhhandel&rules=classic")["entries"]
    finally:
        for bot in bots.values():
            if bot.poll() is None:
                bot.kill()
        stop(process)

    expected = {
        "raiser": "raised",
        "banana": "invalid_action",
        "sleeper": "late",
        "banana2": "invalid_action",
    }
    for name, code in expected.items():
        faults = stored[name]["faults"]
        assert faults, f"{name}: no fault stored"
        # every failed decision was stored as what it was: no timeout, nothing else
        assert {f["code"] for f in faults} == {code}, (name, faults)
        # three faults and the fallback plays the rest: the game shows it
        (game,) = stored[name]["games"]
        assert game["status"] == "finished" and game["faults"] == len(faults) == 3
        assert game["taken_over"] is True
        assert stored[name]["fault_counts"] == {code: 3}
        for fault in faults:
            detail = fault["detail"]
            assert detail["reported_by"] == "client"
            # promptly: an exception or a garbage answer long before the deadline; a late bot
            # when its client's limit passes (deadline minus the 200 ms margin), long before
            # the deadline and time bank (11 s) would have run out (the margins allow for a
            # loaded machine)
            limit = DEADLINE_MS + 2000 if code == "late" else DEADLINE_MS
            assert detail["after_ms"] < limit, (name, detail)
            answered = "client" if name == "banana2" else "server"
            assert detail["answered_by"] == answered
    for fault in stored["raiser"]["faults"]:
        exception = fault["detail"]["exception"]
        assert exception["type"] == "ValueError"
        assert exception["message"].startswith("no idea what to do on ")
        assert exception["file"].endswith("faulty_bots.py") and exception["function"] == "act"
        line = BOTS.read_text().splitlines()[exception["line"] - 1]
        assert "raise ValueError" in line
        assert f"faulty_bots.py:{exception['line']} in act" in fault["reason"]
    assert "'banana'" in stored["banana"]["faults"][0]["reason"]
    # the standings show them too (the ranked games only: banana2 played practice)
    standings = {e["name"]: e for e in board}
    assert "banana2" not in standings
    for name in ("raiser", "banana", "sleeper"):
        entry = standings[name]
        assert entry["faults"] == 3 and entry["fault_counts"] == {expected[name]: 3}
    assert all(e["faults"] == 0 for e in board if e["kind"] == "house")
