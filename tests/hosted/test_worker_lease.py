"""A hosted-bot worker's lease on a bot, against the machine's Redis (issue 40; issue 36's CI
failure): a lease that runs out while the worker plays the bot (a process starved for longer
than the lease renews too late) is said ``lost``, never kept in silence. The worker's log of
``took``/``let go``/``lost`` is how an operator (and tests/hosted/test_hosted_workers.py) sees
that no bot was held by two workers at once; CI once saw ``took`` twice with nothing between."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from hosted_bots import REDIS

from cardtable.hosted.worker import HostedWorker
from patience import patience

pytestmark = [pytest.mark.no_sandbox, pytest.mark.timeout(60)]


def worker(path: Path, lease_s: int, said: list[tuple[str, str, float]]) -> HostedWorker:
    prefix = f"test-lease-{uuid.uuid4().hex[:8]}"
    return HostedWorker(
        server="http://127.0.0.1:9",  # never asked: only the leases are used here
        admin_token="unused",
        cache=path,
        redis_url=REDIS,
        redis_prefix=prefix,
        lease_s=lease_s,
        on_lease=lambda what, bot, at: said.append((what, bot, at)),
    )


def test_a_lease_let_go_after_play_is_deleted(tmp_path: Path, redis_client: Any) -> None:
    said: list[tuple[str, str, float]] = []
    w = worker(tmp_path, 30, said)
    key = f"{w.redis_prefix}:hosted:claim:kept"
    assert w._claim("kept")
    with w._renewing("kept"):
        assert redis_client.get(key) == w.name.encode()
    assert [what for what, _, _ in said] == ["took", "let go"]
    assert redis_client.get(key) is None


def test_a_lease_that_ran_out_during_play_is_said_lost_when_let_go(
    tmp_path: Path, redis_client: Any
) -> None:
    said: list[tuple[str, str, float]] = []
    w = worker(tmp_path, 30, said)  # no renewal comes before the play ends
    key = f"{w.redis_prefix}:hosted:claim:ran-out"
    assert w._claim("ran-out")
    with w._renewing("ran-out"):
        # the lease ran out unrenewed (a stalled process), and another worker took the bot
        redis_client.delete(key)
        redis_client.set(key, "another-worker", ex=30)
    assert [what for what, _, _ in said] == ["took", "lost"]
    assert redis_client.get(key) == b"another-worker"  # the other worker's lease stays
    took_at, lost_at = said[0][2], said[1][2]
    assert took_at <= lost_at  # at most the SET's time plus the lease: no later than now
    # taken again once free: took, lost, took (never took twice in a row)
    redis_client.delete(key)
    assert w._claim("ran-out")
    assert [what for what, _, _ in said] == ["took", "lost", "took"]
    redis_client.delete(key)


def test_a_lease_lost_at_a_renewal_is_said_lost_once(tmp_path: Path, redis_client: Any) -> None:
    said: list[tuple[str, str, float]] = []
    noticed = threading.Event()

    def on_lease(what: str, bot: str, at: float) -> None:
        said.append((what, bot, at))
        if what == "lost":
            noticed.set()

    w = worker(tmp_path, 3, said)  # renewed every second
    w.on_lease = on_lease
    key = f"{w.redis_prefix}:hosted:claim:beat"
    assert w._claim("beat")
    with w._renewing("beat"):
        redis_client.set(key, "another-worker", ex=30)
        assert noticed.wait(patience(10)), said
    assert [what for what, _, _ in said] == ["took", "lost"]
    assert redis_client.get(key) == b"another-worker"
    redis_client.delete(key)


#: four threads saying lines at once, as the worker's serving loop and its bots' threads do
SAYERS = """
import sys, threading
from cardtable.cli.hosted_worker import say
def run(n):
    for i in range(2000):
        say(f"[lease] took bot-{n} at {i}.000000")
threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
for t in threads: t.start()
for t in threads: t.join()
"""


def test_the_workers_lines_are_never_joined_by_its_threads() -> None:
    """CI read a ``let go`` and a ``took`` joined on one line (``print`` writes a line and its
    newline apart), lost the ``let go`` and saw a bot "taken twice": each line is said whole."""
    out = subprocess.run(
        [sys.executable, "-c", SAYERS],
        capture_output=True,
        text=True,
        timeout=patience(60),
        check=True,
    ).stdout.splitlines()
    whole = re.compile(r"\[lease\] took bot-[0-3] at [0-9]+\.000000")
    joined = [line for line in out if not whole.fullmatch(line)]
    assert not joined, joined[:3]
    assert len(out) == 4 * 2000
