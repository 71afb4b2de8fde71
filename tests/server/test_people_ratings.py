"""Ratings for people (issue #21): a rated private game of two people with accounts and house
bots updates the same openskill ratings as bots' games; the leaderboard filters people and bots
in one ordering; stored ratings equal ``cardtable ratings recompute``; "play again" seats the
same players with the same rules; a guest cannot sit at a rated table; practice can be rated."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from cardtable.server.store.models import players, ratings
from server.wire import (
    RunningServer,
    Wire,
    db_url,
    fast_settings,
    person,
    play_until_end,
    running_server,
)

pytestmark = pytest.mark.timeout(120)
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(fast_settings(db_url(tmp_path))) as running:
        yield running


def play_both(wires: list[Wire]) -> list[dict[str, Any]]:
    ends: list[Any] = [None] * len(wires)

    def run(i: int) -> None:
        ends[i] = play_until_end(wires[i], "cunegonda", timeout=90)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(wires))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(100)
    assert all(e is not None for e in ends), ends
    return ends


def test_people_play_a_rated_private_game_then_play_again(
    server: RunningServer, tmp_path: Path
) -> None:
    ada, bea = person(server, "Ada"), person(server, "Bea")
    ada.send(
        {
            "type": "join",
            "lobby": "private",
            "game": "cunegonda",
            "create": {"rules": "short", "bots": ["random", "random"], "rated": True},
        }
    )
    table = ada.expect("table")
    assert table["rated"] is True and table["open_seats"] == 1
    # a guest cannot take the open seat of a rated table
    with Wire(server.ws) as guest:
        guest.hello_guest("Gast")
        guest.send({"type": "join", "lobby": "private", "invite": table["invite"]})
        refused = guest.expect("error")
        assert refused["code"] == "bad_join" and "rated" in refused["reason"]
    bea.send({"type": "join", "lobby": "private", "invite": table["invite"]})
    start = bea.expect("game_start")
    assert start["rated"] is True
    assert sorted(start["names"]) == ["Ada", "Bea", "house-random-1", "house-random-2"]
    ends = play_both([ada, bea])
    game_id = ends[0]["game_id"]
    detail = server.get(f"/api/games/{game_id}")
    seats = {s["name"]: s for s in detail["seats_detail"]}
    assert seats["Ada"]["kind"] == "person" and seats["Ada"]["rating_after"] is not None
    # people and bots in one board, filtered
    board = server.get("/api/leaderboard?game=cunegonda&rules=short")["entries"]
    assert sorted(e["name"] for e in board) == ["Ada", "Bea", "house-random-1", "house-random-2"]
    assert [e["rank"] for e in board] == [1, 2, 3, 4]
    people = server.get("/api/leaderboard?game=cunegonda&rules=short&kind=people")["entries"]
    assert sorted(e["name"] for e in people) == ["Ada", "Bea"]
    bots = server.get("/api/leaderboard?game=cunegonda&rules=short&kind=bots")["entries"]
    assert sorted(e["name"] for e in bots) == ["house-random-1", "house-random-2"]
    ranks = {e["name"]: e["rank"] for e in board}
    assert all(e["rank"] == ranks[e["name"]] for e in people + bots)
    profile = server.get("/api/players/Ada")
    assert profile["kind"] == "person" and profile["ratings"][0]["games"] == 1
    assert len(profile["rating_history"]) == 1 and profile["games"][0]["place"] >= 1
    # play again: both confirm, the house bots come back, the same rules, rated again
    ada.send({"type": "join", "lobby": "private", "again": game_id})
    again = ada.expect("table")
    assert again["again"] == game_id and again["open_seats"] == 1 and again["rated"] is True
    with Wire(server.ws) as stranger:  # someone else cannot take the seat
        stranger.hello_guest("Fremd")
        stranger.send({"type": "join", "lobby": "private", "again": game_id})
        assert stranger.expect("error")["code"] == "bad_join"
        stranger.send({"type": "join", "lobby": "private", "invite": again["invite"]})
        assert stranger.expect("error")["code"] == "bad_join"
    bea.send({"type": "join", "lobby": "private", "again": game_id})
    second = bea.expect("game_start")
    assert second["game_id"] != game_id and second["rules"] == start["rules"]
    assert sorted(second["names"]) == sorted(start["names"])
    play_both([ada, bea])
    for wire in (ada, bea):
        wire.close()
    assert server.get("/api/players/Bea")["ratings"][0]["games"] == 2
    # stored ratings of people (and of the house bots) == `cardtable ratings recompute`
    before = stored_ratings(server)
    assert {name for name, _, _ in before} >= {"Ada", "Bea"}
    done = subprocess.run(
        [CARDTABLE, "ratings", "recompute", "--db", server.settings.db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert stored_ratings(server) == before


def stored_ratings(server: RunningServer) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    store = server.app.state.store
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                players.c.name,
                ratings.c.game,
                ratings.c.rules,
                ratings.c.mu,
                ratings.c.sigma,
                ratings.c.games,
                ratings.c.wins,
            ).join(players, players.c.id == ratings.c.player_id)
        ).all()
    return {(r[0], r[1], r[2]): tuple(r[3:]) for r in rows}


def test_practice_is_rated_only_when_asked_and_never_for_a_guest(server: RunningServer) -> None:
    ada = person(server, "Ada")
    ada.send(
        {"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short", "rated": True}
    )
    start = ada.expect("game_start")
    assert start["rated"] is True and start["lobby"] == "practice"
    play_until_end(ada, "cunegonda")
    ada.send({"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short"})
    assert ada.expect("game_start")["rated"] is False
    play_until_end(ada, "cunegonda")
    ada.close()
    assert server.get("/api/players/Ada")["ratings"][0]["games"] == 1
    with Wire(server.ws) as guest:
        guest.hello_guest("Gast")
        guest.send({"type": "join", "lobby": "practice", "game": "cunegonda", "rated": True})
        refused = guest.expect("error")
        assert refused["code"] == "bad_join" and "account" in refused["reason"]


def test_a_person_comes_back_like_a_bot_does(server: RunningServer) -> None:
    """The identity of a person (its session cookie) works as a bot's token does: a second
    hello replaces the first connection, welcome lists the running game, resume takes the seat
    back with its open request, and the seat is stored under the person's id (its profile)."""
    ada = person(server, "Ada")
    headers = {"Cookie": ada.ws.request.headers["Cookie"], "Origin": server.http}
    ada.send({"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short"})
    start = ada.expect("game_start")
    assert start["names"][start["seat"]] == "Ada"
    ada.expect("request")
    with Wire(server.ws, headers=headers) as again:
        again.send({"type": "hello", "protocol": 1, "person": True})
        welcome = again.expect("welcome")
        assert welcome["you"]["kind"] == "person" and welcome["games"] == [start["game_id"]]
        assert ada.expect("error")["code"] == "replaced"
        again.send({"type": "resume", "game_id": start["game_id"]})
        # the open decision comes back to the new connection: unanswered, the game would wait
        # for the person's deadline (60 s) before the fallback plays on
        end = play_until_end(again, "cunegonda", timeout=40)
        assert any(m["type"] == "request" for m in again.received)
    detail = server.get(f"/api/games/{end['game_id']}")
    seat = detail["seats_detail"][start["seat"]]
    assert seat["kind"] == "person" and seat["name"] == "Ada" and seat["page"] is True
    profile = server.get("/api/players/Ada")
    assert [g["game_id"] for g in profile["games"]] == [start["game_id"]]
    ada.close()


