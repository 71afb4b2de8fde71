"""Many server processes, one competition: what the processes share through Redis.

Only used when the server has a ``redis_url`` (``cardtable serve --redis-url``, or ``--workers
N``); a single process (``make run``) never imports Redis. PostgreSQL stays the store of record;
Redis holds what is shared and short-lived:

- ``P:lease:RUN`` (a key with a TTL, refreshed every ``lease_ms / 4``): this process is alive.
  ``RUN`` is the process's instance name plus a random suffix, new at every start; it is what
  ``games.instance`` stores. ``P:seen`` (hash RUN -> unix time) is when it was last alive.
- ``P:online`` (hash identity -> "RUN CONN"): the one live connection per identity. A hello
  anywhere replaces the entry; the previous holder's process is told to close it (``replaced``).
- ``P:q:GAME:RULES`` (hash identity -> entry): the ranked queue. One process at a time, the
  leader (``P:leader``, a lease), forms tables from it, grouping the bots connected to one
  process first (``lobby.next_cluster_table``); a table runs on the process most of its bots
  are connected to (ties: the one running the fewest tables, ``P:load``), told by the leader
  on that process's channel.
- ``P:load`` (hash RUN -> running tables): how busy each process is, for those ties (and
  those of a tournament's tables, ``tournament_lobby.py``).
- ``P:tables`` (hash game -> summary with its owner) and ``P:seats:IDENTITY`` (hash game ->
  owner): the running tables and who sits where, whatever process runs them.
- ``P:to:RUN`` (pub/sub): messages to one process; ``P:all``: to every process. The ``kh_*``
  messages carry a Kuh-Handel bot's frames between its process and a tournament table's
  (:mod:`cardtable.server.compat.relay`).

**A seat's traffic is relayed, not redirected, and rare.** A table runs on one process (its
owner); the leader groups bots of one process at one table (for ``local_wait_ms`` at most, and
unless the ratings ask otherwise), so most tables need no relay. A seat whose bot is connected
to another process (its host) is a :class:`RelayPeer` on the owner: the frames for it are
published on the host's channel, and the host publishes the bot's actions on the owner's. With
``--workers`` every process listens on one port (``SO_REUSEPORT``) and the kernel picks the
process of each connection, so a client could not be sent to a particular one; and relaying
keeps the client and the protocol unchanged. Its cost is two Redis hops per
decision (about 0.1 ms each on one machine); everything a process publishes goes out through one
connection in order, in pipelined batches.

**Spectators** of a table held by another process are relayed the same way: the owner's table
sends them what it sends every spectator, public events only.

**A process that dies** stops refreshing its lease. Every process runs a reaper each
``lease_ms / 2``: the games still ``running`` in the database whose process has no lease are
marked aborted (``UPDATE ... WHERE status = 'running'``: never twice, and never a game whose end
was committed), as having ended when that process was last seen; every process is told, and the
clients seated in those games through another process get ``game_end`` with the stored result
(after the commit): aborted, or finished if its end was committed first (cluster_ends.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from cardtable.protocol import dumps
from cardtable.server.cluster_ends import hold_ends, stored_ends
from cardtable.server.cluster_people import PeopleRelay
from cardtable.server.cluster_queues import Queue, read_queues
from cardtable.server.compat.relay import KhRelays, RelayedBotConnection
from cardtable.server.config import redacted_url as redacted
from cardtable.server.metrics import Stamp
from cardtable.server.reaped_routes import drop_route, end_reaped_routes

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from cardtable.server.connection import Session
    from cardtable.server.lobby import Hub, Member, QueueEntry
    from cardtable.server.table import Table

log = logging.getLogger("cardtable.server.cluster")

#: Compare-and-delete of a hash field: delete it only if its value contains ARGV[2].
_DEL_IF = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and string.find(v, ARGV[2], 1, true) then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""
#: The leader's lease: renew it if ARGV[1] holds it, take it if no one does; 1 if ARGV[1] leads.
_LEAD = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
#: Set a hash field, returning its previous value.
_SWAP = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return v
"""

#: A Redis command queued for the publisher: its name and arguments.
Op = tuple[Any, ...]


class RelayPeer:
    """A client connected to another process, as a table on this one sees it (a ``Peer``)."""

    __slots__ = (
        "bot_version",
        "cid",
        "cluster",
        "events_in_request",
        "key",
        "push_observations",
        "run",
    )

    def __init__(
        self, cluster: Cluster, run: str, cid: str, key: str, eir: bool, push: bool
    ) -> None:
        self.cluster = cluster
        self.run = run
        self.cid = cid
        self.key = key
        self.events_in_request = eir
        self.push_observations = push
        #: the bot's hello version, where the seat's owner passed it on (a tournament's room)
        self.bot_version: str | None = None

    def send(self, message: Mapping[str, Any]) -> None:
        ended = message.get("game_id") if message.get("type") == "game_end" else None
        self.cluster.to(
            self.run, {"op": "frame", "conn": self.cid, "text": dumps(message), "ended": ended}
        )

    def send_text(self, text: str, stamp: Stamp | None = None) -> None:
        self.cluster.to(self.run, {"op": "frame", "conn": self.cid, "text": text})
        if stamp is not None:
            stamp.left()


