"""The hosted-bot worker: plays the server's hosted bots in the sandbox, as connected bots.

This package owns running hosted bots (``cardtable hosted-worker``, docs/hosted-bots.md). A
worker asks the server (with the organiser's token) for every chosen version
(``GET /api/hosted/work``), fetches and re-checks each archive (its SHA-256 and the archive
checks), builds it in the sandbox (:mod:`cardtable.sandbox`), plays a validation game against
the house bots for a version not yet validated and reports the outcome, then plays validated
versions in the ranked lobby through the client library, exactly as ``cardtable bot --cmd``
does: the program is a ``cmd:`` program whose command is the sandbox's, so deadlines, faults
and the fallback are those of every connected bot. After each game it sends the program's
stderr of that game (bounded) for its author. Several workers share the work through Redis (a
lease per bot, the cluster's own Redis), with no scheduler of their own.
"""

from cardtable.hosted.worker import HostedWorker, Prepared, WorkItem

__all__ = ["HostedWorker", "Prepared", "WorkItem"]
