"""The tournaments' lobby of one server process: who waits for their next game, the scheduler.

Entrants join with ``{"type": "join", "lobby": "tournament", "tournament": ID}`` (``cardtable bot
--tournament ID``) and wait; after each game the client joins again. Every ``TICK_S`` the
scheduler claims, in one transaction (:meth:`TournamentStore.claim`), the planned games whose
entrants all wait here (or whose seats the house bot plays) and starts their tables with the
planned deal seed and seating. When a table ends, its row is settled from what the ``games``
table says, so a game counts once, and a game cut off by a restart is voided and planned again.

**In a cluster** (``redis_url``) the waiting room is shared: each process also lists its
waiting entrants in ``P:tw:TID`` (hash entrant position -> the entrant's process and
connection, as a ranked queue entry; ``"kh": true`` for a Kuh-Handel entrant). A process claims
the games whose entrants wait anywhere in the cluster and which it is to run: the process most
of the game's entrants are connected to, Kuh-Handel entrants counted as native ones; ties go to
the one running the fewest tables (``P:load``, read once per tick, as the leader places ranked
tables; this process counts up the games it claims in the tick), then the first by name. Every
process reads the same loads, so they agree on the owner; two views a heartbeat apart may
disagree for a tick: both claim (the database's claim lets one have the game) or neither does
(the next tick, 0.2 s later, reads again). A native entrant of another process sits at the
table as a ``RelayPeer`` (cluster.py), as at a ranked table; a Kuh-Handel entrant of another
process as a ``KhSeat`` (it needs the game's state, so it runs on the table's process) whose
connection is a ``RelayedBotConnection`` (compat/relay.py: the reference-protocol frames go
through Redis). A game of local Kuh-Handel entrants only (and house seats) is played as the
Kuh-Handel endpoint plays its games; with an entrant of another process it is a native table. Before
a claimed game starts, its entrants are taken out of ``P:tw:TID`` in one step (:data:`_TAKE`:
all of them or none, noting their seat in ``P:seats:KEY`` at once); when one was taken by
another process meanwhile, the claim is given back (:meth:`TournamentStore.release`). So an
entrant never sits at two tables, and a game is claimed by one process: the database's claim.
A waiting entrant whose entry vanished without a seat on a live process (the process that took
it died before starting the table) is listed again after :data:`LOST_TICKS` ticks.

**Absent entrants.** The house bot stands in for an entrant (with ``house_fill``) that no process
has seen join since the tournament was created, ``absent_after_ms`` after this process saw it
start. In a cluster "seen" is the cluster's: every join is also added to ``P:tseen:TID`` (a set
of positions), which a process reads while some entrant is unseen to it; so a process never
stands in for an entrant connected to another one (between its games, or reconnecting after
its process died), and a process started again does not forget who joined.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from cardtable.arena.plan import derive_seed
from cardtable.core import game_spec
from cardtable.server.cluster import _DEL_IF, choose_owner
from cardtable.server.compat.seat import KhSeat
from cardtable.server.dead_claims import hold_claim, without_lease
from cardtable.server.organiser import FOR_GOOD, stands_in
from cardtable.server.table import SeatState, Table, TableSetup
from cardtable.server.tournaments import (
    HOUSE,
    Claimed,
    TournamentError,
    TournamentSpec,
    TournamentStore,
    lineup_plan_seed,
)

if TYPE_CHECKING:
    from cardtable.server.lobby import Hub, Member

log = logging.getLogger("cardtable.server.tournament")

T = TypeVar("T")
TICK_S = 0.2
LOBBY = "tournament"
#: Ticks a waiting entrant of this process may miss from the shared waiting room (taken by a
#: process that died before seating it) before it is listed again.
LOST_TICKS = 10
#: Take the entrants of a game out of the shared waiting room, all or none: KEYS are the room
#: then each entrant's ``P:seats:KEY``; ARGV the game, its process, then per entrant its
#: position and a piece of its entry (its connection) that must still be there.
_TAKE = """
local n = #KEYS - 1
for i = 1, n do
  local v = redis.call('HGET', KEYS[1], ARGV[1 + 2 * i])
  if not v or not string.find(v, ARGV[2 + 2 * i], 1, true) then
    return 0
  end
