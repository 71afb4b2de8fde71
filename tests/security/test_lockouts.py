"""Locks that strangers could turn against owners (issue #34, item 3).

Before, five wrong passwords for a name from anywhere locked its owner out for five minutes,
and ten wrong tokens from an address locked out every bot behind it (an office, a proxy) for a
minute. Now (``server/lockouts.py``) a wrong password slows only its (name, address) pair, with
growing delays, and a wrong token only its (name, token) pair; an address is capped only over
many names. Each test fails on the code before.

The server's lockouts count on a clock the test moves (:class:`cardtable.clock.ManualClock`):
where the attacker is told to wait (Retry-After), the test moves the clock that far instead of
sleeping, so a loaded machine cannot shift a delay and the delays cost no wall time.

The attacker and the owner connect from different loopback addresses (``127.0.0.2``,
``127.0.0.3``: all of 127.0.0.0/8 is local on Linux), or through a trusted proxy that forwards
their addresses.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from cardtable.clock import ManualClock
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(90)

ATTACKER, OWNER = "127.0.0.2", "127.0.0.3"
#: the wrong passwords that locked a name before (``sign_in_limit_per_name``, 5)
OLD_NAME_LIMIT = 5
#: the wrong tokens that locked an address before (``bad_token_limit``, 10)
OLD_ADDRESS_LIMIT = 10


def browser(server: RunningServer, source: str, forwarded: str | None = None) -> httpx.Client:
    """A client from ``source`` that keeps cookies and sends the CSRF token like the page."""
    client = httpx.Client(
        base_url=server.http, timeout=30, transport=httpx.HTTPTransport(local_address=source)
    )
    if forwarded is not None:
        client.headers["X-Forwarded-For"] = forwarded
    me = client.get("/api/account")
    assert me.status_code == 200, me.text
    client.headers["X-CSRF-Token"] = me.json()["csrf_token"]
    client.headers["Origin"] = server.http
    return client


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(tmp_path: Path, clock: ManualClock) -> Iterator[RunningServer]:
    # the delays start at 0.5 s (Retry-After 1, 1, 2, 4 s...); the proxy test sends
    # X-Forwarded-For from 127.0.0.1 as a trusted proxy would
    settings = fast_settings(db_url(tmp_path), sign_in_backoff_s=0.5, trusted_proxies=["127.0.0.1"])
    with running_server(settings, clock) as running:
        yield running


def guess_passwords(
    client: httpx.Client, name: str, failures: int, clock: ManualClock
) -> list[int]:
    """Send wrong passwords for ``name``, each at once after the last, until ``failures`` were
    looked at (401), waiting as each 429 tells (the server's clock moves that far); returns the
    Retry-After of every 429 met."""
    waits: list[int] = []
    looked_at = 0
    deadline = time.monotonic() + 60
    while looked_at < failures:
        assert time.monotonic() < deadline, f"only {looked_at} wrong passwords in 60 s: {waits}"
        reply = client.post("/api/account/signin", json={"name": name, "password": "guess123"})
        if reply.status_code == 401:
            looked_at += 1
            continue
        assert reply.status_code == 429, reply.text
        wait = int(reply.headers["retry-after"])
        assert reply.json()["retry_after"] == wait
        waits.append(wait)
        # a lock of minutes (the code before) is not a growing delay: stop here
        assert wait <= 8, f"locked out for {wait} s after {looked_at} wrong passwords"
        clock.advance(wait)
    return waits


def sign_up(server: RunningServer, name: str, password: str) -> None:
    with closing(browser(server, OWNER)) as owner:
        reply = owner.post("/api/account/signup", json={"name": name, "password": password})
        assert reply.status_code == 201, reply.text
        assert owner.post("/api/account/signout").status_code == 204


def test_a_strangers_wrong_passwords_do_not_lock_the_owner_out(
    server: RunningServer, clock: ManualClock
) -> None:
    """Attack: a stranger who knows a person's name sends wrong passwords to lock its owner
    out. The stranger meets growing delays (429, Retry-After); the owner from another address
    signs in at once."""
    sign_up(server, "Olga", "the right one")
    with closing(browser(server, ATTACKER)) as attacker:
        # a guess at once after each wrong one: refused, with a longer wait each time
        waits = guess_passwords(attacker, "Olga", OLD_NAME_LIMIT, clock)
        assert len(waits) >= 2 and waits == sorted(waits) and waits[-1] >= 2 * waits[0], waits
        # even the right password waits from the attacker's address ...
        right = attacker.post("/api/account/signin", json={"name": "olga", "password": "x"})
        assert right.status_code == 429, right.text
        assert "try again in" in right.json()["detail"]
    # ... but not from the owner's
    with closing(browser(server, OWNER)) as owner:
        reply = owner.post(
            "/api/account/signin", json={"name": "Olga", "password": "the right one"}
        )
        assert reply.status_code == 200, reply.text
        assert reply.json()["name"] == "Olga"


def test_wrong_passwords_sent_at_once_are_looked_at_one_by_one(
    server: RunningServer, clock: ManualClock
) -> None:
    """Race: ten wrong passwords for one name sent at the same moment from one address. Each
    checked its delay before any was counted (the argon2 check comes first), so all ten were
    looked at (10 x 401 before the fix): the growing delay did not slow a parallel guesser at
    all. Now the first is looked at and the nine others meet its delay (the clock stands
    still, so the delay cannot pass meanwhile, whatever the load); the owner signs in."""
    sign_up(server, "Vera", "the right one")
    codes: list[int] = []
    start = threading.Barrier(10)

    def guess(attacker: httpx.Client) -> None:
        start.wait(timeout=60)
        reply = attacker.post("/api/account/signin", json={"name": "Vera", "password": "x1"})
        codes.append(reply.status_code)

    clients = [browser(server, ATTACKER) for _ in range(10)]
    try:
        threads = [threading.Thread(target=guess, args=(c,)) for c in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        for attacker in clients:
            attacker.close()
    assert sorted(codes) == [401] + [429] * 9, codes
    with closing(browser(server, OWNER)) as owner:
        reply = owner.post(
            "/api/account/signin", json={"name": "Vera", "password": "the right one"}
        )
        assert reply.status_code == 200, reply.text


def test_wrong_passwords_forwarded_by_a_trusted_proxy_slow_only_that_client(
    server: RunningServer, clock: ManualClock
) -> None:
    """Attack: behind the operator's proxy (127.0.0.1, trusted) a stranger at 203.0.113.9,
    forging an X-Forwarded-For chain of its own, guesses the owner's password; the owner at
    198.51.100.7 behind the same proxy still signs in."""
    sign_up(server, "Petra", "the right one")
    # the proxy appends the stranger's real address to whatever the stranger sent
    forged = "198.51.100.7, 203.0.113.9"
    with closing(browser(server, "127.0.0.1", forwarded=forged)) as attacker:
        waits = guess_passwords(attacker, "Petra", OLD_NAME_LIMIT, clock)
        right = attacker.post(
            "/api/account/signin", json={"name": "Petra", "password": "the right one"}
        )
        assert right.status_code == 429, right.text
    assert len(waits) >= 2 and waits == sorted(waits), waits
    with closing(browser(server, "127.0.0.1", forwarded="198.51.100.7")) as owner:
        reply = owner.post(
            "/api/account/signin", json={"name": "Petra", "password": "the right one"}
        )
        assert reply.status_code == 200, reply.text


def test_wrong_tokens_from_an_address_do_not_lock_out_a_good_bot_behind_it(
    tmp_path: Path,
) -> None:
    """Attack: from a shared address (an office, a proxy) someone sends wrong tokens, for the
    good bot's name and others, to lock out every bot behind it. The good bot's own token still
    logs in, on the native protocol and on the Kuh-Handel endpoint; the stranger's repeated
    token waits longer each time."""
    with running_server(fast_settings(db_url(tmp_path))) as server:
        token = server.register("good-bot")
        for n in range(OLD_ADDRESS_LIMIT):
            name = "good-bot" if n % 2 else f"someone-{n}"
            with Wire(server.ws, source=ATTACKER) as wire:
                error = wire.hello_bot(name, secrets.token_urlsafe(32))
                assert error["code"] == "bad_token", error
        # the same wrong token again: it waits, and longer each time it comes back
        stale = secrets.token_urlsafe(32)
        with Wire(server.ws, source=ATTACKER) as wire:
            assert wire.hello_bot("good-bot", stale)["code"] == "bad_token"
        with Wire(server.ws, source=ATTACKER) as wire:
            error = wire.hello_bot("good-bot", stale)
            assert error["code"] == "throttled" and "retry after" in error["reason"], error
        # the good bot behind the same address
        with Wire(server.ws, source=ATTACKER) as wire:
            welcome = wire.hello_bot("good-bot", token)
            assert welcome["type"] == "welcome", welcome
        # and on the Kuh-Handel endpoint (wrong tokens there, then the right one)
        assert kh_register(server, "kh-bot", "kh-secret") == 201
        url = f"ws://127.0.0.1:{server.port}/kuh-handel/server_bot_game"
        for n in range(OLD_ADDRESS_LIMIT):
            query = f"player_id=kh-bot&token=wrong{n}&raise_faulty_action_warning=true"
            with pytest.raises(InvalidStatus) as refused:
                connect(f"{url}?{query}", open_timeout=10, source_address=(ATTACKER, 0)).close()
            assert refused.value.response.status_code == 401
        query = "player_id=kh-bot&token=kh-secret&raise_faulty_action_warning=true"
        connect(f"{url}?{query}", open_timeout=10, source_address=(ATTACKER, 0)).close()


def kh_register(server: RunningServer, name: str, token: str) -> int:
    reply = httpx.post(
        f"{server.http}/kuh-handel/register", params={"player_id": name, "token": token}
    )
    return reply.status_code
