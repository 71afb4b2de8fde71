"""The HTTP API: bots, leaderboard, games, records, schemas, OpenAPI docs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from cardtable.protocol import schema_document
from cardtable.server.config import Settings
from cardtable.server.store.db import MIGRATIONS
from loopback import LOOPBACK
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(60)

#: The newest migration (every start migrates to it).
HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()


def test_health_and_openapi_docs(server: RunningServer) -> None:
    health = server.get("/api/health")
    assert health["status"] == "ok" and health["protocol"] == 1
    assert health["database"] == "sqlite" and health["schema_revision"] == HEAD
    docs = LOOPBACK.get(f"{server.http}/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    paths = server.get("/openapi.json")["paths"]
    for path in (
        "/api/health",
        "/api/bots",
        "/api/leaderboard",
        "/api/games",
        "/api/games/{game_id}",
        "/api/bots/{name}",
        "/api/protocol/schema",
    ):
        assert path in paths


def test_register_bots_token_once_409_taken_422_invalid(server: RunningServer) -> None:
    created = LOOPBACK.post(f"{server.http}/api/bots", json={"name": "deep-cow"})
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "deep-cow" and len(body["token"]) >= 40
    again = LOOPBACK.post(f"{server.http}/api/bots", json={"name": "Deep-Cow"})
    assert again.status_code == 409 and "taken" in again.json()["detail"]
    for bad in ({"name": "x"}, {"name": "no spaces"}, {"name": "house-bot"}, {}, {"name": 5}):
        reply = LOOPBACK.post(f"{server.http}/api/bots", json=bad)
        assert reply.status_code in (400, 422), bad
    info = server.get("/api/bots/deep-cow")
    assert info["games"] == [] and info["suspended"] is False
    assert body["token"] not in str(info)
    assert LOOPBACK.get(f"{server.http}/api/bots/nobody").status_code == 404


def test_leaderboard_games_and_unknowns(server: RunningServer) -> None:
    board = server.get("/api/leaderboard?game=kuhhandel")
    assert board == {
        "game": "kuhhandel",
        "rules": "classic",
        "kind": "all",
        "entries": [],
        "boards": ["classic", "competition", "master", "master-duel"],  # the ranked ones
    }
    assert LOOPBACK.get(f"{server.http}/api/leaderboard?game=chess").status_code == 404
    assert server.get("/api/games") == {"games": [], "offset": 0, "limit": 50, "next": None}
    assert LOOPBACK.get(f"{server.http}/api/games/nope").status_code == 404
    assert LOOPBACK.get(f"{server.http}/api/games/nope/record").status_code == 404
    assert LOOPBACK.get(f"{server.http}/api/games?status=bogus").status_code == 422


def test_schema_endpoint_and_lobbies(server: RunningServer) -> None:
    assert server.get("/api/protocol/schema") == schema_document()
    lobbies = server.get("/api/lobbies")
    kuh = lobbies["games"]["kuhhandel"]
    assert kuh["default_rules"] == "classic" and "competition" in kuh["ranked_rules"]
    assert kuh["seat_range"][0] == 3 and kuh["ranked_table_size"] == 4
    cun = lobbies["games"]["cunegonda"]
    assert cun["ranked_table_size"] == 4
    assert "heuristic" in kuh["house_bots"] and "learned" not in cun["house_bots"]
    # the learned policy is on offer where numpy is (its weights fit some tables only)
    assert ("learned" in kuh["house_bots"]) == (importlib.util.find_spec("numpy") is not None)


def _practice(server: RunningServer, **join: object) -> dict[str, object]:
    """A practice join as Ada; the game's detail once it starts, or the error."""
    with Wire(server.ws) as wire:
        wire.hello_guest("Ada")
        wire.send({"type": "join", "lobby": "practice", "game": "kuhhandel", **join})
        reply = wire.expect("game_start", "error")
        if reply["type"] == "error":
            return reply
        return server.get(f"/api/games/{reply['game_id']}")


@pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="learned needs numpy")
def test_the_learned_bot_is_a_house_bot_where_its_weights_fit(server: RunningServer) -> None:
    for rules in ("classic", "competition"):  # 4 seats: the tables its weights fit
        detail = _practice(server, rules=rules, seats=4, opponents="learned")
        assert detail.get("status") == "running", detail
        names = detail["names"]
        assert sum(str(name).startswith("house-learned") for name in names) == 3, names  # type: ignore[attr-defined]
    started = len(server.get("/api/games")["games"])
    for join, why in (
        ({"rules": "master", "seats": 4}, "classic/competition layout"),
        ({"rules": "classic", "seats": 5}, "weights for 4 seats only, not 5"),
        ({"rules": "competition", "seats": 3}, "weights for 4 seats only, not 3"),
    ):
        error = _practice(server, opponents="learned", **join)
        assert error["type"] == "error" and error["code"] == "bad_join", error
        assert "house bot 'learned' cannot play this table" in str(error["reason"])
        assert why in str(error["reason"])
    assert len(server.get("/api/games")["games"]) == started  # none started


def test_a_running_game_shows_public_information_only(server: RunningServer) -> None:
    with Wire(server.ws) as wire:
        wire.hello_guest("Ada")
        wire.send({"type": "join", "lobby": "practice", "game": "kuhhandel", "rules": "classic"})
        start = wire.expect("game_start")
        running = server.get("/api/games?status=running")["games"]
        assert [g["id"] for g in running] == [start["game_id"]]
        detail = server.get(f"/api/games/{start['game_id']}")
        assert detail["status"] == "running"
        assert "record" not in detail and "faults" not in detail
        live = detail["live"]
        assert live["observation"]["seat"] is None and live["observation"]["wallet"] is None
        assert all("to" not in e for e in live["events"])
        reply = LOOPBACK.get(f"{server.http}/api/games/{start['game_id']}/record")
        assert reply.status_code == 404  # no record while it runs
        # a spectator can join while it runs
        with Wire(server.ws) as spectator:
            spectator.send({"type": "hello", "protocol": 1, "spectate": start["game_id"]})
            spectator.expect("welcome")
            assert spectator.expect("game_start")["seat"] is None
    with Wire(server.ws) as late:
        late.send({"type": "hello", "protocol": 1, "spectate": "no-such-game"})
        late.expect("welcome")
        assert late.expect("error")["code"] == "unknown_game"


def test_games_page_with_a_next_link_and_refuse_limits_above_500(server: RunningServer) -> None:
    """More games than a page: follow ``next`` to the end; every game once, newest first."""
    store = server.app.state.store
    for i in range(7):
        store.start_game(
            game_id=f"page-{i}",
            game="kuhhandel",
            rules_name="classic",
            rules={},
            seed=i,
            lobby="practice",
            rated=False,
            instance="test",
            seats=[(None, "Ada", "guest"), (None, "Bo", "guest"), (None, "Cy", "guest")],
        )
    everything = server.get("/api/games?limit=500")
    assert len(everything["games"]) == 7 and everything["next"] is None
    seen: list[str] = []
    url: str | None = "/api/games?game=kuhhandel&limit=3"
    pages = 0
    while url is not None:
        page = server.get(url)
        assert len(page["games"]) <= 3 and "game=kuhhandel" in (page["next"] or "game=kuhhandel")
        seen += [g["id"] for g in page["games"]]
        url = page["next"]
        pages += 1
    assert pages == 3 and seen == [g["id"] for g in everything["games"]]
    assert sorted(seen) == sorted(f"page-{i}" for i in range(7))
    for bad in ("limit=501", "limit=0", "offset=-1"):
        assert LOOPBACK.get(f"{server.http}/api/games?{bad}").status_code == 422


def test_the_house_bot_is_the_strongest_built_in_one_unless_configured(tmp_path: Path) -> None:
    """With no ``house_bots`` in the configuration a table is filled (and a forfeited decision
    answered) by each game's expert; the other tests configure heuristic house bots."""
    with running_server(Settings(db=db_url(tmp_path))) as running:
        games = running.get("/api/lobbies")["games"]
    assert games["kuhhandel"]["fallback_bot"] == "expert"
    assert games["cunegonda"]["fallback_bot"] == "expert"
    with running_server(fast_settings(db_url(tmp_path / "h"))) as running:
        assert running.get("/api/lobbies")["games"]["kuhhandel"]["fallback_bot"] == "heuristic"
