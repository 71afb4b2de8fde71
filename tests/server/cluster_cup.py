"""A tournament on a cluster, as the tests run one: two ``cardtable serve`` processes
(:class:`server.test_cluster.Process`) sharing a PostgreSQL database and a Redis prefix, native
entrants as ``cardtable bot --tournament`` processes, Kuh-Handel entrants as client threads, and
the waits and checks around a SIGKILL. The entrants, waits and checks take a server's URL, so the
one-process tournament tests (a server killed and started again) use them too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from websockets.frames import Close, Opcode

from compat.khclient import KhClient, Rejected, Script, play
from loopback import LOOPBACK
from patience import patience
from server.test_cluster import CARDTABLE, Process

if TYPE_CHECKING:
    import redis

#: the organiser's token (``CARDTABLE_ADMIN_TOKEN`` of the servers)
ADMIN = "organiser-secret"

Game = dict[str, Any]


def two_processes(
    prefix: str,
    database: str,
    redis_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    fallback: bool = True,
) -> list[Process]:
    """Two processes ``{prefix}0`` and ``{prefix}1`` of one cluster, not started yet: random house
    bots (and, with ``fallback``, a random fallback bot) in their ``server.toml``, one log
    ``servers.log``, :data:`ADMIN` as their organiser's token."""
    monkeypatch.setenv("CARDTABLE_ADMIN_TOKEN", ADMIN)
    config = tmp_path / "server.toml"
    toml = '[server]\nhouse_bots = { kuhhandel = "random" }\n'
    if fallback:
        toml += 'fallback_bot = { kuhhandel = "random" }\n'
    config.write_text(toml)
    log = tmp_path / "servers.log"
    return [Process(f"{prefix}{i}", database, redis_prefix, config, log) for i in range(2)]


def register_bots(http: str, names: Iterable[str]) -> dict[str, str]:
    """Registers native bots (``POST /api/bots``): each name's token."""
    tokens = {}
    for n in names:
        reply = LOOPBACK.post(f"{http}/api/bots", json={"name": n})
        assert reply.status_code == 201, reply.text
        tokens[n] = str(reply.json()["token"])
    return tokens


def register_kh(http: str, names: Iterable[str], token: str = "secret") -> None:
    """Registers Kuh-Handel bots (``POST /kuh-handel/register``) with ``token``."""
    for n in names:
        reply = LOOPBACK.post(
            f"{http}/kuh-handel/register", params={"player_id": n, "token": token}, timeout=10
        )
        assert reply.status_code == 201, reply.text


