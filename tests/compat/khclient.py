"""Test helpers for the Kuh-Handel endpoint: a real server on a free loopback port (in a thread)
and a frame-level WebSocket client (``websockets`` sans-I/O over a plain socket) that sees every
frame the server sends, pings and binary frames included.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from cardtable.server.app import create_app
from cardtable.server.config import Settings
from cardtable.server.limits import uvicorn_config
from loopback import LOOPBACK
from patience import load_factor, patience, polls

#: Every wait in these tests gives up after this long: no test can hang on the network.
WAIT = 15.0


def kh_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Fast settings: short waits, quick cheap house bots.

    The reply timeout (400 ms on an idle machine) is what the test's own client must answer
    within: it grows with the load measured now (:func:`load_factor`). No ``pvp_games`` table
    is filled with house bots while a test's third bot still connects (``kh_fill_wait_ms``
    60 s; it was 300 ms: the third bot 0.4 s late, a loaded machine, got a table of its own)."""
    settings = Settings(
        db=f"sqlite:///{tmp_path / 'kh.db'}",
        kh_reply_timeout_ms=round(400 * load_factor()),
        kh_settle_ms=50,
        kh_fill_wait_ms=60000,
        kh_house_bots="simple:0.5",
        kh_fallback_bot="random",
        fill_wait_ms=60000,
        # the CPU of a test's server, not an operator's (as server/wire.py fast_settings): the
        # event loop's lag sampled every 100 ms, the cheapest argon2id
        loop_lag_ms=100,
        password_time_cost=1,
        password_memory_kib=8,
        password_lanes=1,
    )
    for key, value in overrides.items():
        setattr(settings, key, value)
    return settings


@dataclass
class KhServer:
    settings: Settings
    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base(self) -> str:
        """The base URL as pyhandel takes it (no scheme letters)."""
        return f"://127.0.0.1:{self.port}"

    def register(self, name: str, token: str = "secret") -> int:
        reply = LOOPBACK.post(
            f"{self.http}/kuh-handel/register", params={"player_id": name, "token": token}
        )
        return reply.status_code

    def connect(
        self, lobby: str, name: str, token: str = "secret", warnings: bool = True
    ) -> KhClient:
        query = (
            f"player_id={name}&token={token}&raise_faulty_action_warning={str(warnings).lower()}"
        )
        return KhClient(f"ws://127.0.0.1:{self.port}/kuh-handel/{lobby}?{query}")

    def json(self, path: str) -> Any:
        reply = LOOPBACK.get(f"{self.http}{path}")
        assert reply.status_code == 200, (path, reply.status_code, reply.text)
        return reply.json()

    def wait_for(self, path: str, check: Callable[[Any], bool], timeout: float = WAIT) -> Any:
        end = time.monotonic() + timeout
        for pause in polls():  # thinning out: each poll costs the server CPU
            data = self.json(path)
            if check(data):
                return data
            assert time.monotonic() < end, f"{path} never satisfied the check: {data}"
            time.sleep(pause)
        raise AssertionError("unreachable")  # polls() never ends

    def game_of(self, name: str, lobby: str = "kh-server-bot") -> dict[str, Any]:
        """The newest ended game of ``name`` (waits until it is stored)."""

        def ended(data: Any) -> bool:
            return any(g["status"] != "running" and g["lobby"] == lobby for g in data["games"])

        games = self.wait_for(f"/api/games?player={name}", ended)["games"]
        game = next(g for g in games if g["status"] != "running" and g["lobby"] == lobby)
        return self.json(f"/api/games/{game['id']}")  # type: ignore[no-any-return]


