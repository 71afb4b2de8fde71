"""A tournament on a cluster: two ``cardtable serve`` processes share a fresh PostgreSQL
database and a Redis prefix; the organiser works through one process, the field (three native
``cardtable bot`` processes and one Kuh-Handel client, one mixed table) is connected to the
other, which schedules the games. That process is killed with SIGKILL while a game runs and
started again under its name; the tournament completes with every planned game played exactly
once, read through the other process. A second test splits a native field over both processes:
every table seats entrants of both (relayed seats), through a SIGKILL of the process running a
game. A third connects one entrant to one process only, with ``absent_after_ms`` 0: the other
process never stands in for it. Skipped with the reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from cardtable import __version__
from loopback import LOOPBACK

# the cluster cup and its Kuh-Handel client (see tests/compat/test_tournament_pyhandel.py for why)
TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from patience import patience  # noqa: E402
from server import cluster_cup as cup  # noqa: E402
from server.test_cluster import Process, database, redis_prefix, start_together  # noqa: E402, F401
from server.wire import organise  # noqa: E402

pytestmark = pytest.mark.timeout(300)

NATIVE = ["cn0", "cn1", "cn2"]
KH = "ckh"


def test_a_mixed_tournament_on_a_cluster_survives_sigkill(
    database: str,  # noqa: F811
    redis_prefix: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host, office = cup.two_processes(
        "t", database, redis_prefix, tmp_path, monkeypatch, fallback=False
    )
    bots: dict[str, subprocess.Popen[str]] = {}
    stop = threading.Event()
    seen: list[Any] = []
    try:
        start_together([host, office])
        tokens = cup.register_bots(office.http, NATIVE)
        cup.register_kh(office.http, [KH])
        tid = organise(
            office.http,
            cup.ADMIN,
            name="cluster cup",
            seats=4,
            rules="competition",
            entrants=[*NATIVE, KH],
            deals=1,
            seed=21,
            deadline_ms=2000,
        )["id"]
        for n in NATIVE:
            bots[n] = cup.native_bot(host.http, n, tid, tokens[n])
        # enters again after every game, and after its server went away
        kh = cup.in_thread(cup.kh_entrant, KH, host, tid, stop, seen, timeout=120)
        cup.wait_running(office.http, tid, done=1, deadline=time.monotonic() + patience(120))

        def games() -> list[dict[str, Any]]:
            return cup.games_of(tid, office.http)

        # kill host while a game runs whose start is stored, until a kill cuts one off (a
        # game may end first); a kill between a claim and the table's start has its own test
        # (test_tournament_dead_claim.py)
        end = time.monotonic() + patience(120)
        while True:
            running = [g["game_id"] for g in games() if g["state"] == "running" and g["game_id"]]
            if not running or not cup.stored(office.http, running[0]):
                assert time.monotonic() < end, games()
                time.sleep(0.03)
                continue
            host.kill()
            host.start()  # on its port, under its name: it settles what its predecessor left
            if cup.settled(running[0], games, end) == "void":
                break
        cup.wait_finished(office.http, tid, time.monotonic() + patience(180))
        cup.wait_bots_over(bots, tid, timeout=60)
        cup.join([kh])
        games = cup.games_of(tid, office.http)
        done = cup.played_once(games)  # each exactly once
        void = [g for g in games if g["state"] == "void"]
        assert void and {g["slot"] for g in void} <= {0, 1, 2, 3}
        # its games (one cut off by the kill, maybe after its end)
        assert sum(isinstance(m, dict) for m in seen) >= 3, seen
        for g in done:
            meta = LOOPBACK.get(
                f"{office.http}/api/games/{g['game_id']}/record", timeout=10
            ).json()["meta"]
            assert sorted(meta["seat_protocols"]) == ["kuh-handel", "native", "native", "native"]
        cup.frozen_standings(office.http, tid)
    finally:
        stop.set()
        cup.clean_up(bots, (host, office))


SPLIT = ["sn0", "sn1", "sn2", "sn3"]


def test_a_tournament_seats_entrants_of_two_processes_at_one_table(
    database: str,  # noqa: F811
    redis_prefix: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four native entrants, two connected to each of two processes: every game of the one
    line-up seats entrants of both (the record's ``seat_hosts``), the relayed seats' frames
    going through Redis. The process running a game is killed with SIGKILL and started again
    under its name; that game is voided and played again, every game exactly once."""
    import redis

    procs = cup.two_processes("s", database, redis_prefix, tmp_path, monkeypatch)
    bots: dict[str, subprocess.Popen[str]] = {}
    shared = redis.Redis.from_url("redis://127.0.0.1:6379/0", decode_responses=True)
    try:
        start_together(procs)
        tokens = cup.register_bots(procs[0].http, SPLIT)
        tid = organise(
            procs[0].http,
            cup.ADMIN,
            name="split cup",
            seats=4,
            rules="competition",
            entrants=SPLIT,
            deals=1,
            seed=5,
            deadline_ms=2000,
            # never a house bot for an entrant waiting on the other process
            absent_after_ms=600_000,
        )["id"]
        for i, n in enumerate(SPLIT):
            home = procs[i % 2]  # sn0, sn2 on s0; sn1, sn3 on s1
            bots[n] = cup.native_bot(home.http, n, tid, tokens[n])
        office = procs[0]

        def games() -> list[dict[str, Any]]:
            return cup.games_of(tid, office.http)

        # kill the process running a game until a kill cuts one off (a game may end first)
        killed: str | None = None
        end = time.monotonic() + patience(90)
        while killed is None:
            running = [g for g in games() if g["state"] == "running" and g["game_id"]]
            owner = (
                cup.table_owner(shared, redis_prefix, running[0]["game_id"]) if running else None
            )
            if owner is None:
                assert time.monotonic() < end, games()
                time.sleep(0.05)
                continue
            proc = next(p for p in procs if p.name == owner)
            office = procs[1 - procs.index(proc)]
            proc.kill()
            proc.start()  # on its port, under its name
            # that game settles: void (cut off) or done (it ended first)
            if cup.settled(running[0]["game_id"], games, end) == "void":
                killed = running[0]["game_id"]

        def stuck() -> str:
            """Why the tournament did not finish: its games, its room, its bots' output (killed)."""
            for b in bots.values():
                b.kill()
            outs = [b.communicate()[0][-1500:] for b in bots.values()]
            room = shared.hgetall(f"{redis_prefix}:tw:{tid}")
            return f"{games()} {room} {outs}"

        cup.wait_finished(office.http, tid, end, stuck)
        cup.wait_bots_over(bots, tid, timeout=30)
        listed = games()
        done = cup.played_once(listed)  # each exactly once
        assert killed in {g["game_id"] for g in listed if g["state"] == "void"}
        for g in done:
            record = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}/record")
            meta = record.json()["meta"]
            assert sorted(record.json()["names"]) == SPLIT  # the entrants, no house bot
            hosts = [cup.process_name(h) for h in meta["seat_hosts"]]
            # two entrants of each process at every table, whichever process ran it
            assert sorted(hosts) == ["s0", "s0", "s1", "s1"], meta
            # every seat's version (cardtable bot's default for a built-in bot), relayed or not
            assert meta["bot_versions"] == [f"random@cardtable-{__version__}"] * 4, meta
        cup.frozen_standings(office.http, tid)
    finally:
        shared.close()
        cup.clean_up(bots, procs)


