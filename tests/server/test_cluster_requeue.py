"""A bot queued for a ranked table when its process is killed gets a table after the restart
(issue #36: ``test_three_processes_one_competition_survive_sigkill`` hung once, a bot of the
killed process waiting for a table for ten minutes, ``queued True``, after one reconnect).

The race, provoked here on purpose: the bot's process (``k1``) is killed right after the bot
joined the ranked queue; the leader (``k0``) forms the bot's table from its queue entry while the
dead process's lease still runs (a table of one bot and house bots runs on that bot's process:
the dead one, which never starts it); the process is started again and the bot's client says
hello to it before that lease ran out. The ``welcome`` named the game the leader noted for the
bot (``P:seats``), the client asked to resume it, the request went to the dead process's channel
and nothing ever answered: the client waited for its seat, the server had it neither queued nor
seated. Now a process takes an earlier run of its own name for dead at once (as its reaper
always did), so the welcome names no seat there and the client joins the queue again.

The lease is made longer than a restart here (``LEASE_MS``) so that the hello always comes
before it runs out; in the full suite a quick restart (about 1.5 s on an idle machine) beat the
1.5 s lease by chance. Skipped with the reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from cardtable.client import Backoff, Client, GameReport, agent_source
from patience import patience
from server.test_cluster import RANKED_RANDOM, REDIS_URL, cluster, database, redis_prefix

pytestmark = pytest.mark.timeout(180)
__all__ = ["database", "redis_prefix"]  # fixtures

#: no validation game first: the bot goes straight into the ranked queue
CONFIG = RANKED_RANDOM + "validation_games = false\n"


def test_a_bot_queued_when_its_process_is_killed_gets_a_table_after_the_restart(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    leader, home = cluster(["k0", "k1"], database, redis_prefix, tmp_path, CONFIG)
    # a lease that outlives the restart (longer on a loaded machine, where starting is slower)
    lease_ms = str(int(patience(15) * 1000))
    for p in (leader, home):
        p.env = {"CARDTABLE_LEASE_MS": lease_ms}
    r = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        leader.start()
        _wait(lambda: str(r.get(f"{redis_prefix}:leader") or "").startswith("k0-"), "a leader")
        home.start()
        token = home.register("requeued")
        reports, waited = asyncio.run(_queued_through_a_restart(home, token, r, redis_prefix))
    finally:
        for p in (leader, home):
            p.stop()
        r.close()
    log = leader.log.read_text()
    assert reports is not None, f"no table {waited:.1f} s after the restart; see {leader.log}"
    assert [x.result.termination.value for x in reports] != ["aborted"], (reports, log[-2000:])
    assert len(reports) == 1 and reports[0].game == "kuhhandel", reports


async def _queued_through_a_restart(
    home: Any, token: str, r: redis.Redis, prefix: str
) -> tuple[list[GameReport] | None, float]:
    client = Client(
        home.ws,
        agent_source("random", "kuhhandel", seed=1),
        name="requeued",
        token=token,
        threaded=False,
        backoff=Backoff(first=0.2, most=0.5, give_up_after=patience(60.0), attempts=400),
    )
    key = f"{prefix}:q:kuhhandel:classic"
    async with client:
        play = asyncio.create_task(client.play("ranked", "kuhhandel", rules="classic"))
        # the bot is in the cluster's queue: kill its process at once
        await asyncio.to_thread(_wait, lambda: r.hlen(key) == 1, "the bot's queue entry")
        identity = next(iter(r.hkeys(key)))
        await asyncio.to_thread(home.kill)
        # the leader takes the entry for a table of the dead process (its lease still runs)
        seats = f"{prefix}:seats:{identity}"
        await asyncio.to_thread(_wait, lambda: r.hlen(seats) > 0, "the leader's table")
        assert not play.done()
        await asyncio.to_thread(home.start)
        restarted = time.monotonic()
        try:
            reports = await asyncio.wait_for(play, patience(30))
        except TimeoutError:
            print(f"client: game {client.game_id}, queued {client._queued}, {client.stats}")
            return None, time.monotonic() - restarted
    waited = time.monotonic() - restarted
    print(f"the bot's game ended {waited:.1f} s after the restart", flush=True)
    # the race was provoked: no table of the bot had started before the kill (none died)
    assert client.stats.lost_games == 0 and client.stats.reconnects == 1, client.stats
    return reports, waited


def _wait(check: Any, what: str) -> None:
    end = time.monotonic() + patience(20)
    while not check():
        assert time.monotonic() < end, f"waited for {what} in vain"
        time.sleep(0.05)