@contextmanager
def kh_server(
    settings: Settings, *, ping_interval: float | None = None, access_log: bool = False
) -> Iterator[KhServer]:
    """A real uvicorn server (the same WebSocket implementation as ``cardtable serve``)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings.port = port
    config = uvicorn_config(
        create_app(settings),
        settings,
        log_level="warning",
        ws_ping_interval=ping_interval,
        ws_ping_timeout=ping_interval,
        access_log=access_log,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + patience(20)  # longer on a loaded machine
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield KhServer(settings, port)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


class Rejected(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"handshake answered {status}")
        self.status = status


class KhClient:
    """A frame-level client: records every frame; raises :class:`Rejected` on a refused
    handshake."""

    def __init__(self, url: str) -> None:
        uri = parse_uri(url)
        self.sock = socket.create_connection((uri.host, uri.port), timeout=WAIT)
        self.proto = ClientProtocol(uri, max_size=None)
        self.proto.send_request(self.proto.connect())
        self._flush()
        self.frames: list[Any] = []  # every frame received, control frames included
        self.messages: list[dict[str, Any]] = []
        self.closed = False
        self._pending: list[Any] = []
        self.raw = b""
        response = None
        end = time.monotonic() + WAIT
        while response is None:
            assert time.monotonic() < end, "no handshake response"
            self._read()
            for event in self._take():
                if isinstance(event, Response):
                    response = event
                else:
                    self._pending.append(event)
            status = re.match(rb"HTTP/1\.1 (\d{3})", self.raw)
            if response is None and status and (self.closed or self.proto.handshake_exc):
                # a server that repeats Content-Length on refusals (uvicorn's WebSocket layer
                # without cardtable's protocol class) makes websockets' parser give up, so the
                # status line is read here
                self.sock.close()
                raise Rejected(int(status.group(1)))
        if response.status_code != 101:
            self.sock.close()
            raise Rejected(response.status_code)

    def _flush(self) -> None:
        data = b"".join(self.proto.data_to_send())
        if data:
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def _read(self, timeout: float = WAIT) -> None:
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except TimeoutError:
            raise
        except OSError:
            data = b""
        if data:
            if len(self.raw) < 4096:
                self.raw += data
            self.proto.receive_data(data)
        else:
            self.proto.receive_eof()
            self.closed = True
        self._flush()  # pongs and close replies the protocol queued

    def _take(self) -> list[Any]:
        return list(self.proto.events_received())

    def recv_frame(self, timeout: float = WAIT) -> Any:
        """The next frame (data or control), or ``None`` once the connection is closed."""
        end = time.monotonic() + timeout
        while not self._pending:
            if self.closed:
                return None
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame")
            self._read(left)
            self._pending.extend(self._take())
        frame = self._pending.pop(0)
        self.frames.append(frame)
        return frame

    def recv(self, timeout: float = WAIT) -> dict[str, Any] | None:
        """The next server message (JSON of a text frame); ``None`` once closed."""
        end = time.monotonic() + timeout
        while True:
            frame = self.recv_frame(max(0.01, end - time.monotonic()))
            if frame is None:
                return None
            if frame.opcode is Opcode.TEXT:
                message: dict[str, Any] = json.loads(frame.data)
                self.messages.append(message)
                return message
            if frame.opcode is Opcode.CLOSE:
                continue  # the close handshake; None follows

    def send(self, message: Any) -> None:
        self.send_text(json.dumps(message))

    def send_text(self, text: str) -> None:
        self.proto.send_text(text.encode())
        self._flush()

    def send_binary(self, data: bytes) -> None:
        self.proto.send_binary(data)
        self._flush()

    def close(self) -> None:
        try:
            self.proto.send_close()
            self._flush()
        except Exception:
            pass
        self.sock.close()
        self.closed = True

    def drop(self) -> None:
        """Vanish without a close frame."""
        self.sock.close()
        self.closed = True

    @property
    def pings(self) -> list[Any]:
        return [f for f in self.frames if f.opcode in (Opcode.PING, Opcode.BINARY)]


# --------------------------------------------------------------------------- a scripted player


def reply(kind: str, decision: Any) -> dict[str, Any]:
    return {"type": kind, "payload": {"decision": decision}}


OK = reply("NoAction", {"Ok": []})


class Script:
    """Answers like a plain, legal bot; override :meth:`answer` pieces with ``overrides``:
    ``{"ProvideBidding": fn(message, script) -> reply | None}`` (``None``: send nothing)."""

    def __init__(self, name: str, overrides: dict[str, Any] | None = None) -> None:
        self.name = name
        self.overrides = overrides or {}
        self.wallet: dict[int, int] = {}
        self.asked: dict[str, int] = {}

    def notes(self) -> list[int]:
        return sorted(v for v, c in self.wallet.items() for _ in range(c))

    def cheapest(self, amount: int) -> list[int]:
        """Largest notes first until covered (simple and always held)."""
        out: list[int] = []
        for v in sorted(self.notes(), reverse=True):
            if sum(out) >= amount:
                break
            if v:
                out.append(v)
        return sorted(out)

    def track(self, message: dict[str, Any]) -> None:
        if message["type"] != "GameUpdate":
            return
        ((variant, body),) = message["payload"]["update"].items()
        if variant == "Start":
            self.wallet = {v: c for v, c in body["wallet"]["bank_notes"]}
        elif variant == "Inflation":
            self.wallet[body] = self.wallet.get(body, 0) + 1
        elif variant == "Auction" and "NormalAuction" in body:
            a = body["NormalAuction"]
            private = a["money_transfer"].get("Private")
            if private is not None:
                sign = -1 if a["from"] == self.name else 1 if a["to"] == self.name else 0
                for v in private["amount"]:
                    self.wallet[v] = self.wallet.get(v, 0) + sign
        elif variant == "Trade":
            private = body["money_trade"].get("Private")
            if private is not None:
                mine_out = (
                    private["challenger_card_offer"]
                    if body["challenger"] == self.name
                    else private["opponent_card_offer"] or []
                )
                mine_in = (
                    private["opponent_card_offer"] or []
                    if body["challenger"] == self.name
                    else private["challenger_card_offer"]
                )
                for v in mine_out:
                    self.wallet[v] -= 1
                for v in mine_in:
                    self.wallet[v] = self.wallet.get(v, 0) + 1

    def answer(self, message: dict[str, Any]) -> Any:
        kind = message["type"]
        self.asked[kind] = self.asked.get(kind, 0) + 1
        self.track(message)
        if kind in self.overrides:
            return self.overrides[kind](message, self)
        payload = message["payload"]
        if kind == "GameUpdate":
            return OK
        if kind == "DrawOrTrade":
            return reply("PlayerTurnDecision", {"Draw": []})
        if kind == "Trade":
            # a deliberately bad opponent: the server corrects it to the first legal trade
            return reply(
                "InitialTrade",
                {"opponent": self.name, "animal": {"value": 10}, "animal_count": 1, "amount": []},
            )
        if kind == "ProvideBidding":
            return reply("Bidding", {"Pass": []})
        if kind == "BuyOrSell":
            return reply("AuctionDecision", {"Sell": []})
        if kind == "SendMoney":
            return reply("SendMoney", {"Amount": self.cheapest(payload["amount"])})
        if kind == "RespondToTrade":
            return reply("TradeOpponentDecision", {"Accept": []})
        raise AssertionError(f"unknown message {message}")


def play(client: KhClient, script: Script, *, timeout: float = 60.0) -> dict[str, Any] | None:
    """Answer every message until ``End`` (returned) or the connection closes (``None``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        message = client.recv(timeout=max(0.01, end - time.monotonic()))
        if message is None:
            return None
        if message["type"] == "GameUpdate" and "End" in message["payload"]["update"]:
            script.track(message)
            return message
        answer = script.answer(message)
        if answer is None:
            continue
        if isinstance(answer, str):
            client.send_text(answer)
        elif isinstance(answer, bytes):
            client.send_binary(answer)
        else:
            client.send(answer)
    raise TimeoutError("the game did not end")
