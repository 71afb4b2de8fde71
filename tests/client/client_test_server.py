"""A tiny test-only server speaking the native protocol v1, hosting the test game Nim.

It exists to test the client's own logic (deadlines, fallbacks, reconnect and resume, event
de-duplication) with failures the tests can trigger on purpose: dropping a connection after a
given number of actions, or a short deadline. The real server is tested end to end elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from cardtable.core import ActionError, Result, game_spec


@dataclass
class Player:
    name: str
    ws: ServerConnection | None = None
    table: Table | None = None
    seat: int = 0
    actions: int = 0
    #: Every message sent to this player, in order.
    sent: list[dict[str, Any]] = field(default_factory=list)


class Table:
    def __init__(self, server: NimServer, game_id: str, players: list[Player], sticks: int) -> None:
        spec = game_spec("nim")
        self.server = server
        self.game_id = game_id
        self.players = players
        self.game = spec.new_game(spec.rules_from_json({"sticks": sticks}), len(players), 0)
        self.open: tuple[str, Player, asyncio.Future[dict[str, Any]]] | None = None
        self.request_message: dict[str, Any] | None = None
        self.over = False
        for seat, p in enumerate(players):
            p.table, p.seat = self, seat

    def start_message(self, p: Player) -> dict[str, Any]:
        return {
            "type": "game_start",
            "game_id": self.game_id,
            "game": "nim",
            "rules": self.game.rules_json(),
            "seat": p.seat,
            "seats": len(self.players),
            "names": [q.name for q in self.players],
        }

    async def run(self) -> None:
        for p in self.players:
            await self.server.send(p, self.start_message(p))
        seen = 0
        ids = itertools.count(1)
        while not self.game.is_over():
            request = self.game.pending()[0]
            p = self.players[request.seat]
            rid = f"r{next(ids)}"
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self.open = (rid, p, future)
            self.request_message = {
                "type": "request",
                "game_id": self.game_id,
                "request_id": rid,
                "request": self.game.request_to_json(request),
                "observation": self.game.observe_json(request.seat),
                "deadline_ms": self.server.deadline_ms,
                "time_bank_ms": 0,
            }
            await self.server.send(p, self.request_message)
            fallback = request.choices[0] if request.choices else None
            try:
                reply = await asyncio.wait_for(future, self.server.deadline_ms / 1000)
                self.game.apply(p.seat, self.game.action_from_json(reply["action"]))
            except TimeoutError:
                self.server.timeouts.append((p.name, rid))
                await self.server.send(p, self.rejection(rid, "timeout", "deadline passed"))
                self.game.apply(p.seat, fallback)
            except ActionError as exc:
                self.server.illegal.append((p.name, rid))
                await self.server.send(p, self.rejection(rid, "illegal_action", exc.reason))
                self.game.apply(p.seat, fallback)
            self.open = None
            new = self.game.events(seen)
            for i, event in enumerate(new, start=seen):
                for q in self.players:
                    if event.visible_to(q.seat):
                        await self.server.send(q, self.event_message(i, event))
            seen += len(new)
        result = self.game.result()
        self.server.results.append(result)
        self.over = True
        for p in self.players:
            p.table = None
            await self.server.send(
                p,
                {
                    "type": "game_end",
                    "game_id": self.game_id,
                    "result": result.to_json(),
                    "record_url": f"/api/games/{self.game_id}",
                },
            )

    def rejection(self, rid: str, code: str, reason: str) -> dict[str, Any]:
        return {
            "type": "rejected",
            "game_id": self.game_id,
            "request_id": rid,
            "code": code,
            "reason": reason,
        }

    def event_message(self, index: int, event: Any) -> dict[str, Any]:
        return {
            "type": "event",
            "game_id": self.game_id,
            "index": index,
            "event": {"kind": event.kind, "data": dict(event.data)},
        }

    async def resume(self, p: Player, since: int) -> None:
        self.server.resumes.append(p.name)
        await self.server.send(p, self.start_message(p))
        for i, event in enumerate(self.game.events(0)):
            if i >= since and event.visible_to(p.seat):
                await self.server.send(p, self.event_message(i, event))
        if self.open is not None and self.open[1] is p and self.request_message is not None:
            await self.server.send(p, self.request_message)

    def deliver(self, p: Player, message: dict[str, Any]) -> None:
        if self.open is None or self.open[1] is not p or self.open[0] != message["request_id"]:
            return
        if not self.open[2].done():
            self.open[2].set_result(message)


class NimServer:
    """``async with NimServer(tokens) as server:`` serves on a free loopback port."""

    def __init__(
        self,
        tokens: dict[str, str],
        *,
        deadline_ms: int = 1000,
        seats: int = 2,
        sticks: int = 9,
    ) -> None:
        self.tokens = tokens
        self.deadline_ms = deadline_ms
        self.seats = seats
        self.sticks = sticks
        self.players: dict[str, Player] = {}
        self.queue: list[Player] = []
        self.results: list[Result] = []
        self.timeouts: list[tuple[str, str]] = []
        self.illegal: list[tuple[str, str]] = []
        #: ``fault`` reports received: (player name, message).
        self.reports: list[tuple[str, dict[str, Any]]] = []
        self.resumes: list[str] = []
        self.connections = 0
        #: name -> the number of actions after which that player's connection is cut.
        self.drop_after: dict[str, set[int]] = {}
        #: Tables given up before they start (as a cluster does when the process that was to
        #: run one dies): their players get ``game_end`` aborted without ``game_start``.
        self.give_up_tables = 0
        #: Players seated while away (as a cluster's leader seats a bot whose process was just
        #: killed): at their join the server cuts their connection and takes them out of the
        #: queue into a game that ends before they come back; their welcome names that game,
        #: and their resume of it is refused (``unknown_game``).
        self.seat_away: set[str] = set()
        self.away_games: dict[str, str] = {}
        #: Joins refused with ``unknown_game`` before one is served, per player (as a cluster
        #: refuses a join it served as a resume of a seat whose table ended meanwhile), and
        #: the joins each player sent.
        self.refuse_joins: dict[str, int] = {}
        self.joins: dict[str, int] = {}
        self._server: Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)

    @property
    def url(self) -> str:
        assert self._server is not None
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws"

    async def __aenter__(self) -> NimServer:
        self._server = await serve(self.handle, "127.0.0.1", 0, compression=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def send(self, p: Player, message: dict[str, Any]) -> None:
        p.sent.append(message)
        if p.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await p.ws.send(json.dumps(message))

    async def handle(self, ws: ServerConnection) -> None:
        self.connections += 1
        hello = json.loads(await ws.recv())
        name = hello.get("bot")
        if hello.get("protocol") != 1 or self.tokens.get(name) != hello.get("token"):
            await ws.send(json.dumps({"type": "error", "code": "bad_token", "reason": "no"}))
            await ws.close(1008, "bad token")
            return
        p = self.players.setdefault(name, Player(name))
        p.ws = ws
        running = [p.table.game_id] if p.table is not None else []
        if name in self.away_games:
            running = [self.away_games[name]]
        welcome = {
            "type": "welcome",
            "protocol": 1,
            "server_version": "test",
            "you": {"name": name, "kind": "bot"},
            "games": running,
        }
        await ws.send(json.dumps(welcome))
        try:
            async for frame in ws:
                message = json.loads(frame)
                kind = message["type"]
                if kind == "join":
                    self.joins[name] = self.joins.get(name, 0) + 1
                if kind == "join" and self.refuse_joins.get(name, 0) > 0:
                    self.refuse_joins[name] -= 1
                    gone = f"no running game 'g{next(self._ids)}' holds a seat for you"
                    await self.send(p, {"type": "error", "code": "unknown_game", "reason": gone})
                    continue
                if kind == "join" and name in self.seat_away:
                    self.seat_away.discard(name)
                    self.away_games[name] = f"g{next(self._ids)}"
                    ws.transport.abort()
                    return
                if kind == "join":
                    self.queue.append(p)
                    if len(self.queue) >= self.seats:
                        seated, self.queue = self.queue[: self.seats], self.queue[self.seats :]
                        game_id = f"g{next(self._ids)}"
                        if self.give_up_tables > 0:
                            self.give_up_tables -= 1
                            gone = {"termination": "aborted", "scores": [], "places": []}
                            for q in seated:
                                await self.send(
                                    q, {"type": "game_end", "game_id": game_id, "result": gone}
                                )
                            continue
                        table = Table(self, game_id, seated, self.sticks)
                        task = asyncio.ensure_future(table.run())
                        self._tasks.add(task)
                elif kind == "action" and p.table is not None:
                    p.actions += 1
                    if p.actions in self.drop_after.get(name, set()):
                        # Cut the line before the action counts: the client must resend it.
                        ws.transport.abort()
                        return
                    p.table.deliver(p, message)
                elif kind == "fault":
                    self.reports.append((name, message))
                elif kind == "resume" and p.table is not None:
                    await p.table.resume(p, int(message.get("since", 0)))
                elif kind == "resume" and message.get("game_id") == self.away_games.get(name):
                    refused = f"no running game {self.away_games.pop(name)!r} holds your seat"
                    await self.send(p, {"type": "error", "code": "unknown_game", "reason": refused})
                elif kind == "leave" and p in self.queue:
                    self.queue.remove(p)
        except ConnectionClosed:
            pass
        finally:
            if p.ws is ws:
                p.ws = None
