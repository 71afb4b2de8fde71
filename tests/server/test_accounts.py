"""Accounts for people (issue #21): sign up, sign in, sessions in an HttpOnly cookie, CSRF,
throttled wrong passwords, sign out everywhere, password change, one namespace with bots and
guests, a guest claiming an account keeps its games, a person's hello by its session cookie."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from cardtable.server.store.models import players
from loopback import LOOPBACK
from server.wire import RunningServer, Wire, db_url, fast_settings, play_until_end, running_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    # a wrong password makes its (name, address) wait 30 s: long enough that no loaded machine
    # lets it pass before the next request of a test
    settings = fast_settings(db_url(tmp_path), sign_in_backoff_s=30.0, sign_in_limit_per_address=6)
    with running_server(settings) as running:
        yield running


@pytest.fixture
def unthrottled(tmp_path: Path) -> Iterator[RunningServer]:
    """A server whose wrong passwords cost no delay (tests that are not about throttling)."""
    with running_server(fast_settings(db_url(tmp_path), sign_in_backoff_s=0.0)) as running:
        yield running


def browser(server: RunningServer) -> httpx.Client:
    """A client that keeps cookies like a browser and sends the CSRF token like the page."""
    client = httpx.Client(base_url=server.http, timeout=30)
    me = client.get("/api/account")
    assert me.status_code == 200 and me.json()["signed_in"] is False
    client.headers["X-CSRF-Token"] = me.json()["csrf_token"]
    client.headers["Origin"] = server.http
    return client


def set_cookie_flags(response: httpx.Response, name: str) -> set[str]:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(name + "="):
            return {part.strip().lower() for part in header.split(";")[1:]}
    raise AssertionError(f"no Set-Cookie {name} in {response.headers}")


def test_sign_up_sign_in_and_the_cookie_javascript_cannot_read(server: RunningServer) -> None:
    client = browser(server)
    reply = client.post("/api/account/signup", json={"name": "Anna", "password": "cows and bulls"})
    assert reply.status_code == 201, reply.text
    assert reply.json()["name"] == "Anna" and reply.json()["signed_in"] is True
    flags = set_cookie_flags(reply, "ct_session")
    assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags
    assert "secure" not in flags  # plain http here; https adds Secure (test below)
    assert client.get("/api/account").json()["name"] == "Anna"
    # the password is stored as argon2id, never in clear
    store = server.app.state.store
    with store.engine.connect() as conn:
        stored = conn.execute(select(players.c.password_hash).where(players.c.name == "Anna"))
        hashed = stored.scalar_one()
    assert hashed.startswith("$argon2id$") and "cows" not in hashed
    # a new browser signs in (any case of the name)
    other = browser(server)
    reply = other.post("/api/account/signin", json={"name": "anna", "password": "cows and bulls"})
    assert reply.status_code == 200 and reply.json()["name"] == "Anna"
    assert other.get("/api/account").json()["signed_in"] is True
    # signing out ends this browser's session only
    assert other.post("/api/account/signout").status_code == 204
    assert other.get("/api/account").json()["signed_in"] is False
    assert client.get("/api/account").json()["signed_in"] is True


def test_secure_flag_over_https(tmp_path: Path) -> None:
    # uvicorn takes the scheme from X-Forwarded-Proto of a trusted proxy (here: loopback)
    settings = fast_settings(db_url(tmp_path), trusted_proxies=["127.0.0.1"])
    with running_server(settings) as server:
        client = browser(server)
        client.headers["X-Forwarded-Proto"] = "https"
        client.headers["Origin"] = server.http.replace("http:", "https:")
        body = {"name": "Sven", "password": "eight chars"}
        reply = client.post("/api/account/signup", json=body)
        assert reply.status_code == 201, reply.text
        assert "secure" in set_cookie_flags(reply, "ct_session")


def test_forwarded_proto_of_an_untrusted_peer_is_ignored(server: RunningServer) -> None:
    # no trusted proxy (the default): a client cannot claim https (nor another address)
    client = browser(server)
    client.headers["X-Forwarded-Proto"] = "https"
    reply = client.post("/api/account/signup", json={"name": "Sven", "password": "eight chars"})
    assert reply.status_code == 201, reply.text
    assert "secure" not in set_cookie_flags(reply, "ct_session")


def test_csrf_refused_and_nothing_changes(server: RunningServer) -> None:
    client = browser(server)
    body = {"name": "Mallory", "password": "long enough"}
    token = client.headers.pop("X-CSRF-Token")
    missing = client.post("/api/account/signup", json=body)
    assert missing.status_code == 403 and "CSRF" in missing.json()["detail"]
    client.headers["X-CSRF-Token"] = token[:-1] + ("A" if token[-1] != "A" else "B")
    wrong = client.post("/api/account/signup", json=body)
    assert wrong.status_code == 403
    client.headers["X-CSRF-Token"] = token
    client.headers["Origin"] = "https://evil.example"
    cross = client.post("/api/account/signup", json=body)
    assert cross.status_code == 403 and "Origin" in cross.json()["detail"]
    # a form post of another site carries neither the header nor our Origin
    bare = LOOPBACK.post(f"{server.http}/api/account/signup", json=body)
    assert bare.status_code == 403
    assert server.app.state.store.player("Mallory") is None
    # signed in: sign-out-everywhere and password change are refused without the token too
    client.headers["Origin"] = server.http
    assert client.post("/api/account/signup", json=body).status_code == 201
    client.headers.pop("X-CSRF-Token")
    assert client.post("/api/account/signout-everywhere").status_code == 403
    change = client.post("/api/account/password", json={"old": "long enough", "new": "x" * 9})
    assert change.status_code == 403
    assert client.get("/api/account").json()["signed_in"] is True


def test_wrong_passwords_slow_the_name_from_that_address_and_are_capped_per_address(
    server: RunningServer,
) -> None:
    client = browser(server)
    client.post("/api/account/signup", json={"name": "Berta", "password": "right password"})
    other = browser(server)
    wrong = other.post("/api/account/signin", json={"name": "Berta", "password": "wrong one"})
    assert wrong.status_code == 401
    throttled = other.post(
        "/api/account/signin", json={"name": "BERTA", "password": "right password"}
    )
    assert throttled.status_code == 429, throttled.text
    retry = int(throttled.headers["retry-after"])
    assert 1 <= retry <= 30 and throttled.json()["retry_after"] == retry
    assert "try again in" in throttled.json()["detail"]
    assert "signed_in" not in throttled.json()
    # per address: wrong passwords for other names from the same address add up (6 in all)
    for name in ("nobody1", "nobody2", "nobody3", "nobody4", "nobody5"):
        reply = other.post("/api/account/signin", json={"name": name, "password": "whatever1"})
        assert reply.status_code == 401, reply.text
    addr = other.post("/api/account/signin", json={"name": "nobody6", "password": "whatever1"})
    assert addr.status_code == 429 and "address" in addr.json()["detail"]


def test_sign_ups_are_throttled_per_address(tmp_path: Path) -> None:
    settings = fast_settings(db_url(tmp_path), sign_up_limit_per_address=2)
    with running_server(settings) as server:
        client = browser(server)
        for name in ("Una", "Uwe"):
            reply = client.post("/api/account/signup", json={"name": name, "password": "pw123456"})
            assert reply.status_code == 201
            client = browser(server)
        third = client.post("/api/account/signup", json={"name": "Ute", "password": "pw123456"})
        assert third.status_code == 429 and int(third.headers["retry-after"]) >= 1
        assert server.app.state.store.player("Ute") is None


def test_sign_out_everywhere_and_password_change(unthrottled: RunningServer) -> None:
    server = unthrottled
    one, two = browser(server), browser(server)
    assert (
        one.post(
            "/api/account/signup", json={"name": "Carla", "password": "first password"}
        ).status_code
        == 201
    )
    assert (
        two.post(
            "/api/account/signin", json={"name": "Carla", "password": "first password"}
        ).status_code
        == 200
    )
    assert one.post("/api/account/signout-everywhere").status_code == 204
    assert one.get("/api/account").json()["signed_in"] is False
    assert two.get("/api/account").json()["signed_in"] is False
    # password change: the old password must be right; other sessions end, this one goes on
    assert (
        one.post(
            "/api/account/signin", json={"name": "Carla", "password": "first password"}
        ).status_code
        == 200
    )
    assert (
        two.post(
            "/api/account/signin", json={"name": "Carla", "password": "first password"}
        ).status_code
        == 200
    )
    bad = one.post("/api/account/password", json={"old": "not it!!", "new": "second password"})
    assert bad.status_code == 401
    short = one.post("/api/account/password", json={"old": "first password", "new": "short"})
    assert short.status_code == 422
    ok = one.post("/api/account/password", json={"old": "first password", "new": "second pw!"})
    assert ok.status_code == 200, ok.text
    assert one.get("/api/account").json()["signed_in"] is True
    assert two.get("/api/account").json()["signed_in"] is False
    assert (
        two.post(
            "/api/account/signin", json={"name": "Carla", "password": "first password"}
        ).status_code
        == 401
    )
    assert (
        two.post(
            "/api/account/signin", json={"name": "Carla", "password": "second pw!"}
        ).status_code
        == 200
    )


def test_one_namespace_for_people_bots_house_bots_and_guests(server: RunningServer) -> None:
    client = browser(server)
    server.register("deep-cow")
    for name, status in [
        ("DEEP-COW", 409),  # a bot's name, any case
        ("dееp-cow", 409),  # Cyrillic е: looks like it
        ("house-expert", 422),
        ("guest", 422),
        ("Ada\u200b", 422),  # zero-width space
        ("x", 422),
        ("two  spaces", 201),  # collapsed to one space
    ]:
        reply = client.post("/api/account/signup", json={"name": name, "password": "password1"})
        assert reply.status_code == status, (name, reply.text)
        if status == 201:
            assert reply.json()["name"] == "two spaces"
            client = browser(server)
    assert (
        client.post(
            "/api/account/signup", json={"name": "Dora", "password": "password1"}
        ).status_code
        == 201
    )
    # a bot cannot register a person's name, nor a lookalike
    bot = LOOPBACK.post(f"{server.http}/api/bots", json={"name": "DORA"})
    assert bot.status_code == 409
    # a guest cannot take a registered person's name (nor a lookalike)
    for name in ("Dora", "dora", "Dоra"):
        with Wire(server.ws) as wire:
            reply = wire.hello_guest(name)
            assert reply["type"] == "error" and reply["code"] == "bad_name", (name, reply)


def _ws_headers(client: httpx.Client, server: RunningServer) -> dict[str, str]:
    cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
    return {"Cookie": cookie, "Origin": server.http}


def test_a_person_says_hello_with_the_session_cookie(server: RunningServer) -> None:
    client = browser(server)
    client.post("/api/account/signup", json={"name": "Emil", "password": "password1"})
    hello = {"type": "hello", "protocol": 1, "person": True}
    with Wire(server.ws, headers=_ws_headers(client, server)) as wire:
        wire.send(hello)
        welcome = wire.expect("welcome", "error")
        assert welcome["type"] == "welcome", welcome
        assert welcome["you"] == {"name": "Emil", "kind": "person"}
    # no cookie, another site's page, a session signed out: refused
    with Wire(server.ws) as wire:
        wire.send(hello)
        assert wire.expect("welcome", "error")["code"] == "bad_token"
    foreign = {**_ws_headers(client, server), "Origin": "https://evil.example"}
    with Wire(server.ws, headers=foreign) as wire:
        wire.send(hello)
        refused = wire.expect("welcome", "error")
        assert refused["code"] == "bad_token" and "Origin" in refused["reason"]
    headers = _ws_headers(client, server)
    with Wire(server.ws, headers=headers) as live:
        live.send(hello)
        assert live.expect("welcome")["you"]["name"] == "Emil"
        assert client.post("/api/account/signout-everywhere").status_code == 204
        dropped = live.expect("error")  # the live connection ends with the session
        assert dropped["code"] == "bad_token" and "signed out" in dropped["reason"]
    with Wire(server.ws, headers=headers) as wire:
        wire.send(hello)
        assert wire.expect("welcome", "error")["code"] == "bad_token"


def test_a_guest_claiming_an_account_keeps_its_games(server: RunningServer) -> None:
    token = "guest-resume-token-0123456789"
    with Wire(server.ws) as wire:
        welcome = wire.hello_guest("Fritz", token)
        assert welcome["type"] == "welcome"
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "cunegonda",
                "rules": "short",
                "opponents": "random",
            }
        )
        end = play_until_end(wire, "cunegonda")
        game_id = end["game_id"]
    other_token = "someone-elses-token-987654321"
    with Wire(server.ws) as wire:
        wire.hello_guest("Gabi", other_token)
        wire.send({"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short"})
        other_game = play_until_end(wire, "cunegonda")["game_id"]
    client = browser(server)
    reply = client.post(
        "/api/account/signup",
        json={"name": "Fritz", "password": "password1", "guest_token": token},
    )
    assert reply.status_code == 201, reply.text
    assert reply.json()["claimed_games"] == 1
    profile = server.get("/api/players/Fritz")
    assert profile["kind"] == "person"
    assert [g["game_id"] for g in profile["games"]] == [game_id]
    assert profile["games"][0]["place"] >= 1  # places count from 1
    assert profile["win_share"][0]["games"] == 1
    # claiming again (or someone else's token once more) moves nothing twice
    again = client.post("/api/account/claim", json={"guest_token": token})
    assert again.json()["claimed_games"] == 0
    assert other_game not in [g["game_id"] for g in server.get("/api/players/Fritz")["games"]]
    # the claimed seat was played unrated: it never enters the ratings
    assert profile["ratings"] == []
