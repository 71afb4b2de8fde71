"""One WebSocket client speaking the native protocol (``/ws``).

The session reads frames, refuses what it must (size, flood, schema, identity) with an ``error``
carrying a code and a reason, and hands the rest to the :class:`~cardtable.server.lobby.Hub` and
the tables. Outgoing messages go through a queue and a writer task, so a table never waits for
a slow client. Tokens are checked against their hash and never logged or echoed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from cardtable.protocol import PROTOCOL_VERSION, ProtocolError, dumps, parse_client_message
from cardtable.server import names
from cardtable.server.accounts import guest_key, ws_person
from cardtable.server.chat import ChatError
from cardtable.server.limits import SOCKET_EXTENSION
from cardtable.server.lobby import Hub, JoinError, Member
from cardtable.server.lockouts import BotLogins
from cardtable.server.metrics import Stamp
from cardtable.server.proxies import client_address
from cardtable.server.rematch import decline as decline_rematch
from cardtable.server.store.db import now
from cardtable.server.submissions.login import NOT_VALIDATED, is_hosted_token, join_refusal
from cardtable.server.submissions.login import authenticate as hosted_login

log = logging.getLogger("cardtable.server.connection")

#: Close codes (RFC 6455): policy violation, message too big, going away.
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_GOING_AWAY = 1001
#: A client that does not read its messages is dropped beyond this many queued frames.
MAX_QUEUED = 5000
#: Seconds a session refused with an error goes on reading (and dropping) what the client still
#: sends before it sends the close frame. The server's WebSocket layer closes the socket right
#: after the close frame; a socket closed with unread data resets the connection, and the reset
#: can destroy the error frame (and the close frame) before the client has read them. Lingering
#: gives the client time to read the error first.
LINGER = 0.5


class _Close:
    """The last item of a session's queue: close the socket with ``code``."""

    __slots__ = ("code", "reason")

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


