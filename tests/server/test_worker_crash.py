"""A worker of ``cardtable serve --workers 2`` killed with SIGKILL (issue 34, items 5 and 6).

Eight bots (the client library, random agents) play ranked games on the workers' one port; the
worker holding the most of them is killed with SIGKILL. Its bots reconnect to the survivor within
a fraction of a second, and the parent starts the worker again. Then:

- no fault is stored against any bot for it (server/departure.py): nothing charged for the
  connections the crash cut, nor for the moves below;
- within 60 s each worker holds at least 3 of the 8 bots (server/rebalance.py: the survivor,
  holding far more than its share, asks some to reconnect; on the code before, the restarted
  worker got none and the next kill dropped all eight).

And the surviving side: a bot connected to one process, seated at a table another process runs
(relayed), loses its process to SIGKILL with a request open; the owner's reaper detaches the seat
and the fallback plays it, with no fault (on the code before, one ``disconnect``).

Which worker holds a bot is read where the cluster keeps it: ``P:online`` in Redis (identity ->
process and connection), the processes alive by their leases ``P:lease:RUN``. Skipped with the
reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from cardtable.client import Client, agent_source
from cardtable.server.store.models import faults, games, players
from loopback import LOOPBACK
from patience import patience
from server.test_cluster import (
    CARDTABLE,
    RANKED_RANDOM,
    REDIS_URL,
    cluster,
    fresh_database,
    fresh_redis_prefix,
)
from server.wire import Wire

#: 25-45 s on the shared 2-core machine: the workers' start, the kill, the shares evening out
pytestmark = pytest.mark.timeout(240)

BOTS = 8


class Bots:
    """The bots, playing ranked games in a thread of their own until :meth:`stop`."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.url = url
        self.tokens = tokens
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()

    async def _bot(self, i: int, name: str) -> None:
        client = Client(
            self.url.replace("http", "ws", 1) + "/ws",
            agent_source("random", "kuhhandel", seed=i),
            name=name,
            token=self.tokens[name],
            threaded=False,
        )
        try:
            async with client:
                while True:
                    await client.play("ranked", "kuhhandel", rules="classic")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self.errors.append(exc)

    async def _main(self) -> None:
        tasks = [asyncio.create_task(self._bot(i, n)) for i, n in enumerate(self.tokens)]
        await asyncio.to_thread(self._stop.wait)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


def test_sigkill_of_a_worker_costs_no_fault_and_the_workers_share_the_bots_again(
    tmp_path: Path,
) -> None:
    with fresh_database("ct_workers") as database, fresh_redis_prefix() as prefix:
        _kill_a_worker(database, prefix, tmp_path)


