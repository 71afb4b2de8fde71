"""A Kuh-Handel bot's connection relayed between two processes of a cluster, frame by frame.

A tournament table may seat a Kuh-Handel entrant connected to another process (its *host*).
Its :class:`~cardtable.server.compat.seat.KhSeat` runs on the table's process (the *owner*): its
corrections read the game's state. There the connection is a :class:`RelayedBotConnection`, a
:class:`~cardtable.server.compat.connection.BotConnection` whose frames go through the cluster's
per-process Redis channels (``P:to:RUN``, in order with everything else a process publishes), as
a native seat's frames go through a ``RelayPeer``:

- ``kh_seated`` (owner -> host): the entrant sits at ``game``; the host takes it out of its
  waiting room, drops what the bot sent while it waited, and relays from then on;
- ``kh_out`` / ``kh_close`` (owner -> host): a reference-protocol text frame to send as it is,
  then the close (with its code: 1000 after ``End``, 1008 after a ban, 1003 after text that is
  not JSON);
- ``kh_in`` / ``kh_lost`` (host -> owner): each text frame the bot sent (the host's reader
  already checked its kind and size), then the connection's end with why (the client closed,
  a binary frame, a frame too big, a socket error, or the server's close).

Timeouts, late replies, faults and bans stay the owner's, as at a local seat. A process that
dies is noticed by the other's reaper (or by its successor under the same name, at its start):

- the host died: the owner's seat is *gone* for the rest of the game (the reference protocol
  has no resume): the fallback plays on, with one ``disconnected`` fault that is excused (no
  strike toward a ban, the seat is not stored as taken over: the server lost the connection,
  not the bot), and the game counts. The bot, reconnected anywhere, enters again for its next
  game; it gets no ``End`` of this one.
- the owner died: its game is aborted by the reaper (a tournament's row turns ``void`` and is
  planned again) and the host closes the bot's connection with 1011; the bot enters again.

``tests/server/test_tournament_kh_cluster.py`` kills each side while a game runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardtable.server.compat.connection import BotConnection

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster

log = logging.getLogger("cardtable.server.compat")


@dataclass(eq=False)
class RelayedBotConnection(BotConnection):
    """On the owner: a Kuh-Handel bot connected to process ``host``."""

    relays: KhRelays | None = None
    host: str = ""
    #: the connection went with its host process (the reaper saw it die): no fault of the bot
    host_gone: bool = False
    _shut: bool = False

    async def send_raw(self, text: str) -> bool:
        if not self.alive:
            return False
        assert self.relays is not None
        self.relays.cluster.to(self.host, {"op": "kh_out", "conn": self.cid, "text": text})
        return True

    async def close(self, code: int = 1000) -> None:
        if self.alive:
            self._lost(f"closed by the server ({code})")
        if not self._shut:
            self._shut = True
            assert self.relays is not None
            self.relays.cluster.to(self.host, {"op": "kh_close", "conn": self.cid, "code": code})

    def take(self, text: str) -> None:
        """A frame the bot sent, from its host."""
        if self.alive:
            self._queue.put_nowait(text)


@dataclass(eq=False)
class _Hosted:
    """On the host: a connection whose seat is at a table of process ``owner``."""

    conn: BotConnection
    owner: str
    outbox: asyncio.Queue[tuple[str, Any]] = field(default_factory=asyncio.Queue)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class KhRelays:
    """This process's relayed Kuh-Handel connections, both sides (see the module docstring)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        #: host side: the Kuh-Handel connections waiting in a tournament here, by id
        self.local: dict[str, BotConnection] = {}
        #: host side: those seated at another process's table
        self.hosted: dict[str, _Hosted] = {}
        #: owner side: (host, connection id) -> its relayed connection
        self.remote: dict[tuple[str, str], RelayedBotConnection] = {}

    def register(self, conn: BotConnection) -> None:
        self.local[conn.cid] = conn

    def unregister(self, conn: BotConnection) -> None:
        if self.local.get(conn.cid) is conn:
            del self.local[conn.cid]

    # -- the owner's side ---------------------------------------------------------------------

    def seat(
        self, host: str, cid: str, name: str, warnings: bool, key: str, game: str
    ) -> RelayedBotConnection:
        """The connection of a bot of ``host`` seated at ``game`` here; its host is told
        (before any frame of the game)."""
        conn = RelayedBotConnection(
            None,  # type: ignore[arg-type]
            name,
            f"relayed from {host}",
            warnings,
            cid=cid,
            relays=self,
            host=host,
        )
        self.remote[(host, cid)] = conn
        self.cluster.to(
            host,
            {"op": "kh_seated", "conn": cid, "key": key, "game": game, "owner": self.cluster.run},
        )
        return conn

    # -- receiving ----------------------------------------------------------------------------

    def handle(self, m: Mapping[str, Any]) -> None:
        op = m["op"]
        if op == "kh_in":
            remote = self.remote.get((m["run"], m["conn"]))
            if remote is not None:
                remote.take(str(m["text"]))
        elif op == "kh_lost":
            remote = self.remote.pop((m["run"], m["conn"]), None)
            if remote is not None:
                remote._lost(str(m["why"]))
        elif op == "kh_seated":
            self._seated(m)
        elif op in ("kh_out", "kh_close"):
            hosted = self.hosted.get(m["conn"])
            if hosted is not None:
                item = ("text", m["text"]) if op == "kh_out" else ("close", int(m["code"]))
                hosted.outbox.put_nowait(item)

    def _seated(self, m: Mapping[str, Any]) -> None:
        cid, owner = str(m["conn"]), str(m["owner"])
        conn = self.local.get(cid)
        if conn is None or not conn.alive:
            why = conn.why_gone if conn is not None else "the connection closed meanwhile"
            self.cluster.to(
                owner, {"op": "kh_lost", "run": self.cluster.run, "conn": cid, "why": why}
            )
            return
        self.cluster.hub.tournaments.forget(str(m["key"]))
        # what the bot sent while it waited answers nothing of this game
        while not conn._queue.empty():
            if conn._queue.get_nowait() is None:
                conn._queue.put_nowait(None)
                break
        hosted = _Hosted(conn, owner)
        self.hosted[cid] = hosted
        loop = asyncio.get_running_loop()
        hosted.tasks = [
            loop.create_task(self._pump(hosted), name=f"kh-relay-in-{conn.name}"),
            loop.create_task(self._write(hosted), name=f"kh-relay-out-{conn.name}"),
        ]

    async def _pump(self, hosted: _Hosted) -> None:
        """The bot's frames, to the owner, until its connection ends."""
        conn, run = hosted.conn, self.cluster.run
        try:
            while True:
                text = await conn._queue.get()
                if text is None:
                    why = conn.why_gone or "connection lost"
                    message = {"op": "kh_lost", "run": run, "conn": conn.cid, "why": why}
                    self.cluster.to(hosted.owner, message)
                    return
                self.cluster.to(
                    hosted.owner, {"op": "kh_in", "run": run, "conn": conn.cid, "text": text}
                )
        finally:
            conn.released.set()  # its handler ends: the connection is closed there

    async def _write(self, hosted: _Hosted) -> None:
        """The owner's frames, to the bot, in order, until the owner closes the connection."""
        conn = hosted.conn
        try:
            while True:
                what, arg = await hosted.outbox.get()
                if what == "text":
                    await conn.send_raw(str(arg))
                else:
                    await conn.close(int(arg))
                    return
        finally:
            if self.hosted.get(conn.cid) is hosted:
                del self.hosted[conn.cid]
            conn.released.set()

    def reaped(self, run: str) -> None:
        """Process ``run`` is gone: its bots' seats here are gone, and the bots of this process
        seated at its tables are closed."""
        for (host, cid), remote in list(self.remote.items()):
            if host == run:
                del self.remote[(host, cid)]
                remote.host_gone = True
                remote._lost("the server process holding the connection stopped")
        for hosted in list(self.hosted.values()):
            if hosted.owner == run:
                hosted.outbox.put_nowait(("close", 1011))

    async def stop(self) -> None:
        tasks = [t for h in self.hosted.values() for t in h.tasks]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
