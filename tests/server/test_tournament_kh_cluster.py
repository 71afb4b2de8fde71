"""Kuh-Handel entrants of two processes at one tournament table: two ``cardtable serve``
processes share a fresh PostgreSQL database and a Redis prefix; one Kuh-Handel client and one
native ``cardtable bot`` are connected to each. Every game of the line-up seats both Kuh-Handel
entrants, so one of them plays through a relayed connection (its ``KhSeat`` on the table's
process, its reference-protocol frames through Redis). A second test kills each side of such a
relayed seat with SIGKILL while a game runs. Skipped with the reason when PostgreSQL or Redis is
unreachable.
"""

from __future__ import annotations

import json
import os
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
from server.test_cluster import CARDTABLE, Process, database, redis_prefix  # noqa: E402, F401
from server.wire import organise  # noqa: E402

pytestmark = pytest.mark.timeout(120)

ADMIN = "organiser-secret"
KH = ["rk0", "rk1"]
NATIVE = ["rn0", "rn1"]


def finish(
    office: Process,
    tid: str,
    bots: list[subprocess.Popen[str]],
    threads: list[threading.Thread],
    deadline: float,
    why: Any,
) -> None:
    """Wait (until ``deadline``) for the tournament to finish on ``office``, then for every native
    bot to say it is over and exit, and for every Kuh-Handel thread to end; ``why()`` explains a
    tournament that does not finish."""
    while True:
        info = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}").json()
        if info["status"] == "finished":
            break
        assert time.monotonic() < deadline, f"not finished: {why()}"
        time.sleep(0.2)
    for n, b in zip(NATIVE, bots, strict=True):
        try:
            out, _ = b.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            b.kill()
            raise AssertionError(f"{n} still plays: {b.communicate()[0][-2000:]}") from None
        assert b.returncode == 0 and f"tournament {tid} is over" in out, out
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive()


def kh_bot(name: str, proc: Process, tid: str, stop: threading.Event, ends: list[Any]) -> None:
    """A Kuh-Handel client of ``proc`` that enters ``tid`` again after every game until the
    tournament is over (410); each ``End`` it got goes into ``ends``."""
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
            end = play(client, Script(name), timeout=60)
            if end is not None:
                ends.append(end)
        finally:
            client.close()