def _kill_a_worker(database: str, prefix: str, tmp_path: Path) -> None:
    import redis

    config = tmp_path / "server.toml"
    config.write_text(RANKED_RANDOM)
    log = tmp_path / "servers.log"
    parent = subprocess.Popen(
        [CARDTABLE, "serve", "--workers", "2", "--port", "0", "--database-url", database,
         "--redis-url", REDIS_URL, "--redis-prefix", prefix, "--config", str(config),
         "--log-level", "info"],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        env={**os.environ, "CARDTABLE_LEASE_MS": "1500", "CARDTABLE_FILL_WAIT_MS": "1500",
             "CARDTABLE_DEADLINE_MS": "1000"},
    )  # fmt: skip
    store = redis.Redis.from_url(REDIS_URL, decode_responses=True, socket_timeout=5)
    engine = create_engine(database)
    bots: Bots | None = None

    def live() -> set[str]:
        return {k.rsplit(":", 1)[1] for k in store.scan_iter(f"{prefix}:lease:*")}

    def holders() -> Counter[str]:
        """How many of the bots each live worker holds."""
        runs = live()
        online = store.hgetall(f"{prefix}:online")
        return Counter(
            run
            for key, value in online.items()
            if key.startswith("bot:wb") and (run := value.split(" ", 1)[0]) in runs
        )

    def wait(what: str, check: Any, timeout: float = 60.0) -> float:
        start = time.monotonic()
        while not check():
            assert time.monotonic() - start < timeout, f"{what}: {holders()}; see {log}"
            assert bots is None or not bots.errors, (bots.errors, log)
            time.sleep(0.2)
        return time.monotonic() - start

    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)  \(2 workers", line)
        assert match, f"serve printed {line!r}; see {log}"
        url = match.group(1)
        wait("two workers up", lambda: len(live()) == 2)
        tokens = {}
        for i in range(BOTS):
            end = time.monotonic() + 30
            while True:  # a worker may still be starting to listen
                try:
                    reply = LOOPBACK.post(f"{url}/api/bots", json={"name": f"wb{i}"})
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < end, f"see {log}"
                    time.sleep(0.2)
            assert reply.status_code == 201, reply.text
            tokens[f"wb{i}"] = str(reply.json()["token"])
        bots = Bots(url, tokens)

        def playing() -> bool:
            with engine.connect() as conn:
                running = conn.execute(select(games.c.id).where(games.c.status == "running"))
                return sum(holders().values()) == BOTS and running.first() is not None

        took = wait("all bots connected and a game running", playing)
        print(f"bots connected and playing after {took:.1f} s")
        before = holders()
        victim = before.most_common(1)[0][0]
        children = subprocess.run(
            ["pgrep", "-P", str(parent.pid)], capture_output=True, text=True, check=True
        ).stdout.split()
        name = victim.rsplit("-", 1)[0]  # the --instance of the worker (main1, main2)
        pid = next(
            int(c)
            for c in children
            if Path(f"/proc/{c}/cmdline").read_bytes().split(b"\0")[-2] == name.encode()
        )
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        # the survivor takes the victim's bots at once: every bot on it
        rushed = wait("the bots back on the survivor", lambda: holders().get(victim, 0) == 0)
        after = holders()

        def shared() -> bool:
            now = holders()
            return len(now) == 2 and victim not in now and min(now.values()) >= 3

        # The 60 s count from the kill on an idle machine; a restarted worker's start-up
        # alone took 27 s at load 28. So the restart gets its own generous wait, and the 60 s
        # are what the rebalancing itself may take once the worker is back: a loaded machine
        # slows the test down instead of failing it.
        restarted = wait("the killed worker restarted", lambda: len(live() - {victim}) == 2, 180)
        wait("each worker holding at least 3 of the 8 bots", shared, 60.0)
        balanced_in = time.monotonic() - killed_at
        print(f"the killed worker was back {rushed + restarted:.1f} s after the kill")
        end = holders()
        moves = [line for line in log.read_text().splitlines() if "rebalance: holding" in line]
        print(
            f"before the kill {dict(before)}; {rushed:.1f} s after it {dict(after)}; "
            f"{balanced_in:.1f} s after it {dict(end)}; moves: {moves}"
        )
        with engine.connect() as conn:
            charged = conn.execute(
                select(players.c.name, faults.c.code, faults.c.reason)
                .join(players, players.c.id == faults.c.player_id)
                .where(players.c.name.like("wb%"))
            ).all()
        assert not [f for f in charged if f.code in ("disconnect", "disconnected", "left")], (
            charged,
            log,
        )
    finally:
        if bots is not None:
            bots.stop()
        parent.send_signal(signal.SIGINT)
        try:
            parent.wait(timeout=30)
        except subprocess.TimeoutExpired:
            parent.kill()
            parent.wait()
        engine.dispose()
        store.close()


def test_sigkill_of_a_relaying_process_charges_the_relayed_seat_no_fault(tmp_path: Path) -> None:
    with fresh_database("ct_relayed") as database, fresh_redis_prefix() as prefix:
        p0, p1 = cluster(["r0", "r1"], database, prefix, tmp_path, RANKED_RANDOM)
        for p in (p0, p1):
            # the three bots wait for each other (house bots fill the fourth seat after 6 s)
            p.env = {"CARDTABLE_FILL_WAIT_MS": "6000"}
        engine = create_engine(database)
        bots: Bots | None = None
        try:
            p0.start()
            p1.start()
            token = p1.register("relayed")
            wire = Wire(p1.ws)
            assert wire.hello_bot("relayed", token)["type"] == "welcome"
            wire.send({"type": "join", "lobby": "ranked", "game": "kuhhandel", "rules": "classic"})
            bots = Bots(p0.http, {n: p0.register(n) for n in ("home0", "home1")})
            request = wire.expect("request", timeout=60)  # its table runs on r0 (two bots of 3)
            game_id = str(request["game_id"])
            with engine.connect() as conn:
                instance = conn.execute(select(games.c.instance).where(games.c.id == game_id))
                assert str(instance.scalar()).startswith("r0-"), "the table did not run on r0"
            p1.kill()  # the relayed bot's process dies with its request open
            wire.ws.close()
            end = time.monotonic() + patience(90)
            while True:
                with engine.connect() as conn:
                    status = conn.execute(select(games.c.status).where(games.c.id == game_id))
                    if status.scalar() != "running":
                        break
                assert time.monotonic() < end, f"the game did not end; see {p0.log}"
                time.sleep(0.3)
            with engine.connect() as conn:
                charged = conn.execute(
                    select(players.c.name, faults.c.code, faults.c.reason)
                    .join(players, players.c.id == faults.c.player_id)
                    .where(faults.c.game_id == game_id)
                ).all()
            assert [tuple(f) for f in charged if f.name == "relayed"] == [], p0.log
        finally:
            if bots is not None:
                bots.stop()
            p0.stop()
            p1.stop()
            engine.dispose()
