"""Limits against abuse on the Kuh-Handel endpoint (issue #22), on a real server and port."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from loopback import LOOPBACK

from .khclient import KhServer, Rejected, Script, kh_server, kh_settings, play, reply

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KhServer]:
    with kh_server(kh_settings(tmp_path_factory.mktemp("khlimits"))) as running:
        yield running


def test_deeply_nested_json_is_one_bad_reply_and_the_seat_plays_on(server: KhServer) -> None:
    assert server.register("deep") == 201
    client = server.connect("server_bot_game", "deep")
    sent = {"n": 0}

    def nested(message: dict[str, Any], script: Script) -> Any:
        sent["n"] += 1
        if sent["n"] == 1:
            return "[" * 30_000
        return reply("PlayerTurnDecision", {"Draw": []})

    end = play(client, Script("deep", {"DrawOrTrade": nested}))
    assert end is not None, "the connection was dropped instead of one bad reply"
    assert sent["n"] >= 2
    detail = server.game_of("deep")
    codes = [f["code"] for f in detail["faults"] if f["seat"] == 0]
    assert codes.count("bad_reply") == 1
    assert any("nested too deeply" in f["reason"] for f in detail["faults"])
    assert detail["seats_detail"][0]["taken_over"] is False


def test_refusals_before_the_upgrade_are_readable_by_the_websockets_client(
    server: KhServer,
) -> None:
    # the status used to come with Content-Length and Content-Type twice: the websockets
    # library gave up parsing it ("InvalidMessage") instead of reporting 401 / 400
    assert server.register("readable") == 201
    base = f"ws://127.0.0.1:{server.port}/kuh-handel/server_bot_game"
    for query, status in (
        ("player_id=readable&token=wrong&raise_faulty_action_warning=true", 401),
        ("player_id=readable&token=secret", 400),
    ):
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{base}?{query}", open_timeout=5).close()
        response = refused.value.response
        assert response.status_code == status
        assert len(response.headers.get_all("Content-Length")) == 1
        assert len(response.headers.get_all("Content-Type")) == 1


def test_an_empty_token_cannot_be_registered(server: KhServer) -> None:
    assert server.register("emptytoken", token="") == 400
    assert server.register("emptytoken", token="x") == 201


def test_tokens_never_reach_the_log(tmp_path: Path) -> None:
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    keep = Keep()
    loggers = [logging.getLogger(n) for n in ("uvicorn", "uvicorn.error", "uvicorn.access")]
    before = [(lg, lg.level) for lg in loggers]
    settings = kh_settings(tmp_path)
    try:
        with kh_server(settings, access_log=True) as running:
            for lg in loggers:
                lg.setLevel(logging.INFO)
            logging.getLogger("uvicorn").addHandler(keep)
            logging.getLogger("uvicorn.access").addHandler(keep)
            assert running.register("logged", token="tok-SECRET-1") == 201
            with pytest.raises(Rejected):
                running.connect("server_bot_game", "logged", token="tok-WRONG-2")
            client = running.connect("server_bot_game", "logged", token="tok-SECRET-1")
            client.close()
            LOOPBACK.get(f"{running.http}/kuh-handel/get_results?token=tok-QUERY-3", timeout=5)
    finally:
        logging.getLogger("uvicorn").removeHandler(keep)
        logging.getLogger("uvicorn.access").removeHandler(keep)
        for lg, level in before:
            lg.setLevel(level)
    text = "\n".join(lines)
    assert "kuh-handel/server_bot_game" in text and "token=***" in text  # the lines are there
    assert "/kuh-handel/get_results" in text
    assert "tok-" not in text


def test_repeated_wrong_tokens_get_429_with_retry_after(tmp_path: Path) -> None:
    with kh_server(kh_settings(tmp_path, bad_token_limit=2)) as running:
        assert running.register("guarded") == 201
        base = f"ws://127.0.0.1:{running.port}/kuh-handel/server_bot_game"
        query = "raise_faulty_action_warning=true&player_id="
        for name in ("guarded", "other"):  # wrong tokens for two names: the address's cap
            with pytest.raises(InvalidStatus) as wrong:
                connect(base + "?" + query + name + "&token=nope", open_timeout=5).close()
            assert wrong.value.response.status_code == 401
        with pytest.raises(InvalidStatus) as throttled:
            connect(base + "?" + query + "guarded&token=secret", open_timeout=5).close()
        response = throttled.value.response
        assert response.status_code == 429
        assert int(response.headers["Retry-After"]) > 0
        assert b"too many wrong tokens" in response.body