class Session:
    """The server side of one WebSocket connection."""

    def __init__(
        self,
        websocket: WebSocket,
        hub: Hub,
        server_version: str,
        throttle: BotLogins | None = None,
    ) -> None:
        self.ws = websocket
        self.hub = hub
        self.server_version = server_version
        # a text frame, a frame carrying a latency stamp, or the close
        self.out: asyncio.Queue[str | tuple[str, Stamp] | _Close] = asyncio.Queue()
        self.metrics = hub.metrics
        self.member: Member | None = None
        self.spectating: str | None = None
        #: This connection's id in the cluster (the ``RelayPeer`` a table on another process
        #: holds for it names it).
        self.cid = secrets.token_hex(6)
        self.closing = False
        #: The server asked the client to reconnect (rebalance.py): its going costs no fault.
        self.sent_away = False
        self._disconnected = False
        #: Options from hello (see :class:`~cardtable.server.table.Peer`).
        self.events_in_request = False
        self.push_observations = False
        #: A bot's version from its ``hello`` (recorded per game and seat), ``None`` if none.
        self.bot_version: str | None = None
        #: A bot's ladder suspension as of its ``hello``: until when, and the refusal's reason.
        self.suspension: tuple[datetime, str] | None = None
        self.wants_chat = False
        self.hosted = False  # logged in with a worker's hosted token (server/submissions/)
        settings = hub.settings
        self._tokens = float(settings.flood_burst)
        self._rate = settings.flood_rate
        self._burst = float(settings.flood_burst)
        self._last = time.monotonic()
        self.max_bytes = settings.max_frame_bytes
        self.hello_timeout = settings.hello_timeout_s
        self.max_buffered = settings.max_send_buffer_bytes
        self.throttle = throttle
        self.address = client_address(websocket)
        # the socket layer's unsent bytes (only under cardtable's uvicorn protocol classes)
        socket_ext = websocket.scope.get("extensions", {}).get(SOCKET_EXTENSION) or {}
        self._buffered = socket_ext.get("buffered")
        self._abort = socket_ext.get("abort")

    # -- Peer -------------------------------------------------------------------------------

    def send(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "error" or (kind == "rejected" and message.get("code") == "not_your_turn"):
            self.metrics.errors_sent[str(message.get("code"))] += 1
        self.send_text(dumps(message))

    def send_text(self, text: str, stamp: Stamp | None = None) -> None:
        """Queue one frame; ``stamp`` (a request answering a reply) is recorded when the frame
        has been handed to the socket."""
        if self.closing:
            return
        if self.out.qsize() >= MAX_QUEUED:
            self.close(CLOSE_POLICY, "the client does not read its messages")
            return
        self.out.put_nowait(text if stamp is None else (text, stamp))

    def close(self, code: int, reason: str, linger: float = 0.0) -> None:
        """Send what is queued, then close with ``code``, ``linger`` seconds later (meanwhile
        :meth:`serve` reads and drops what the client still sends; nothing more is sent)."""
        if not self.closing:
            self.closing = True
            item = _Close(code, reason)
            if linger > 0:
                asyncio.get_running_loop().call_later(linger, self.out.put_nowait, item)
            else:
                self.out.put_nowait(item)

    def fatal(self, code: str, reason: str, close_code: int = CLOSE_POLICY) -> None:
        """Refuse the client: the error, then the close frame after :data:`LINGER`."""
        self.send({"type": "error", "code": code, "reason": reason})
        self.close(close_code, code, LINGER)

    # -- the session ------------------------------------------------------------------------

    async def serve(self) -> None:
        await self.ws.accept()
        writer = asyncio.create_task(self._writer())
        try:
            await self._read_loop()
            if self.closing and not self._disconnected:
                # read (and drop) what the client still sends until it answers our close: a
                # socket closed with unread data resets, and the client would lose our error
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._drain(), timeout=5.0)
        finally:
            if self.member is not None:
                self.hub.forget(self.member.key, self)
                if self.hub.online.get(self.member.key) is self:
                    del self.hub.online[self.member.key]
            if self.hub.cluster is not None:
                self.hub.cluster.closed(self)
                self.hub.cluster.people.left(self)  # off a rematch table of another process
            if self.spectating is not None:
                table = self.hub.tables.get(self.spectating)
                if table is not None:
                    table.spectators.discard(self)
            self.close(CLOSE_GOING_AWAY, "bye")
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(writer, timeout=2.0)
            writer.cancel()

    async def _drain(self) -> None:
        while True:
            frame = await self.ws.receive()
            if frame["type"] == "websocket.disconnect":
                return

    async def _writer(self) -> None:
        metrics = self.metrics
        send_text = self.ws.send_text
        buffered = self._buffered
        next_look = 0.0
        try:
            while True:
                item = await self.out.get()
                if type(item) is str:
                    await send_text(item)
                elif isinstance(item, tuple):
                    await send_text(item[0])
                    item[1].left()
                else:
                    assert isinstance(item, _Close)
                    with contextlib.suppress(Exception):
                        await self.ws.close(code=item.code, reason=item.reason[:120])
                    return
                metrics.frames_out += 1
                if buffered is not None:
                    # what the client has not taken yet, looked at most 20 times a second
                    moment = time.monotonic()
                    if moment >= next_look:
                        next_look = moment + 0.05
                        if buffered() > self.max_buffered:
                            self._drop_unread()
                            return
        except Exception:  # the client went away; the reader notices too
            self.closing = True
            with contextlib.suppress(Exception):
                await self.ws.close(code=CLOSE_GOING_AWAY)

    def _drop_unread(self) -> None:
        """The client does not read what it is sent: drop the connection at once (a close frame
        would queue behind what it does not read). Its seats keep playing as after any
        disconnect."""
        log.info(
            "dropped %s: more than %d bytes unsent (the client does not read)",
            self.member.name if self.member is not None else "a spectator",
            self.max_buffered,
        )
        self.closing = True
        self._disconnected = True
        if self._abort is not None:
            self._abort()

    async def _read_loop(self) -> None:
        started = time.monotonic()
        while not self.closing:
            try:
                if self.member is None and self.spectating is None:
                    left = started + self.hello_timeout - time.monotonic()
                    frame = await asyncio.wait_for(self.ws.receive(), max(0.0, left))
                else:
                    frame = await self.ws.receive()
            except TimeoutError:
                self.fatal("not_hello", f"no hello within {self.hello_timeout:g} s")
                return
            except (WebSocketDisconnect, RuntimeError):
                self._disconnected = True
                return
            if frame["type"] == "websocket.disconnect":
                self._disconnected = True
                return
            arrived = time.perf_counter()
            self.metrics.frames_in += 1
            text = frame.get("text")
            if not self._allow():
                self.fatal("flood", f"more than {self._rate:g} messages per second; goodbye")
                return
            if text is None:
                size = len(frame.get("bytes") or b"")
            else:
                size = len(text) if len(text) * 4 <= self.max_bytes else len(text.encode("utf-8"))
            if size > self.max_bytes:
                self.fatal(
                    "too_large", f"a frame of {size} bytes exceeds {self.max_bytes}", CLOSE_TOO_BIG
                )
                return
            if text is None:  # the protocol is JSON in text frames only
                self._refused(ProtocolError("bad_json", "a binary frame: send JSON text frames"))
                continue
            try:
                message = parse_client_message(text)
            except ProtocolError as exc:
                self._refused(exc)
                continue
            await self._dispatch(message, arrived)

    def _allow(self) -> bool:
        now_ = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now_ - self._last) * self._rate)
        self._last = now_
        self._tokens -= 1.0
        return self._tokens >= 0

    def _refused(self, exc: ProtocolError) -> None:
        if self.member is None and self.spectating is None:
            self.fatal(exc.code, exc.reason + " (the first message must be a valid hello)")
            return
        self.send({"type": "error", "code": exc.code, "reason": exc.reason})
        if self.member is not None:
            # a frame we cannot read while a decision is open: that decision is a fault
            for game_id in self.hub.running_games(self.member.key):
                self.hub.tables[game_id].on_malformed(self, exc.code, exc.reason)
            if self.hub.cluster is not None:
                self.hub.cluster.malformed(self, exc.code, exc.reason)

    async def _dispatch(self, message: dict[str, Any], arrived: float) -> None:
        kind = message["type"]
        if kind == "hello":
            await self._hello(message)
            return
        if self.member is None:
            if self.spectating is not None and kind == "leave":
                self.close(1000, "bye")
                return
            if self.spectating is not None:
                # a spectator's message that only a seat may send: refused, it watches on
                self.send(
                    {
                        "type": "error",
                        "code": "spectator_cannot_act",
                        "reason": f"a spectator cannot send {kind}: it watches "
                        f"{self.spectating}; leave, then hello as a player to play",
                    }
                )
                return
            self.fatal("not_hello", f"send hello before {kind}")
            return
        member = self.member
        if kind == "join":
            if self.hosted:  # a hosted bot's rated joins need a validated version
                refusal = await asyncio.get_running_loop().run_in_executor(
                    self.hub.db_executor, join_refusal, self.hub.store, member.name, message
                )
                if refusal is not None:
                    self.send({"type": "error", "code": NOT_VALIDATED, "reason": refusal})
                    return
            cluster = self.hub.cluster
            if cluster is not None and await cluster.people.again(self, message):
                return  # play again a game another process ran (server/cluster_people.py)
            try:
                await self.hub.join(member, message)
            except JoinError as exc:
                self.send({"type": "error", "code": exc.code, "reason": exc.reason})
        elif kind == "action":
            game_id = message["game_id"]
            table = self.hub.tables.get(game_id)
            cluster = self.hub.cluster
            if (
                table is None
                and cluster is not None
                and cluster.action(self, game_id, message["request_id"], message["action"])
            ):
                self._tokens = min(self._burst, self._tokens + 1.0)
                return
            if table is None or table.seat_of(self) is None:
                self.send(
                    {
                        "type": "rejected",
                        "game_id": game_id,
                        "request_id": message["request_id"],
                        "code": "not_your_turn",
                        "reason": f"you hold no seat in a running game {game_id!r}",
                    }
                )
                return
            if table.on_action(self, message["request_id"], message["action"], arrived):
                # answers to our own requests are never flooding: only unsolicited frames count
                self._tokens = min(self._burst, self._tokens + 1.0)
        elif kind == "fault":
            table = self.hub.tables.get(message["game_id"])
            cluster = self.hub.cluster
            if (
                table is None
                and cluster is not None
                and cluster.fault(self, message["game_id"], message)
            ):
                self._tokens = min(self._burst, self._tokens + 1.0)
                return
            if table is None or table.seat_of(self) is None:
                self.send(
                    {
                        "type": "rejected",
                        "game_id": message["game_id"],
                        "request_id": message["request_id"],
                        "code": "not_your_turn",
                        "reason": f"you hold no seat in a running game {message['game_id']!r}",
                    }
                )
            elif table.on_fault_report(self, message):
                self._tokens = min(self._burst, self._tokens + 1.0)  # it answers our request
        elif kind == "resume":
            since = int(message.get("since", 0))
            games = self.hub.resume(member, message.get("game_id"), since)
            if self.hub.cluster is not None:
                games += self.hub.cluster.resume(self, message.get("game_id"), since)
            if not games:
                self.send(
                    {
                        "type": "error",
                        "code": "unknown_game",
                        "reason": "no running game holds a seat for you",
                    }
                )
        elif kind == "leave" and message.get("again") is not None:
            decline_rematch(self.hub, member, str(message["again"]))
        elif kind == "leave":
            self.hub.leave(member)
            if self.hub.cluster is not None:
                self.hub.cluster.people.left(self)  # off a rematch table of another process
        elif kind in ("chat", "chat_report"):
            await self._chat(kind, message)

    async def _chat(self, kind: str, message: Mapping[str, Any]) -> None:
        """Table chat (``server/chat/``): a line to say, or a line to report."""
        game_id = str(message["game_id"])
        table = self.hub.tables.get(game_id)
        try:
            if table is None:
                # a table another process of a cluster runs: relayed (server/cluster_people.py)
                cluster = self.hub.cluster
                if cluster is not None and cluster.people.chat(self, kind, message):
                    return
                raise ChatError("chat_off", f"no table {game_id!r} with chat on this server")
            if kind == "chat":
                table.chat.say(self, message)
            else:
                await table.chat.report(self, int(message["id"]), message.get("reason"))
        except ChatError as exc:
            self.send({"type": "error", "code": exc.code, "reason": exc.reason})

    async def _hello(self, message: Mapping[str, Any]) -> None:
        if self.member is not None or self.spectating is not None:
            self.send({"type": "error", "code": "bad_message", "reason": "hello was already sent"})
            return
        if message["protocol"] != PROTOCOL_VERSION:
            self.fatal(
                "unsupported_protocol",
                f"this server speaks protocol {PROTOCOL_VERSION}, not {message['protocol']!r}",
            )
            return
        self.events_in_request = message.get("events_in_request") is True
        self.wants_chat = message.get("chat") is True  # a bot hears table chat only if asked
        self.push_observations = message.get("push_observations") is True
        you: dict[str, Any]
        if "bot" in message and "token" in message:
            name, token = str(message["bot"]), str(message["token"])
            throttle = self.throttle
            if throttle is not None:
                wait, why = await throttle.retry_after(name, token, self.address)
                if wait > 0:
                    self.fatal("throttled", f"{why}: retry after {max(1, round(wait))} s")
                    return
            loop = asyncio.get_running_loop()
            identity = await loop.run_in_executor(
                self.hub.db_executor,
                hosted_login,
                self.hub.store,
                self.hub.settings.admin_token,
                name,
                token,
            )
            if identity is None:
                log.info("refused hello for bot %r: bad token", name)
                if throttle is not None:
                    await throttle.failed(name, token, self.address)
                self.fatal("bad_token", f"unknown bot {name!r} or wrong token")
                return
            # a suspended bot connects: it may play the tournaments it entered (they use their
            # own sanctions only), every other join is refused (organiser.ladder_suspension)
            if identity.suspended_until is not None and identity.suspended_until > now():
                self.suspension = (
                    identity.suspended_until,
                    f"{name} is suspended until {identity.suspended_until.isoformat()}: "
                    f"{identity.suspended_reason}",
                )
            self.member = Member(self, f"bot:{name}", name, "bot", identity.id)
            self.hosted = bool(self.hub.settings.admin_token) and is_hosted_token(token)
            self.bot_version = str(message.get("version") or "")[:64] or None
            you = {"name": name, "kind": "bot"}
        elif message.get("person") is True:
            # a person with an account: the session cookie of the handshake names it, the same
            # way a bot's token does (one identity key, player id, faults, resume)
            loop = asyncio.get_running_loop()
            identity, why = await loop.run_in_executor(
                self.hub.db_executor, ws_person, self.ws, self.hub.store
            )
            if identity is None:
                self.fatal("bad_token", why)
                return
            key = f"person:{identity.id}"
            self.member = Member(self, key, identity.name, "person", identity.id)
            you = {"name": identity.name, "kind": "person"}
        elif "guest" in message:
            try:
                name = names.normalise(" ".join(str(message["guest"]).split())[:32]) or "guest"
            except names.NameRefused as exc:
                self.fatal("bad_name", exc.reason)
                return
            taken = None
            if names.house_name(name):
                taken = "the house bots"
            else:
                loop = asyncio.get_running_loop()
                taken = await loop.run_in_executor(
                    self.hub.db_executor, self.hub.store.name_taken, name
                )
            if taken is not None:
                self.fatal(
                    "bad_name",
                    f"the name {name!r} belongs to (or looks like) {taken}: choose another",
                )
                return
            token = message.get("token")
            if not isinstance(token, str) or len(token) < 16:
                token = secrets.token_urlsafe(24)
            key = guest_key(token)
            self.member = Member(self, key, name, "guest", None)
            you = {"name": name, "kind": "guest", "resume_token": token}
        else:
            game_id = str(message["spectate"])
            self.send(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "server_version": self.server_version,
                    "you": {"name": "spectator", "kind": "spectator"},
                    "games": [],
                }
            )
            watching = self.hub.spectate(game_id, self)
            if not watching and self.hub.cluster is not None:  # a table another process runs
                watching = await self.hub.cluster.spectate(self, game_id)
            if not watching:
                self.fatal(
                    "unknown_game",
                    f"no running game {game_id!r} (a finished record is at "
                    f"/api/games/{game_id}/record)",
                )
                return
            self.spectating = game_id
            return
        old = self.hub.online.get(self.member.key)
        if old is not None and old is not self:
            old.fatal("replaced", "the same identity connected again")
            self.hub.forget(self.member.key, old)
        self.hub.online[self.member.key] = self
        elsewhere = [] if self.hub.cluster is None else await self.hub.cluster.hello(self)
        self.send(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "server_version": self.server_version,
                "you": you,
                "games": self.hub.running_games(self.member.key) + elsewhere,
            }
        )
