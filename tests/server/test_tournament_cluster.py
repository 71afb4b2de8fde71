"""A tournament on a cluster: two ``cardtable serve`` processes share a fresh PostgreSQL
database and a Redis prefix; the organiser works through one process, the field (three native
``cardtable bot`` processes and one Kuh-Handel client, one mixed table) is connected to the
other, which schedules the games. That process is killed with SIGKILL while a game runs and
started again under its name; the tournament completes with every planned game played exactly
once, read through the other process. A second test splits a native field over both processes:
every table seats entrants of both (relayed seats), through a SIGKILL of the process running a
game. Skipped with the reason when PostgreSQL or Redis is unreachable.
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

import pytest

from loopback import LOOPBACK

# the Kuh-Handel test client (see tests/compat/test_tournament_pyhandel.py for why sys.path)
TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from compat.khclient import KhClient, Rejected, Script, play  # noqa: E402
from server.test_cluster import CARDTABLE, Process, database, redis_prefix  # noqa: E402, F401
from server.wire import organise  # noqa: E402

pytestmark = pytest.mark.timeout(300)

ADMIN = "organiser-secret"
NATIVE = ["cn0", "cn1", "cn2"]
KH = "ckh"


def kh_bot(proc: Process, tid: str, stop: threading.Event, out: dict[str, Any]) -> None:
    """A Kuh-Handel client that enters ``tid`` again after every game, and after its server
    went away, until the tournament is over (410)."""
    games = 0
    while not stop.is_set():
        url = f"ws://127.0.0.1:{proc.port}/kuh-handel/tournament-{tid}"
        try:
            client = KhClient(
                f"{url}?player_id={KH}&token=secret&raise_faulty_action_warning=false"
            )
        except Rejected as exc:
            if exc.status == 410:
                break
            time.sleep(0.1)
            continue
        except (OSError, TimeoutError, AssertionError):  # the process is down or starting
            # its operator's bot tries again
            time.sleep(0.2)
            continue
        try:
            if play(client, Script(KH), timeout=120) is not None:
                games += 1
        except (OSError, TimeoutError, AssertionError):
            pass
        finally:
            client.close()
    out["games"] = games


def test_a_mixed_tournament_on_a_cluster_survives_sigkill(
    database: str,  # noqa: F811
    redis_prefix: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", ADMIN)
    config = tmp_path / "server.toml"
    config.write_text('[server]\nhouse_bots = { kuhhandel = "random" }\n')
    log = tmp_path / "servers.log"
    host, office = (Process(f"t{i}", database, redis_prefix, config, log) for i in range(2))
    bots: list[subprocess.Popen[str]] = []
    stop = threading.Event()
    kh_out: dict[str, Any] = {}
    try:
        host.start()
        office.start()
        tokens = {
            n: LOOPBACK.post(f"{office.http}/api/bots", json={"name": n}).json()["token"]
            for n in NATIVE
        }
        r = LOOPBACK.post(
            f"{office.http}/kuh-handel/register", params={"player_id": KH, "token": "secret"}
        )
        assert r.status_code == 201, r.text
        tid = organise(
            office.http,
            ADMIN,
            name="cluster cup",
            seats=4,
            rules="competition",
            entrants=[*NATIVE, KH],
            deals=1,
            seed=21,
            deadline_ms=2000,
        )["id"]
        for n in NATIVE:
            bots.append(
                subprocess.Popen(
                    [
                        CARDTABLE,
                        "bot",
                        "--server",
                        host.http,
                        "--name",
                        n,
                        "--tournament",
                        tid,
                        "--bot",
                        "random",
                    ],
                    env={**os.environ, "CARDTABLE_TOKEN": tokens[n]},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        kh = threading.Thread(target=kh_bot, args=(host, tid, stop, kh_out), daemon=True)
        kh.start()
        end = time.monotonic() + 120
        while True:
            counts = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}").json()["games"]
            if counts["done"] >= 1 and counts["running"] >= 1:
                break
            assert time.monotonic() < end, counts
            time.sleep(0.1)
        host.kill()
        host.start()  # on its port, under its name: it settles what its predecessor left
        end = time.monotonic() + 180
        while True:
            info = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}").json()
            if info["status"] == "finished":
                break
            assert time.monotonic() < end, info
            time.sleep(0.3)
        for b in bots:
            out, _ = b.communicate(timeout=60)
            assert b.returncode == 0 and f"tournament {tid} is over" in out, out
        kh.join(timeout=30)
        games = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/games").json()["games"]
        done = [g for g in games if g["state"] == "done"]
        assert sorted(g["slot"] for g in done) == [0, 1, 2, 3]  # each exactly once
        void = [g for g in games if g["state"] == "void"]
        assert void and {g["slot"] for g in void} <= {0, 1, 2, 3}
        assert kh_out["games"] >= 3  # its games (one cut off by the kill, maybe after its end)
        for g in done:
            meta = LOOPBACK.get(
                f"{office.http}/api/games/{g['game_id']}/record", timeout=10
            ).json()["meta"]
            assert sorted(meta["seat_protocols"]) == ["kuh-handel", "native", "native", "native"]
        table = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/standings").json()
        assert table["frozen"] and all(row["games"] == 4 for row in table["rows"])
    finally:
        stop.set()
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)
        for p in (host, office):
            p.stop()


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

    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", ADMIN)
    config = tmp_path / "server.toml"
    config.write_text(
        '[server]\nhouse_bots = { kuhhandel = "random" }\nfallback_bot = { kuhhandel = "random" }\n'
    )
    log = tmp_path / "servers.log"
    procs = [Process(f"s{i}", database, redis_prefix, config, log) for i in range(2)]
    bots: list[subprocess.Popen[str]] = []
    shared = redis.Redis.from_url("redis://127.0.0.1:6379/0", decode_responses=True)
    try:
        for p in procs:
            p.start()
        tokens = {
            n: LOOPBACK.post(f"{procs[0].http}/api/bots", json={"name": n}).json()["token"]
            for n in SPLIT
        }
        tid = organise(
            procs[0].http,
            ADMIN,
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
            bots.append(
                subprocess.Popen(
                    [CARDTABLE, "bot", "--server", home.http, "--name", n]
                    + ["--tournament", tid, "--bot", "random"],
                    env={**os.environ, "CARDTABLE_TOKEN": tokens[n]},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        office = procs[0]

        def games() -> list[dict[str, Any]]:
            reply = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/games")
            return list(reply.json()["games"])

        # kill the process running a game until a kill cuts one off (a game may end first)
        killed: str | None = None
        end = time.monotonic() + 90
        while killed is None:
            running = [g for g in games() if g["state"] == "running" and g["game_id"]]
            raw = shared.hget(f"{redis_prefix}:tables", running[0]["game_id"]) if running else None
            if raw is None:
                assert time.monotonic() < end, games()
                time.sleep(0.05)
                continue
            owner = str(json.loads(raw)["owner"]).rsplit("-", 1)[0]
            proc = next(p for p in procs if p.name == owner)
            office = procs[1 - procs.index(proc)]
            proc.kill()
            proc.start()  # on its port, under its name
            while True:  # that game settles: void (cut off) or done (it ended first)
                state = {g["game_id"]: g["state"] for g in games()}[running[0]["game_id"]]
                if state != "running":
                    break
                assert time.monotonic() < end, games()
                time.sleep(0.1)
            if state == "void":
                killed = running[0]["game_id"]
        while True:
            info = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}").json()
            if info["status"] == "finished":
                break
            if time.monotonic() > end:
                for b in bots:
                    b.kill()
                outs = [b.communicate()[0][-1500:] for b in bots]
                room = shared.hgetall(f"{redis_prefix}:tw:{tid}")
                raise AssertionError(f"not finished: {games()} {room} {outs}")
            time.sleep(0.2)
        for n, b in zip(SPLIT, bots, strict=True):
            try:
                out, _ = b.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                b.kill()
                raise AssertionError(f"{n} still plays: {b.communicate()[0][-2000:]}") from None
            assert b.returncode == 0 and f"tournament {tid} is over" in out, out
        listed = games()
        done = [g for g in listed if g["state"] == "done"]
        assert sorted(g["slot"] for g in done) == [0, 1, 2, 3]  # each exactly once
        assert killed in {g["game_id"] for g in listed if g["state"] == "void"}
        for g in done:
            record = LOOPBACK.get(f"{office.http}/api/games/{g['game_id']}/record")
            meta = record.json()["meta"]
            assert sorted(record.json()["names"]) == SPLIT  # the entrants, no house bot
            hosts = [str(h).rsplit("-", 1)[0] for h in meta["seat_hosts"]]
            # two entrants of each process at every table, whichever process ran it
            assert sorted(hosts) == ["s0", "s0", "s1", "s1"], meta
        table = LOOPBACK.get(f"{office.http}/api/tournaments/{tid}/standings").json()
        assert table["frozen"] and all(row["games"] == 4 for row in table["rows"])
    finally:
        shared.close()
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)
        for p in procs:
            p.stop()
