"""Processes of a cluster started at once on a fresh PostgreSQL database all come up (issue #22):
the schema migrations run once, under a lock, and every other process finds them done (before,
the second process failed on a duplicate key of ``alembic_version``) without importing alembic
(0.2-0.3 s of CPU each). Skipped with the reason when PostgreSQL is unreachable."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from cardtable.server.store.db import Store

pytestmark = pytest.mark.timeout(120)

#: one process of the cluster starting: connect, wait for the common start time, migrate
START = """
import sys, time
from cardtable.server.store.db import Store
store = Store(sys.argv[1])
store.revision()  # connected before the race starts
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
store.migrate()
print(store.revision(), "alembic" in sys.modules)
"""


def test_processes_started_at_once_migrate_a_fresh_database_once(pg_url: str) -> None:
    assert Store(pg_url).revision() is None  # a fresh schema
    at = time.time() + 4.0  # time for every process to import and connect
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", START, pg_url, str(at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outcomes = [p.communicate(timeout=90) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), [err for _, err in outcomes]
    revisions = {out.split()[0] for out, _ in outcomes}
    assert len(revisions) == 1 and "None" not in revisions, revisions
    # the one that migrated imported alembic; the others waited for it and did not
    assert sorted(out.split()[1] for out, _ in outcomes) == ["False"] * 3 + ["True"], outcomes
    store = Store(pg_url)
    store.create_bot("after-the-race")  # the schema is whole
    store.close()
