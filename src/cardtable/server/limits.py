"""Limits against abuse that sit below the game: HTTP bodies, connections per address, slow
headers, clients that do not read, wrong tokens, and tokens in the server's logs.

- :class:`BodyLimit` (ASGI middleware): a request body longer than ``max_body_bytes`` gets 413.
  A declared ``Content-Length`` is checked before anything is read; a body without one (chunked)
  is counted as it streams and refused the moment it passes the limit, so no body is ever held
  whole.
- :func:`uvicorn_config`: the uvicorn settings every cardtable server runs with (``cardtable
  serve`` and the tests alike). Its HTTP and WebSocket protocol classes add what uvicorn lacks:
  a cap on open connections per client address (``max_connections_per_address``, refused with
  429 and ``Retry-After``), a header timeout (a connection that has not sent a complete request
  head within ``header_timeout_s`` of connecting, or of the first byte of its next request, is
  closed: silent sockets and slowloris), a cap on the request head (``max_head_bytes``: 431,
  counted before the parser sees it), the rest of a body answered before it was read (a 429)
  dropped within the header timeout on a connection that stays open, a connection closed after
  a response sent before its chunked body was read (413), a WebSocket frame over the socket layer's
  limit that still gets the protocol's ``too_large`` error before the 1009 close, and the size of a
  connection's unsent data, which :class:`~cardtable.server.connection.Session` reads to drop a
  client that does not read its messages.
- :func:`explain_body_errors`: a JSON body nested too deeply gets a 400 that says so.
- :class:`TokenThrottle`: failures per key (an address) in a window; past the limit, attempts
  from that key are refused for a while without looking at them (``lockouts.py`` builds the
  sign-in and bot login throttles from it; the rate limits of
  :mod:`cardtable.server.request_limits` count their requests with it too).

In a cluster (a ``redis_url``) the connections per address and the throttles are counted by the
whole cluster (:mod:`cardtable.server.shared_limits`, plugged in at the app's start through
:class:`SharedCounts`); alone, in memory.
- :class:`RedactTokens`: a logging filter that hides ``token=...`` in uvicorn's request lines
  (the Kuh-Handel endpoint takes its token in the query string).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
import struct
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from starlette.exceptions import HTTPException

from cardtable.clock import SYSTEM, Clock
from cardtable.server.proxies import uvicorn_proxy_options

try:  # the kernel's send queue of a socket (Linux); elsewhere only the transport's buffer
    import fcntl
    import termios
except ImportError:  # pragma: no cover - not on this platform
    fcntl = termios = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import uvicorn

    from cardtable.server.config import Settings

log = logging.getLogger("cardtable.server.limits")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The scope extension through which a WebSocket app sees its connection's unsent bytes and can
#: drop it at once (only under :func:`uvicorn_config`'s WebSocket protocol).
SOCKET_EXTENSION = "cardtable.socket"
#: Seconds a connection whose app has ended may still take to flush what is queued for it.
FLUSH_GRACE_S = 5.0
#: Seconds the server goes on reading (and dropping) after refusing an oversized frame, before it
#: closes the socket (a socket closed with unread data resets, and the client loses the error).
LINGER_S = 0.5


# -- HTTP bodies ----------------------------------------------------------------------------


class BodyLimit:
    """ASGI middleware: HTTP request bodies of at most ``max_bytes``, else 413; a body that
    stalls for ``idle_s`` seconds between two pieces gets 408 (a slowloris on the body)."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        idle_s: float = 0.0,
        larger: tuple[tuple[str, str, int], ...] = (),
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.idle_s = idle_s
        #: ``(method, path suffix, bytes)``: requests allowed a larger body (a hosted bot's
        #: upload, ``POST /api/bots/NAME/versions``)
        self.larger = larger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for method, suffix, size in self.larger:
            if scope.get("method") == method and str(scope.get("path", "")).endswith(suffix):
                limit = max(limit, size)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit or declared < 0:
                    await _refuse_body(send, declared, limit)
                    return
        seen = 0
        idle = self.idle_s

        async def counted() -> Message:
            nonlocal seen
            if idle > 0:
                try:
                    message = await asyncio.wait_for(receive(), idle)
                except TimeoutError:
                    raise HTTPException(
                        408, f"the request body stalled for {idle:g} s ({seen} bytes read)"
                    ) from None
            else:
                message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # FastAPI and Starlette turn this into the response (413); nothing more of
                    # the body is read
                    raise HTTPException(413, _too_large(seen, limit, so_far=True))
            return message

        await self.app(scope, counted, send)


