"""The HTTP API: bots, leaderboard, games, records, schemas, OpenAPI docs."""

from __future__ import annotations

import httpx
import pytest

from cardtable.protocol import schema_document
from server.wire import RunningServer, Wire

pytestmark = pytest.mark.timeout(60)


def test_health_and_openapi_docs(server: RunningServer) -> None:
    health = server.get("/api/health")
    assert health["status"] == "ok" and health["protocol"] == 1
    assert health["database"] == "sqlite" and health["schema_revision"] == "0001"
    docs = httpx.get(f"{server.http}/docs", timeout=10)
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
    created = httpx.post(f"{server.http}/api/bots", json={"name": "deep-cow"}, timeout=10)
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "deep-cow" and len(body["token"]) >= 40
    again = httpx.post(f"{server.http}/api/bots", json={"name": "Deep-Cow"}, timeout=10)
    assert again.status_code == 409 and "taken" in again.json()["detail"]
    for bad in ({"name": "x"}, {"name": "no spaces"}, {"name": "house-bot"}, {}, {"name": 5}):
        reply = httpx.post(f"{server.http}/api/bots", json=bad, timeout=10)
        assert reply.status_code in (400, 422), bad
    info = server.get("/api/bots/deep-cow")
    assert info["games"] == [] and info["suspended"] is False
    assert body["token"] not in str(info)
    assert httpx.get(f"{server.http}/api/bots/nobody", timeout=10).status_code == 404


def test_leaderboard_games_and_unknowns(server: RunningServer) -> None:
    board = server.get("/api/leaderboard?game=kuhhandel")
    assert board == {"game": "kuhhandel", "rules": "classic", "entries": []}
    assert httpx.get(f"{server.http}/api/leaderboard?game=chess", timeout=10).status_code == 404
    assert server.get("/api/games") == {"games": []}
    assert httpx.get(f"{server.http}/api/games/nope", timeout=10).status_code == 404
    assert httpx.get(f"{server.http}/api/games/nope/record", timeout=10).status_code == 404
    assert httpx.get(f"{server.http}/api/games?status=bogus", timeout=10).status_code == 422


def test_schema_endpoint_and_lobbies(server: RunningServer) -> None:
    assert server.get("/api/protocol/schema") == schema_document()
    lobbies = server.get("/api/lobbies")
    kuh = lobbies["games"]["kuhhandel"]
    assert kuh["default_rules"] == "classic" and "competition" in kuh["ranked_rules"]
    assert kuh["seat_range"][0] == 3 and kuh["ranked_table_size"] == 4
    assert lobbies["games"]["cunegonda"]["ranked_table_size"] == 4


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
        reply = httpx.get(f"{server.http}/api/games/{start['game_id']}/record", timeout=10)
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
