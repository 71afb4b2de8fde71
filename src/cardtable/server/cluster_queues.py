"""The leader's read of the ranked queues of a cluster: all of them in one Redis round trip.

The leader of a cluster (:mod:`cardtable.server.cluster`) forms tables from the ranked queues
(``P:q:GAME:RULES``, one per game and rule set: six in the default configuration) at every
round of the matchmaker, ten a second. Read one ``HGETALL`` at a time, each queue cost a round
trip, empty or not: about 1.3% of a core per cluster, all the time. :func:`read_queues` sends
every queue's ``HGETALL`` and the processes' loads (``P:load``) in one pipeline, checks the
leases of the processes the entries name in one ``MGET`` (:meth:`Cluster.alive`), and deletes
the entries of the dead ones in one more pipeline: an idle cluster pays one round trip a round.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

#: A ranked queue: the game and the rules' name.
Queue = tuple[str, str]


@dataclass
class QueueReading:
    """The live entries of each queue read, oldest first (the JSON each process wrote), and
    the number of tables each process runs."""

    entries: dict[Queue, list[dict[str, Any]]]
    loads: dict[str, int]


def queue_key(prefix: str, queue: Queue) -> str:
    """The Redis hash of a ranked queue."""
    return f"{prefix}:q:{queue[0]}:{queue[1]}"


async def read_queues(
    redis: Any,
    prefix: str,
    queues: Sequence[Queue],
    alive: Callable[[list[str]], Awaitable[set[str]]],
) -> QueueReading:
    """Every queue of ``queues`` and the loads, in one round trip; entries whose process is
    not ``alive`` are left out and deleted from Redis."""
    pipe = redis.pipeline(transaction=False)
    for queue in queues:
        pipe.hgetall(queue_key(prefix, queue))
    pipe.hgetall(f"{prefix}:load")
    *raws, loads = await pipe.execute()
    read = {
        queue: [orjson.loads(v) for v in raw.values()]
        for queue, raw in zip(queues, raws, strict=True)
    }
    runs = sorted({e["run"] for entries in read.values() for e in entries})
    live = await alive(runs) if runs else set()
    gone = {q: [e["key"] for e in entries if e["run"] not in live] for q, entries in read.items()}
    if any(gone.values()):
        pipe = redis.pipeline(transaction=False)
        for queue, keys in gone.items():
            if keys:
                pipe.hdel(queue_key(prefix, queue), *keys)
        await pipe.execute()
    return QueueReading(
        entries={
            queue: sorted((e for e in entries if e["run"] in live), key=lambda e: e["since"])
            for queue, entries in read.items()
        },
        loads={str(run): int(n) for run, n in loads.items()},
    )
