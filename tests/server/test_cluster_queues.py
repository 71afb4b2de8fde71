"""The leader reads every ranked queue of a cluster in one Redis round trip
(src/cardtable/server/cluster_queues.py): the entries of live processes, oldest first, per queue;
those of dead processes dropped and deleted. Skipped with the reason when Redis is unreachable."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from cardtable.server.cluster_queues import queue_key, read_queues
from server.test_cluster import REDIS_URL, fresh_redis_prefix

QUEUES = [("kuhhandel", "classic"), ("kuhhandel", "quick"), ("cunegonda", "classic")]


class CountedRedis:
    """A Redis client that counts its round trips: pipelines executed, commands sent alone."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.trips = 0

    def pipeline(self, transaction: bool = True) -> Any:
        pipe = self.redis.pipeline(transaction=transaction)
        execute = pipe.execute

        async def counted() -> Any:
            self.trips += 1
            return await execute()

        pipe.execute = counted
        return pipe

    def __getattr__(self, name: str) -> Any:  # a command sent alone is a round trip too
        command = getattr(self.redis, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.trips += 1
            return await command(*args, **kwargs)

        return counted


def entry(key: str, run: str, since: float) -> bytes:
    fields = {"key": key, "name": key, "player_id": 1, "run": run, "rating": 0.0, "since": since}
    return orjson.dumps(fields)


def test_every_queue_in_one_round_trip_and_the_dead_processes_entries_deleted() -> None:
    import redis.asyncio

    async def scenario(prefix: str) -> None:
        client = redis.asyncio.Redis.from_url(REDIS_URL, decode_responses=True)
        try:
            counted = CountedRedis(client)
            asked: list[list[str]] = []

            async def alive(runs: list[str]) -> set[str]:
                asked.append(runs)
                return {"p1-aa", "p2-bb"}

            # empty queues: one round trip, nobody asked about
            empty = await read_queues(counted, prefix, QUEUES, alive)
            assert empty.entries == {q: [] for q in QUEUES} and empty.loads == {}
            assert counted.trips == 1 and asked == []

            first, second, third = (queue_key(prefix, q) for q in QUEUES)
            await client.hset(
                first, mapping={"b": entry("b", "p2-bb", 20), "a": entry("a", "p1-aa", 10)}
            )
            await client.hset(second, mapping={"c": entry("c", "p1-aa", 5)})
            await client.hset(f"{prefix}:load", mapping={"p1-aa": 2, "p2-bb": 0})
            counted.trips = 0
            live = await read_queues(counted, prefix, QUEUES, alive)
            assert counted.trips == 1  # the queues and the loads; the leases (alive) are one MGET
            assert [e["key"] for e in live.entries[QUEUES[0]]] == ["a", "b"]  # oldest first
            assert [e["key"] for e in live.entries[QUEUES[1]]] == ["c"]
            assert live.entries[QUEUES[2]] == []
            assert live.loads == {"p1-aa": 2, "p2-bb": 0}
            assert asked[-1] == ["p1-aa", "p2-bb"]

            # a dead process's entries in two queues: left out, and deleted in one more trip
            await client.hset(first, mapping={"d": entry("d", "p3-dead", 1)})
            await client.hset(third, mapping={"e": entry("e", "p3-dead", 2)})
            counted.trips = 0
            read = await read_queues(counted, prefix, QUEUES, alive)
            assert counted.trips == 2
            assert [e["key"] for e in read.entries[QUEUES[0]]] == ["a", "b"]
            assert read.entries[QUEUES[2]] == []
            assert sorted(await client.hkeys(first)) == ["a", "b"]
            assert await client.hkeys(third) == []
        finally:
            await client.aclose()

    with fresh_redis_prefix() as prefix:
        asyncio.run(scenario(prefix))
