"""The limits against abuse hold for the whole cluster, not per process (issues #22, #21).

Two ``cardtable serve`` processes share a fresh PostgreSQL database and a Redis prefix of their
own. Each test comes from a client address of its own (``127.0.0.N``: loopback is one network,
and only ``127.0.0.1`` is exempt from the connection cap), so the tests' counts never meet.
Counted per process, an attacker spreading over N processes had N times the allowance; here:

- wrong tokens spread over both processes are throttled at their sum (per address), and a wrong
  token's growing delay holds on either process;
- a wrong password's delay for its (name, address) holds on either process;
- the connections one address holds open on both together are capped, a closed one frees room
  on the other process, and a process killed with SIGKILL stops counting (nothing leaks);
- signing out everywhere on one process ends the person's live connection on the other.

Skipped with the reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from cardtable.server.store import Store
from loopback import LOOPBACK
from server.test_cluster import REDIS_URL, Process, cluster, fresh_database, fresh_redis_prefix
from server.wire import Wire, closed_by_server

#: one worker (pytest-xdist) starts the module's two processes once for all its tests
pytestmark = [pytest.mark.timeout(90), pytest.mark.xdist_group("test_cluster_limits")]

CONFIG = """[server]
max_connections_per_address = 6
bad_token_limit = 4
bad_token_window_s = 120
bad_token_backoff_s = 30
sign_in_backoff_s = 30
sign_in_window_s = 120
"""


@dataclass
class Pair:
    a: Process
    b: Process
    prefix: str

    def ready(self) -> Pair:
        """Both processes running (a test may have killed one)."""
        for process in (self.a, self.b):
            if process.proc is not None and process.proc.poll() is not None:
                process.start()
        return self


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """Two cluster processes on a database and a Redis prefix of their own (module-wide: the
    tests use different client addresses and names)."""
    with fresh_redis_prefix() as prefix, fresh_database("ct_climits") as db:
        a, b = cluster(["la", "lb"], db, prefix, tmp_path_factory.mktemp("climits"), CONFIG)
        try:
            store = Store(db)  # migrated once here: two processes migrating at once would race
            store.migrate()
            store.close()
            with ThreadPoolExecutor(2) as starting:  # both at once: a start takes seconds
                list(starting.map(Process.start, (a, b)))
            yield Pair(a, b, prefix)
        finally:
            a.stop()
            b.stop()


def _until(check: Any, what: str, timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.05)


def test_wrong_tokens_spread_over_processes_are_throttled_at_their_sum(pair: Pair) -> None:
    pair.ready()
    source = "127.0.0.21"
    reply = LOOPBACK.post(f"{pair.a.http}/api/bots", json={"name": "spread-bot"})
    token = reply.json()["token"]
    with Wire(pair.a.ws, source=source) as wire:
        assert wire.hello_bot("spread-bot", "W" * 43)["code"] == "bad_token"
    # the same wrong token on the other process waits too (the delays are the cluster's)
    with Wire(pair.b.ws, source=source) as wire:
        error = wire.hello_bot("spread-bot", "W" * 43)
        assert error["type"] == "error" and error["code"] == "throttled", error
    # 3 more wrong tokens for other names, spread: the address's cap (4) is the cluster's
    for process, name in ((pair.b, "n1"), (pair.a, "n2"), (pair.b, "n3")):
        with Wire(process.ws, source=source) as wire:
            assert wire.hello_bot(name, "W" * 43)["code"] == "bad_token"
    for process in (pair.a, pair.b):  # the right token, on either: throttled
        with Wire(process.ws, source=source) as wire:
            error = wire.hello_bot("spread-bot", token)
            assert error["type"] == "error" and error["code"] == "throttled", error
            assert "4 wrong tokens" in error["reason"]
            assert closed_by_server(wire) == 1008
    # another address is not affected
    with Wire(pair.b.ws, source="127.0.0.31") as wire:
        assert wire.hello_bot("spread-bot", token)["type"] == "welcome"


def _browser(process: Process, source: str) -> httpx.Client:
    """A client of one process that keeps cookies and sends the CSRF token like the page."""
    client = httpx.Client(
        base_url=process.http,
        timeout=30,
        transport=httpx.HTTPTransport(local_address=source),
    )
    me = client.get("/api/account")
    assert me.status_code == 200
    client.headers["X-CSRF-Token"] = me.json()["csrf_token"]
    client.headers["Origin"] = process.http
    return client


def test_a_wrong_passwords_delay_holds_on_every_process(pair: Pair) -> None:
    pair.ready()
    source = "127.0.0.22"
    with closing(_browser(pair.a, source)) as a, closing(_browser(pair.b, source)) as b:
        signup = a.post("/api/account/signup", json={"name": "Dora", "password": "right one"})
        assert signup.status_code == 201, signup.text
        wrong = a.post("/api/account/signin", json={"name": "Dora", "password": "nope!"})
        assert wrong.status_code == 401, wrong.text
        for client in (b, a):  # now the name waits from this address, on either process
            refused = client.post(
                "/api/account/signin", json={"name": "dora", "password": "right one"}
            )
            assert refused.status_code == 429, refused.text
            assert "for this name from your address" in refused.json()["detail"]
            assert int(refused.headers["retry-after"]) >= 1
    # the owner from another address is not held up, on either process
    for process in (pair.a, pair.b):
        with closing(_browser(process, "127.0.0.32")) as owner:
            reply = owner.post(
                "/api/account/signin", json={"name": "Dora", "password": "right one"}
            )
            assert reply.status_code == 200, reply.text


def test_signing_out_everywhere_ends_the_session_on_every_process(pair: Pair) -> None:
    pair.ready()
    source = "127.0.0.23"
    with closing(_browser(pair.a, source)) as a, closing(_browser(pair.b, source)) as b:
        assert (
            a.post("/api/account/signup", json={"name": "Emma", "password": "pass word"})
        ).status_code == 201
        assert (
            b.post("/api/account/signin", json={"name": "Emma", "password": "pass word"})
        ).status_code == 200
        cookie = "; ".join(f"{c.name}={c.value}" for c in b.cookies.jar)
        headers = {"Cookie": cookie, "Origin": pair.b.http}
        with Wire(pair.b.ws, headers=headers, source=source) as live:
            live.send({"type": "hello", "protocol": 1, "person": True})
            assert live.expect("welcome")["you"] == {"name": "Emma", "kind": "person"}
            assert a.post("/api/account/signout-everywhere").status_code == 204
            # the connection on the other process ends with the session, at once
            dropped = live.expect("error")
            assert dropped["code"] == "bad_token" and "signed out" in dropped["reason"]
            assert closed_by_server(live) == 1008
        assert b.get("/api/account").json()["signed_in"] is False
        with Wire(pair.b.ws, headers=headers, source=source) as again:
            again.send({"type": "hello", "protocol": 1, "person": True})
            assert again.expect("welcome", "error")["code"] == "bad_token"


def _refused(process: Process, source: str) -> int | None:
    """The status a new WebSocket from ``source`` is refused with (``None``: admitted)."""
    try:
        with Wire(process.ws, source=source) as wire:
            assert wire.hello_guest(f"g{secrets.token_hex(3)}")["type"] == "welcome"
    except InvalidStatus as exc:
        return int(exc.response.status_code)
    return None


def test_connections_per_address_are_capped_across_processes(pair: Pair) -> None:
    pair.ready()
    import redis

    source = "127.0.0.24"
    held: list[Wire] = []
    try:
        for process in (pair.a, pair.b, pair.a, pair.b, pair.a, pair.b):  # the cap: 6
            wire = Wire(process.ws, source=source)
            held.append(wire)
            assert wire.hello_guest(f"h{len(held)}")["type"] == "welcome"
        # a 7th, on either process, is refused before anything is read
        assert _refused(pair.a, source) == 429
        assert _refused(pair.b, source) == 429
        assert _refused(pair.b, "127.0.0.34") is None  # another address is not affected
        # one closed on A makes room on B
        held.pop(0).close()
        _until(lambda: _refused(pair.b, source) is None, "room after a close")
        # B killed: its three connections stop counting (its lease lapses), nothing leaks
        pair.b.kill()
        for wire in held:
            wire.close()
        held.clear()
        for _ in range(6):
            wire = _until(lambda: _try_open(pair.a, source), "room after B died")
            held.append(wire)
        assert _refused(pair.a, source) == 429
    finally:
        for wire in held:
            wire.close()
    # the process's counts go back to nothing once its connections are closed
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        _until(
            lambda: not any(
                client.hget(key, source) for key in client.scan_iter(f"{pair.prefix}:conns:la-*")
            ),
            "A's count of the address back to 0",
        )
    finally:
        client.close()


def _try_open(process: Process, source: str) -> Wire | None:
    try:
        wire = Wire(process.ws, source=source)
    except InvalidStatus:
        return None
    assert wire.hello_guest(f"k{secrets.token_hex(3)}")["type"] == "welcome"
    return wire