def test_kuh_handel_entrants_of_two_processes_play_at_one_table(
    database: str,  # noqa: F811
    redis_prefix: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", ADMIN)
    config = tmp_path / "server.toml"
    config.write_text(
        '[server]\nhouse_bots = { kuhhandel = "random" }\nfallback_bot = { kuhhandel = "random" }\n'
    )
    log = tmp_path / "servers.log"
    procs = [Process(f"k{i}", database, redis_prefix, config, log) for i in range(2)]
    bots: list[subprocess.Popen[str]] = []
    stop = threading.Event()
    ends: dict[str, list[Any]] = {n: [] for n in KH}
    threads: list[threading.Thread] = []
    try:
        for p in procs:
            p.start()
        office = procs[0]
        tokens = {
            n: LOOPBACK.post(f"{office.http}/api/bots", json={"name": n}).json()["token"]
            for n in NATIVE
        }
        for n in KH:
            r = LOOPBACK.post(
                f"{office.http}/kuh-handel/register",
                params={"player_id": n, "token": "secret"},
                timeout=10,
            )
            assert r.status_code == 201, r.text
        tid = organise(
            office.http,
            ADMIN,
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
        for i, n in enumerate(NATIVE):
            bots.append(
                subprocess.Popen(
                    [CARDTABLE, "bot", "--server", procs[i].http, "--name", n]
                    + ["--tournament", tid, "--bot", "random"],
                    env={**os.environ, "CARDTABLE_TOKEN": tokens[n]},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        for i, n in enumerate(KH):  # rk0 on k0, rk1 on k1
            t = threading.Thread(target=kh_bot, args=(n, procs[i], tid, stop, ends[n]), daemon=True)
            t.start()
            threads.append(t)

        def games() -> list[dict[str, Any]]:
            reply = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/games")
            return list(reply.json()["games"])

        # the code before never started a game of Kuh-Handel entrants of two processes
        finish(office, tid, bots, threads, time.monotonic() + 45, lambda: f"{games()} (see {log})")
        done = [g for g in games() if g["state"] == "done"]
        assert sorted(g["slot"] for g in done) == [0, 1, 2, 3]  # each exactly once
        for g in done:
            record = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}/record")
            names, meta = record.json()["names"], record.json()["meta"]
            assert sorted(names) == sorted(KH + NATIVE)  # the entrants, no house bot
            hosts = [str(h).rsplit("-", 1)[0] for h in meta["seat_hosts"]]
            kinds = dict(zip(names, meta["seat_protocols"], strict=True))
            assert [kinds[n] for n in KH] == ["kuh-handel", "kuh-handel"], meta
            # each Kuh-Handel entrant sat as one of its own process's: one seat was relayed
            assert [hosts[names.index(n)] for n in KH] == ["k0", "k1"], meta
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
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)
        for p in procs:
            p.stop()


def kh_entrant(name: str, proc: Process, tid: str, stop: threading.Event, seen: list[Any]) -> None:
    """A Kuh-Handel client of ``proc`` that enters ``tid`` again after every game, after its
    connection was closed and while its server is down, until the tournament is over (410).
    ``seen`` gets each game's ``End``, or ``("closed", code)`` for a connection that ended
    without one (``code``: the close frame's, ``None`` when the socket just went away)."""
    from websockets.frames import Close, Opcode

    url = f"ws://127.0.0.1:{proc.port}/kuh-handel/tournament-{tid}"
    while not stop.is_set():
        try:
            client = KhClient(
                f"{url}?player_id={name}&token=secret&raise_faulty_action_warning=false"
            )
        except Rejected as exc:
            if exc.status == 410:
                return
            time.sleep(0.2)  # 409: its previous connection is still being let go of
            continue
        except (OSError, TimeoutError, AssertionError):  # its server is down or starting
            time.sleep(0.2)
            continue
        try:
            end = play(client, Script(name), timeout=60)
        except (OSError, TimeoutError, AssertionError):
            end = None
        finally:
            client.close()
        if end is not None:
            seen.append(end)
        else:
            closes = [f for f in client.frames if f.opcode is Opcode.CLOSE]
            seen.append(("closed", Close.parse(closes[0].data).code if closes else None))


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

    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", ADMIN)
    config = tmp_path / "server.toml"
    config.write_text(
        '[server]\nhouse_bots = { kuhhandel = "random" }\nfallback_bot = { kuhhandel = "random" }\n'
    )
    log = tmp_path / "servers.log"
    procs = [Process(f"h{i}", database, redis_prefix, config, log) for i in range(2)]
    bots: list[subprocess.Popen[str]] = []
    stop = threading.Event()
    seen: dict[str, list[Any]] = {n: [] for n in KH}
    threads: list[threading.Thread] = []
    shared = redis.Redis.from_url("redis://127.0.0.1:6379/0", decode_responses=True)
    try:
        for p in procs:
            p.start()
        tokens = {
            n: LOOPBACK.post(f"{procs[0].http}/api/bots", json={"name": n}).json()["token"]
            for n in NATIVE
        }
        for n in KH:
            r = LOOPBACK.post(
                f"{procs[0].http}/kuh-handel/register",
                params={"player_id": n, "token": "secret"},
                timeout=10,
            )
            assert r.status_code == 201, r.text
        tid = organise(
            procs[0].http,
            ADMIN,
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
            bots.append(
                subprocess.Popen(
                    [CARDTABLE, "bot", "--server", procs[i].http, "--name", n]
                    + ["--tournament", tid, "--bot", "random"],
                    env={**os.environ, "CARDTABLE_TOKEN": tokens[n]},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        for i, n in enumerate(KH):  # rk0 on h0, rk1 on h1
            t = threading.Thread(
                target=kh_entrant, args=(n, procs[i], tid, stop, seen[n]), daemon=True
            )
            t.start()
            threads.append(t)
        deadline = time.monotonic() + 100

        def games() -> list[dict[str, Any]]:
            for p in procs:
                try:
                    reply = LOOPBACK.get(f"{p.http}/api/tournaments/{tid}/games")
                    return list(reply.json()["games"])
                except httpx.HTTPError:
                    continue  # that one is down
            raise AssertionError("no process answers")

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
                        raw = shared.hget(f"{redis_prefix}:tables", g["game_id"])
                        if raw is not None and stored(g["game_id"]):
                            owner = str(json.loads(raw)["owner"]).rsplit("-", 1)[0]
                            return g["game_id"], int(owner[1])
                assert time.monotonic() < deadline, f"no game runs: {games()} (see {log})"
                time.sleep(0.03)

        def settled(game_id: str) -> str:
            while True:
                state = {g["game_id"]: g["state"] for g in games()}[game_id]
                if state != "running":
                    return str(state)
                assert time.monotonic() < deadline, f"{game_id} never settled (see {log})"
                time.sleep(0.1)

        # 1. the host of the relayed Kuh-Handel seat dies; the owner plays on
        lasted, owner = running(set())
        host = 1 - owner
        procs[host].kill()
        procs[host].start()
        assert settled(lasted) == "done"
        # 2. the owner of a game with a relayed Kuh-Handel seat dies
        cut, owner2 = running({lasted})
        procs[owner2].kill()
        procs[owner2].start()
        assert settled(cut) == "void"
        office = procs[1 - owner2]
        finish(office, tid, bots, threads, deadline, lambda: f"{games()} (see {log})")
        listed = games()
        done = [g for g in listed if g["state"] == "done"]
        assert sorted(g["slot"] for g in done) == [0, 1, 2, 3], listed  # each exactly once
        assert [g["game_id"] for g in listed if g["state"] == "void"] == [cut], listed
        detail = LOOPBACK.get(f"{office.http}/api/games/{cut}").json()
        assert detail["status"] == "aborted", detail
        # the game whose host died counts, the relayed seat played by the fallback
        detail = LOOPBACK.get(f"{office.http}/api/games/{lasted}").json()
        assert detail["status"] == "finished", detail
        names = detail["record"]["names"]
        hosts = [str(h).rsplit("-", 1)[0] for h in detail["record"]["meta"]["seat_hosts"]]
        relayed = next(n for n in KH if hosts[names.index(n)] == f"h{host}")
        seat = names.index(relayed)
        lost = [f for f in detail["faults"] if f["seat"] == seat and f["code"] == "disconnected"]
        assert len(lost) == 1 and "server process" in lost[0]["reason"], detail["faults"]
        assert not detail["seats_detail"][seat]["taken_over"], detail["seats_detail"]
        table = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/standings").json()
        assert table["frozen"] and all(row["games"] == 4 for row in table["rows"]), table
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
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)
        for p in procs:
            p.stop()
