"""A connection the server itself ends is no fault of its client.

A bot is charged a ``disconnect`` fault when its connection drops while it holds a seat
(docs/protocol.md, "Faults"). When the server ends the connection, the bot did nothing wrong:

- the process stops (SIGTERM, Ctrl-C, ``--workers`` stopping its workers): the ASGI server closes
  every WebSocket (close code 1012) *before* the application's shutdown aborts its tables, so the
  tables would see their bots leave one by one. :class:`LeavingServer` marks the hub as leaving
  (:attr:`Hub.leaving <cardtable.server.lobby.Hub.leaving>`) before the first socket closes;
- the process asked the client to reconnect elsewhere (``server/rebalance.py``): the session
  carries :attr:`~cardtable.server.connection.Session.sent_away`;
- a process of the cluster died: the seats its clients held at the survivors' tables are
  detached by the reaper's message (``server/cluster.py``, ``_on_reaped``), and a stopping
  process's ``detach`` messages say ``excused``.

In each case the table detaches the seat with ``excused`` (``Table.detach``): its open requests
wait for the client to resume, the fallback answers them when it does not, and no fault is
recorded (nothing stored, shown or counted towards a takeover or a suspension). A connection the
client closes, or that its network drops while the server is healthy, stays a fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import uvicorn


def server_ended(hub: Any, peer: Any) -> bool:
    """Whether ``peer``'s connection ended by the server's doing (see the module docstring)."""
    return bool(hub.leaving or getattr(peer, "sent_away", False))


class LeavingServer(uvicorn.Server):
    """uvicorn's server, calling ``on_leave`` when it starts shutting down, before it closes
    the connections (``uvicorn.Server.shutdown`` closes them, then runs the lifespan's end)."""

    def __init__(self, config: uvicorn.Config, on_leave: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_leave = on_leave

    async def shutdown(self, sockets: Any = None) -> None:
        self.on_leave()
        await super().shutdown(sockets)
