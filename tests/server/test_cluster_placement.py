"""Where a cluster's ranked tables run (issue 22): the leader groups bots connected to one
process, and a table runs on the process that hosts most of its seats (ties: the one running
the fewest tables), so tables spread over the processes and a relayed seat is the exception.

The matching rule is checked as a function; then two ``cardtable serve`` processes on a fresh
PostgreSQL database and a Redis prefix of their own (skipped with the reason without them), with
eight bots joining alternately on one and the other, must start each process's bots at a table
of that process, with no seat relayed.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from cardtable.client import Client, GameReport, agent_source
from cardtable.server.cluster import choose_owner
from cardtable.server.lobby import Member, QueueEntry, next_cluster_table
from cardtable.server.store.models import game_seats, games, players
from loopback import LOOPBACK
from server.test_cluster import (
    RANDOM_BOTS,
    RANKED_RANDOM,
    REDIS_URL,
    Process,
    cluster,
    database,
    redis_prefix,
    start_together,
)

__all__ = ["database", "redis_prefix"]  # fixtures


def _entry(name: str, rating: float = 0.0, since: float = 0.0) -> QueueEntry:
    return QueueEntry(Member(None, f"bot:{name}", name, "bot", 1), rating, since)  # type: ignore[arg-type]


def _host(entry: QueueEntry) -> str:
    return entry.member.name[0]  # "a1" is connected to process a


def _next(queue: list[QueueEntry], now: float, **kw: float) -> list[str] | None:
    options = {"local_wait": 1.0, "fill_wait": 3.0, "slack": 3.0, **kw}
    chosen = next_cluster_table(queue, 4, now, host=_host, **options)  # type: ignore[arg-type]
    return None if chosen is None else [e.member.name for e in chosen]


def test_bots_of_one_process_are_grouped_before_the_oldest_order() -> None:
    names = ["a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4"]
    queue = [_entry(n, since=i * 0.01) for i, n in enumerate(names)]
    assert _next(queue, now=0.1) == ["a1", "a2", "a3", "a4"]
    rest = [e for e in queue if _host(e) == "b"]
    assert _next(rest, now=0.1) == ["b1", "b2", "b3", "b4"]


def test_a_bot_without_company_on_its_process_waits_then_meets_anyone() -> None:
    queue = [_entry(n, since=i * 0.01) for i, n in enumerate(["c1", "a1", "a2", "b1", "b2"])]
    # nobody has company enough on its own process: wait for more bots of it
    assert _next(queue, now=0.5) is None
    # after local_wait the oldest takes the whole queue (the closest ratings; its own process
    # first among equals: there is none)
    assert _next(queue, now=1.05) == ["c1", "a1", "a2", "b1"]


def test_local_then_wide_then_house_bots() -> None:
    queue = [_entry(n, since=i * 0.01) for i, n in enumerate(["c1", "a1", "a2", "b1", "b2", "a3"])]
    # three bots of a wait for a fourth, c1 for company or local_wait
    assert _next(queue, now=0.5) is None
    queue.append(_entry("a4", since=0.3))
    # a's table goes first though c1 waited longer (c1 loses at most local_wait)
    assert _next(queue, now=0.5) == ["a1", "a2", "a3", "a4"]
    # two bots left after the fill wait: they play with two house bots
    lone = [_entry("c1", since=0.0), _entry("b1", since=0.1)]
    assert _next(lone, now=2.9) is None
    assert _next(lone, now=3.0) == ["c1", "b1"]


def test_ratings_far_apart_on_one_process_take_the_whole_queue() -> None:
    # a1's own process offers a table 10 points away; the queue one within 1 point
    queue = [
        _entry("a1", 20.0, 0.0),
        _entry("a2", 30.0, 0.01),
        _entry("a3", 30.0, 0.02),
        _entry("a4", 30.0, 0.03),
        _entry("b1", 20.5, 0.04),
        _entry("b2", 21.0, 0.05),
        _entry("b3", 19.5, 0.06),
    ]
    assert _next(queue, now=0.1) == ["a1", "b1", "b3", "b2"]
    # within the slack the process's own bots are preferred
    assert _next(queue, now=0.1, slack=10.0) == ["a1", "a2", "a3", "a4"]


def test_one_process_alone_keeps_the_oldest_with_the_closest_ratings() -> None:
    queue = [_entry(f"a{i}", rating=r, since=i) for i, r in enumerate([5.0, 9.0, 4.0, 6.0, 5.5])]
    assert _next(queue, now=10.0, local_wait=0.0) == ["a0", "a4", "a2", "a3"]


def test_a_table_runs_where_most_of_its_seats_are_ties_on_the_least_loaded() -> None:
    assert choose_owner(["a", "b", "a", "c"], {"a": 9, "b": 0}) == "a"
    assert choose_owner(["a", "b", "b", "a"], {"a": 3, "b": 2}) == "b"
    assert choose_owner(["a", "b", "b", "a"], {"a": 2, "b": 3}) == "a"
    assert choose_owner(["b", "a"], {}) == "a"  # equal loads: by name, the same on every leader


@pytest.mark.timeout(180)
def test_tables_of_bots_of_one_process_run_there_without_relays(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    import redis

    procs = cluster(["pa", "pb"], database, redis_prefix, tmp_path, RANKED_RANDOM)
    shared = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        for p in procs:
            p.start()
        names = [f"{'ab'[i % 2]}{i // 2}" for i in range(8)]  # a0 b0 a1 b1 ...
        tokens = {name: procs[0].register(f"pl{name}") for name in names}
        # the test holds the leader's lease while the bots join, one after the other and
        # alternately on the two processes, so that the queue is whole and in a known order
        # when the matching starts (whatever the machine's speed)
        shared.set(f"{redis_prefix}:leader", "the-test", px=120_000)
        reports = asyncio.run(
            _join_alternately_then_play(procs, names, tokens, shared, redis_prefix)
        )
        metrics = [LOOPBACK.get(f"{p.http}/api/metrics").json() for p in procs]
    finally:
        for p in procs:
            p.stop()
        shared.close()

    assert all(len(r) == 1 for r in reports.values()), reports
    engine = create_engine(database)
    with engine.connect() as conn:
        instance = {r.id: r.instance for r in conn.execute(select(games.c.id, games.c.instance))}
        seats = conn.execute(
            select(game_seats.c.game_id, players.c.name).join(
                players, players.c.id == game_seats.c.player_id
            )
        ).all()
    engine.dispose()
    hosts: dict[str, set[str]] = {}
    for s in seats:
        if s.name.startswith("pl"):
            hosts.setdefault(s.game_id, set()).add("p" + s.name[2])
    assert len(hosts) == 2, hosts
    # each table seated the bots of one process and ran on that process
    for game_id, where in hosts.items():
        assert len(where) == 1, f"game {game_id} seated bots of {sorted(where)}"
        assert instance[game_id].rsplit("-", 1)[0] == where.pop(), instance[game_id]
    # so the tables spread over both processes, and not one seat nor action was relayed
    placement = [m["placement"] for m in metrics]
    assert [p["tables_started"] for p in placement] == [1, 1], placement
    assert [p["seats_local"] for p in placement] == [4, 4], placement
    assert [p["seats_relayed"] + p["actions_relayed"] for p in placement] == [0, 0], placement


async def _join_alternately_then_play(
    procs: list[Process],
    names: list[str],
    tokens: dict[str, str],
    shared: object,
    prefix: str,
) -> dict[str, list[GameReport]]:
    queue = f"{prefix}:q:kuhhandel:classic"
    reports: dict[str, list[GameReport]] = {}

    async def bot(i: int, name: str, client: Client) -> None:
        async with client:
            reports[name] = await client.play("ranked", "kuhhandel", rules="classic")

    tasks = []
    for i, name in enumerate(names):
        client = Client(
            procs[i % 2].ws,
            agent_source("random", "kuhhandel", seed=i),
            name=f"pl{name}",
            token=tokens[name],
            threaded=False,
        )
        tasks.append(asyncio.create_task(bot(i, name, client)))
        end = time.monotonic() + 60
        while await asyncio.to_thread(shared.hlen, queue) < i + 1:  # type: ignore[attr-defined]
            assert time.monotonic() < end, f"{name} did not reach the queue"
            await asyncio.sleep(0.05)
    await asyncio.to_thread(shared.delete, f"{prefix}:leader")  # type: ignore[attr-defined]
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
    return reports


@pytest.mark.timeout(120)
def test_a_tournament_table_between_equals_runs_on_the_less_busy_process(
    database: str, redis_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four native entrants, two connected to each of two processes: every game is a tie (two
    seats each). ``ta`` (first by name) runs two practice tables whose bot never answers (the
    deadline is a minute: they keep running), so every game runs on ``tb`` (``games.instance``),
    whose load stays below two; the tie-break by name alone put them all on ``ta``."""
    import subprocess

    from server.test_cluster import CARDTABLE
    from server.wire import Wire, organise

    admin = "organiser-secret"
    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", admin)
    busy, idle = cluster(["ta", "tb"], database, redis_prefix, tmp_path, "[server]\n" + RANDOM_BOTS)
    log = busy.log
    busy.env = {"CARDTABLE_DEADLINE_MS": "60000"}  # the practice tables' bot is silent
    entrants = ["le0", "le1", "le2", "le3"]
    bots: list[subprocess.Popen[str]] = []
    idlers: list[Wire] = []
    try:
        start_together([busy, idle])
        tokens = {
            n: LOOPBACK.post(f"{busy.http}/api/bots", json={"name": n}).json()["token"]
            for n in [*entrants, "idler0", "idler1"]
        }
        practice = []
        for n in ("idler0", "idler1"):
            wire = Wire(busy.ws)
            idlers.append(wire)
            wire.hello_bot(n, tokens[n])
            wire.send({"type": "join", "lobby": "practice", "game": "kuhhandel"})
            practice.append(wire.expect("game_start", timeout=15)["game_id"])
        tid = organise(
            idle.http,
            admin,
            name="load cup",
            seats=4,
            rules="competition",
            entrants=entrants,
            deals=1,
            seed=3,
            deadline_ms=2000,
            absent_after_ms=600_000,  # never a house bot for an entrant of the other process
        )["id"]
        for i, n in enumerate(entrants):
            home = (busy, idle)[i % 2]  # le0, le2 on ta; le1, le3 on tb
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
        end = time.monotonic() + 60
        while True:
            info = LOOPBACK.get(f"{idle.http}/api/tournaments/{tid}").json()
            if info["status"] == "finished":
                break
            assert time.monotonic() < end, f"not finished: {info} (see {log})"
            time.sleep(0.2)
        for b in bots:
            out, _ = b.communicate(timeout=30)
            assert b.returncode == 0 and f"tournament {tid} is over" in out, out
        listed = LOOPBACK.get(f"{idle.http}/api/tournaments/{tid}/games").json()["games"]
        done = [g["game_id"] for g in listed if g["state"] == "done"]
        running = [LOOPBACK.get(f"{idle.http}/api/games/{g}").json()["status"] for g in practice]
    finally:
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)
        for wire in idlers:
            wire.close()
        busy.stop()
        idle.stop()
    assert len(done) == 4, listed
    assert running == ["running", "running"]  # ta was busy all along
    engine = create_engine(database)
    with engine.connect() as conn:
        where = {
            r.id: r.instance.rsplit("-", 1)[0]
            for r in conn.execute(select(games.c.id, games.c.instance).where(games.c.id.in_(done)))
        }
    engine.dispose()
    assert sorted(where.values()) == ["tb"] * 4, where
