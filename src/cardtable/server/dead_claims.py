"""Tournament claims of a cluster process that died before storing the game's start.

A scheduler claims a planned game (its row turns ``running`` with the process's run and a game
id, :meth:`~cardtable.server.tournaments.TournamentStore.claim`), takes its entrants out of the
shared waiting room, then starts the table, which stores the game's start. A process killed
(SIGKILL, a crash) in between leaves a claim with no game behind it: the reaper of the others
(cluster.py) aborts only stored games, so before, only the stale-claim sweep gave the row back,
:data:`~cardtable.server.tournaments.STALE_CLAIM_S` (60 s) after the claim, and the tournament
waited that long for nothing.

Now every process's sweep (``tournament_lobby``, every 2 s) asks Redis which of the processes
holding running rows no longer hold their lease (:func:`without_lease`); their rows are settled
at once, whatever their game's state: a claim never started is voided and planned again, a
finished game not settled yet is counted. So a dead process's claim is played again within about
one lease (``lease_ms``) plus one sweep. The claim of a live process (one holding its lease) is
left alone for :data:`~cardtable.server.tournaments.STALE_CLAIM_S`, as before: a live process
may be slow to start a game. Only the processes asked are judged: one that claimed after the
question is left to the next sweep. A single process (no Redis) has no one to take over: it
settles its own rows when it starts again.

Test hook: with ``CARDTABLE_TEST_HOLD_CLAIMS=1`` in its environment, a process's scheduler stops
for good right after it claimed a game and took its entrants, before the table starts
(:func:`hold_claim`): its lease stays alive until the test kills it
(``tests/server/test_tournament_dead_claim.py``). Never set it on a server in use.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster

log = logging.getLogger("cardtable.server.tournament")

#: the environment variable of the test hook (see the module docstring)
HOLD_CLAIMS = "CARDTABLE_TEST_HOLD_CLAIMS"


async def without_lease(cluster: Cluster, runs: Iterable[str]) -> set[str]:
    """Those of ``runs`` (processes holding running tournament rows) without a lease now."""
    checked = sorted(set(runs))
    return set(checked) - await cluster.alive(checked)


def hold_claim(game: str) -> bool:
    """The test hook: ``True`` (and a log line) when this process must start nothing more
    after claiming ``game``."""
    if os.environ.get(HOLD_CLAIMS) != "1":
        return False
    log.warning("test hook %s: game %s claimed; its table is never started", HOLD_CLAIMS, game)
    return True
