"""A bot whose seat the leader gave at a table of a process that died before starting it (a
process of another name, its lease still running) gets a table once that process is reaped
(issue #36, the path left open by ``test_cluster_requeue``).

The race, set up on purpose: ``P:seats`` routes the bot to a game of ``k9-dead``, a process that
holds a lease and never answers (it died after the leader noted the seat, before it started the
table: the game is neither stored nor in ``P:tables``). The bot joins the ranked queue on the
living ``k0``; the seat elsewhere turns its join into a resume (``Lobby.join``), published to
the dead process's channel. When the lease runs out, ``k0``'s reaper reaps ``k9-dead``; before,
it told only the seats of games it found stored or in ``P:tables``, so nothing ever answered
the bot. Now every route to the reaped process ends with an aborted ``game_end``, and the bot
joins the queue again and plays. A short lease keeps it quick. Skipped with the reason when
PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import redis

from cardtable.client import Backoff, Client, agent_source
from patience import patience
from server.test_cluster import RANKED_RANDOM, REDIS_URL, cluster, database, redis_prefix

pytestmark = pytest.mark.timeout(120)
__all__ = ["database", "redis_prefix"]  # fixtures

CONFIG = RANKED_RANDOM + "validation_games = false\n"
DEAD = "k9-dead"
GAME = "0123456789abcdef"


def test_a_seat_at_a_table_a_dead_process_never_started_ends_when_it_is_reaped(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    (home,) = cluster(["k0"], database, redis_prefix, tmp_path, CONFIG)
    home.env = {"CARDTABLE_LEASE_MS": "1000"}
    r = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        home.start()
        token = home.register("stranded")
        # the dead process: a lease that still runs, seen, and the seat its table was to hold
        r.set(f"{redis_prefix}:lease:{DEAD}", "1", px=int(patience(3) * 1000))
        r.hset(f"{redis_prefix}:seen", DEAD, str(time.time()))
        r.hset(f"{redis_prefix}:seats:bot:stranded", GAME, DEAD)
        reports, client, ended = asyncio.run(_play(home.ws, token))
        left = r.hgetall(f"{redis_prefix}:seats:bot:stranded")
    finally:
        home.stop()
        r.close()
    assert reports is not None, f"no game: {client}; see {home.log}"
    assert len(reports) == 1 and reports[0].game_id != GAME, reports
    assert reports[0].result.termination.value != "aborted", reports
    assert GAME not in left  # the stale seat was deleted
    # the race was provoked: the join went to the dead process's table, whose reap ended it
    assert GAME in ended, ended


async def _play(ws: str, token: str) -> tuple[list | None, str, set[str]]:
    client = Client(
        ws,
        agent_source("random", "kuhhandel", seed=1),
        name="stranded",
        token=token,
        threaded=False,
        backoff=Backoff(first=0.2, most=0.5, give_up_after=patience(30.0), attempts=100),
    )
    async with client:
        assert client.welcome.get("games") == [GAME]  # the seat at the dead process's table
        try:
            reports = await asyncio.wait_for(
                client.play("ranked", "kuhhandel", rules="classic"), patience(20)
            )
        except TimeoutError:
            return None, f"game {client.game_id}, queued {client._queued}, {client.stats}", set()
    return reports, "", set(client._ended)  # the games it took a game_end of
