"""What a table sends its watchers, and how it sees a connection.

:class:`Peer` is a connected client as a table sees it (a seat's or a spectator's);
:func:`pushes` and :func:`holds` read the two options a connection may ask for;
:class:`SpectatorFeed` gives a table's spectators what happened, in order, ``delay_s`` after it
happened (a delayed table keeps its spectators that far behind the seats; the delay runs on the
table's :class:`~cardtable.clock.Clock`, so a test moves it by hand), and remembers how far
they are. :mod:`cardtable.server.table` owns the table and its seats and feeds these.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from cardtable.clock import SYSTEM, Clock, Timer
from cardtable.server.metrics import Stamp


class Peer(Protocol):
    """A connected client as a table sees it: it can be sent messages without waiting.

    Two optional attributes change what a table sends it (both off when absent):
    ``events_in_request`` (hold the seat's events and deliver them inside its next request, or
    just before ``game_end``: one frame per decision instead of one per event) and
    ``push_observations`` (an ``observation`` message whenever the seat's view changed).
    """

    def send(self, message: Mapping[str, Any]) -> None: ...

    def send_text(self, text: str, stamp: Stamp | None = None) -> None: ...


def holds(conn: Peer) -> bool:
    """The connection asked for its events inside its next request (``events_in_request``)."""
    return bool(getattr(conn, "events_in_request", False))


def pushes(conn: Peer) -> bool:
    """The connection asked for an ``observation`` whenever its view changed."""
    return bool(getattr(conn, "push_observations", False))


_NOTHING: Any = object()


class SpectatorFeed:
    """What the spectators of a table get, in order, ``delay_s`` after it happened.

    It also remembers how far the spectators are (``seen`` events, the ``public`` view last
    released), so a spectator who arrives late and the HTTP views start from there, never from
    the present of a delayed table.
    """

    def __init__(self, spectators: set[Peer], delay_s: float, clock: Clock = SYSTEM) -> None:
        self.spectators = spectators
        self.delay_s = delay_s
        self.clock = clock
        self.seen = 0
        self.public: Any = None
        self._queue: deque[tuple[float, str, bool, int | None, Any]] = deque()
        self._timer: Timer | None = None
        #: the table runs (until then, what is emitted goes out at once)
        self.started = False

    @property
    def delayed(self) -> bool:
        return self.delay_s > 0

    def emit(
        self,
        text: str,
        *,
        pushers_only: bool = False,
        seen: int | None = None,
        public: Any = _NOTHING,
    ) -> None:
        if not self.delayed or not self.started:
            self._release(text, pushers_only, seen, public)
            return
        now = self.clock.monotonic()
        self._queue.append((now + self.delay_s, text, pushers_only, seen, public))
        if self._timer is None:
            self._timer = self.clock.call_later(self._queue[0][0] - now, self._drain)

    def _drain(self) -> None:
        self._timer = None
        now = self.clock.monotonic()
        while self._queue and self._queue[0][0] <= now + 0.001:
            _due, text, pushers_only, seen, public = self._queue.popleft()
            self._release(text, pushers_only, seen, public)
        if self._queue:
            self._timer = self.clock.call_later(self._queue[0][0] - now, self._drain)

    def _release(self, text: str, pushers_only: bool, seen: int | None, public: Any) -> None:
        if seen is not None:
            self.seen = seen
        if public is not _NOTHING:
            self.public = public
        for conn in list(self.spectators):
            if not pushers_only or pushes(conn):
                conn.send_text(text)
