"""What the clients of a dead cluster process's games are told: the end the database holds.

A process can die (SIGKILL, a crash) after it committed a game's end and before that end reached
the clients connected to other processes: the ``game_end`` frames of its relayed seats, and the
table's removal from ``P:tables``, go out through its publisher after the commit. The reaper that
then finds the process dead lists the game among the dead process's games (``P:tables`` still
names it) although ``abort_running`` left it alone (its row is ``finished``). Before, every
listed game was announced ``aborted``: a bot was told its game was aborted while the database
held it finished. Now the reaper reads the finished rows of the games it lists
(:func:`stored_ends`), the ``reaped`` message carries them (``ended``), and each client gets the
stored result (:func:`game_end`); ``aborted`` only for a game the store does not hold as
finished (aborted, by this reaper or an earlier one). Nothing committed as finished is ever
announced aborted.

Test hook: with ``CARDTABLE_TEST_HOLD_ENDS=1`` in its environment, a process publishes nothing
more to Redis once one of its tables has ended (:func:`hold_ends`): that game's end is committed
and its relayed frames stay unsent, as if the process had been killed right after the commit; the
test then kills it (``tests/server/test_cluster_ends.py``). Never set it on a server in use.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.server.store.db import Store

log = logging.getLogger("cardtable.server.cluster")

#: the environment variable of the test hook (see the module docstring)
HOLD_ENDS = "CARDTABLE_TEST_HOLD_ENDS"
REASON = "the server process running the game stopped"


def aborted() -> dict[str, Any]:
    """The result of a game aborted because its process died."""
    return {"termination": "aborted", "scores": [], "places": [], "reason": REASON, "details": {}}


def stored_ends(store: Store, games: Sequence[str]) -> dict[str, dict[str, Any]]:
    """game -> ``{"result", "rated"}`` of those of ``games`` stored ``finished`` (a blocking
    read: run it in the database executor, after the reaper's abort committed)."""
    found = store.finished_results(games)
    return {g: {"result": result, "rated": rated} for g, (result, rated) in found.items()}


def game_end(game: str, ended: Mapping[str, Any]) -> dict[str, Any]:
    """The ``game_end`` of a reaped ``game``: its stored result if ``ended`` (a ``reaped``
    message's) has it, else aborted."""
    end = ended.get(game)
    return {
        "type": "game_end",
        "game_id": game,
        "result": end["result"] if end else aborted(),
        "record_url": f"/api/games/{game}/record",
        "rated": bool(end["rated"]) if end else True,
    }


def hold_ends(game: str) -> bool:
    """The test hook: ``True`` (and a log line) when this process must publish nothing more
    after ``game`` ended."""
    if os.environ.get(HOLD_ENDS) != "1":
        return False
    log.warning("test hook %s: game %s ended; nothing more is published", HOLD_ENDS, game)
    return True
