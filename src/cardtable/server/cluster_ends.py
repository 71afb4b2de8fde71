"""The test hook of the cluster's game ends.

With ``CARDTABLE_TEST_HOLD_ENDS=1`` in its environment, a process publishes nothing more to Redis
once one of its tables has ended (:func:`hold_ends`): that game's end is committed and its relayed
frames stay unsent, as if the process had been killed right after the commit; the test then kills
it (``tests/server/test_cluster_ends.py``). Never set it on a server in use.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("cardtable.server.cluster")

#: the environment variable of the test hook (see the module docstring)
HOLD_ENDS = "CARDTABLE_TEST_HOLD_ENDS"


def hold_ends(game: str) -> bool:
    """The test hook: ``True`` (and a log line) when this process must publish nothing more
    after ``game`` ended."""
    if os.environ.get(HOLD_ENDS) != "1":
        return False
    log.warning("test hook %s: game %s ended; nothing more is published", HOLD_ENDS, game)
    return True
