"""Several hosted-bot workers share the bots through Redis (issue 40): two ``cardtable
hosted-worker`` processes against one real server and the machine's Redis, each bot under one
lease (``SET prefix:hosted:claim:BOT NAME NX EX lease``, renewed while played). Each bot is
played by one worker at a time; when a worker is killed (SIGKILL, no goodbye), the other takes
its bots over once their leases run out (``--lease``, short here)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hosted_bots import REDIS, python_bot, tar_gz

from loopback import LOOPBACK
from patience import patience
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(400)
ADMIN = "organiser-secret"
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
#: the lease on an idle machine; a test scales it by the load it measures when it starts
#: workers (a process starved for seconds renews late and loses its lease: it says "lost")
LEASE_S = 6
PAUSE_S = 0.3
BOTS = ("lease-a", "lease-b", "lease-c")


@pytest.fixture(scope="module")
def redis_prefix(redis_client: Any) -> Iterator[str]:
    prefix = f"test-hosted-{uuid.uuid4().hex[:8]}"
    yield prefix
    for key in redis_client.scan_iter(f"{prefix}:*"):
        redis_client.delete(key)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    path = tmp_path_factory.mktemp("workers")
    settings = fast_settings(db_url(path), deadline_ms=4000, time_bank_ms=4000, admin_token=ADMIN)
    with running_server(settings) as running:
        for name in BOTS:
            token = running.register(name)
            headers = {"Authorization": f"Bearer {token}"}
            url = f"{running.http}/api/bots/{name}"
            reply = LOOPBACK.post(
                f"{url}/versions", content=tar_gz(python_bot(name)), headers=headers
            )
            assert reply.status_code == 201, reply.text
            chosen = LOOPBACK.put(f"{url}/hosted", json={"version": 1}, headers=headers)
            assert chosen.status_code == 200, chosen.text
        yield running


class Workers:
    """Worker processes; every line they print, stamped, in one queue, and kept."""

    def __init__(self) -> None:
        self.lines: queue.Queue[tuple[float, str, str]] = queue.Queue()
        self.seen: list[tuple[float, str, str]] = []
        self.procs: dict[str, subprocess.Popen[str]] = {}

    def start(self, who: str, server: RunningServer, prefix: str, cache: Path, lease: int) -> None:
        argv = [CARDTABLE, "hosted-worker", "--server", server.http, "--redis", REDIS]
        argv += ["--redis-prefix", prefix, "--lease", str(lease), "--games", "1"]
        argv += ["--pause", str(PAUSE_S), "--cache", str(cache)]
        env = {**os.environ, "CARDTABLE_ADMIN_TOKEN": ADMIN}
        proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        self.procs[who] = proc

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self.lines.put((time.monotonic(), who, line.rstrip("\n")))

        threading.Thread(target=read, daemon=True).start()

    def until(self, wanted: object, seconds: float) -> tuple[float, str, str]:
        """The next line for which ``wanted(who, line)`` holds (every line kept)."""
        end = time.monotonic() + patience(seconds)
        while True:
            left = end - time.monotonic()
            assert left > 0, f"no such line in {seconds} s; seen: {self.seen[-40:]}"
            try:
                got = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(got)
            if wanted(got[1], got[2]):  # type: ignore[operator]
                return got

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def holders(
    seen: list[tuple[float, str, str]], died: dict[str, float]
) -> dict[str, list[tuple[str, float, float]]]:
    """Each bot's lease intervals (worker, from, to) out of the ``[lease]`` lines; a killed
    worker's leases end when it died (they run out in Redis later: that is the lease's point)."""
    held: dict[str, list[tuple[str, float, float]]] = {}
    open_: dict[tuple[str, str], float] = {}
    for _, who, line in seen:
        if not line.startswith("[lease] "):
            continue
        # the worker's own clock at the event: just after a SET, just before a DEL
        said, _, stamp = line[len("[lease] ") :].rpartition(" at ")
        what, _, bot = said.rpartition(" ")
        at = float(stamp)
        if what == "took":
            assert (who, bot) not in open_, f"{who} took {bot} twice"
            open_[(who, bot)] = at
        else:  # "let go" or "lost"
            held.setdefault(bot, []).append((who, open_.pop((who, bot)), at))
    for (who, bot), since in open_.items():
        held.setdefault(bot, []).append((who, since, died.get(who, float("inf"))))
    return held


def lease_bot(line: str) -> str:
    """The bot of a ``[lease] what BOT at TIME`` line."""
    return line.rpartition(" at ")[0].rsplit(" ", 1)[1]


def drain(lines: queue.Queue[tuple[float, str, str]]) -> list[tuple[float, str, str]]:
    out = []
    while True:
        try:
            out.append(lines.get_nowait())
        except queue.Empty:
            return out


def test_two_workers_share_the_bots_one_lease_each_and_a_killed_workers_bots_move(
    server: RunningServer, redis_prefix: str, open_dir: Path
) -> None:
    workers = Workers()
    lease = round(patience(LEASE_S))
    try:
        workers.start("A", server, redis_prefix, open_dir / "a", lease)
        workers.start("B", server, redis_prefix, open_dir / "b", lease)
        # every bot validated, then played ranked at least once, by whichever worker
        played: dict[str, set[str]] = {}
        while not all(played.get(bot) for bot in BOTS):
            _, who, line = workers.until(lambda w, text: "games, places" in text, 240)
            bot = line.split()[1].rstrip(":")
            played.setdefault(bot, set()).add(who)
        # kill A while it holds a bot (a lease taken, not let go)
        taken: set[str] = set()
        for _, who, line in workers.seen:
            if who == "A" and line.startswith("[lease] took "):
                taken.add(lease_bot(line))
            elif who == "A" and line.startswith(("[lease] let go ", "[lease] lost ")):
                taken.discard(lease_bot(line))
        if not taken:
            _, _, line = workers.until(
                lambda w, text: w == "A" and text.startswith("[lease] took "), 120
            )
            taken = {lease_bot(line)}
        workers.procs["A"].send_signal(signal.SIGKILL)
        workers.procs["A"].wait(timeout=30)
        killed_at = time.time()
        workers.seen += drain(workers.lines)  # what A said before it died
        # B takes each of A's bots once its lease has run out, and plays it
        moved: dict[str, float] = {}
        while set(moved) != taken:
            _, _, line = workers.until(
                lambda w, text: w == "B" and text.startswith("[lease] took "), 120
            )
            bot = lease_bot(line)
            if bot in taken:
                moved.setdefault(bot, float(line.rpartition(" at ")[2]) - killed_at)
        for bot in taken:
            workers.until(
                lambda w, text, b=bot: w == "B" and text.startswith(f"[served] {b}: 1 games"), 300
            )  # type: ignore[misc]
    finally:
        workers.stop()
    # no lease was ever held by both workers at once, and none was lost while played
    for bot, spans in holders(workers.seen, {"A": killed_at}).items():
        spans.sort(key=lambda s: s[1])
        for (w1, _, end1), (w2, start2, _) in pairwise(spans):
            assert start2 >= end1 or w1 == w2, (bot, spans)
    lost = [line for _, _, line in workers.seen if line.startswith("[lease] lost")]
    assert not lost, lost
    refused = [line for _, _, line in workers.seen if "busy" in line or "Traceback" in line]
    # a killed worker's game goes on (the server's fallback) until it ends: B's joins of that
    # bot are refused as busy meanwhile, then it plays it
    print("moved after the kill (s):", {b: round(s, 2) for b, s in moved.items()}, refused)
    for bot, after in moved.items():
        assert after <= patience(lease + PAUSE_S + 5), (bot, after)