def _too_large(size: int, limit: int, so_far: bool = False) -> str:
    if size < 0:
        return "the Content-Length header is not a number"
    more = "more than " if so_far else ""
    return f"the request body ({more}{size} bytes) exceeds the limit of {limit} bytes"


async def _refuse_body(send: Send, size: int, limit: int) -> None:
    status = 413 if size >= 0 else 400
    body = ('{"detail":"' + _too_large(size, limit) + '"}').encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def explain_body_errors(request: Any, exc: HTTPException) -> Any:
    """FastAPI's handler of HTTP errors, except that a JSON body too deeply nested for the
    parser (FastAPI's generic "error parsing the body") says so: 400 ``nested too deeply``."""
    from fastapi.exception_handlers import http_exception_handler
    from fastapi.responses import JSONResponse

    if exc.status_code == 400 and isinstance(exc.__cause__, RecursionError):
        return JSONResponse(
            {"detail": "the JSON body is nested too deeply to be read"},
            status_code=400,
        )
    return await http_exception_handler(request, exc)


# -- tokens ---------------------------------------------------------------------------------

_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']*", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with the value of every ``token=`` query parameter replaced by ``***``."""
    return _TOKEN_IN_TEXT.sub(r"\1***", text) if "oken=" in text else text


class RedactTokens(logging.Filter):
    """Hides ``token=...`` in a record's message and arguments (uvicorn logs request lines with
    their query string: the access log and the WebSocket handshake lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        return True


_FILTER = RedactTokens()


def redact_server_logs() -> None:
    """Install :class:`RedactTokens` on uvicorn's loggers (idempotent)."""
    for name in ("uvicorn.error", "uvicorn.access", "uvicorn"):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


class SharedCounts(Protocol):
    """Counts that every process of a cluster shares (``server/shared_limits.py``, Redis)."""

    def retry_after(self, kind: str, key: str, limit: int, window_s: float) -> float: ...

    def failed(self, kind: str, key: str, limit: int, window_s: float) -> float: ...

    def backoff(
        self, kind: str, key: str, op: str, base_s: float, max_s: float, window_s: float
    ) -> float: ...

    async def admit(self, address: str, cap: int) -> bool: ...

    async def release(self, address: str) -> None: ...


class TokenThrottle:
    """Wrong tokens per client address: after ``limit`` within ``window_s`` seconds, logins from
    that address are refused until the oldest of them is ``window_s`` old.

    Alone, a process counts in memory. In a cluster (:meth:`share`) every process counts in one
    place (Redis), so spreading the attempts over the processes gains nothing; should Redis
    fail, the process falls back on its own counts (it keeps them all along)."""

    #: Addresses remembered at most (the oldest are forgotten first).
    MAX_ADDRESSES = 100_000

    def __init__(
        self, limit: int, window_s: float, kind: str = "bad-token", clock: Clock = SYSTEM
    ) -> None:
        self.limit = limit
        self.window_s = window_s
        #: the time its window is counted on (:mod:`cardtable.clock`; a test's moves by hand)
        self.clock = clock
        #: the name of these counts among the cluster's (``P:limit:KIND:KEY``)
        self.kind = kind
        self.shared: SharedCounts | None = None
        self._failures: dict[str, deque[float]] = {}

    def share(self, shared: SharedCounts) -> None:
        """Count with every process of the cluster from now on."""
        self.shared = shared

    def retry_after(self, address: str | None) -> float:
        """Seconds until ``address`` may try again (0: now). In a cluster this asks Redis:
        call it from a thread (or :meth:`retry_after_async`), not on the event loop."""
        if address is None or self.limit <= 0:
            return 0.0
        if self.shared is not None:
            try:
                return self.shared.retry_after(self.kind, address, self.limit, self.window_s)
            except Exception as exc:
                log.warning("shared %s counts unavailable (%s): this process's own", self.kind, exc)
        return self._local_retry_after(address)

    def failed(self, address: str | None) -> None:
        """One more failure of ``address`` (in a cluster: from a thread, see above)."""
        if address is None or self.limit <= 0:
            return
        self._local_failed(address)
        if self.shared is not None:
            try:
                self.shared.failed(self.kind, address, self.limit, self.window_s)
            except Exception as exc:
                log.warning("shared %s counts unavailable (%s): this process's own", self.kind, exc)

    async def retry_after_async(self, address: str | None) -> float:
        """:meth:`retry_after` for the event loop (Redis is asked from a thread)."""
        if self.shared is None:
            return self.retry_after(address)
        return await asyncio.to_thread(self.retry_after, address)

    async def failed_async(self, address: str | None) -> None:
        """:meth:`failed` for the event loop."""
        if self.shared is None:
            self.failed(address)
        else:
            await asyncio.to_thread(self.failed, address)

    def _local_retry_after(self, address: str) -> float:
        failures = self._failures.get(address)
        if not failures:
            return 0.0
        now = self.clock.monotonic()
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return 0.0
        if len(failures) < self.limit:
            return 0.0
        return max(0.1, failures[0] + self.window_s - now)

    def _local_failed(self, address: str) -> None:
        failures = self._failures.pop(address, None) or deque(maxlen=self.limit)
        failures.append(self.clock.monotonic())
        self._failures[address] = failures  # re-inserted: the dict keeps the newest last
        if len(self._failures) > self.MAX_ADDRESSES:
            del self._failures[next(iter(self._failures))]


