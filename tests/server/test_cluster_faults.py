"""A client's ``fault`` report (issue 28) reaches its table when that table runs on another
process of a cluster (issue 22): the report is relayed like an action. Two ``cardtable serve``
processes share a fresh PostgreSQL database and a Redis prefix; a bot starts a game on one and
takes its seat back through the other, then reports a decision its bot raised on. And the
faults of a game whose process is killed with SIGKILL are stored (``server/fault_log.py``).
Skipped with the reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from loopback import LOOPBACK
from patience import patience
from server.test_cluster import RANDOM_BOTS, Process, cluster, database, redis_prefix
from server.wire import Wire

pytestmark = pytest.mark.timeout(120)
__all__ = ["database", "redis_prefix"]  # fixtures


@pytest.mark.xdist_group("quiet_pair")
def test_a_fault_report_is_relayed_to_the_process_that_runs_the_table(
    quiet_pair: list[Process],
) -> None:
    """On the processes shared with the other tests that kill none (``quiet_pair``,
    tests/server/conftest.py: random house and fallback bots, as this test needs)."""
    owner, other = quiet_pair
    reply = LOOPBACK.post(f"{owner.http}/api/bots", json={"name": "roamer"})
    token = reply.json()["token"]
    with Wire(owner.ws) as first:
        first.hello_bot("roamer", token)
        first.send({"type": "join", "lobby": "practice", "game": "kuhhandel"})
        game_id = first.expect("game_start")["game_id"]
    with Wire(other.ws) as wire:
        welcome = wire.hello_bot("roamer", token)
        assert welcome["games"] == [game_id]  # the seat is held by the other process
        wire.send({"type": "resume", "game_id": game_id})
        rejected: dict[str, Any] = {}
        end = time.monotonic() + 30
        while rejected.get("code") != "raised" and time.monotonic() < end:
            request = wire.expect("request")
            wire.send(
                {
                    "type": "fault",
                    "game_id": game_id,
                    "request_id": request["request_id"],
                    "kind": "raised",
                    "reason": "KeyError: 'x' (at roamer.py:7 in act)",
                    "exception": {"type": "KeyError", "file": "roamer.py", "line": 7},
                }
            )
            rejected = wire.expect("rejected")  # raised, or not_your_turn if it moved on
        # the owner's fallback answered at once and said so, through this process
        assert rejected["code"] == "raised" and "fallback" in rejected["reason"]
    # the fault is stored with the game's end (the fallback plays the seat meanwhile)
    end = time.monotonic() + 60
    while True:
        bot = LOOPBACK.get(f"{other.http}/api/bots/roamer").json()
        raised = [f for f in bot["faults"] if f["code"] == "raised"]
        if raised or time.monotonic() > end:
            break
        time.sleep(0.2)
    assert raised, bot
    assert raised[0]["detail"]["exception"] == {
        "type": "KeyError",
        "file": "roamer.py",
        "line": 7,
    }
    assert raised[0]["detail"]["answered_by"] == "server"


def test_the_faults_of_a_game_whose_process_died_are_stored(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    """A bot's game runs on ``fk``; the bot sends an action that is no action and lets the next
    decision time out (two faults, the fallback answers both). Both are in the database while the
    game still runs (a few ms after the client was told); then ``fk`` is killed with SIGKILL, the
    other process's reaper aborts the game, and its faults are there: the rows, the seat's count,
    ``GET /api/games/{id}`` and the bot's page. On the code before, a game's faults were written
    only with its end: none of them was ever stored."""
    from sqlalchemy import create_engine, func, select

    from cardtable.server.store.models import faults, game_seats

    # no time bank: a silent decision is a timeout after the deadline (1 s) alone; and no
    # ban: the game goes on at a second per silent decision until the kill
    config = "[server]\ntime_bank_ms = 0\nmax_faults_per_game = 100\n" + RANDOM_BOTS
    doomed, survivor = cluster(["fk", "fl"], database, redis_prefix, tmp_path, config)
    log = doomed.log
    engine = create_engine(database)

    def stored(game_id: str) -> list[str]:
        with engine.connect() as conn:
            rows = conn.execute(
                select(faults.c.code).where(faults.c.game_id == game_id).order_by(faults.c.id)
            ).all()
        return [r.code for r in rows]

    def wait_stored(game_id: str, n: int) -> float:
        """Seconds until ``n`` faults of the game are stored (polled every 5 ms)."""
        start = time.monotonic()
        while len(stored(game_id)) < n:
            assert time.monotonic() - start < patience(10), f"{stored(game_id)} (see {log})"
            time.sleep(0.005)
        return time.monotonic() - start

    try:
        doomed.start()
        survivor.start()
        reply = LOOPBACK.post(f"{doomed.http}/api/bots", json={"name": "faulty"})
        token = reply.json()["token"]
        with Wire(doomed.ws) as wire:
            wire.hello_bot("faulty", token)
            wire.send({"type": "join", "lobby": "practice", "game": "kuhhandel"})
            game_id = wire.expect("game_start", timeout=15)["game_id"]
            request = wire.expect("request", timeout=15)
            wire.send(
                {
                    "type": "action",
                    "game_id": game_id,
                    "request_id": request["request_id"],
                    "action": {"no such action": True},
                }
            )
            assert wire.expect("rejected")["code"] == "invalid_action"
            first = wait_stored(game_id, 1)
            wire.expect("request", timeout=15)  # said nothing: the deadline passes
            assert wire.expect("rejected", timeout=15)["code"] == "timeout"
            second = wait_stored(game_id, 2)
            ms = f"{first * 1000:.0f} / {second * 1000:.0f} ms"
            print(f"faults stored {ms} after the client saw them")
            # the game still runs, on the process about to die
            assert (
                LOOPBACK.get(f"{survivor.http}/api/games/{game_id}").json()["status"] == "running"
            )
            # not shown while the game runs (a fault's reason may tell what the bot holds)
            page = LOOPBACK.get(f"{survivor.http}/api/bots/faulty").json()
            assert page["faults"] == []
            doomed.kill()
            told = []  # every fault the client was told of (a third may have come meanwhile)
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                while True:
                    wire.recv(timeout=5)
            told = [m["code"] for m in wire.received if m["type"] == "rejected"]
        end = time.monotonic() + patience(30)
        while True:
            detail = LOOPBACK.get(f"{survivor.http}/api/games/{game_id}").json()
            if detail["status"] != "running" or time.monotonic() > end:
                break
            time.sleep(0.1)
        assert detail["status"] == "aborted", detail
        codes = stored(game_id)  # each fault once, in order, as the client was told
        assert codes[:2] == ["invalid_action", "timeout"] and codes == told[: len(codes)], told
        assert [f["code"] for f in detail["faults"]] == codes
        seat = next(s for s in detail["seats_detail"] if s["name"] == "faulty")
        assert seat["faults"] == len(codes)
        page = LOOPBACK.get(f"{survivor.http}/api/bots/faulty").json()
        assert sorted(f["code"] for f in page["faults"]) == sorted(codes)
        assert page["fault_counts"]["invalid_action"] == 1
        with engine.connect() as conn:
            counted = conn.execute(
                select(func.sum(game_seats.c.faults)).where(game_seats.c.game_id == game_id)
            ).scalar_one()
        assert counted == len(codes)
    finally:
        engine.dispose()
        doomed.stop()
        survivor.stop()


def test_the_faults_of_a_kuh_handel_game_whose_process_died_are_stored(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    """The Kuh-Handel endpoint's games keep their faults the same way: a bot plays the server's
    bots (``server_bot_game``), answers its first message with a message of the wrong kind (a
    ``bad_reply`` fault) and then says nothing (a reply may take 30 s here, so the game waits);
    the fault is in the database while the game runs, the process is killed with SIGKILL and
    started again under its name, which aborts its predecessor's game: the fault is there."""
    import sys

    from sqlalchemy import create_engine, select

    from cardtable.server.store.models import faults

    tests = str(Path(__file__).resolve().parents[1])
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from compat.khclient import KhClient

    (proc,) = cluster(["kf"], database, redis_prefix, tmp_path, "[server]\n")
    log = proc.log
    proc.env = {"CARDTABLE_KH_REPLY_TIMEOUT_MS": "30000"}
    engine = create_engine(database)

    def stored() -> list[tuple[str, str]]:
        with engine.connect() as conn:
            rows = conn.execute(select(faults.c.game_id, faults.c.code).order_by(faults.c.id))
            return [(r.game_id, r.code) for r in rows]

    try:
        proc.start()
        r = LOOPBACK.post(
            f"{proc.http}/kuh-handel/register",
            params={"player_id": "khf", "token": "secret"},
            timeout=10,
        )
        assert r.status_code == 201, r.text
        client = KhClient(
            f"ws://127.0.0.1:{proc.port}/kuh-handel/server_bot_game"
            "?player_id=khf&token=secret&raise_faulty_action_warning=false"
        )
        try:
            assert client.recv(timeout=15) is not None  # the game's first message
            client.send({"type": "NoSuchReply", "payload": {}})
            end = time.monotonic() + 10
            while not stored():
                assert time.monotonic() < end, f"no fault stored (see {log})"
                time.sleep(0.005)
            ((game_id, code),) = stored()
            assert code == "bad_reply"
            status = LOOPBACK.get(f"{proc.http}/api/games/{game_id}").json()["status"]
            assert status == "running"
            proc.kill()
        finally:
            client.drop()
        proc.start()  # under its name: it aborts what its predecessor left running
        detail = LOOPBACK.get(f"{proc.http}/api/games/{game_id}").json()
        assert detail["status"] == "aborted", detail
        assert [f["code"] for f in detail["faults"]] == ["bad_reply"], detail["faults"]
        assert stored() == [(game_id, "bad_reply")]
    finally:
        engine.dispose()
        proc.stop()