def native_bot(
    http: str, name: str, tid: str, token: str, bot: str = "random"
) -> subprocess.Popen[str]:
    """``cardtable bot --tournament tid`` as ``name``, connected to ``http`` (its output piped)."""
    return subprocess.Popen(
        [CARDTABLE, "bot", "--server", http, "--name", name, "--tournament", tid, "--bot", bot],
        env={**os.environ, "CARDTABLE_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def kh_entrant(
    name: str,
    proc: Process,
    tid: str,
    stop: threading.Event,
    seen: list[Any],
    timeout: float = 60.0,
) -> None:
    """A Kuh-Handel client of ``proc`` that enters ``tid`` again after every game, after its
    connection was closed and while its server is down, until the tournament is over (410).
    ``seen`` gets each game's ``End``, or ``("closed", code)`` for a connection that ended
    without one (``code``: the close frame's, ``None`` when the socket just went away);
    ``timeout``: how long one game may take."""
    url = f"ws://127.0.0.1:{proc.port}/kuh-handel/tournament-{tid}"
    while not stop.is_set():
        try:
            client = KhClient(
                f"{url}?player_id={name}&token=secret&raise_faulty_action_warning=false"
            )
        except Rejected as exc:
            if exc.status == 410:
                return
            time.sleep(0.2)  # 409: its previous connection is still being let go of
            continue
        except (OSError, TimeoutError, AssertionError):  # its server is down or starting
            time.sleep(0.2)  # its operator's bot tries again
            continue
        try:
            end = play(client, Script(name), timeout=patience(timeout))
        except (OSError, TimeoutError, AssertionError):
            end = None
        finally:
            client.close()
        if end is not None:
            seen.append(end)
        else:
            closes = [f for f in client.frames if f.opcode is Opcode.CLOSE]
            seen.append(("closed", Close.parse(closes[0].data).code if closes else None))


def in_thread(target: Callable[..., None], *args: Any, **kwargs: Any) -> threading.Thread:
    """``target(*args, **kwargs)`` running in a daemon thread (started)."""
    thread = threading.Thread(target=target, args=args, kwargs=kwargs, daemon=True)
    thread.start()
    return thread


def process_name(instance: object) -> str:
    """The name of a cluster process from its instance id (``NAME-suffix``)."""
    return str(instance).rsplit("-", 1)[0]


def table_owner(shared: redis.Redis, redis_prefix: str, game_id: str) -> str | None:
    """The name of the process whose table runs ``game_id`` (``None``: no table in Redis);
    ``shared``: a client of the cluster's Redis."""
    raw = shared.hget(f"{redis_prefix}:tables", game_id)
    return None if raw is None else process_name(json.loads(raw)["owner"])


def games_of(tid: str, *servers: str) -> list[Game]:
    """The tournament's games as the first of ``servers`` that answers lists them."""
    for http in servers:
        try:
            reply = LOOPBACK.get(f"{http}/api/tournaments/{tid}/games")
        except httpx.HTTPError:
            continue  # that one is down
        return list(reply.json()["games"])
    raise AssertionError("no process answers")


def wait_running(http: str, tid: str, done: int, deadline: float) -> dict[str, int]:
    """Waits (until ``deadline``) for ``done`` games done and one running: the counts."""
    while True:
        counts = LOOPBACK.get(f"{http}/api/tournaments/{tid}").json()["games"]
        if counts["done"] >= done and counts["running"] >= 1:
            return dict(counts)
        assert time.monotonic() < deadline, counts
        time.sleep(0.1)


def stored(http: str, game_id: str) -> bool:
    """Whether ``game_id``'s start is in the database (``GET /api/games/{id}`` through
    ``http``): a process killed before that leaves only the tournament's claim."""
    try:
        return LOOPBACK.get(f"{http}/api/games/{game_id}", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def settled(game_id: str, games: Callable[[], list[Game]], deadline: float) -> str:
    """Waits (until ``deadline``) for ``game_id`` to stop running: its state (``done`` or
    ``void``); ``games`` lists the tournament's games."""
    while True:
        state = {g["game_id"]: g["state"] for g in games()}[game_id]
        if state != "running":
            return str(state)
        assert time.monotonic() < deadline, f"{game_id} never settled: {games()}"
        time.sleep(0.1)


def wait_finished(
    http: str, tid: str, deadline: float, why: Callable[[], object] | None = None
) -> dict[str, Any]:
    """Waits (until ``deadline``) for the tournament to finish: its ``/api/tournaments/{tid}``.
    ``why()`` explains one that does not (by default that reply)."""
    while True:
        info = LOOPBACK.get(f"{http}/api/tournaments/{tid}").json()
        if info["status"] == "finished":
            return dict(info)
        assert time.monotonic() < deadline, f"not finished: {why() if why else info}"
        time.sleep(0.2)


def wait_bots_over(bots: Mapping[str, subprocess.Popen[str]], tid: str, timeout: float) -> None:
    """Each native bot says the tournament is over and exits 0, within ``timeout`` seconds
    (on an idle machine: scaled by ``patience``)
    (one still playing then is killed)."""
    for n, b in bots.items():
        try:
            out, _ = b.communicate(timeout=patience(timeout))
        except subprocess.TimeoutExpired:
            b.kill()
            raise AssertionError(f"{n} still plays: {b.communicate()[0][-2000:]}") from None
        assert b.returncode == 0 and f"tournament {tid} is over" in out, out
        # each game's line counts the games played, with no made-up total (issue 35)
        shown = [line.split("]", 1)[0] for line in out.splitlines() if line.startswith("[")]
        assert shown and all(re.fullmatch(r"\[\d+", s) for s in shown), out


def join(threads: Iterable[threading.Thread], timeout: float = 30) -> None:
    """Each client thread ends (within ``timeout`` seconds each)."""
    for t in threads:
        t.join(timeout=patience(timeout))
        assert not t.is_alive()


def played_once(games: list[Game], planned: int = 4) -> list[Game]:
    """The ``done`` games, asserting that every planned slot was played exactly once."""
    done = [g for g in games if g["state"] == "done"]
    assert sorted(g["slot"] for g in done) == list(range(planned)), games
    return done


def frozen_standings(http: str, tid: str) -> dict[str, Any]:
    """The final standings, asserting them frozen with four games for every row."""
    table = LOOPBACK.get(f"{http}/api/tournaments/{tid}/standings").json()
    assert table["frozen"] and all(row["games"] == 4 for row in table["rows"]), table
    return dict(table)


def cancel_if_live(http: str, tid: str) -> None:
    """Cancels ``tid`` if it is still in sign-up or running (a test on shared processes that
    failed leaves no tournament behind for the next)."""
    try:
        status = LOOPBACK.get(f"{http}/api/tournaments/{tid}", timeout=10).json()["status"]
        if status in ("signup", "running"):
            LOOPBACK.post(
                f"{http}/api/tournaments/{tid}/cancel",
                headers={"Authorization": f"Bearer {ADMIN}"},
                timeout=10,
            )
    except httpx.HTTPError:
        pass  # that process is gone: nothing to leave behind on it


def clean_up(bots: Mapping[str, subprocess.Popen[str]], procs: Iterable[Process] = ()) -> None:
    """Kills the native bots still running and stops the processes."""
    for b in bots.values():
        if b.poll() is None:
            b.kill()
            b.wait(timeout=10)
    for p in procs:
        p.stop()