def test_play_again_seats_an_idle_registered_bot_by_itself(server: RunningServer) -> None:
    """A registered bot that played the game and is online and idle is seated again at once;
    the house bots too: the one person's "again" starts the new game."""
    token = server.register("again-bot")
    ada = person(server, "Ada")
    with Wire(server.ws) as bot:
        assert bot.hello_bot("again-bot", token)["type"] == "welcome"
        ada.send(
            {
                "type": "join",
                "lobby": "private",
                "game": "cunegonda",
                "create": {"rules": "short", "bots": ["random", "random"]},
            }
        )
        invite = ada.expect("table")["invite"]
        bot.send({"type": "join", "lobby": "private", "invite": invite})
        start = ada.expect("game_start")
        ends: list[Any] = []
        runner = threading.Thread(
            target=lambda: ends.append(play_until_end(bot, "cunegonda", timeout=60))
        )
        runner.start()
        play_until_end(ada, "cunegonda", timeout=60)
        runner.join(70)
        assert ends and ends[0]["game_id"] == start["game_id"]
        ada.send({"type": "join", "lobby": "private", "again": start["game_id"]})
        second = ada.expect("game_start", "error")
        assert second["type"] == "game_start", (second, ada.received[-3:])
        assert second["game_id"] != start["game_id"]
        assert sorted(second["names"]) == sorted(start["names"])
        assert bot.expect("game_start")["game_id"] == second["game_id"]
    ada.close()
