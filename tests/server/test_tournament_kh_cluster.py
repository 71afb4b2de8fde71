"""Kuh-Handel entrants of two processes at one tournament table: two ``cardtable serve``
processes share a fresh PostgreSQL database and a Redis prefix; one Kuh-Handel client and one
native ``cardtable bot`` are connected to each. Every game of the line-up seats both Kuh-Handel
entrants, so one of them plays through a relayed connection (its ``KhSeat`` on the table's
process, its reference-protocol frames through Redis). A second test kills each side of such a
relayed seat with SIGKILL while a game runs. Skipped with the reason when PostgreSQL or Redis is
unreachable.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from loopback import LOOPBACK

# the Kuh-Handel test client (see tests/compat/test_tournament_pyhandel.py for why sys.path)
TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from compat.khclient import KhClient, Rejected, Script, play  # noqa: E402
from patience import patience  # noqa: E402
from server import cluster_cup as cup  # noqa: E402
from server.test_cluster import Process, database, redis_prefix, start_together  # noqa: E402, F401
from server.wire import organise  # noqa: E402

pytestmark = pytest.mark.timeout(120)

KH = ["rk0", "rk1"]
NATIVE = ["rn0", "rn1"]


def kh_bot(name: str, proc: Process, tid: str, stop: threading.Event, ends: list[Any]) -> None:
    """A Kuh-Handel client of ``proc`` that enters ``tid`` again after every game until the
    tournament is over (410); each ``End`` it got goes into ``ends``. Unlike
    :func:`server.cluster_cup.kh_entrant` it does not come back: a refusal goes into ``ends``
    (the test fails on it) and a broken connection ends the thread."""
    url = f"ws://127.0.0.1:{proc.port}/kuh-handel/tournament-{tid}"
    while not stop.is_set():
        try:
            client = KhClient(
                f"{url}?player_id={name}&token=secret&raise_faulty_action_warning=true"
            )
        except Rejected as exc:
            if exc.status != 410:
                ends.append(exc)  # refused: the test fails on it
            return
        try:
            end = play(client, Script(name), timeout=patience(60))
            if end is not None:
                ends.append(end)
        finally:
            client.close()


@pytest.mark.xdist_group("quiet_pair")
def test_kuh_handel_entrants_of_two_processes_play_at_one_table(
    quiet_pair: list[Process],
) -> None:
    """On the processes shared with the other tournament tests that kill none (``quiet_pair``,
    tests/server/conftest.py)."""
    procs = quiet_pair
    log = procs[0].log
    bots: dict[str, subprocess.Popen[str]] = {}
    stop = threading.Event()
    ends: dict[str, list[Any]] = {n: [] for n in KH}
    tid = ""
    try:
        office = procs[0]
        tokens = cup.register_bots(office.http, NATIVE)
        cup.register_kh(office.http, KH)
        tid = organise(
            office.http,
            cup.ADMIN,
            name="relay cup",
            seats=4,
            rules="competition",
            entrants=[*KH, *NATIVE],
            deals=1,
            seed=8,
            deadline_ms=2000,
            # never a house bot for an entrant waiting on the other process
            absent_after_ms=600_000,
            # the script's deliberately bad trades are corrected (rectified faults): no
            # suspension for them
            suspend_after_faults=100_000,
        )["id"]
        for i, n in enumerate(NATIVE):  # rn0 on k0, rn1 on k1
            bots[n] = cup.native_bot(procs[i].http, n, tid, tokens[n])
        # rk0 on k0, rk1 on k1
        threads = [cup.in_thread(kh_bot, n, procs[i], tid, stop, ends[n]) for i, n in enumerate(KH)]

        def games() -> list[dict[str, Any]]:
            return cup.games_of(tid, office.http)

        # the code before never started a game of Kuh-Handel entrants of two processes
        cup.wait_finished(
            office.http, tid, time.monotonic() + patience(45), lambda: f"{games()} (see {log})"
        )
        cup.wait_bots_over(bots, tid, timeout=30)
        cup.join(threads)
        done = cup.played_once(games())  # each exactly once
        for g in done:
            record = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}/record")
            names, meta = record.json()["names"], record.json()["meta"]
            assert sorted(names) == sorted(KH + NATIVE)  # the entrants, no house bot
            hosts = [cup.process_name(h) for h in meta["seat_hosts"]]
            kinds = dict(zip(names, meta["seat_protocols"], strict=True))
            assert [kinds[n] for n in KH] == ["kuh-handel", "kuh-handel"], meta
            # each Kuh-Handel entrant sat as one of its own process's: one seat was relayed
            assert [hosts[names.index(n)] for n in KH] == [p.name for p in procs], meta
            detail = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}").json()
            # no timeout, no disconnect, no ban: every exchange came through, corrected only
            kh_seats = {names.index(n) for n in KH}
            codes = {f["code"] for f in detail["faults"] if f["seat"] in kh_seats}
            assert codes <= {"rectified"}, detail["faults"]
            assert not any(s["taken_over"] for s in detail["seats_detail"]), detail
        for n in KH:
            # every game's End reached the client, with the four entrants' ranking
            assert len(ends[n]) == 4, ends[n]
            for message in ends[n]:
                assert isinstance(message, dict), message
                ranked = str(message["payload"]["update"]["End"])
                assert all(x in ranked for x in KH + NATIVE), message
    finally:
        stop.set()
        cup.clean_up(bots)
        if tid:
            cup.cancel_if_live(procs[0].http, tid)


def test_killing_a_process_that_holds_a_relayed_kuh_handel_seat(
    database: str,  # noqa: F811
    redis_prefix: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The field of the test above; every game relays one Kuh-Handel entrant's frames between
    the table's process (the owner) and the process its bot is connected to (the host).

    1. The host of the relayed seat is killed with SIGKILL while the game runs (and started
       again): the owner's game goes on, the fallback plays that seat from when the owner
       learns the host is gone (one ``disconnected`` fault, excused: no ban), and the game
       counts (``done``). The bot gets no ``End`` for it (its socket went with its process).
    2. The owner of a game with a relayed seat is killed while it runs (and started again): the
       host's reaper aborts the game, the host closes the relayed bot's connection with 1011,
       the game turns ``void`` and is played again.

    The tournament finishes with every slot ``done`` exactly once and the one ``void``; each
    Kuh-Handel client got the ``End`` of every game that counts and in which it kept its seat."""
    import redis

    procs = cup.two_processes("h", database, redis_prefix, tmp_path, monkeypatch)
    log = procs[0].log
    bots: dict[str, subprocess.Popen[str]] = {}
    stop = threading.Event()
    seen: dict[str, list[Any]] = {n: [] for n in KH}
    shared = redis.Redis.from_url("redis://127.0.0.1:6379/0", decode_responses=True)
    try:
        start_together(procs)
        tokens = cup.register_bots(procs[0].http, NATIVE)
        cup.register_kh(procs[0].http, KH)
        tid = organise(
            procs[0].http,
            cup.ADMIN,
            name="crash cup",
            seats=4,
            rules="competition",
            entrants=[*KH, *NATIVE],
            deals=1,
            seed=13,
            deadline_ms=2000,
            absent_after_ms=600_000,
            suspend_after_faults=100_000,
        )["id"]
        for i, n in enumerate(NATIVE):  # rn0 on h0, rn1 on h1
            bots[n] = cup.native_bot(procs[i].http, n, tid, tokens[n])
        # rk0 on h0, rk1 on h1
        threads = [
            cup.in_thread(cup.kh_entrant, n, procs[i], tid, stop, seen[n]) for i, n in enumerate(KH)
        ]
        deadline = time.monotonic() + patience(100)

        def games() -> list[dict[str, Any]]:
            return cup.games_of(tid, *(p.http for p in procs))

        def stored(game_id: str) -> bool:
            """The game's start is in the database (a process killed before that leaves no
            game to show, only the tournament's void row)."""
            for p in procs:
                try:
                    return LOOPBACK.get(f"{p.http}/api/games/{game_id}").status_code == 200
                except httpx.HTTPError:
                    continue
            return False

        def running(after: set[str]) -> tuple[str, int]:
            """A game that runs now, stored (not one of ``after``), and the index of its
            process."""
            while True:
                for g in games():
                    if g["state"] == "running" and g["game_id"] and g["game_id"] not in after:
                        owner = cup.table_owner(shared, redis_prefix, g["game_id"])
                        if owner is not None and stored(g["game_id"]):
                            return g["game_id"], int(owner[1])
                assert time.monotonic() < deadline, f"no game runs: {games()} (see {log})"
                time.sleep(0.03)

        # 1. the host of the relayed Kuh-Handel seat dies; the owner plays on
        lasted, owner = running(set())
        host = 1 - owner
        procs[host].kill()
        procs[host].start()
        assert cup.settled(lasted, games, deadline) == "done"
        # 2. the owner of a game with a relayed Kuh-Handel seat dies
        cut, owner2 = running({lasted})
        procs[owner2].kill()
        procs[owner2].start()
        assert cup.settled(cut, games, deadline) == "void"
        office = procs[1 - owner2]
        cup.wait_finished(office.http, tid, deadline, lambda: f"{games()} (see {log})")
        cup.wait_bots_over(bots, tid, timeout=30)
        cup.join(threads)
        listed = games()
        cup.played_once(listed)  # each exactly once
        assert [g["game_id"] for g in listed if g["state"] == "void"] == [cut], listed
        detail = LOOPBACK.get(f"{office.http}/api/games/{cut}").json()
        assert detail["status"] == "aborted", detail
        # the game whose host died counts, the relayed seat played by the fallback
        detail = LOOPBACK.get(f"{office.http}/api/games/{lasted}").json()
        assert detail["status"] == "finished", detail
        names = detail["record"]["names"]
        hosts = [cup.process_name(h) for h in detail["record"]["meta"]["seat_hosts"]]
        relayed = next(n for n in KH if hosts[names.index(n)] == f"h{host}")
        seat = names.index(relayed)
        lost = [f for f in detail["faults"] if f["seat"] == seat and f["code"] == "disconnected"]
        assert len(lost) == 1 and "server process" in lost[0]["reason"], detail["faults"]
        assert not detail["seats_detail"][seat]["taken_over"], detail["seats_detail"]
        table = cup.frozen_standings(office.http, tid)
        bans = {row["name"]: row["bans"] for row in table["rows"]}
        assert bans == {n: 0 for n in KH + NATIVE}, table["rows"]
        # every game that counts reached its Kuh-Handel clients' End, but the one whose host
        # died for the relayed one; the cut-off game's relayed connection was closed with 1011
        ends = {n: [m for m in seen[n] if isinstance(m, dict)] for n in KH}
        assert {n: len(e) for n, e in ends.items()} == {n: 3 if n == relayed else 4 for n in KH}, (
            seen
        )
        assert ("closed", 1011) in [m for n in KH for m in seen[n]], seen
    finally:
        stop.set()
        shared.close()
        cup.clean_up(bots, procs)
