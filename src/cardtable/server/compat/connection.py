"""One Kuh-Handel client connection: strict request/reply over a WebSocket, with a deadline.

A reader task takes every frame off the socket from the moment the connection is accepted, so a
client that leaves while it waits in the lobby is noticed at once (the reference notices only when
its game sends the first message). Faults (§4.1, §4.2):

- a binary frame, a frame over the size limit, a close or a socket error: the connection is
  *gone*; the fallback plays that seat for the rest of the game;
- no reply within the deadline: :meth:`ask` reports a *timeout*; the seat keeps its connection
  and the late reply, when it comes, is recognised and dropped (replies come in order), so one slow
  answer does not cost a bot its game. After ``max_timeouts`` timeouts in one game the connection
  is closed, as the reference does at once.
- text that is not JSON: handled by the caller (it closes the connection, as the reference does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from cardtable.server.compat.wire import dumps

log = logging.getLogger("cardtable.server.compat")

OK = "ok"
TIMEOUT = "timeout"
GONE = "gone"


@dataclass(eq=False)
class BotConnection:
    """A connected Kuh-Handel bot (one connection plays exactly one game)."""

    websocket: WebSocket
    name: str
    lobby: str
    warnings: bool
    max_bytes: int = 256 * 1024
    since: float = field(default_factory=time.monotonic)
    alive: bool = True
    why_gone: str = ""
    #: Replies still to come for questions that were decided without them (timeouts).
    owed: int = 0
    timeouts: int = 0
    in_game: bool = False
    _queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    _reader: asyncio.Task[None] | None = None
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set when the lobby is done with this connection (its game ended, or it left early).
    released: asyncio.Event = field(default_factory=asyncio.Event)
    player_id: int | None = None
    #: this connection in a cluster (a Kuh-Handel seat relayed through Redis, compat/relay.py)
    cid: str = field(default_factory=lambda: secrets.token_hex(8))

    def start_reading(self) -> None:
        self._reader = asyncio.create_task(self._read(), name=f"kh-read-{self.name}")

    async def _read(self) -> None:
        try:
            while True:
                message = await self.websocket.receive()
                kind = message["type"]
                if kind == "websocket.disconnect":
                    self._lost(f"the client closed the connection ({message.get('code')})")
                    return
                text = message.get("text")
                if text is None:
                    # any non-text frame ends the connection, as in the reference (§4.2)
                    self._lost("the client sent a binary frame")
                    await self.close(1003)
                    return
                if len(text.encode("utf-8")) > self.max_bytes:
                    self._lost(f"a message over {self.max_bytes} bytes")
                    await self.close(1009)
                    return
                self._queue.put_nowait(text)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a socket error is a disconnect, never a crash
            self._lost(f"socket error: {exc!r}")

    def server_leaving(self) -> bool:
        """Whether this process is stopping (``Hub.leaving``, server/departure.py): the sockets
        it closes then (code 1012) are no fault of their bots."""
        app = getattr(self.websocket, "app", None)
        hub = getattr(getattr(app, "state", None), "hub", None)
        return bool(getattr(hub, "leaving", False))

    def _lost(self, why: str) -> None:
        if self.alive:
            self.alive = False
            self.why_gone = why
            log.info("kuh-handel %s (%s): gone: %s", self.name, self.lobby, why)
        self._queue.put_nowait(None)
        self.closed.set()

    async def send(self, message: Mapping[str, Any]) -> bool:
        """Send one message without waiting for a reply; ``False`` if the connection is gone."""
        return await self.send_raw(dumps(message))

    async def send_raw(self, text: str) -> bool:
        """Send one text frame as it is; ``False`` if the connection is gone."""
        if not self.alive:
            return False
        try:
            await self.websocket.send_text(text)
        except Exception as exc:
            self._lost(f"send failed: {exc!r}")
            return False
        return True

    async def ask(self, message: Mapping[str, Any], timeout: float) -> tuple[str, str | None]:
        """Send ``message`` and wait for its reply: ``(OK, text)``, ``(TIMEOUT, None)`` or
        ``(GONE, None)``. The clock starts once the message is sent (§4.1)."""
        if not self.alive:
            return GONE, None
        # Frames that arrived while no question was open are late replies (counted in owed)
        # or unsolicited; neither answers this question.
        while not self._queue.empty():
            text = self._queue.get_nowait()
            if text is None:
                return GONE, None
            if self.owed:
                self.owed -= 1
        if not await self.send(message):
            return GONE, None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.owed += 1
                self.timeouts += 1
                return TIMEOUT, None
            try:
                text = await asyncio.wait_for(self._queue.get(), left)
            except TimeoutError:
                continue
            if text is None:
                return GONE, None
            if self.owed:
                self.owed -= 1  # the late reply to an earlier question
                continue
            return OK, text

    async def finish(self, message: Mapping[str, Any], linger: float) -> None:
        """Send the last message (``End``, no reply expected), let the client close first for
        up to ``linger`` seconds, then close."""
        if await self.send(message):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.closed.wait(), linger)
        await self.close(1000)

    async def close(self, code: int = 1000) -> None:
        if self.alive:
            self._lost(f"closed by the server ({code})")
        ws = self.websocket
        if ws.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await ws.close(code)

    async def stop_reading(self) -> None:
        task = self._reader
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