ALONE = ["ab0", "ab1", "ab2"]


@pytest.mark.xdist_group("quiet_pair")
def test_a_process_never_stands_in_for_an_entrant_another_process_has_seen(
    quiet_pair: list[Process],
) -> None:
    """One entrant joins during the sign-up on ``host`` only; the two others never come. With
    ``absent_after_ms`` 0 the house bot stands in for those two at once, but never for the one
    that joined, though ``office`` (where the organiser starts play) never saw it join: every
    game seats it, on ``host``. On the code before, ``office`` counted it absent (its ``seen``
    was its own joins only) and played its games with the house bot while it played its first.
    On the processes shared with the other tournament tests that kill none (``quiet_pair``,
    tests/server/conftest.py)."""
    import datetime as dt

    host, office = quiet_pair
    bots: dict[str, subprocess.Popen[str]] = {}
    tid = ""
    try:
        tokens = cup.register_bots(office.http, ALONE)
        later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
        tid = organise(
            office.http,
            cup.ADMIN,
            name="absent cup",
            seats=3,
            rules="classic",
            entrants=ALONE,
            deals=1,
            seed=3,
            deadline_ms=2000,
            signup_until=later.isoformat(),
            absent_after_ms=0,
        )["id"]
        bots["ab0"] = cup.native_bot(host.http, "ab0", tid, tokens["ab0"])
        end = time.monotonic() + patience(60)
        while True:  # it waits on host (as host sees it)
            info = LOOPBACK.get(f"{host.http}/api/tournaments/{tid}").json()
            if info["entrants"][0]["presence"] == "waiting":
                break
            assert time.monotonic() < end, info
            time.sleep(0.1)
        started = LOOPBACK.post(
            f"{office.http}/api/tournaments/{tid}/start",
            headers={"Authorization": f"Bearer {cup.ADMIN}"},
            timeout=10,
        )
        assert started.status_code == 200 and started.json()["status"] == "running", started.text
        cup.wait_finished(office.http, tid, time.monotonic() + patience(120))
        done = cup.played_once(cup.games_of(tid, office.http), planned=3)
        for g in done:
            record = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}/record").json()
            names = record["names"]
            assert "ab0" in names, (names, done)  # never a house bot for it
            hosts = [cup.process_name(h) if h else None for h in record["meta"]["seat_hosts"]]
            assert hosts[names.index("ab0")] == host.name, record["meta"]
            # the two that never came: the house bot
            assert sorted(n for n in names if n != "ab0") == [
                f"house-random for {n}" for n in ALONE[1:]
            ], names
        cup.wait_bots_over(bots, tid, timeout=60)
    finally:
        cup.clean_up(bots)
        if tid:
            cup.cancel_if_live(office.http, tid)
