"""Failing never pays at the Kuh-Handel endpoint too (issue 35): a rated ``pvp_games`` table
where one bot vanishes mid-game. It is charged a ``disconnected`` fault even when its socket
went between two questions, the fallback finishes its seat, and the rating counts it below
every seat without a fault (``placed_last_for_faults``, ``rating_place``), as on every path
(docs/protocol.md "Failing never pays")."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from .khclient import KhClient, KhServer, Rejected, Script, kh_server, kh_settings, play

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[KhServer]:
    with kh_server(kh_settings(tmp_path)) as running:
        yield running


def _connect(server: KhServer, name: str) -> KhClient:
    end = time.monotonic() + 5
    while True:
        try:
            return server.connect("pvp_games", name)
        except Rejected as exc:
            if exc.status != 409 or time.monotonic() > end:
                raise
            time.sleep(0.05)


def test_a_bot_that_vanishes_from_a_rated_kh_game_counts_last(server: KhServer) -> None:
    names = ["khf_gone", "khf_a", "khf_b"]
    for name in names:
        assert server.register(name) in (201, 409)

    def vanish(name: str) -> None:
        client = _connect(server, name)
        script = Script(name)
        try:
            for _ in range(4):  # a few answers, then gone without a close frame
                message = client.recv(timeout=30)
                if message is None:
                    return
                answer = script.answer(message)
                if answer is not None and not isinstance(answer, str | bytes):
                    client.send(answer)
        finally:
            client.drop()

    def honest(name: str) -> Any:
        client = _connect(server, name)
        try:
            return play(client, Script(name))
        finally:
            client.close()

    with ThreadPoolExecutor(3) as pool:
        gone = pool.submit(vanish, names[0])
        ends = [pool.submit(honest, n) for n in names[1:]]
        gone.result(timeout=60)
        for end in ends:
            assert end.result(timeout=90) is not None, "the game went on with the fallback"
    detail = server.game_of(names[0], lobby="kh-pvp")
    # its connection went between two questions: one ``disconnected`` fault (before, none:
    # the fallback played the rest of its game, unseen, and it won one)
    assert [
        f["code"] for f in detail["faults"] if f["seat"] == detail["names"].index(names[0])
    ] == ["disconnected"]
    bot = server.json(f"/api/bots/{names[0]}")
    (game,) = [g for g in bot["games"] if g["lobby"] == "kh-pvp"]
    assert game["rated"] and game["faults"] >= 1
    assert game["placed_last_for_faults"] is True
    assert game["rating_place"] == game["seats"], game
    for name in names[1:]:
        (mine,) = [g for g in server.json(f"/api/bots/{name}")["games"] if g["lobby"] == "kh-pvp"]
        assert mine["placed_last_for_faults"] is False
        assert mine["rating_place"] < game["seats"]
