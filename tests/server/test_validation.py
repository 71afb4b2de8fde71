"""A new bot's validation game (server/validation.py) on a real server: its first ranked join
plays one unrated game against house bots; it is queued for ranked games only after finishing
one without being taken over; its page's API says whether it is validated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardtable.client import play
from cardtable.core import Request
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(fast_settings(db_url(tmp_path), validation_games=True)) as running:
        yield running


class Broken:
    """Raises at every decision: the server's fallback answers and takes the seat over."""

    def act(self, observation: Any, request: Request) -> Any:
        raise RuntimeError("broken on purpose")


def test_a_new_bot_validates_before_its_first_ranked_game(server: RunningServer) -> None:
    token = server.register("newbie")
    assert server.get("/api/bots/newbie")["validated"] == []
    reports = play(server.ws, "newbie", token, "random", lobby="ranked", games=2)
    first, second = (server.get(f"/api/games/{r.game_id}/record")["meta"] for r in reports)
    assert first["lobby"] == "validation" and first["rated"] is False
    assert first["validation"] is True
    assert second["lobby"] == "ranked" and second["rated"] is True
    bot = server.get("/api/bots/newbie")
    assert bot["validated"] == ["kuhhandel"]
    assert [g["lobby"] for g in bot["games"]] == ["ranked", "validation"]  # newest first
    assert [r["games"] for r in bot["ratings"]] == [1]  # the validation game is not rated
    # validated once: its next ranked join is queued at once
    again = play(server.ws, "newbie", token, "random", lobby="ranked", games=1)
    assert server.get(f"/api/games/{again[0].game_id}/record")["meta"]["lobby"] == "ranked"


def test_a_bot_taken_over_in_validation_is_not_queued(server: RunningServer) -> None:
    """Failing every decision, it is taken over in its validation game and plays another
    validation game at its next ranked join, never a ranked one."""
    token = server.register("broken")
    reports = play(server.ws, "broken", token, lambda info: Broken(), lobby="ranked", games=2)
    lobbies = [server.get(f"/api/games/{r.game_id}/record")["meta"]["lobby"] for r in reports]
    assert lobbies == ["validation", "validation"]
    bot = server.get("/api/bots/broken")
    assert bot["validated"] == [] and bot["ratings"] == []
    assert all(g["taken_over"] for g in bot["games"])


def test_the_validation_game_start_matches_the_protocol(server: RunningServer) -> None:
    """On the wire: the ranked join answers game_start with lobby validation (every frame is
    checked against the server's schemas by Wire), unrated."""
    token = server.register("wired")
    with Wire(server.ws) as wire:
        assert wire.hello_bot("wired", token)["type"] == "welcome"
        wire.send({"type": "join", "lobby": "ranked", "game": "kuhhandel"})
        start = wire.expect("game_start", "waiting", "error")
        assert start["type"] == "game_start", start
        assert start["lobby"] == "validation" and start["rated"] is False
        wire.send({"type": "leave"})  # the fallback plays it out
