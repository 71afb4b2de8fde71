"""Direct challenges between two named bots on a real server (server/challenges.py): a bot
challenges a chosen bot with chosen settings outside the ranked queue; the challenged bot (the
client library) accepts or declines; the game is unrated by default and seats both bots and the
house bots; hostile or mistaken challenges are refused and change nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardtable import __version__
from cardtable.cli import main as cardtable
from cardtable.client import ServerError, play
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(fast_settings(db_url(tmp_path))) as running:
        yield running


def in_thread(**kwargs: Any) -> tuple[threading.Thread, dict[str, Any]]:
    """``play(**kwargs)`` in a thread: the thread and its outcome (reports or error code)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["reports"] = play(**kwargs)
        except ServerError as exc:
            outcome["error"] = exc.code
        except Exception as exc:  # shown by the test's assertion
            outcome["error"] = repr(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_a_bot_challenges_another_and_they_play(server: RunningServer) -> None:
    """cb waits for challenges (lobby challenge, no opponent: accepts); ca challenges cb to a
    3-seat competition game: one game, lobby challenge, both named bots and a house bot,
    unrated (no rating for either)."""
    tokens = {n: server.register(n) for n in ("ca", "cb")}
    listener, heard = in_thread(
        server=server.ws, name="cb", token=tokens["cb"], agent="random", lobby="challenge"
    )
    challenger, made = in_thread(
        server=server.ws,
        name="ca",
        token=tokens["ca"],
        agent="random",
        lobby="challenge",
        opponent="cb",
        game="kuhhandel",
        rules="competition",
        seats=3,
    )
    challenger.join(timeout=60)
    listener.join(timeout=60)
    assert "reports" in made and "reports" in heard, (made, heard)
    game_id = made["reports"][0].game_id
    assert heard["reports"][0].game_id == game_id
    record = server.get(f"/api/games/{game_id}/record")
    assert sorted(record["names"])[:2] == ["ca", "cb"] and len(record["names"]) == 3
    assert record["meta"]["lobby"] == "challenge" and record["meta"]["rated"] is False
    assert record["meta"]["challenge"]["from"] == "ca" and record["meta"]["challenge"]["to"] == "cb"
    for name in ("ca", "cb"):
        bot = server.get(f"/api/bots/{name}")
        assert [g["lobby"] for g in bot["games"]] == ["challenge"]
        assert bot["ratings"] == []  # unrated


def test_a_declined_challenge_tells_the_challenger(server: RunningServer) -> None:
    """cd plays practice games and declines challenges (the library's default outside the
    challenge lobby); the challenger's play ends with challenge_declined."""
    tokens = {n: server.register(n) for n in ("cc", "cd")}
    with Wire(server.ws) as wire:
        assert wire.hello_bot("cd", tokens["cd"])["type"] == "welcome"
        challenger, made = in_thread(
            server=server.ws,
            name="cc",
            token=tokens["cc"],
            agent="random",
            lobby="challenge",
            opponent="cd",
            seats=3,
        )
        offer = wire.expect("challenge", timeout=20)  # cd is connected and idle: at once
        assert offer["from"] == "cc" and offer["seats"] == 3 and offer["rated"] is False
        wire.send({"type": "join", "lobby": "challenge", "decline": offer["challenge_id"]})
        # the same challenge cannot be answered twice
        wire.send({"type": "join", "lobby": "challenge", "accept": offer["challenge_id"]})
        refused = wire.expect("error", timeout=20)
        assert refused["code"] == "bad_join"
    challenger.join(timeout=30)
    assert made.get("error") == "challenge_declined", made
    assert server.get("/api/bots/cc")["games"] == []


def test_bad_challenges_are_refused(server: RunningServer) -> None:
    token = server.register("ce")
    server.register("cf")
    with Wire(server.ws) as wire:
        assert wire.hello_bot("ce", token)["type"] == "welcome"
        for join, code in [
            ({"opponent": "ce"}, "bad_join"),  # itself
            ({"opponent": "nobody"}, "unknown_game"),
            ({"opponent": "cf", "seats": 99}, "bad_message"),
            ({"opponent": "cf", "seats": 1}, "bad_join"),
            ({"opponent": "cf", "rules": "no-such-preset"}, "unknown_game"),
            ({"accept": "feedfacecafe"}, "bad_join"),
        ]:
            wire.send({"type": "join", "lobby": "challenge", **join})
            reply = wire.expect("error", timeout=20)
            assert reply["code"] == code, (join, reply)
    with Wire(server.ws) as guest:
        guest.hello_guest("Ada")
        guest.send({"type": "join", "lobby": "challenge", "opponent": "cf"})
        assert guest.expect("error", timeout=20)["code"] == "bad_join"


def test_cardtable_bot_challenges_and_waits_for_challenges(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardtable bot --lobby challenge`` waits for challenges and accepts; ``cardtable bot
    --challenge BOT`` challenges: one game between the two named bots, exit status 0."""
    tokens = {n: server.register(n) for n in ("cg", "ch")}
    codes: dict[str, int] = {}

    def run(name: str, *args: str) -> None:
        codes[name] = cardtable(
            [
                "bot",
                "--server",
                server.ws,
                "--name",
                name,
                "--token",
                tokens[name],
                "--bot",
                "random",
                *args,
            ]
        )

    listener = threading.Thread(target=run, args=("ch", "--lobby", "challenge"), daemon=True)
    listener.start()
    run("cg", "--challenge", "ch", "--seats", "3", "--rules", "competition")
    listener.join(timeout=60)
    assert codes == {"cg": 0, "ch": 0}, (codes, capsys.readouterr())
    games = server.get("/api/bots/cg")["games"]
    assert [g["lobby"] for g in games] == ["challenge"] and "ch" in games[0]["names"]
    assert games[0]["bot_version"] == "random@cardtable-" + __version__
