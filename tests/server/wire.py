"""Test helpers: a server in a background thread and a raw protocol client.

The raw client speaks the wire protocol directly (no client library), checks every server frame
against the published schemas, and can answer requests with a local bot so full games run.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cardtable.clock import SYSTEM, Clock
from cardtable.core import Request, game_spec, load_bot
from cardtable.protocol import validate_server_message
from cardtable.server.app import create_app
from cardtable.server.config import Settings
from cardtable.server.limits import uvicorn_config
from loopback import LOOPBACK
from patience import load_factor, patience, polls

#: Every receive in these tests gives up after this long (on an idle machine: the helpers below
#: scale every cap they are given by :func:`patience.patience`): no test can hang on the network.
RECV_TIMEOUT = 10.0


def fast_settings(db: str, **overrides: Any) -> Settings:
    """Short deadlines and waits so fault and lobby tests take well under a second each.

    A bot's deadline and time bank (400 + 300 ms on an idle machine) are what the test's own
    client must answer within, so they grow with the load measured now (:func:`load_factor`):
    a loaded machine that runs the client late must not turn a correct answer into a timeout
    fault. A test reads them from the settings, never as numbers."""
    factor = load_factor()
    settings = Settings(
        db=db,
        deadline_ms=round(400 * factor),
        time_bank_ms=round(300 * factor),
        fill_wait_ms=300,
        bot_quiet_ms=300,
        quiet_ms=300,
        suspend_minutes=5.0,
        # whole games with a person run at once here; test_pace.py asks for a pace itself
        pace="instant",
        away_pace="instant",
        # heuristic house bots: the expert (the default, test_api.py) thinks about 50 ms a
        # decision in the plain build; these tests are about the server, the bots' own tests
        # are about their strength
        house_bots={"kuhhandel": "heuristic", "cunegonda": "heuristic"},
        # a new bot's validation game before its first ranked one: test_validation.py
        validation_games=False,
        # the cheapest argon2id (about 0.1 ms, not 0.17 s of CPU a sign-up or sign-in): these
        # servers guard no real password; test_accounts.py checks the hash is argon2id
        password_time_cost=1,
        password_memory_kib=8,
        password_lanes=1,
        # the event loop's lag sampled every 100 ms, not 10 (about 1% of a core a server)
        loop_lag_ms=100,
    )
    for key, value in overrides.items():
        setattr(settings, key, value)
    return settings


class LocalServer:
    """A server on 127.0.0.1 at ``port``: its URLs, and bots registered on it."""

    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def register(self, name: str) -> str:
        """Register a bot (``POST /api/bots``, 201): its token."""
        reply = LOOPBACK.post(f"{self.http}/api/bots", json={"name": name})
        assert reply.status_code == 201, reply.text
        return str(reply.json()["token"])


@dataclass
class RunningServer(LocalServer):
    settings: Settings
    port: int
    app: Any
    #: the thread that runs the server's event loop
    thread: threading.Thread | None = field(default=None, repr=False)

    def loop_cpu(self) -> float:
        """The CPU seconds the server's event-loop thread has used so far (its own clock: what
        the server itself spent, whatever else runs on the machine or in this process)."""
        assert self.thread is not None and self.thread.ident is not None
        return time.clock_gettime(time.pthread_getcpuclockid(self.thread.ident))

    def get(self, path: str) -> Any:
        reply = LOOPBACK.get(f"{self.http}{path}")
        assert reply.status_code == 200, (path, reply.status_code, reply.text)
        return reply.json()

    def wait_for(self, path: str, check: Any, timeout: float = 10.0) -> Any:
        """Poll ``path`` until ``check(json)`` is true; returns that json. ``timeout`` is the
        cap on an idle machine (scaled by :func:`patience`); the polls thin out (:func:`polls`)."""
        end = time.monotonic() + patience(timeout)
        for pause in polls():
            data = self.get(path)
            if check(data):
                return data
            if time.monotonic() > end:
                raise AssertionError(f"{path} never satisfied the check: {data}")
            time.sleep(pause)
        raise AssertionError("unreachable")  # polls() never ends


@contextmanager
def running_server(settings: Settings, clock: Clock = SYSTEM) -> Iterator[RunningServer]:
    """A real uvicorn server on a free port in a background thread; its lockouts and request
    limits count on ``clock`` (a :class:`~cardtable.clock.ManualClock`: the test moves their
    time)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings.port = port
    app = create_app(settings, clock)
    config = uvicorn_config(app, settings, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + patience(20)  # longer on a loaded machine
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield RunningServer(settings, port, app, thread)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


class Wire:
    """A raw protocol client: JSON frames in, schema-checked JSON frames out."""

    def __init__(
        self, url: str, headers: Mapping[str, str] | None = None, source: str | None = None
    ) -> None:
        # ``source``: the local address to connect from (127.0.0.N: another client address)
        options: dict[str, Any] = {} if source is None else {"source_address": (source, 0)}
        self.ws: ClientConnection = connect(
            url,
            open_timeout=patience(RECV_TIMEOUT),
            max_size=None,
            additional_headers=headers,
            **options,
        )
        self.received: list[dict[str, Any]] = []

    def __enter__(self) -> Wire:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.ws.close()

    def send(self, message: Mapping[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def send_raw(self, text: str | bytes) -> None:
        self.ws.send(text)

    def recv(self, timeout: float | None = None) -> dict[str, Any]:
        """The next frame; ``timeout`` is exact (a poll), its default :data:`RECV_TIMEOUT` is
        scaled by :func:`patience`."""
        frame = self.ws.recv(timeout=patience(RECV_TIMEOUT) if timeout is None else timeout)
        data = json.loads(frame)
        validate_server_message(data)  # every frame the server sends matches its schema
        self.received.append(data)
        return data  # type: ignore[no-any-return]

    def expect(self, *types: str, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        """Read until a message of one of ``types`` arrives (others are kept in received);
        ``timeout`` is the cap on an idle machine (scaled by :func:`patience`)."""
        cap = patience(timeout)
        end = time.monotonic() + cap
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {types} within {cap:.1f} s")
            message = self.recv(timeout=left)
            if message["type"] in types:
                return message

    def hello_bot(self, name: str, token: str) -> dict[str, Any]:
        self.send({"type": "hello", "protocol": 1, "bot": name, "token": token})
        return self.expect("welcome", "error")

    def hello_guest(self, name: str, token: str | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "hello", "protocol": 1, "guest": name}
        if token:
            message["token"] = token
        self.send(message)
        return self.expect("welcome", "error")


@dataclass
class LocalPlayer:
    """Answers a seat's requests with a built-in bot, decoding the wire JSON locally."""

    game: str
    bot: str = "random"
    seed: int = 0
    local: Any = None
    agent: Any = None
    obs_type: Any = None
    seat: int | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def start(self, message: Mapping[str, Any]) -> None:
        spec = game_spec(self.game)
        rules = spec.rules_from_json(message["rules"])
        self.local = spec.new_game(rules, message["seats"], 0)
        self.obs_type = type(self.local.observe(0))
        self.agent = load_bot(self.game, self.bot, seed=self.seed)
        self.seat = message["seat"]

    def answer(self, message: Mapping[str, Any]) -> Any:
        req = message["request"]
        choices = req["choices"]
        request = Request(
            req["seat"],
            req["kind"],
            None if choices is None else tuple(self.local.action_from_json(c) for c in choices),
            req["info"],
        )
        observation = self.obs_type.from_json(message["observation"])
        return self.local.action_to_json(self.agent.act(observation, request))


def play_until_end(
    wire: Wire,
    game: str,
    *,
    bot: str = "random",
    misbehave: Any = None,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Answer every request until game_end; returns it. ``misbehave(wire, request_msg)`` may
    answer instead (return True when it did). ``timeout``: the cap on an idle machine (scaled
    by :func:`patience`)."""
    player = LocalPlayer(game, bot)
    starts = [m for m in wire.received if m["type"] == "game_start"]
    if starts:  # already read by the caller
        player.start(starts[-1])
    end = time.monotonic() + patience(timeout)
    while True:
        message = wire.recv(timeout=max(0.1, end - time.monotonic()))
        if message["type"] == "game_start":
            player.start(message)
        elif message["type"] == "request":
            if misbehave is not None and misbehave(wire, message):
                continue
            wire.send(
                {
                    "type": "action",
                    "game_id": message["game_id"],
                    "request_id": message["request_id"],
                    "action": player.answer(message),
                }
            )
        elif message["type"] == "game_end":
            return message


def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'server.db'}"


def closed_by_server(wire: Wire, timeout: float = 5.0) -> Any:
    """Read until the server closes the connection; returns the close code. ``timeout``: the
    cap on an idle machine (scaled by :func:`patience`)."""
    timeout = patience(timeout)
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            wire.recv(timeout=end - time.monotonic())
    except ConnectionClosed:
        return wire.ws.close_code
    raise AssertionError(f"the server did not close the connection within {timeout} s")


def once(action: Any) -> Any:
    """A misbehaviour for the first request only; later requests are answered properly."""
    done: list[bool] = []

    def misbehave(wire: Wire, request: dict[str, Any]) -> bool:
        if done:
            return False
        done.append(True)
        action(wire, request)
        return True

    return misbehave


def organise(http: str, admin: str, **spec: Any) -> dict[str, Any]:
    """An organiser creates a tournament (``POST /api/tournaments`` with its token): its JSON."""
    r = LOOPBACK.post(
        f"{http}/api/tournaments",
        json=spec,
        headers={"Authorization": f"Bearer {admin}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


def person(server: RunningServer, name: str) -> Wire:
    """Sign ``name`` up over HTTP and say hello as that person with the session cookie."""
    client = httpx.Client(base_url=server.http, timeout=30)
    csrf = client.get("/api/account").json()["csrf_token"]
    reply = client.post(
        "/api/account/signup",
        json={"name": name, "password": "password " + name},
        headers={"X-CSRF-Token": csrf, "Origin": server.http},
    )
    assert reply.status_code == 201, reply.text
    cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
    wire = Wire(server.ws, headers={"Cookie": cookie, "Origin": server.http})
    wire.send({"type": "hello", "protocol": 1, "person": True})
    assert wire.expect("welcome")["you"] == {"name": name, "kind": "person"}
    return wire


def join_practice(wire: Wire, **extra: Any) -> dict[str, Any]:
    """Join a practice table (Kuhhandel classic, 3 seats, random house bots; ``extra`` adds or
    overrides fields of the join) and return its ``game_start``."""
    wire.send(
        {
            "type": "join",
            "lobby": "practice",
            "game": "kuhhandel",
            "rules": "classic",
            "seats": 3,
            "opponents": "random",
            **extra,
        }
    )
    return wire.expect("game_start")