class Cluster:
    """This process's part of the cluster (see the module docstring)."""

    def __init__(self, hub: Hub, url: str, prefix: str, lease_ms: int) -> None:
        from redis.asyncio import BlockingConnectionPool, Redis

        self.hub = hub
        self.url = url
        self.p = prefix
        self.lease_s = max(0.5, lease_ms / 1000.0)
        #: this process in the cluster: ``games.instance`` of its games (new at every start)
        self.run = hub.settings.instance
        #: the instance name it was started with: an earlier run of the same name is dead
        self.name = self.run.rsplit("-", 1)[0]
        # a bounded pool that makes callers wait for a connection (hundreds of joins at once
        # must not open hundreds of connections, nor fail with "Too many connections")
        pool = BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=32, timeout=30
        )
        self.redis: Redis = Redis(connection_pool=pool)
        #: this process's sessions by connection id
        self.sessions: dict[str, Session] = {}
        #: identity -> {game: owner run} for seats in games other processes run
        self.routes: dict[str, dict[str, str]] = {}
        #: spectator connection -> (game, owner run)
        self.watching: dict[str, tuple[str, str]] = {}
        #: (host run, connection) -> its relay on this process
        self.relays: dict[tuple[str, str], RelayPeer] = {}
        #: Kuh-Handel connections relayed frame by frame (tournaments, compat/relay.py); people's
        #: chat, rematch offers and tables' presence (cluster_people.py)
        self.kh, self.people = KhRelays(self), PeopleRelay(self)
        self._out: asyncio.Queue[Op] = asyncio.Queue()
        self._tasks: list[asyncio.Task[Any]] = []
        self._alive: dict[str, float] = {}  # run -> monotonic time it was last checked alive
        self.leader = False
        self.held = False  # the test hook of cluster_ends.py: nothing more is published
        self.reaped = 0
        self._entries: dict[str, dict[str, Any]] = {}  # the leader's last read of the queues
        self._ratings: dict[str, float] = {}  # queued identity -> its rating when it joined
        self._missing: dict[str, int] = {}
        self._starting: set[asyncio.Task[None]] = set()
        #: the leader's view of how many tables each process runs (``P:load``, read with the
        #: queue and counted up as it places tables)
        self._loads: dict[str, int] = {}
        self._lead_again = 0.0  # when a process that is not the leader asks again
        #: what placement did at this process's tables (``GET /api/metrics``, ``/api/health``)
        self.tables_started = 0
        self.seats_local = 0
        self.seats_relayed = 0
        self.actions_relayed = 0
        #: the cluster as last seen by the heartbeat (``GET /api/health``)
        self.snapshot: dict[str, Any] = {"process": self.run}

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()
        await self._beat()
        await self.reap_once()  # what this process left running before a restart, at once
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(f"{self.p}:to:{self.run}", f"{self.p}:all")
        for coro, name in (
            (self._publisher(), "cluster-publisher"),
            (self._listen(), "cluster-listen"),
            (self._heartbeat(), "cluster-heartbeat"),
            (self._reaper(), "cluster-reaper"),
        ):
            self._tasks.append(asyncio.create_task(coro, name=name))
        log.info("cluster: process %s (redis %s, prefix %r)", self.run, redacted(self.url), self.p)

    async def stop(self) -> None:
        await self.kh.stop()
        await self.flush()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            pipe = self.redis.pipeline(transaction=False)
            pipe.delete(f"{self.p}:lease:{self.run}")
            pipe.hdel(f"{self.p}:load", self.run)
            pipe.hset(f"{self.p}:seen", self.run, str(time.time()))
            if self.leader:
                pipe.delete(f"{self.p}:leader")
            await pipe.execute()
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until everything queued for Redis has been sent."""
        end = time.monotonic() + timeout
        while not self._out.empty() and time.monotonic() < end:
            await asyncio.sleep(0.01)

    # -- sending ----------------------------------------------------------------------------

    def to(self, run: str, message: Mapping[str, Any]) -> None:
        """Publish ``message`` to process ``run`` (in order with everything else sent)."""
        self._out.put_nowait(("message", f"{self.p}:to:{run}", message))

    def signed_out(self, key: str, reason: str) -> None:
        """Person ``key`` signed out everywhere: every process closes its connection."""
        message = {"op": "signed_out", "key": key, "reason": reason, "run": self.run}
        self._out.put_nowait(("message", f"{self.p}:all", message))

    def later(self, *op: Any) -> None:
        """Queue a Redis command (``"hset", name, field, value``), sent in order with the
        messages."""
        self._out.put_nowait(op)

    async def _publisher(self) -> None:
        while True:
            first = await self._out.get()
            if self.held:
                await asyncio.Future()  # as if killed (cluster_ends.py)
            ops = [first]
            while not self._out.empty() and len(ops) < 512:
                ops.append(self._out.get_nowait())
            pipe = self.redis.pipeline(transaction=False)
            # the messages of a batch go out as one list per channel, in order (receiving a
            # message costs redis-py about 0.2 ms, whatever its size)
            batches: dict[str, list[Any]] = {}
            for name, *args in ops:
                if name == "message":
                    batches.setdefault(args[0], []).append(args[1])
                else:
                    getattr(pipe, name)(*args)
            for channel, messages in batches.items():
                pipe.publish(channel, orjson.dumps(messages))
            for attempt in range(50):
                try:
                    await pipe.execute()
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.warning("cluster: redis write failed (%s); again", exc)
                    await asyncio.sleep(min(1.0, 0.05 * (attempt + 1)))

    # -- liveness ---------------------------------------------------------------------------

    async def _beat(self) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(f"{self.p}:lease:{self.run}", "1", px=int(self.lease_s * 1000))
        pipe.hset(f"{self.p}:seen", self.run, str(time.time()))
        pipe.hset(f"{self.p}:load", self.run, str(self.load()))
        await pipe.execute()

    def load(self) -> int:
        """How busy this process is (``P:load``): the tables it runs, and the tournaments'
        games of Kuh-Handel entrants it plays as the endpoint does (no table of their own)."""
        tables = self.hub.tables
        return len(tables) + sum(1 for g in self.hub.tournaments.rows if g not in tables)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 4)
            try:
                await self._beat()
                self.snapshot = await self.status()
                await self._watch_queued()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster: heartbeat failed: %s", exc)

    async def alive(self, runs: list[str]) -> set[str]:
        """Which of ``runs`` hold a lease now, but an earlier run of this process (issue #36)."""
        values = await self.redis.mget([f"{self.p}:lease:{r}" for r in runs]) if runs else []
        held = {r for r, v in zip(runs, values, strict=True) if v is not None}
        before = {r for r in runs if r.rsplit("-", 1)[0] == self.name}  # a restart's, and ours
        return (held - before) | ({self.run} & set(runs))

    async def _reaper(self) -> None:
        await asyncio.sleep(0.2)
        while True:
            try:
                await self.reap_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: reaper failed")
            await asyncio.sleep(self.lease_s / 2)

    async def reap_once(self) -> list[str]:
        """Abort the running games of processes without a lease; returns their ids."""
        hub = self.hub
        loop = asyncio.get_running_loop()
        runs = await loop.run_in_executor(hub.db_executor, hub.store.running_instances)
        tables = await self.redis.hgetall(f"{self.p}:tables")
        owners = {orjson.loads(v)["owner"] for v in tables.values()}
        # every process ever seen: one without games may still host clients of other
        # processes' tables, whose seats must be let go of at once
        known: set[str] = set(await self.redis.hkeys(f"{self.p}:seen"))  # type: ignore[arg-type]
        candidates = sorted((set(runs) | owners | known) - {self.run})
        live = await self.alive(candidates)
        # a run of this process's name that is not this one was this process before a restart
        dead = [r for r in candidates if r not in live]  # (alive() takes it for dead)
        reaped: list[str] = []
        for run in dead:
            seen = await self.redis.hget(f"{self.p}:seen", run)
            ended = datetime.fromtimestamp(float(seen), UTC) if seen else None
            ids = await loop.run_in_executor(
                hub.db_executor,
                hub.store.abort_running,
                run,
                ended,
                "the server process running the game stopped",
            )
            gone = [g for g, v in tables.items() if orjson.loads(v)["owner"] == run]
            pipe = self.redis.pipeline(transaction=False)
            for g in gone:
                for key in orjson.loads(tables[g])["keys"]:
                    pipe.hdel(f"{self.p}:seats:{key}", g)
                pipe.hdel(f"{self.p}:tables", g)
            pipe.hdel(f"{self.p}:seen", run)
            pipe.hdel(f"{self.p}:load", run)
            await pipe.execute()
            games = sorted(set(ids) | set(gone))
            # a game whose end it committed is told as stored, never aborted (cluster_ends.py)
            ended = await loop.run_in_executor(hub.db_executor, stored_ends, hub.store, games)
            log.warning("cluster: process %s is gone; aborted %s, finished %s", run, ids, ended)
            self.reaped += len(ids)
            reaped.extend(ids)
            message = {"op": "reaped", "run": run, "games": games, "ended": ended}
            self._on_reaped(message)
            self._out.put_nowait(("message", f"{self.p}:all", message))
        return reaped

    # -- receiving --------------------------------------------------------------------------

    async def _listen(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster: subscription failed (%s); again", exc)
                await asyncio.sleep(0.2)
                continue
            if message is None:
                continue
            for item in orjson.loads(message["data"]):
                try:
                    self._handle(item)
                except Exception:
                    log.exception("cluster: could not handle %r", item)

    def _handle(self, m: dict[str, Any]) -> None:
        op = m["op"]
        if op == "frame":
            session = self.sessions.get(m["conn"])
            ended = m.get("ended")
            if session is not None:
                session.send_text(m["text"])
                if ended:
                    drop_route(self, session, ended)
            return
        if op.startswith(("kh_", "people_")):
            (self.kh if op.startswith("kh_") else self.people).handle(m)
            return
        if op == "reaped":
            if m["run"] != self.run:
                self._on_reaped(m)
            return
        if op == "replace":
            session = self.sessions.get(m["conn"])
            member = session.member if session is not None else None
            if session is not None and member is not None and member.key == m["key"]:
                session.fatal("replaced", "the same identity connected again")
                self.hub.forget(member.key, session)
                if self.hub.online.get(member.key) is session:
                    del self.hub.online[member.key]
            return
        if op == "seated":
            self._on_seated(m)
            return
        if op == "refused":  # the leader refused a bot of ours a ranked seat (suspended)
            session = self.sessions.get(m["conn"])
            member = session.member if session is not None else None
            if session is not None and member is not None and member.key == m["key"]:
                self.hub.queued.pop(m["key"], None)
                session.send(m["message"])
            return
        if op == "signed_out":  # a person signed out everywhere on another process
            session = self.hub.online.get(m["key"])
            if m["run"] != self.run and session is not None and hasattr(session, "fatal"):
                session.fatal("bad_token", m["reason"])
            return
        if op == "start":
            task = asyncio.create_task(self._start(m))
            self._starting.add(task)
            task.add_done_callback(self._started)
            return
        # the rest are for the owner of a table, from the host of one of its clients
        hub = self.hub
        table = hub.tables.get(m["game"])
        relay = self.relays.get((m["run"], m["conn"]))
        if op == "attach":
            if table is None:  # it ended meanwhile: the host forgets it (``ended``)
                self.to(
                    m["run"],
                    {"op": "frame", "conn": m["conn"], "text": dumps(_gone(m)), "ended": m["game"]},
                )
                return
            relay = self._relay(m["run"], m["conn"], m["key"], m["eir"], m["push"])
            for seat in table.seats:
                if seat.key == m["key"]:
                    if m.get("guest"):
                        seat.taken_over = False
                    table.attach(seat.index, relay, int(m.get("since", 0)))
            return
        if op == "spectate":
            if table is None:
                self.to(m["run"], {"op": "frame", "conn": m["conn"], "text": dumps(_gone(m))})
                return
            table.spectate(self._relay(m["run"], m["conn"], "", False, m["push"]))
            return
        if relay is None:
            if op in ("action", "fault"):
                self.to(m["run"], {"op": "frame", "conn": m["conn"], "text": dumps(_stale(m))})
            return
        if op == "action":
            if table is None or table.seat_of(relay) is None:
                self.to(m["run"], {"op": "frame", "conn": m["conn"], "text": dumps(_stale(m))})
                return
            self.actions_relayed += 1
            table.on_action(relay, m["request_id"], m["action"], time.perf_counter())
        elif op == "detach":
            if table is not None:
                table.detach(relay, excused=bool(m.get("excused")))
            self._unrelay(relay)
        elif op == "leave":
            if table is not None:
                table.leave(relay)
        elif op == "malformed":
            if table is not None:
                table.on_malformed(relay, m["code"], m["reason"])
        elif op == "fault":
            if table is None or table.seat_of(relay) is None:
                self.to(m["run"], {"op": "frame", "conn": m["conn"], "text": dumps(_stale(m))})
                return
            table.on_fault_report(relay, m["report"])

    def _started(self, task: asyncio.Task[None]) -> None:
        self._starting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("cluster: a table could not start", exc_info=task.exception())

    def _relay(self, run: str, cid: str, key: str, eir: bool, push: bool) -> RelayPeer:
        relay = self.relays.get((run, cid))
        if relay is None:
            relay = RelayPeer(self, run, cid, key, eir, push)
            self.relays[(run, cid)] = relay
        return relay

    def _unrelay(self, relay: RelayPeer) -> None:
        for table in self.hub.tables.values():
            if table.seat_of(relay) is not None or relay in table.spectators:
                return
        self.relays.pop((relay.run, relay.cid), None)

    def _on_reaped(self, m: Mapping[str, Any]) -> None:
        """Process ``m['run']`` is gone: its games were aborted (committed) or had ended, and
        its clients connected here learn the stored end (``ended``: the finished ones), as do
        those routed to a table it never started (reaped_routes.py); its clients' seats on
        this process's tables are detached."""
        self.kh.reaped(m["run"])
        end_reaped_routes(self, m)
        for (run, _cid), relay in list(self.relays.items()):
            if run == m["run"]:
                for table in list(self.hub.tables.values()):
                    if table.seat_of(relay) is not None:
                        table.detach(relay, excused=True)  # the server lost it: no fault
                    table.spectators.discard(relay)
                self.relays.pop((run, relay.cid), None)

    # -- identities (the host side) ---------------------------------------------------------

    async def hello(self, session: Session) -> list[str]:
        """A client said hello here: it becomes the identity's one connection in the cluster
        (the previous one, wherever it is, is closed with ``replaced``); returns the games other
        processes run that hold a seat for it."""
        member = session.member
        assert member is not None
        self.sessions[session.cid] = session
        previous = await self.redis.eval(
            _SWAP, 1, f"{self.p}:online", member.key, f"{self.run} {session.cid}"
        )
        if previous:
            run, cid = str(previous).split(" ", 1)
            if run != self.run:
                self.to(run, {"op": "replace", "conn": cid, "key": member.key})
        seats: dict[str, str] = await self.redis.hgetall(f"{self.p}:seats:{member.key}")  # type: ignore[assignment]
        elsewhere = {g: o for g, o in seats.items() if o != self.run}
        live = await self.alive(sorted(set(elsewhere.values())))
        routes = {g: o for g, o in elsewhere.items() if o in live}
        if routes:
            self.routes[member.key] = routes
        else:
            self.routes.pop(member.key, None)
        return sorted(routes)

    def spectator(self, session: Session) -> None:
        self.sessions[session.cid] = session

    def closed(self, session: Session) -> None:
        """A session of this process ended."""
        self.sessions.pop(session.cid, None)
        member = session.member
        if member is not None:
            key = f"{self.p}:online"
            self.later("eval", _DEL_IF, 1, key, member.key, f"{self.run} {session.cid}")
        watched = self.watching.pop(session.cid, None)
        if watched is not None:
            self.to(watched[1], self._from(session, "detach", watched[0]))

    def forget(self, key: str, session: Any, *, excused: bool = False) -> None:
        """``key``'s connection closed: its seats on other processes are detached (with no
        fault when this process ended it, ``excused``: server/departure.py)."""
        if not hasattr(session, "cid"):
            return
        for game, owner in list(self.routes.get(key, {}).items()):
            self.to(owner, {**self._from(session, "detach", game), "excused": excused})

    def leave(self, member: Member) -> None:
        for game, owner in list(self.routes.get(member.key, {}).items()):
            self.to(owner, self._from(member.peer, "leave", game))

    def busy(self, key: str) -> bool:
        return bool(self.routes.get(key))

    async def refresh(self, key: str) -> None:
        """Read again which games other processes run for ``key``: a route kept from the hello
        may name a game that has ended since, and a table may have been formed from a queue
        entry of the identity's previous connection after it."""
        seats: dict[str, str] = await self.redis.hgetall(f"{self.p}:seats:{key}")  # type: ignore[assignment]
        elsewhere = {g: o for g, o in seats.items() if o != self.run}
        live = await self.alive(sorted(set(elsewhere.values())))
        routes = {g: o for g, o in elsewhere.items() if o in live}
        if routes:
            self.routes[key] = routes
        else:
            self.routes.pop(key, None)

    def games_of(self, key: str) -> list[str]:
        return sorted(self.routes.get(key, {}))

    def owner_of(self, key: str, game: str) -> str | None:
        return self.routes.get(key, {}).get(game)

    def action(self, session: Session, game: str, request_id: Any, action: Any) -> bool:
        """Relay an action for a seat another process holds; ``False`` if there is none."""
        member = session.member
        owner = self.owner_of(member.key, game) if member is not None else None
        if owner is None:
            return False
        message = self._from(session, "action", game)
        message["request_id"] = request_id
        message["action"] = action
        self.to(owner, message)
        return True

    def fault(self, session: Session, game: str, report: Mapping[str, Any]) -> bool:
        """Relay a client's ``fault`` report for a seat another process holds; ``False`` if
        there is none."""
        member = session.member
        owner = self.owner_of(member.key, game) if member is not None else None
        if owner is None:
            return False
        message = self._from(session, "fault", game)
        message["request_id"] = report.get("request_id")
        message["report"] = dict(report)
        self.to(owner, message)
        return True

    def malformed(self, session: Session, code: str, reason: str) -> None:
        member = session.member
        if member is None:
            return
        for game, owner in self.routes.get(member.key, {}).items():
            message = self._from(session, "malformed", game)
            message["code"] = code
            message["reason"] = reason
            self.to(owner, message)

    def resume(self, session: Session, game_id: str | None, since: int) -> list[str]:
        """Take back seats other processes hold (``resume``); returns their games."""
        member = session.member
        assert member is not None
        games = [
            (g, o)
            for g, o in self.routes.get(member.key, {}).items()
            if game_id is None or g == game_id
        ]
        for game, owner in games:
            message = self._from(session, "attach", game)
            message.update(
                key=member.key,
                since=since,
                eir=session.events_in_request,
                push=session.push_observations,
                guest=member.kind in ("guest", "person"),  # a person takes the seat back
            )
            self.to(owner, message)
        return [g for g, _ in games]

    async def spectate(self, session: Session, game: str) -> bool:
        """Watch a game another process runs; ``False`` if no live process runs it."""
        raw = await self.redis.hget(f"{self.p}:tables", game)
        if raw is None:
            return False
        owner = orjson.loads(raw)["owner"]
        if owner == self.run or not await self.alive([owner]):
            return False
        self.sessions[session.cid] = session
        self.watching[session.cid] = (game, owner)
        message = self._from(session, "spectate", game)
        message["push"] = session.push_observations
        self.to(owner, message)
        return True

    def _from(self, session: Any, op: str, game: str) -> dict[str, Any]:
        return {"op": op, "game": game, "run": self.run, "conn": session.cid}

    def _on_seated(self, m: Mapping[str, Any]) -> None:
        session = self.sessions.get(m["conn"])
        key = m["key"]
        if session is None or session.member is None or session.member.key != key:
            # the client went away meanwhile: the owner's fallback plays for it
            self.to(
                m["owner"], {"op": "detach", "game": m["game"], "run": self.run, "conn": m["conn"]}
            )
            return
        self.hub.queued.pop(key, None)
        self.hub.tournaments.forget(key)  # seated by a tournament table of another process
        self._ratings.pop(key, None)
        self._missing.pop(key, None)
        self.routes.setdefault(key, {})[m["game"]] = m["owner"]

    # -- the ranked queue -------------------------------------------------------------------

    async def enqueue(self, session: Session, queue: tuple[str, str], rating: float) -> int:
        member = session.member
        assert member is not None
        self._ratings[member.key] = rating
        entry = {
            "key": member.key,
            "name": member.name,
            "player_id": member.player_id,
            "rating": rating,
            "since": time.time(),
            "run": self.run,
            "conn": session.cid,
            "eir": session.events_in_request,
            "push": session.push_observations,
            "version": getattr(session, "bot_version", None),
        }
        name = f"{self.p}:q:{queue[0]}:{queue[1]}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(name, member.key, orjson.dumps(entry).decode())
        pipe.hlen(name)
        _, size = await pipe.execute()
        return int(size)

    def dequeue(self, key: str, queue: tuple[str, str], session: Any) -> None:
        cid = getattr(session, "cid", None)
        if cid is None:
            return
        name = f"{self.p}:q:{queue[0]}:{queue[1]}"
        self.later("eval", _DEL_IF, 1, name, key, f'"conn":"{cid}"')

    async def is_leader(self) -> bool:
        """Hold or take the leader's lease (one script call); a process that is not the leader
        asks again only every quarter lease (at most 0.5 s), not at every matchmaker tick."""
        now = time.monotonic()
        if not self.leader and now < self._lead_again:
            return False
        ms = int(self.lease_s * 1000)
        self.leader = bool(await self.redis.eval(_LEAD, 1, f"{self.p}:leader", self.run, ms))
        if not self.leader:
            self._lead_again = now + min(0.5, self.lease_s / 4)
        return self.leader

    async def take_queues(self, queues: list[Queue]) -> dict[Queue, list[QueueEntry]]:
        """The live entries of each ranked queue, oldest first, as :class:`QueueEntry` (their
        ``since`` on this process's monotonic clock), all read in one round trip
        (:mod:`.cluster_queues`); entries of dead processes are dropped."""
        from cardtable.server.lobby import Member, QueueEntry

        reading = await read_queues(self.redis, self.p, queues, self.alive)
        self._loads = reading.loads
        now_wall, now_mono = time.time(), time.monotonic()
        out: dict[Queue, list[QueueEntry]] = {}
        for queue, entries in reading.entries.items():
            out[queue] = []
            for e in entries:  # the member's connection is found when it is seated (member())
                member = Member(_WAITING, e["key"], e["name"], "bot", e["player_id"])
                self._entries[e["key"]] = e
                out[queue].append(
                    QueueEntry(member, e["rating"], now_mono - (now_wall - e["since"]))
                )
        return out

    def host_of(self, entry: QueueEntry) -> str:
        """The process a queue entry (read by :meth:`take_queues`) is connected to."""
        return str(self._entries[entry.member.key]["run"])

    def member(self, entry: Mapping[str, Any]) -> Member:
        """A queue entry as a member of a table on this process: its session if it is
        connected here, else a relay to its process."""
        from cardtable.server.lobby import Member

        peer: Any
        session = self.sessions.get(entry["conn"]) if entry["run"] == self.run else None
        if session is not None and session.member is not None:
            peer = session
            self.hub.queued.pop(entry["key"], None)
        else:
            peer = self._relay(
                entry["run"], entry["conn"], entry["key"], entry["eir"], entry["push"]
            )
            peer.bot_version = entry.get("version")
        return Member(peer, entry["key"], entry["name"], "bot", entry["player_id"])

    async def seat(
        self,
        queue: tuple[str, str],
        chosen: list[QueueEntry],
        bots: list[str],
        house: list[Any],
    ) -> None:
        """Start the table of ``chosen`` on the process most of them are connected to (ties:
        the one running the fewest tables): tables spread over the cluster and most seats need
        no relay. The process is told on its own channel (``start``)."""
        entries = [self._entries[e.member.key] for e in chosen]
        owner = choose_owner([e["run"] for e in entries], self._loads)
        self._loads[owner] = self._loads.get(owner, 0) + 1
        # the game's id is chosen here and its seats noted at once (in order before the start
        # message): a bot's process then never takes it for lost while the table starts
        game_id = secrets.token_hex(8)
        for e in entries:
            self.later("hset", f"{self.p}:seats:{e['key']}", game_id, owner)
        message = {
            "op": "start",
            "id": game_id,
            "game": queue[0],
            "rules": queue[1],
            "entries": entries,
            "bots": bots,
            "house": [[h.id, h.name] for h in house],
        }
        if owner == self.run:
            await self._start(message)
        else:
            self.to(owner, message)

    async def _start(self, m: Mapping[str, Any]) -> None:
        from cardtable.core import game_spec
        from cardtable.server.store.db import Identity

        spec = game_spec(m["game"])
        await self.hub.start_table(
            spec,
            spec.resolve_rules(m["rules"]),
            m["rules"],
            "ranked",
            [self.member(e) for e in m["entries"]],
            list(m["bots"]),
            rated=True,
            shuffle=True,
            house_players=[Identity(int(i), str(n), "house") for i, n in m["house"]],
            game_id=str(m["id"]),
        )

    async def _watch_queued(self) -> None:
        """A bot of this process that is neither in the queue nor seated for a while (the
        process that was to start its table died) goes back into the queue."""
        waiting = [(k, q) for k, q in self.hub.queued.items() if self.hub.online.get(k)]
        if not waiting:
            self._missing.clear()
            return
        pipe = self.redis.pipeline(transaction=False)
        for key, (game, rules) in waiting:
            pipe.hexists(f"{self.p}:q:{game}:{rules}", key)
            pipe.hgetall(f"{self.p}:seats:{key}")
        found = await pipe.execute()
        owners = sorted({o for i in range(len(waiting)) for o in found[2 * i + 1].values()})
        live = await self.alive(owners)
        missing = {}
        for i, (key, queue) in enumerate(waiting):
            seated = any(o in live for o in found[2 * i + 1].values())
            if not found[2 * i] and not seated and not self.routes.get(key):
                missing[key] = self._missing.get(key, 0) + 1
                if missing[key] >= 3:
                    session = self.hub.online[key]
                    log.warning("cluster: %s was lost between queue and table; queued again", key)
                    member = session.member
                    if member is not None and member.player_id is not None:
                        await self.enqueue(session, queue, self._ratings.get(key, 0.0))
                    missing.pop(key)
        self._missing = missing

    async def refuse(
        self, queue: tuple[str, str], entry: QueueEntry, message: Mapping[str, Any]
    ) -> None:
        """Take ``entry`` out of the queue for good and tell it why (its process forgets it
        was queued, so it is not queued again): a bot suspended while it waited."""
        e = self._entries[entry.member.key]
        await self.redis.hdel(f"{self.p}:q:{queue[0]}:{queue[1]}", entry.member.key)
        self.to(e["run"], {"op": "refused", "key": e["key"], "conn": e["conn"], "message": message})

    async def claim(self, queue: tuple[str, str], entries: list[QueueEntry]) -> bool:
        """Take ``entries`` out of the queue; ``False`` (and nothing taken) if one was gone."""
        name = f"{self.p}:q:{queue[0]}:{queue[1]}"
        raw = await self.redis.hmget(name, [e.member.key for e in entries])
        pipe = self.redis.pipeline(transaction=False)
        for e in entries:
            pipe.hdel(name, e.member.key)
        taken = await pipe.execute()
        if all(taken):
            return True
        back = {e.member.key: v for e, v, t in zip(entries, raw, taken, strict=True) if t and v}
        if back:
            await self.redis.hset(name, mapping=back)  # type: ignore[arg-type]
        return False

    # -- tables (the owner side) ------------------------------------------------------------

    def table_started(self, table: Table) -> None:
        keys = [s.key for s in table.seats if s.key is not None]
        summary = {
            "owner": self.run,
            "game": table.spec.name,
            "rules": table.setup.rules_name,
            "lobby": table.setup.lobby,
            "names": list(table.names),
            "keys": keys,
            "started": time.time(),
        }
        data = orjson.dumps(summary).decode()
        game = table.id
        self.tables_started += 1
        for seat in table.seats:
            relayed_kh = isinstance(getattr(seat.conn, "conn", None), RelayedBotConnection)
            if isinstance(seat.conn, RelayPeer) or relayed_kh:
                self.seats_relayed += 1
            elif seat.key is not None:
                self.seats_local += 1
        self.later("hset", f"{self.p}:tables", game, data)
        self.later("hset", f"{self.p}:load", self.run, str(self.load()))
        for key in keys:
            self.later("hset", f"{self.p}:seats:{key}", game, self.run)
        for seat in table.seats:
            conn = seat.conn
            if isinstance(conn, RelayPeer):
                self.to(
                    conn.run,
                    {
                        "op": "seated",
                        "conn": conn.cid,
                        "key": conn.key,
                        "game": game,
                        "owner": self.run,
                    },
                )

    def table_ended(self, table: Table) -> None:
        game = table.id
        self.held = self.held or hold_ends(game)
        self.later("hdel", f"{self.p}:tables", game)
        running = self.load() - int(game in self.hub.tables)
        self.later("hset", f"{self.p}:load", self.run, str(running))
        for seat in table.seats:
            if seat.key is not None:
                self.later("hdel", f"{self.p}:seats:{seat.key}", game)
            if isinstance(seat.conn, RelayPeer):
                self._unrelay(seat.conn)
        for spectator in list(table.spectators):
            if isinstance(spectator, RelayPeer):
                self._unrelay(spectator)

    async def status(self) -> dict[str, Any]:
        """What ``GET /api/health`` shows of the cluster."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hlen(f"{self.p}:tables")
        pipe.hlen(f"{self.p}:online")
        pipe.get(f"{self.p}:leader")
        pipe.hkeys(f"{self.p}:seen")
        tables, online, leader, runs = await pipe.execute()
        live = await self.alive(sorted(runs))
        return {
            "process": self.run,
            "processes": sorted(live),
            "leader": leader,
            "running_tables": int(tables),
            "connections": int(online),
            "reaped_games": self.reaped,
            **self.placement(),
        }

    def placement(self) -> dict[str, int]:
        """What placing tables did on this process since it started: tables started here, their
        seats whose client is connected here (``seats_local``) or to another process
        (``seats_relayed``), and the actions that came relayed (``GET /api/metrics``)."""
        return {
            "tables_started": self.tables_started,
            "seats_local": self.seats_local,
            "seats_relayed": self.seats_relayed,
            "actions_relayed": self.actions_relayed,
        }


def choose_owner(hosts: list[str], loads: Mapping[str, int]) -> str:
    """The process a table runs on: the one most of its clients (``hosts``, one per seat) are
    connected to; among equals the one running the fewest tables (``loads``), then by name."""
    counts: dict[str, int] = {}
    for run in hosts:
        counts[run] = counts.get(run, 0) + 1
    return min(counts, key=lambda r: (-counts[r], loads.get(r, 0), r))


class _Waiting:
    """The peer of a queue entry until it is seated (never sent anything)."""

    def send(self, message: Mapping[str, Any]) -> None:
        raise AssertionError("a queue entry is not seated yet")

    def send_text(self, text: str, stamp: Stamp | None = None) -> None:
        raise AssertionError("a queue entry is not seated yet")


_WAITING = _Waiting()


def _gone(m: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "error",
        "code": "unknown_game",
        "reason": f"no running game {m['game']!r} holds a seat for you",
    }


def _stale(m: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "rejected",
        "game_id": m["game"],
        "request_id": m.get("request_id"),
        "code": "not_your_turn",
        "reason": f"you hold no seat in a running game {m['game']!r}",
    }