# -- connections ----------------------------------------------------------------------------


def exempt_addresses(addresses: str, setting: str = "connection_cap_exempt") -> frozenset[str]:
    """The IP addresses of a comma-separated setting (empty or ``none``: none)."""
    out = set()
    for part in addresses.split(","):
        part = part.strip()
        if part and part.lower() != "none":
            try:
                out.add(str(ipaddress.ip_address(part)))
            except ValueError:
                raise ValueError(f"setting {setting}: {part!r} is not an IP address") from None
    return frozenset(out)


class ConnectionGuard:
    """Open connections per client address, counted by their transports (a connection upgraded
    to a WebSocket keeps its transport, so it stays counted until it closes).

    In a cluster (:meth:`share`) a connection this process admits is also admitted by the
    cluster's count (Redis: this process's connections per address, summed over the live
    processes, :mod:`cardtable.server.shared_limits`) before anything of it is read."""

    def __init__(self, per_address: int, exempt: frozenset[str]) -> None:
        self.per_address = per_address
        self.exempt = exempt
        self.shared: SharedCounts | None = None
        self._open: dict[str, list[asyncio.BaseTransport]] = {}
        #: transports the cluster's count holds, with their address (released when they close)
        self._counted: dict[asyncio.BaseTransport, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def share(self, shared: SharedCounts) -> None:
        self.shared = shared

    def capped(self, address: str | None) -> bool:
        return address is not None and self.per_address > 0 and address not in self.exempt

    def admit(self, address: str | None, transport: asyncio.BaseTransport) -> bool:
        if not self.capped(address):
            return True
        assert address is not None
        alive = [t for t in self._open.get(address, ()) if not t.is_closing()]
        if len(alive) >= self.per_address:
            self._open[address] = alive
            return False
        alive.append(transport)
        self._open[address] = alive
        return True

    def count(self, address: str) -> int:
        return sum(1 for t in self._open.get(address, ()) if not t.is_closing())

    def admit_shared(
        self, address: str, transport: asyncio.BaseTransport, then: Callable[[bool], None]
    ) -> None:
        """Ask the cluster's count whether ``address`` may open one more connection; ``then``
        gets the answer on the event loop. Redis unreachable: admitted (this process's own cap
        still holds)."""
        shared = self.shared
        assert shared is not None

        async def ask() -> None:
            try:
                ok = await shared.admit(address, self.per_address)
            except Exception as exc:
                log.warning("connections per address: the cluster's count failed (%s)", exc)
                then(True)
                return
            if ok:
                if transport.is_closing():  # gone while we asked
                    await self._release(address)
                    return
                self._counted[transport] = address
            then(ok)

        self._spawn(ask())

    def closed(self, transport: asyncio.BaseTransport) -> None:
        """``transport`` has closed: the cluster's count lets it go."""
        address = self._counted.pop(transport, None)
        if address is not None:
            self._spawn(self._release(address))

    async def _release(self, address: str) -> None:
        assert self.shared is not None
        try:
            await self.shared.release(address)
        except Exception as exc:
            log.warning("connections per address: could not release one of %s (%s)", address, exc)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _refusal(status: int, reason: str, text: str, retry_after: int | None = None) -> bytes:
    body = text.encode()
    head = [
        f"HTTP/1.1 {status} {reason}",
        "content-type: text/plain; charset=utf-8",
        f"content-length: {len(body)}",
        "connection: close",
    ]
    if retry_after is not None:
        head.append(f"retry-after: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def protocol_classes(settings: Settings) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """The HTTP and WebSocket protocol classes for uvicorn, bound to ``settings``."""
    HttpBase: type[Any]
    #: h11's state of a request whose body is still coming (None: the httptools parser)
    body_coming: object = None
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        HttpBase = HttpToolsProtocol
    except ImportError:  # pragma: no cover - uvicorn[standard] brings httptools
        import h11
        from uvicorn.protocols.http.h11_impl import H11Protocol

        HttpBase = H11Protocol
        body_coming = h11.SEND_BODY
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.frames import CloseCode
    from websockets.protocol import State
    from websockets.server import ServerProtocol

    from cardtable.protocol import dumps

    guard = ConnectionGuard(
        settings.max_connections_per_address, exempt_addresses(settings.connection_cap_exempt)
    )
    header_timeout = settings.header_timeout_s
    frame_limit = settings.max_frame_bytes
    cap = settings.max_connections_per_address
    head_cap = settings.max_head_bytes

    class GuardedHttp(HttpBase):  # type: ignore[misc]
        """uvicorn's HTTP protocol with a per-address cap, a cap on the request head and a
        whole-head deadline.

        The head's bytes are counted here, before the parser sees them (httptools buffers a
        header without bound, h11 only after its own copy): a head past ``max_head_bytes`` gets
        431 and the connection is closed, so no parser ever holds or walks more than one read's
        worth beyond the cap. The head must be complete within ``header_timeout_s`` of its first
        byte (of connecting, for the first one), whatever trickles in meanwhile.

        A response sent before its request's body has all arrived (a 429 of the rate limits
        answers before the app reads anything) keeps the connection when the body has a
        declared length (:class:`BodyLimit` has checked it): the parser drops the rest, which
        must arrive within ``header_timeout_s``, and the next head is counted and timed as
        any. A chunked body has no end to wait for (413 on one past the cap): the connection is
        closed, and the rest is never read into a request."""

        _head_timer: asyncio.TimerHandle | None = None
        _refused = False
        _answered = False
        _pending: bytearray | None = None
        #: reading a request head (from its first byte, or from connecting, to its end)
        _in_head = True
        _head_bytes = 0
        _tail = b""
        #: refused or done: what arrives is dropped until the connection closes
        _dropping = False

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            address = self.client[0] if self.client else None
            if not guard.admit(address, transport):
                self._refuse(address)
                return
            self._start_head_timer()
            if guard.shared is not None and guard.capped(address):
                # the cluster's count decides before anything of the connection is handled:
                # what arrives meanwhile is kept (pausing in connection_made does not hold
                # under uvloop, which starts reading after it)
                assert address is not None
                self._pending = bytearray()
                transport.pause_reading()
                guard.admit_shared(address, transport, self._admitted)

        def _refuse(self, address: str | None) -> None:
            log.info("refusing a connection from %s: %d open", address, cap)
            # answered once its request starts (a client reads a response after its
            # request); a connection that sends nothing is closed soon
            self._refused = True
            self.loop.call_later(min(header_timeout or 2.0, 2.0), self.transport.close)

        def _admitted(self, ok: bool) -> None:
            transport = self.transport
            kept, self._pending = self._pending, None
            if transport.is_closing():
                return
            if not ok:
                self._stop_head_timer()
                self._refuse(self.client[0] if self.client else None)
            transport.resume_reading()
            if kept:
                self.data_received(bytes(kept))

        def data_received(self, data: bytes) -> None:
            if self._pending is not None:  # the cluster's count has not answered yet
                self._pending += data
                if len(self._pending) > 65536:
                    self.transport.pause_reading()
                return
            if self._refused:
                if not self._answered:
                    self._answered = True
                    self.transport.write(
                        _refusal(
                            429,
                            "Too Many Requests",
                            f"more than {cap} open connections from your address",
                            retry_after=10,
                        )
                    )
                    # read and drop what the client sends for a moment before closing: a
                    # socket closed with unread data resets, and the client would lose the 429
                    self.loop.call_later(LINGER_S, self.transport.close)
                return
            if self._dropping:
                return
            if not self._in_head:
                cycle = self.cycle
                if cycle is not None and not cycle.more_body:
                    self._begin_head()  # the request before is read whole: a new head starts
                else:
                    super().data_received(data)  # a request's body
                    if (
                        cycle is not None
                        and cycle.response_complete
                        and (self.cycle is not cycle or self._rest_arrived(cycle))
                    ):
                        # the rest of an answered request's body, dropped by the parser, is
                        # all here (and maybe the next head): the next read starts a head
                        cycle.more_body = False
                        self._stop_head_timer()
                    return
            # where the head ends, if in this piece (the parser confirms it below)
            end = (self._tail + data).find(b"\r\n\r\n")
            counted = len(data) if end < 0 else end + 4 - len(self._tail)
            if self._head_bytes + counted > head_cap:
                self._head_too_large()  # never parsed
                return
            before = self.cycle
            super().data_received(data)
            transport = self.transport
            if (
                self.cycle is not before  # the parser has a new request
                or transport.get_protocol() is not self  # upgraded to a WebSocket
                or transport.is_closing()  # refused by the parser (400)
            ):
                self._in_head = False
                self._stop_head_timer()
                return
            # still within the head, all of this piece counts (even after a CRLF CRLF)
            self._head_bytes += len(data)
            self._tail = (self._tail + data)[-3:]
            if self._head_bytes > head_cap:
                self._head_too_large()

        def _begin_head(self) -> None:
            self._in_head = True
            self._head_bytes = 0
            self._tail = b""
            self._start_head_timer()

        def _head_too_large(self) -> None:
            who = self.client[0] if self.client else "?"
            log.info("refused a request head of more than %d bytes from %s", head_cap, who)
            self._stop_reading_on(
                _refusal(
                    431,
                    "Request Header Fields Too Large",
                    f"the request head exceeds the limit of {head_cap} bytes",
                )
            )

        def _stop_reading_on(self, last: bytes = b"") -> None:
            """Send ``last``, then read and drop for a moment and close (closing at once with
            unread data would reset the connection, and the client could lose the answer)."""
            self._dropping = True
            self._stop_head_timer()
            transport = self.transport
            if self.cycle is not None and not self.cycle.response_complete:
                transport.close()  # a pipelined head while a response is under way: no answer
                return
            if last:
                transport.write(last)
            if transport.can_write_eof():
                transport.write_eof()  # the client reads the end right after the answer
            self.loop.call_later(LINGER_S, transport.close)

        def on_response_complete(self) -> None:
            cycle = self.cycle
            super().on_response_complete()
            if cycle is None or not cycle.more_body or self.transport.is_closing():
                return
            # answered before its body was read whole
            declared = any(name == b"content-length" for name, _ in cycle.scope["headers"])
            if declared:  # its rest (BodyLimit checked the length) is dropped as it arrives
                self._start_timer(lambda: self._rest_late(cycle))
            else:  # chunked (413 past the cap): the rest is never read into a request
                self._stop_reading_on()

        def on_message_complete(self) -> None:  # httptools' callback (h11: _rest_arrived)
            cycle = self.cycle
            super().on_message_complete()
            if cycle is not None and cycle.response_complete:
                cycle.more_body = False  # the rest of an answered body has been dropped

        def _rest_arrived(self, cycle: Any) -> bool:
            """Whether the parser has read to the end of the body of ``cycle``, answered."""
            if body_coming is None:  # httptools: on_message_complete said so
                return not cycle.more_body
            return bool(self.conn.their_state is not body_coming)

        def _rest_late(self, cycle: Any) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.cycle is not cycle or not cycle.more_body:
                return
            who = self.client[0] if self.client else "?"
            log.info(
                "closed a connection from %s: the rest of a body answered early did not arrive "
                "within %gs",
                who,
                header_timeout,
            )
            self._stop_reading_on()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            guard.closed(self.transport)
            super().connection_lost(exc)

        def _start_head_timer(self) -> None:
            self._start_timer(self._head_late)

        def _start_timer(self, late: Callable[[], None]) -> None:
            """``late`` in ``header_timeout_s`` (one deadline at a time: a head's, or the rest
            of an answered body's)."""
            self._stop_head_timer()
            if header_timeout > 0:
                self._head_timer = self.loop.call_later(header_timeout, late)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket (whose hello has its own timeout)
            if not self._in_head or self._dropping:
                return  # the request head arrived in time
            who = self.client[0] if self.client else "?"
            log.info("closed a connection from %s: no request head within %gs", who, header_timeout)
            transport.write(
                _refusal(408, "Request Timeout", f"no request head within {header_timeout:g} s")
            )
            transport.close()

    class RefusingServerProtocol(ServerProtocol):
        """The WebSocket layer: a frame over its limit still gets the native protocol's
        ``too_large`` error (a text frame) before the close 1009."""

        native = False

        def fail(self, code: int, reason: str = "") -> None:
            if code == CloseCode.MESSAGE_TOO_BIG and self.native and self.state is State.OPEN:
                error = {
                    "type": "error",
                    "code": "too_large",
                    "reason": f"a frame of more than {self.max_message_size} bytes exceeds "
                    f"{frame_limit}",
                }
                self.send_text(dumps(error).encode())
                reason = "too_large"
            super().fail(code, reason)

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        """uvicorn's WebSocket protocol; the app sees the unsent bytes (``cardtable.socket``)."""

        _lingering = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = RefusingServerProtocol(
                extensions=self.conn.available_extensions,
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is None:
                return
            self.conn.native = scope.get("path") == "/ws"  # type: ignore[attr-defined]
            scope.setdefault("extensions", {})[SOCKET_EXTENSION] = {
                "buffered": _unsent(self.transport),
                "abort": self._abort,
            }

        def handle_parser_exception(self) -> None:
            if self._lingering:
                return
            self._lingering = True
            close = self.conn.close_sent
            code = close.code if close is not None else 1006
            reason = close.reason if close is not None else ""
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            # go on reading (the layer drops it) for a moment: closing with unread data would
            # reset the connection and the client could lose the error
            self.loop.call_later(LINGER_S, self.transport.close)

        async def send(self, message: Any) -> None:
            if message["type"] == "websocket.http.response.start":
                # the layer sets Content-Length and Content-Type of a refusal itself; repeated,
                # they make clients (the websockets library) unable to read the status
                message = dict(message)
                message["headers"] = [
                    (k, v)
                    for k, v in message.get("headers", ())
                    if k.lower() not in (b"content-length", b"content-type")
                ]
            await super().send(message)

        def _abort(self) -> None:
            self.close_sent = True
            _reset(self.transport)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.closed(self.transport)  # an upgraded connection ends here, not in the HTTP one
            super().connection_lost(exc)

        async def run_asgi(self) -> None:
            await super().run_asgi()
            if self.transport.get_write_buffer_size() > 0:
                # a client that does not read would keep the socket open for ever
                self.loop.call_later(FLUSH_GRACE_S, _reset, self.transport)

    GuardedHttp.guard = guard
    return GuardedHttp, GuardedWebSocket


def _reset(transport: asyncio.Transport) -> None:
    """Close at once, dropping what is unsent, with a reset (a plain close would wait in the
    kernel for a client that does not read to take the rest)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def _unsent(transport: asyncio.Transport) -> Callable[[], int]:
    """A function giving the bytes sent to a connection that its client has not yet taken: the
    transport's buffer plus, on Linux, the kernel's send queue (which alone holds megabytes
    before the transport's buffer starts to grow)."""
    sock = transport.get_extra_info("socket")
    outq = getattr(termios, "TIOCOUTQ", None)
    if sock is None or outq is None:
        return transport.get_write_buffer_size
    fd = sock.fileno()
    zero = struct.pack("i", 0)

    def unsent() -> int:
        try:
            queued = struct.unpack("i", fcntl.ioctl(fd, outq, zero))[0]
        except OSError:
            queued = 0
        return int(queued) + transport.get_write_buffer_size()

    return unsent


def socket_max_size(settings: Settings) -> int:
    """The WebSocket layer's frame limit: well above ours, so the server refuses with its own
    ``too_large`` (and reads the frame first); above it the layer refuses, also with
    ``too_large`` on ``/ws``."""
    return max(1 << 20, 4 * max(settings.max_frame_bytes, settings.kh_max_message_bytes))


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration of a cardtable server (``overrides`` win)."""
    import uvicorn

    http, ws = protocol_classes(settings)
    state = getattr(app, "state", None)
    if state is not None:  # a cluster's app shares the count at its start (app.py)
        state.connection_guard = http.guard  # type: ignore[attr-defined]
    options: dict[str, Any] = {
        "http": http,
        "ws": ws,
        "ws_max_size": socket_max_size(settings),
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "limit_concurrency": settings.max_connections or None,
        "timeout_keep_alive": 5,
        "log_level": settings.log_level.lower(),
        "access_log": False,
        # X-Forwarded-For only from the configured proxies (server/proxies.py)
        **uvicorn_proxy_options(settings.trusted_proxies),
    }
    options.update(overrides)
    return uvicorn.Config(app, **options)
