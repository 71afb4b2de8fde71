"""People at a table another process of a cluster runs: chat, rematch offers and presence.

A table runs on one process (its owner, :mod:`cardtable.server.cluster`); a person whose
connection is on another process (its host) holds the seat through a ``RelayPeer``. Frames from
the table already reach them that way (chat lines too: the table's :class:`~.chat.ChatRoom`
sends to the seat's connection, whatever it is). This module carries the rest, so that a person
on another process talks, is offered a rematch and sees who is at the table exactly as on one
process:

- **chat** (``people_chat``): a seat's ``chat`` and ``chat_report`` go from the host to the
  owner, which lets the table's chat room check, number, send and store them as if the seat
  had said them there (same limits per seat, same refusals, sent back to the person); reports
  are stored by the owner for the operator. Spectators still hear nothing: a relayed spectator
  gets what every spectator gets.
- **rematch** (``people_again``, ``people_decline``, ``people_unjoin``): an offer (``table``
  with ``offer: true``, :func:`.rematch.offer`) reaches the people of the ended game connected
  to other processes (found in ``P:online``); their "Play again" (``join`` with ``again``) goes
  to the process that ran the game (``games.instance``; it alone remembers it, ``Hub.ended``),
  which seats them through a relay, as it seats a ranked bot of another process; their decline
  (``leave`` with ``again``) goes to every process; one who leaves or closes while waiting at
  such a table is taken off it.
- **presence** (``people_public_ask``, ``people_public``): ``GET /api/tables/{id}/public``
  asked of a process that does not run the table is answered by the owner (the public view,
  with each seat's here / away / left), so a table page served by any process shows who is there.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import orjson

from cardtable.protocol import dumps
from cardtable.server.chat import ChatError

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster, RelayPeer

log = logging.getLogger("cardtable.server.cluster")

#: How long a process waits for the owner's public view of a table (then: 404).
PUBLIC_WAIT_S = 5.0


def _error(code: str, reason: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "reason": reason}


class PeopleRelay:
    """This process's side of the people's traffic between processes (module docstring)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._asks: dict[str, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: connections of this process that asked to play again a game another process ran
        self._waiting: set[str] = set()

    # -- the host side (the person's connection is here) ------------------------------------

    def _from(self, session: Any, op: str, game: str) -> dict[str, Any]:
        return {"op": op, "game": game, "run": self.cluster.run, "conn": session.cid}

    def chat(self, session: Any, kind: str, message: Mapping[str, Any]) -> bool:
        """Relay a seat's ``chat`` or ``chat_report`` to the process running its table;
        ``False`` if no other process holds a seat of this person in that game."""
        member = session.member
        game = str(message["game_id"])
        owner = self.cluster.owner_of(member.key, game) if member is not None else None
        if owner is None:
            return False
        message = {**self._from(session, "people_chat", game), "kind": kind, "message": message}
        self.cluster.to(owner, message)
        return True

    async def again(self, session: Any, message: Mapping[str, Any]) -> bool:
        """A ``join`` with ``again`` for a game that did not end on this process: sent to the
        process that ran it (``games.instance``), which answers through a relay; ``False`` if
        it ended here (or is no game: the lobby refuses it as on one process)."""
        game = message.get("again")
        member = session.member
        hub = self.cluster.hub
        if game is None or member is None or str(game) in hub.ended:
            return False
        loop = asyncio.get_running_loop()
        owner = await loop.run_in_executor(hub.db_executor, hub.store.instance_of, str(game))
        if owner is None or owner == self.cluster.run:
            return False
        if not await self.cluster.alive([owner]):
            reason = f"the server process that ran game {game} stopped: it cannot be played again"
            session.send(_error("unknown_game", reason))
            return True
        self._waiting.add(session.cid)
        self.cluster.to(
            owner,
            {
                **self._from(session, "people_again", str(game)),
                "key": member.key,
                "name": member.name,
                "kind": member.kind,
                "player_id": member.player_id,
                "eir": session.events_in_request,
                "push": session.push_observations,
                "join": dict(message),
            },
        )
        return True

    def left(self, session: Any) -> None:
        """``session`` left (``leave``) or closed: if it asked to play again a game of another
        process, that process takes it off the rematch table if it still waits there."""
        if session.cid in self._waiting:
            self._waiting.discard(session.cid)
            member = session.member
            key = member.key if member is not None else ""
            self._to_all({**self._from(session, "people_unjoin", ""), "key": key})

    def decline(self, member: Any, game: str) -> None:
        """``member`` (connected here) declines the rematch of a game another process ran."""
        message = {"op": "people_decline", "game": game, "key": member.key, "name": member.name}
        self._to_all(message)

    def _to_all(self, message: Mapping[str, Any]) -> None:
        """Publish ``message`` to every process (this one too), in order with the rest."""
        self.cluster.later("message", f"{self.cluster.p}:all", message)

    async def public_view(self, game: str) -> dict[str, Any] | None:
        """The public view of a table another process runs (``GET /api/tables/{id}/public``),
        asked of its owner; ``None`` if no live process runs it or it does not answer."""
        cluster = self.cluster
        raw = await cluster.redis.hget(f"{cluster.p}:tables", game)
        if raw is None:
            return None
        owner = str(orjson.loads(raw)["owner"])
        if owner == cluster.run:
            return None
        ask = secrets.token_hex(8)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._asks[ask] = future
        try:
            ask_message = {"op": "people_public_ask", "game": game, "run": cluster.run, "ask": ask}
            cluster.to(owner, ask_message)
            view = await asyncio.wait_for(future, PUBLIC_WAIT_S)
        except TimeoutError:
            return None
        finally:
            self._asks.pop(ask, None)
        return view if isinstance(view, dict) else None

    # -- the owner side (the table is here) -------------------------------------------------

    def offer(self, table: Any, message: Mapping[str, Any], skip: set[str]) -> None:
        """Show a waiting rematch table (``message``, with ``offer: true``) to the people of the
        ended game connected to other processes (``skip``: the keys told here already)."""
        here = {m.key for m in table.members}
        keys = sorted(k for k in set(table.reserved) - here - skip if not k.startswith("bot:"))
        if keys:
            self._spawn(self._offer(keys, {**message, "offer": True}))

    async def _offer(self, keys: list[str], message: Mapping[str, Any]) -> None:
        cluster = self.cluster
        where = await cluster.redis.hmget(f"{cluster.p}:online", keys)
        text = dumps(message)
        for value in where:
            if value:
                run, cid = str(value).split(" ", 1)
                if run != cluster.run:
                    cluster.to(run, {"op": "frame", "conn": cid, "text": text})

    def handle(self, m: dict[str, Any]) -> None:
        """A ``people_*`` message from another process."""
        op = m["op"]
        if op == "people_public":
            future = self._asks.get(m["ask"])
            if future is not None and not future.done():
                future.set_result(m.get("view"))
        elif op == "people_public_ask":
            self._answer_public(m)
        elif op == "people_chat":
            self._chat(m)
        elif op == "people_again":  # refused by the lobby if it is not remembered here
            self._spawn(self._again(m))
        elif op == "people_unjoin":
            self._unjoin(m)
        elif op == "people_decline":
            from cardtable.server.rematch import decline

            if m["game"] in self.cluster.hub.ended:  # the players at its table are told
                member = SimpleNamespace(key=m["key"], name=m["name"])
                decline(self.cluster.hub, member, m["game"])

    def _unjoin(self, m: Mapping[str, Any]) -> None:
        """Take a relayed person off the rematch table of this process it waits at (only that
        connection's seat there: a later connection of the same person keeps its own)."""
        from cardtable.server.lobby import Member

        hub = self.cluster.hub
        code = hub.private_of.get(m["key"])
        table = hub.private.get(code) if code is not None else None
        relay = self.cluster.relays.get((m["run"], m["conn"]))
        if table is None or table.again is None or relay is None:
            return
        for member in table.members:
            if member.key == m["key"] and member.peer is relay:
                hub.leave(Member(relay, member.key, member.name, member.kind, member.player_id))
                return

    def _answer_public(self, m: Mapping[str, Any]) -> None:
        from cardtable.server.web import public_view

        table = self.cluster.hub.tables.get(m["game"])
        view = public_view(table) if table is not None and table.running else None
        self.cluster.to(m["run"], {"op": "people_public", "ask": m["ask"], "view": view})

    def _relay(self, m: Mapping[str, Any]) -> RelayPeer:
        from cardtable.server.cluster import RelayPeer

        cluster = self.cluster
        key = (str(m["run"]), str(m["conn"]))
        relay = cluster.relays.get(key)
        if relay is None:
            relay = RelayPeer(cluster, key[0], key[1], str(m["key"]), m["eir"], m["push"])
            cluster.relays[key] = relay
        return relay

    def _chat(self, m: Mapping[str, Any]) -> None:
        cluster = self.cluster
        table = cluster.hub.tables.get(m["game"])
        relay = cluster.relays.get((m["run"], m["conn"]))
        if table is None or relay is None or table.seat_of(relay) is None:
            reason = f"no table {m['game']!r} with chat holds a seat for you"
            text = dumps(_error("chat_off", reason))
            cluster.to(m["run"], {"op": "frame", "conn": m["conn"], "text": text})
            return
        message = m["message"]
        try:
            if m["kind"] == "chat":
                table.chat.say(relay, message)
                return
        except ChatError as exc:
            relay.send(_error(exc.code, exc.reason))
            return
        self._spawn(self._report(table, relay, message))

    async def _report(self, table: Any, relay: RelayPeer, message: Mapping[str, Any]) -> None:
        try:
            await table.chat.report(relay, int(message["id"]), message.get("reason"))
        except ChatError as exc:
            relay.send(_error(exc.code, exc.reason))

    async def _again(self, m: Mapping[str, Any]) -> None:
        from cardtable.server.lobby import JoinError, Member

        relay = self._relay(m)
        member = Member(relay, str(m["key"]), str(m["name"]), str(m["kind"]), m["player_id"])
        try:
            await self.cluster.hub.join(member, m["join"])
        except JoinError as exc:
            relay.send(_error(exc.code, exc.reason))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("cluster: people's relay failed", exc_info=t.exception())

        task.add_done_callback(done)
