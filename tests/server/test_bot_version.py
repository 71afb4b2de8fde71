"""A bot's version (``hello.version``) on a real server: recorded per game and seat, shown in
the game's record (``meta.bot_versions``), the bot's games (``GET /api/bots/NAME``) and a
tournament's standings; ``cardtable bot`` sends the bot file's hash unless told a version; a
version past 64 characters is refused at hello."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.cli.bot import default_version
from cardtable.client import play
from server.test_tournament import play_out
from server.wire import RunningServer, Wire, db_url, fast_settings, organise, running_server

pytestmark = pytest.mark.timeout(120)

ADMIN = "organiser-secret"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(db_url(tmp_path), admin_token=ADMIN)
    with running_server(settings) as running:
        yield running


def test_each_game_records_the_version_that_played(server: RunningServer) -> None:
    token = server.register("versioned")
    for version in ("v1.0", "v1.1"):
        play(
            server.ws,
            "versioned",
            token,
            "random",
            lobby="practice",
            opponents="random",
            seats=3,
            version=version,
        )
    games = server.get("/api/bots/versioned")["games"]  # newest first
    assert [g["bot_version"] for g in games] == ["v1.1", "v1.0"]
    for g in games:
        record = server.get(f"/api/games/{g['game_id']}/record")
        versions = record["meta"]["bot_versions"]
        assert versions[g["seat"]] == g["bot_version"]
        assert [v for s, v in enumerate(versions) if s != g["seat"]] == [None, None]  # house
    # a game without a version records none
    play(server.ws, "versioned", token, "random", lobby="practice", opponents="random", seats=3)
    newest = server.get("/api/bots/versioned")["games"][0]
    assert newest["bot_version"] is None
    record = server.get(f"/api/games/{newest['game_id']}/record")
    assert "bot_versions" not in record["meta"]


def test_a_version_too_long_is_refused_at_hello(server: RunningServer) -> None:
    token = server.register("longversion")
    with Wire(server.ws) as wire:
        wire.send(
            {
                "type": "hello",
                "protocol": 1,
                "bot": "longversion",
                "token": token,
                "version": "x" * 65,
            }
        )
        reply = wire.expect("welcome", "error")
    assert reply["type"] == "error", reply
    assert server.get("/api/bots/longversion")["games"] == []


def test_standings_show_each_entrants_versions(server: RunningServer) -> None:
    names = ["va", "vb", "vc"]
    tokens = {n: server.register(n) for n in names}
    t = organise(server.http, ADMIN, name="versions", seats=3, entrants=names, deals=1, quiet_ms=40)
    # every entrant enters with its own version (play_out's bots carry one each)
    info, _ = play_out(server, t["id"], tokens, bot="random", versions={n: f"{n}-7" for n in names})
    assert info["games"]["done"] == 3
    rows = {r["name"]: r for r in server.get(f"/api/tournaments/{t['id']}/standings")["rows"]}
    assert {n: rows[n]["versions"] for n in names} == {n: [f"{n}-7"] for n in names}


def test_cardtable_bot_sends_the_bot_files_hash(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text("class MyBot: pass\n")
    digest = hashlib.sha256(bot.read_bytes()).hexdigest()[:12]
    assert default_version(f"{bot}:MyBot") == f"sha256:{digest}"
    assert default_version(str(bot)) == f"sha256:{digest}"
    bot.write_text("class MyBot:\n    pass\n")  # another code, another version
    assert default_version(str(bot)) != f"sha256:{digest}"
    assert default_version("random").startswith("random@cardtable-")
