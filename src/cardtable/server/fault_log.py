"""A running game's faults, stored as they happen.

A table (or a Kuh-Handel match, ``compat/lobby.py``) keeps its faults in memory and hands them to
:meth:`~cardtable.server.store.db.Store.finish_game` with its end. A process that dies before
that end (SIGKILL, a crash, a machine gone) used to take them along: the game was marked aborted
by the next start or by another process of the cluster, with no fault stored. So every fault is
also written at once, behind the game (:meth:`Store.add_faults`, in the database executor, one
transaction per batch: the faults that came while the previous batch was written go together),
and the game's end writes only the ones not written yet (:meth:`FaultLog.close`). A fault is in
the database a few milliseconds after it was recorded, whatever becomes of its game.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor

from cardtable.server.store.db import FaultRow, Store

log = logging.getLogger("cardtable.server.table")


class FaultLog:
    """The faults of game ``game_id``, written behind it (see the module docstring)."""

    def __init__(self, store: Store, executor: Executor, game_id: str) -> None:
        self.store = store
        self.executor = executor
        self.game_id = game_id
        #: every fault of the game so far, in order (the record's ``meta.faults``)
        self.rows: list[FaultRow] = []
        #: how many of :attr:`rows` are in the database
        self.stored = 0
        self._open = False  # the game's start is stored: its faults may be written
        self._closed = False
        self._writer: asyncio.Task[None] | None = None

    def add(self, row: FaultRow) -> None:
        self.rows.append(row)
        self._write_soon()

    def open(self) -> None:
        """The game's row exists (``start_game`` committed): write what came and what comes."""
        self._open = True
        self._write_soon()

    async def close(self) -> list[FaultRow]:
        """The game ends: wait for the batch being written; returns the faults its end must
        still write (nothing is written twice)."""
        self._closed = True
        if self._writer is not None:
            await asyncio.wait({self._writer})
        return self.rows[self.stored :]

    def _write_soon(self) -> None:
        if not self._open or self._closed or self.stored >= len(self.rows):
            return
        if self._writer is not None and not self._writer.done():
            return  # the writer takes the new rows with its next batch
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the server's loop: the game's end writes it
            return
        self._writer = loop.create_task(self._write(), name=f"faults-{self.game_id}")

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed and self.stored < len(self.rows):
            batch = self.rows[self.stored :]
            try:
                await loop.run_in_executor(
                    self.executor, self.store.add_faults, self.game_id, batch
                )
            except Exception as exc:  # the database is away: the game's end writes them
                log.warning(
                    "game %s: %d fault(s) not stored yet: %s", self.game_id, len(batch), exc
                )
                return
            self.stored += len(batch)
