"""Unclear answers to hostile or mistaken input (issue 34, item 7): each gets an error that says
what is wrong, and nothing changes. Before: a spectator's action got ``not_hello`` and was
disconnected, the bot name ``guest`` was refused with the reason for ``house-`` names, names
with a trailing line break or space were silently trimmed, the Kuh-Handel endpoint's 401 and
409 had empty bodies, and a deeply nested JSON body got FastAPI's generic 400."""

from __future__ import annotations

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from loopback import LOOPBACK
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(60)


def test_a_spectators_action_is_refused_and_it_watches_on(server: RunningServer) -> None:
    with Wire(server.ws) as player:
        assert player.hello_guest("Ada")["type"] == "welcome"
        player.send({"type": "join", "lobby": "practice", "game": "cunegonda"})
        start = player.expect("game_start")
        with Wire(server.ws) as spectator:
            spectator.send({"type": "hello", "protocol": 1, "spectate": start["game_id"]})
            spectator.expect("welcome")
            spectator.expect("game_start")
            spectator.send(
                {
                    "type": "action",
                    "game_id": start["game_id"],
                    "request_id": "r-1",
                    "action": {"card": 0},
                }
            )
            error = spectator.expect("error")
            assert error["code"] == "spectator_cannot_act", error
            assert "spectator" in error["reason"]
            # still connected: it sees the game to its end, which the player plays as usual
            end = play_until_end(player, "cunegonda", timeout=40)
            assert end["result"]["termination"] == "normal"
            assert spectator.expect("game_end", timeout=20)["game_id"] == start["game_id"]
    detail = server.get(f"/api/games/{start['game_id']}")
    assert not detail.get("faults"), detail.get("faults")


def test_the_bot_name_guest_is_refused_with_its_own_reason(server: RunningServer) -> None:
    reply = LOOPBACK.post(f"{server.http}/api/bots", json={"name": "guest"})
    assert reply.status_code == 422
    detail = reply.json()["detail"]
    assert "'guest'" in detail and "house-" not in detail, detail
    house = LOOPBACK.post(f"{server.http}/api/bots", json={"name": "house-x"})
    assert house.status_code == 422 and "house-" in house.json()["detail"]


@pytest.mark.parametrize("name", ["trailing\n", "trailing ", " leading", "tab\t"])
def test_a_bot_name_with_surrounding_space_is_refused_not_trimmed(
    server: RunningServer, name: str
) -> None:
    reply = LOOPBACK.post(f"{server.http}/api/bots", json={"name": name})
    assert reply.status_code == 422, reply.text
    assert "may not begin or end with a space" in reply.json()["detail"]
    assert LOOPBACK.get(f"{server.http}/api/bots/{name.strip()}").status_code == 404


def test_kuh_handel_refusals_say_why(server: RunningServer) -> None:
    register = f"{server.http}/kuh-handel/register"
    assert LOOPBACK.post(register, params={"player_id": "kh-bot", "token": "s"}).status_code == 201
    again = LOOPBACK.post(register, params={"player_id": "kh-bot", "token": "t"})
    assert again.status_code == 409 and "taken" in again.text, again.text
    reserved = LOOPBACK.post(register, params={"player_id": "server_bot_1", "token": "t"})
    assert reserved.status_code == 409 and "server_bot" in reserved.text
    lobby = f"ws://127.0.0.1:{server.port}/kuh-handel/pvp_games"
    query = "raise_faulty_action_warning=false&player_id=kh-bot&token="
    with pytest.raises(InvalidStatus) as wrong:
        connect(lobby + "?" + query + "wrong", open_timeout=10).close()
    assert wrong.value.response.status_code == 401
    assert b"wrong token" in wrong.value.response.body
    with (
        connect(lobby + "?" + query + "s", open_timeout=10),
        pytest.raises(InvalidStatus) as twice,
    ):
        connect(lobby + "?" + query + "s", open_timeout=10).close()
    assert twice.value.response.status_code == 409
    assert b"connected to this lobby already" in twice.value.response.body


def test_a_deeply_nested_json_body_says_so(server: RunningServer) -> None:
    for body in ["[" * 30_000, '{"name": ' + '{"a": ' * 5_000 + "1" + "}" * 5_001]:
        reply = LOOPBACK.post(
            f"{server.http}/api/bots", content=body, headers={"content-type": "application/json"}
        )
        assert reply.status_code == 400
        assert "nested too deeply" in reply.json()["detail"]
    assert server.get("/api/health")["status"] == "ok"