end
for i = 1, n do
  redis.call('HDEL', KEYS[1], ARGV[1 + 2 * i])
  redis.call('HSET', KEYS[1 + i], ARGV[1], ARGV[2])
end
return 1
"""


@dataclasses.dataclass
class Running:
    """What this process knows of a live tournament."""

    id: str
    spec: TournamentSpec
    status: str
    rules: Any
    rules_name: str | None
    #: entrant position -> name, and the positions the house bot stands in for (suspended
    #: automatically or sanctioned by the organiser, server/organiser.py)
    names: dict[int, str] = dataclasses.field(default_factory=dict)
    suspended: set[int] = dataclasses.field(default_factory=set)
    #: positions sanctioned by the organiser (the house bot stands in even without
    #: house_fill), and those out for good (banned, disqualified: they may not join)
    sanctioned: set[int] = dataclasses.field(default_factory=set)
    out: dict[int, str] = dataclasses.field(default_factory=dict)
    started: float | None = None
    #: position -> waiting member
    waiting: dict[int, Member] = dataclasses.field(default_factory=dict)
    #: positions seen joining (here, or in a cluster on any process: ``P:tseen:TID``); an
    #: absent entrant is one never seen
    seen: set[int] = dataclasses.field(default_factory=set)
    #: in a cluster: position -> the shared waiting room's entry of an entrant waiting on
    #: another process (as last read), and ticks each local entrant was missing from it
    elsewhere: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    missing: dict[int, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(eq=False)
class KhMember:
    """A Kuh-Handel bot waiting in a tournament (connected to ``/kuh-handel/tournament-ID``)."""

    conn: Any
    name: str
    player_id: int
    service: Any
    kind: str = "kh"

    @property
    def key(self) -> str:
        return f"kh:{self.name}"


class TournamentLobby:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.db = TournamentStore(hub.store)
        self.live: dict[str, Running] = {}
        #: member key -> tournament id it waits in
        self.waiting_in: dict[str, str] = {}
        #: game id -> claimed row
        self.rows: dict[str, Claimed] = {}
        self._task: asyncio.Task[None] | None = None
        #: settlements (and Kuh-Handel tables) under way: a shutdown lets them write first
        self._pending: set[asyncio.Task[None]] = set()
        self._stopping = False
        #: in a cluster: how many tables each process runs (``P:load``) as read this tick
        self._loads: dict[str, int] = {}
        #: member keys of Kuh-Handel entrants playing a game of the endpoint's loop here
        self.kh_playing: set[str] = set()

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.hub.db_executor, fn, *args)

    async def start(self, recover_all: bool) -> None:
        """Settle the games a previous run of this process left running, then schedule."""
        voided = await self._db(self.db.recover, None if recover_all else self.hub.instance)
        if voided:
            log.warning("settled %d tournament game(s) left running", len(voided))
        self._task = asyncio.create_task(self._loop(), name="tournaments")

    async def stop(self) -> None:
        """Plan nothing more (the tables still running end through :meth:`drain`)."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (a while) for the settlements under way: the shutdown closes the database
        executor next. One cut off is not lost: the next start settles rows left running."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=timeout)

    def _keep(self, job: Any) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    # -- joining ------------------------------------------------------------------------------

    async def join(self, member: Member, message: Mapping[str, Any]) -> None:
        from cardtable.server.lobby import JoinError

        tid = str(message.get("tournament") or "")
        if member.kind != "bot" or member.player_id is None:
            raise JoinError("bad_join", "tournaments are for registered bots")
        info = await self._db(self.db.get, tid)
        if info is None:
            raise JoinError("bad_join", f"no tournament {tid!r}")
        if info["status"] in ("finished", "cancelled"):
            raise JoinError("tournament_over", f"tournament {tid} is {info['status']}")
        cluster = self.hub.cluster
        if self.hub.running_games(member.key) or (
            cluster is not None and cluster.routes.get(member.key)
        ):
            raise JoinError("busy", "playing a game")
        other = self.waiting_in.get(member.key)
        if other is not None and other != tid:
            raise JoinError("busy", f"already waiting in tournament {other}")
        if member.key in self.hub.queued or member.key in self.hub.private_of:
            raise JoinError("busy", "already queued or at a private table")
        try:
            pos = await self._db(self.db.enter, tid, member.name, member.player_id)
        except TournamentError as exc:
            raise JoinError("bad_join", exc.reason) from None
        run = await self._refresh(tid)
        if run is None:
            raise JoinError("bad_join", f"no tournament {tid!r}")
        if run.status in ("finished", "cancelled"):  # it ended while this join was read
            raise JoinError("tournament_over", f"tournament {tid} is {run.status}")
        if pos in run.out:  # banned or disqualified by the organiser
            raise JoinError("tournament_over", run.out[pos])
        run.waiting[pos] = member
        self._saw(run, pos)
        self.waiting_in[member.key] = tid
        self._publish(tid, pos, member)
        member.peer.send(
            {
                "type": "waiting",
                "lobby": LOBBY,
                "game": info["game"],
                "rules": info["rules_name"] or "custom",
                "queued": len(run.waiting),
                "tournament": tid,
            }
        )

    async def kh_join(self, tid: str, conn: Any, service: Any) -> tuple[int, str] | None:
        """A Kuh-Handel bot enters ``tid``; returns ``(HTTP status, reason)`` when refused."""
        info = await self._db(self.db.get, tid)
        if info is None:
            return 404, f"no tournament {tid!r}"
        if info["status"] in ("finished", "cancelled"):
            return 410, f"tournament {tid} is {info['status']}"
        if info["game"] != "kuhhandel":
            return 409, f"tournament {tid} plays {info['game']}"
        rules = game_spec("kuhhandel").rules_from_json(info["rules"])
        if getattr(rules, "auction_style", "") == "open":
            return 409, f"tournament {tid} plays open auctions: the Kuh-Handel protocol has none"
        if f"kh:{conn.name}" in self.waiting_in:
            return 409, f"{conn.name} already waits in a tournament"
        try:
            pos = await self._db(self.db.enter, tid, conn.name, conn.player_id)
        except TournamentError as exc:
            return exc.status, exc.reason
        run = await self._refresh(tid)
        if run is None:
            return 404, f"no tournament {tid!r}"
        if run.status in ("finished", "cancelled"):
            return 410, f"tournament {tid} is {run.status}"
        if pos in run.out:  # banned or disqualified by the organiser
            return 403, run.out[pos]
        member = KhMember(conn, conn.name, conn.player_id, service)
        run.waiting[pos] = member  # type: ignore[assignment]
        self._saw(run, pos)
        self.waiting_in[member.key] = tid
        self._publish(tid, pos, member)  # type: ignore[arg-type]
        return None

    def forget(self, key: str) -> None:
        tid = self.waiting_in.pop(key, None)
        run = self.live.get(tid) if tid is not None else None
        if run is not None:
            for pos, m in list(run.waiting.items()):
                if m.key == key:
                    del run.waiting[pos]
                    self._unpublish(run.id, pos, m)

    # -- the shared waiting room (a cluster) --------------------------------------------------

    def _room(self, tid: str) -> str:
        assert self.hub.cluster is not None
        return f"{self.hub.cluster.p}:tw:{tid}"

    def _publish(self, tid: str, pos: int, member: Member) -> None:
        """List a native entrant waiting here in the cluster's waiting room of ``tid``."""
        cluster = self.hub.cluster
        cid = _cid(member)
        if cluster is None or cid is None:
            return
        entry: dict[str, Any] = {
            "run": cluster.run,
            "conn": cid,
            "key": member.key,
            "name": member.name,
            "player_id": member.player_id,
        }
        if isinstance(member, KhMember):
            cluster.kh.register(member.conn)
            entry |= {"kh": True, "warnings": bool(member.conn.warnings)}
        else:
            entry |= {
                "eir": bool(getattr(member.peer, "events_in_request", False)),
                "push": bool(getattr(member.peer, "push_observations", False)),
                "version": getattr(member.peer, "bot_version", None),
            }
        cluster.later("hset", self._room(tid), str(pos), orjson.dumps(entry).decode())

    def _saw(self, run: Running, pos: int) -> None:
        """``pos`` joined here: seen, by this process and (in a cluster) by every process."""
        run.seen.add(pos)
        cluster = self.hub.cluster
        if cluster is not None:  # queued before its listing in the room (_publish)
            cluster.later("sadd", f"{cluster.p}:tseen:{run.id}", str(pos))

    def _unpublish(self, tid: str, pos: int, member: Any) -> None:
        cluster = self.hub.cluster
        cid = _cid(member)
        if cluster is not None and isinstance(member, KhMember):
            cluster.kh.unregister(member.conn)
        if cluster is not None and cid is not None:
            cluster.later("eval", _DEL_IF, 1, self._room(tid), str(pos), f'"conn":"{cid}"')

    async def _read_room(self, run: Running) -> None:
        """Read the cluster's waiting room of ``run``: the entrants waiting on other live
        processes (``run.elsewhere``), those seen on any (``run.seen``); this process's
        entrants missing from it and seated nowhere alive are listed again (the process that
        took them died meanwhile)."""
        cluster = self.hub.cluster
        assert cluster is not None
        raw: dict[str, str] = await cluster.redis.hgetall(self._room(run.id))  # type: ignore[assignment]
        entries = {int(p): orjson.loads(v) for p, v in raw.items()}
        others = sorted({e["run"] for e in entries.values()} - {cluster.run})
        live = await cluster.alive(others) | {cluster.run}
        gone = [str(p) for p, e in entries.items() if e["run"] not in live]
        if gone:
            await cluster.redis.hdel(self._room(run.id), *gone)
        run.elsewhere = {
            p: e
            for p, e in entries.items()
            if e["run"] in live and e["run"] != cluster.run and p not in run.waiting
        }
        if not run.seen >= run.names.keys():  # seen joining another process (_saw)?
            seen: set[str] = await cluster.redis.smembers(  # type: ignore[assignment]
                f"{cluster.p}:tseen:{run.id}"
            )
            run.seen |= {int(p) for p in seen}
        missing: dict[int, int] = {}
        for pos, m in run.waiting.items():
            if pos in entries or self.hub.running_games(m.key):
                continue
            missing[pos] = run.missing.get(pos, 0) + 1
            if missing[pos] >= LOST_TICKS:
                seats: dict[str, str] = await cluster.redis.hgetall(  # type: ignore[assignment]
                    f"{cluster.p}:seats:{m.key}"
                )
                owners = sorted(set(seats.values()))
                if not await cluster.alive(owners) - {cluster.run} or not owners:
                    log.warning("tournament %s: %s listed again", run.id, m.key)
                    self._publish(run.id, pos, m)
                missing.pop(pos)
        run.missing = missing

    def _owner_here(self, run: Running, seating: tuple[int, ...]) -> bool:
        """Whether this process is to run a game of ``seating`` (see the module docstring)."""
        cluster = self.hub.cluster
        assert cluster is not None
        hosts: list[str] = []
        for pos in seating:
            if pos in run.suspended:
                continue
            member = run.waiting.get(pos)
            if member is not None:
                hosts.append(cluster.run)
            elif pos in run.elsewhere:
                hosts.append(str(run.elsewhere[pos]["run"]))
        if not hosts:
            return True
        owner = choose_owner(hosts, self._loads)
        if owner != cluster.run:
            return False
        self._loads[owner] = self._loads.get(owner, 0) + 1  # the next tie sees this claim
        return True

    async def _take(self, run: Running, row: Claimed) -> bool:
        """Take the entrants of ``row`` out of the shared waiting room (all or none)."""
        cluster = self.hub.cluster
        assert cluster is not None
        keys, args = [self._room(run.id)], [row.game_id, cluster.run]
        for pos in row.seating:
            if pos in run.suspended:
                continue
            member = run.waiting.get(pos)
            if member is not None:
                key, cid = member.key, _cid(member) or ""
            elif pos in run.elsewhere:
                key, cid = run.elsewhere[pos]["key"], run.elsewhere[pos]["conn"]
            else:
                continue
            keys.append(f"{cluster.p}:seats:{key}")
            args += [str(pos), f'"conn":"{cid}"']
        if len(keys) == 1:
            return True
        await cluster.flush()  # this process's own listings are in the room first
        return bool(await cluster.redis.eval(_TAKE, len(keys), *keys, *args))

    # -- scheduling ---------------------------------------------------------------------------

    async def _refresh(self, tid: str) -> Running | None:
        info = await self._db(self.db.get, tid)
        if info is None:
            self.live.pop(tid, None)
            return None
        run = self.live.get(tid)
        if run is None:
            spec = TournamentSpec.model_validate(info["config"])
            gspec = game_spec(info["game"])
            run = Running(
                tid,
                spec,
                info["status"],
                gspec.rules_from_json(info["rules"]),
                info["rules_name"],
            )
            self.live[tid] = run
        run.status = info["status"]
        run.names = {e["position"]: e["name"] for e in info["entrants"]}
        run.suspended = {e["position"] for e in info["entrants"] if stands_in(e)}
        run.sanctioned = {e["position"] for e in info["entrants"] if e["sanction_active"]}
        run.out = {
            e["position"]: f"{e['name']} is {e['sanction_active']} from tournament {tid}: "
            f"{e['sanction_reason']}"
            for e in info["entrants"]
            if e["sanction_active"] in FOR_GOOD
        }
        for pos, why in run.out.items():  # told once, then out of the waiting room
            member = run.waiting.pop(pos, None)
            if member is not None:
                self.waiting_in.pop(member.key, None)
                self._unpublish(tid, pos, member)
                self._tell_out(member, why)
        if info["started_at"] is not None and run.started is None:
            run.started = time.monotonic()
        if run.status in ("finished", "cancelled"):
            self._close(run)
        return run

    @staticmethod
    def _tell_out(member: Any, why: str) -> None:
        """An entrant banned or disqualified: its tournament is over."""
        if isinstance(member, KhMember):  # its handler closes the connection
            member.conn.released.set()
            return
        member.peer.send({"type": "error", "code": "tournament_over", "reason": why})

    def presence(self, tid: str, names: list[str]) -> dict[int, str]:
        """Per entrant position: ``playing`` (at a table of this process), ``waiting`` (in the
        tournament's lobby, of any process of a cluster), ``connected`` (to this process,
        elsewhere) or ``offline`` (none of these, as this process sees it)."""
        run = self.live.get(tid)
        out: dict[int, str] = {}
        for pos, name in enumerate(names):
            keys = (f"bot:{name}", f"kh:{name}")
            if any(self.hub.running_games(k) for k in keys) or keys[1] in self.kh_playing:
                out[pos] = "playing"
            elif run is not None and (pos in run.waiting or pos in run.elsewhere):
                out[pos] = "waiting"
            elif any(k in self.hub.online for k in keys):
                out[pos] = "connected"
            else:
                out[pos] = "offline"
        return out

    def _close(self, run: Running) -> None:
        """The tournament is over: tell its waiting entrants, forget it."""
        for m in run.waiting.values():
            self.waiting_in.pop(m.key, None)
            if isinstance(m, KhMember):  # its handler closes the connection; it enters again
                m.conn.released.set()  # and is told the tournament is over (410)
                continue
            m.peer.send(
                {
                    "type": "error",
                    "code": "tournament_over",
                    "reason": f"tournament {run.id} is {run.status}",
                }
            )
        run.waiting.clear()
        self.live.pop(run.id, None)

    async def _loop(self) -> None:
        last_sweep = 0.0
        while True:
            await asyncio.sleep(TICK_S)
            try:
                if time.monotonic() - last_sweep > 2.0:
                    last_sweep = time.monotonic()
                    await self._sweep()
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament scheduler failed")

    async def _sweep(self) -> None:
        """Start tournaments whose sign-up closed, pick up new ones, settle stale games."""
        for tid in await self._db(self.db.live):
            await self._db(self.db.start_due, tid)
            await self._refresh(tid)
        for tid in list(self.live):
            await self._refresh(tid)
        gone: set[str] = set()
        if self.hub.cluster is not None:  # a dead process's claims now (dead_claims.py)
            gone = await without_lease(self.hub.cluster, await self._db(self.db.claimants))
        for row_id in await self._db(self.db.stale, gone):
            await self._db(self.db.settle, row_id)

    async def tick(self) -> None:
        cluster = self.hub.cluster
        if cluster is not None and any(r.status == "running" for r in self.live.values()):
            loads = await cluster.redis.hgetall(f"{cluster.p}:load")
            self._loads = {str(r): int(n) for r, n in loads.items()}
            self._loads[cluster.run] = cluster.load()  # this process's own, as it is now
        for run in list(self.live.values()):
            if run.status != "running":
                continue
            for p, m in list(run.waiting.items()):
                if isinstance(m, KhMember) and not m.conn.alive:
                    del run.waiting[p]
                    self.waiting_in.pop(m.key, None)
                    self._unpublish(run.id, p, m)
            ready = {p for p, m in run.waiting.items() if not self.hub.running_games(m.key)}
            cluster = self.hub.cluster
            if cluster is not None:
                await self._read_room(run)
                ready |= set(run.elsewhere)
            ready.add(HOUSE)
            for pos in run.names:
                if pos in run.waiting:
                    continue
                if pos in run.sanctioned or (run.spec.house_fill and self._stand_in(run, pos)):
                    ready.add(pos)
            if len(ready) <= 1:
                continue
            accept = None if cluster is None else functools.partial(self._owner_here, run)
            claimed = await self._db(self.db.claim, run.id, ready, self.hub.instance, 16, accept)
            for row in claimed:
                if cluster is not None and not await self._take(run, row):
                    # an entrant was seated by another process meanwhile: plan it again
                    await self._db(self.db.release, row.row_id, row.game_id)
                    continue
                if hold_claim(row.game_id):
                    await asyncio.Future()  # as if killed before the table starts (dead_claims.py)
                await self._launch(run, row)

    def _stand_in(self, run: Running, pos: int) -> bool:
        """Whether the house bot plays ``pos``'s seats: suspended, or absent too long."""
        if pos in run.suspended:
            return True
        if run.started is None or pos in run.seen:
            return False
        return (time.monotonic() - run.started) * 1000 >= run.spec.absent_after_ms

    def _meta(self, run: Running, row: Claimed) -> dict[str, Any]:
        """What a tournament game's record carries (``meta``): where it is in the plan and
        the arena's seed of each seat's bot, ``bot_seed(deal, entry)`` of the line-up's plan
        (the house bot of a seat plays with it, and the fallback with it + 1)."""
        return {
            "tournament": run.id,
            "slot": row.slot,
            "lineup": row.lineup,
            "round": row.round,
            "deal": row.deal,
            "rotation": row.rotation,
            "seating": list(row.seating),
            "deal_seed": row.seed,
            "bot_seeds": [
                derive_seed(
                    lineup_plan_seed(run.spec, row.round),
                    "bot",
                    row.deal,
                    (s - row.rotation) % len(row.seating),
                )
                for s in range(len(row.seating))
            ],
        }

    async def _launch(self, run: Running, row: Claimed) -> None:
        seated_kinds = {
            "kh" if isinstance(m, KhMember) else "native"
            for p in row.seating
            if (m := run.waiting.get(p)) is not None and p not in run.suspended
        } | {"native" for p in row.seating if p in run.elsewhere and p not in run.suspended}
        if seated_kinds == {"kh"}:
            # Kuh-Handel bots only (and house seats): the endpoint's own game loop
            seated = {}
            for p in row.seating:
                m = run.waiting.pop(p, None)
                if m is not None:
                    self.waiting_in.pop(m.key, None)
                    seated[p] = m
            self.rows[row.game_id] = row
            self._keep(self._play_kh(run, row, seated))
            return
        hub = self.hub
        spec = game_spec(run.spec.game)
        house = hub.house_bot(spec)
        seats: list[SeatState] = []
        members: list[Member | None] = []
        #: per seat: native, kuh-handel (its client is a KhSeat, compat/seat.py) or house
        protocols: list[str] = []
        #: per seat: the process its client is connected to (in a cluster)
        hosts: list[str | None] = []
        cluster = hub.cluster
        for i, pos in enumerate(row.seating):
            member = run.waiting.get(pos)
            entry = run.elsewhere.pop(pos, None)
            relayed = member is None and entry is not None and pos not in run.suspended
            if relayed and entry is not None and entry.get("kh"):
                # a Kuh-Handel entrant of another process: its seat runs here, its frames are
                # relayed (compat/relay.py)
                assert cluster is not None
                conn = cluster.kh.seat(
                    str(entry["run"]),
                    str(entry["conn"]),
                    str(entry["name"]),
                    bool(entry.get("warnings")),
                    str(entry["key"]),
                    row.game_id,
                )
                protocols.append("kuh-handel")
                hosts.append(str(entry["run"]))
                seats.append(
                    SeatState(
                        index=i,
                        name=str(entry["name"]),
                        kind="bot",
                        player_id=int(entry["player_id"]),
                        key=str(entry["key"]),
                        conn=KhSeat(conn),
                        deadline_ms=run.spec.deadline_ms,
                        bank_ms=run.spec.time_bank_ms,
                    )
                )
                members.append(None)
            elif relayed and entry is not None:
                # waiting on another process: its seat is relayed (cluster.py)
                assert cluster is not None
                relay = cluster._relay(
                    entry["run"], entry["conn"], entry["key"], entry["eir"], entry["push"]
                )
                relay.bot_version = entry.get("version")
                protocols.append("native")
                hosts.append(str(entry["run"]))
                seats.append(
                    SeatState(
                        index=i,
                        name=str(entry["name"]),
                        kind="bot",
                        player_id=int(entry["player_id"]),
                        key=str(entry["key"]),
                        conn=relay,
                        deadline_ms=run.spec.deadline_ms,
                        bank_ms=run.spec.time_bank_ms,
                    )
                )
                members.append(None)
            elif member is not None and pos not in run.suspended:
                # seated: out of the waiting room until it joins again after the game
                del run.waiting[pos]
                self.waiting_in.pop(member.key, None)
                kh = isinstance(member, KhMember)
                peer: Any = KhSeat(member.conn) if kh else member.peer  # type: ignore[attr-defined]
                protocols.append("kuh-handel" if kh else "native")
                hosts.append(None if cluster is None else cluster.run)
                seats.append(
                    SeatState(
                        index=i,
                        name=member.name,
                        kind="bot",
                        player_id=member.player_id,
                        key=member.key,
                        conn=peer,
                        deadline_ms=run.spec.deadline_ms,
                        bank_ms=run.spec.time_bank_ms,
                    )
                )
                members.append(member)
            else:
                protocols.append("house")
                hosts.append(None)
                name = f"house-{house}" if pos == HOUSE else f"house-{house} for {run.names[pos]}"
                if pos == HOUSE and row.seating.count(HOUSE) > 1:
                    name = f"{name}-{row.seating[: i + 1].count(HOUSE)}"
                seats.append(SeatState(index=i, name=name[:64], kind="house", house=house))
                members.append(None)
        settings = dataclasses.replace(
            hub.settings,
            max_faults_per_game=run.spec.ban_after_faults,
            bot_quiet_ms=run.spec.quiet_ms,
            # suspensions are the tournament's own (suspend_after_faults), never the server's
            suspend_after_games=10**9,
        )
        setup = TableSetup(
            row.game_id,
            spec,
            run.rules,
            run.rules_name,
            row.seed,
            LOBBY,
            False,
            seats,
            self._meta(run, row)
            | ({"seat_protocols": protocols} if "kuh-handel" in protocols else {})
            | ({"seat_hosts": hosts} if cluster is not None else {}),
            pace="instant",
        )
        self.rows[row.game_id] = row
        table = hub.launch(setup, settings=settings, fallback_name=house)
        for seat in table.seats:
            if isinstance(seat.conn, KhSeat):
                seat.conn.bind(table, seat.index)

    async def _play_kh(self, run: Running, row: Claimed, seated: dict[int, Any]) -> None:
        """A game of Kuh-Handel entrants, played as the Kuh-Handel endpoint plays its games
        (``KhMatch``: the reference's wire, its timeouts) with the planned seed and seating."""
        from cardtable.core import load_bot
        from cardtable.server.compat.match import Box, KhMatch, Player

        house = self.hub.house_bot(game_spec("kuhhandel"))
        service = next(iter(seated.values())).service if seated else None
        meta = self._meta(run, row)
        seeds: list[int] = meta["bot_seeds"]
        players = []
        for i, pos in enumerate(row.seating):
            m = seated.get(pos)
            if m is not None and pos not in run.suspended and m.conn.alive:
                players.append(Player(m.name, conn=m.conn, label="client", player_id=m.player_id))
            else:
                agent = load_bot("kuhhandel", house, seed=seeds[i])
                label = "house" if pos == HOUSE else f"house_for_{run.names.get(pos, pos)}"
                players.append(
                    Player(
                        f"{label}_{i}",
                        house=Box(agent, i, None, True),  # type: ignore[arg-type]
                        label=house,
                    )
                )

        def fallback(seat: int) -> tuple[Any, bool]:
            return load_bot("kuhhandel", house, seed=seeds[seat] + 1), True

        match = KhMatch(
            players,
            seed=row.seed,
            timeout_s=run.spec.deadline_ms / 1000,
            fallback=fallback,
            max_timeouts=run.spec.ban_after_faults,
            rules=run.rules,
            meta=meta,
        )
        store = self.hub.store
        faults = None if service is None else service.fault_log(row.game_id, match)
        self.kh_playing |= {m.key for m in seated.values()}
        try:
            await self._db(
                lambda: store.start_game(
                    game_id=row.game_id,
                    game="kuhhandel",
                    rules_name=run.rules_name,
                    rules=match.game.rules_json(),
                    seed=row.seed,
                    lobby=LOBBY,
                    rated=False,
                    instance=self.hub.instance,
                    seats=[
                        (p.player_id, p.name, "bot" if p.conn is not None else "house")
                        for p in players
                    ],
                )
            )

            if faults is not None:
                faults.open()  # its faults are stored as they happen (fault_log.py)

            async def stored() -> None:
                if service is not None:
                    await service._store_end(row.game_id, match, faults)

            await match.run(on_end=stored)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("tournament %s: Kuh-Handel game %s failed", run.id, row.game_id)
        finally:
            cluster = self.hub.cluster
            self.kh_playing -= {m.key for m in seated.values()}
            for m in seated.values():
                m.conn.released.set()
                if cluster is not None:  # noted by _take
                    cluster.later("hdel", f"{cluster.p}:seats:{m.key}", row.game_id)
            self.rows.pop(row.game_id, None)
            state = await self._db(self.db.settle, row.row_id)
            log.info("tournament %s slot %d (Kuh-Handel): %s", run.id, row.slot, state)
            if not self._stopping:
                await self._refresh(run.id)

    def table_ended(self, table: Table) -> None:
        """A table of ours ended (its end is stored, or it failed): settle its row."""
        row = self.rows.pop(table.id, None)
        if row is None:
            return

        async def settle() -> None:
            state = await self._db(self.db.settle, row.row_id)
            log.info("tournament %s slot %d: %s", row.tournament_id, row.slot, state)
            if not self._stopping:
                await self._refresh(row.tournament_id)

        self._keep(settle())

    # -- organiser ----------------------------------------------------------------------------

    async def changed(self, tid: str) -> None:
        """The organiser changed ``tid`` (paused, resumed, cancelled): read it again now."""
        await self._refresh(tid)


def _cid(member: Any) -> str | None:
    """The connection id of a waiting entrant (a native session's, or a Kuh-Handel one's)."""
    if isinstance(member, KhMember):
        return str(member.conn.cid)
    return getattr(getattr(member, "peer", None), "cid", None)
