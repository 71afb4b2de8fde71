"""A reload or a closed tab must not cost a person a decision (issue #20): a person's seat keeps
its open decision for the grace period (no fault, no house bot answer), a reconnect with the same
identity gets the same request; only after the grace the fallback answers (one ``disconnect``
fault). A table whose people are all away plays on at ``away_pace`` instead of racing to the
end, so "take my seat back" works until the end."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from patience import load_factor
from server.wire import (
    LocalPlayer,
    RunningServer,
    Wire,
    db_url,
    fast_settings,
    join_practice,
    play_until_end,
    running_server,
)

pytestmark = pytest.mark.timeout(90)


def _my_seat(server: RunningServer, game_id: str, name: str) -> dict[str, Any]:
    view = server.get(f"/api/tables/{game_id}/public")
    (seat,) = [s for s in view["seats"] if s["name"] == name]
    return dict(seat)


def test_a_reload_during_a_decision_gets_the_same_request_and_no_fault(
    server: RunningServer,
) -> None:
    wire = Wire(server.ws)
    token = wire.hello_guest("Rea")["you"]["resume_token"]
    start = join_practice(wire)
    game_id = start["game_id"]
    pending = wire.expect("request")
    wire.close()  # the tab reloads
    # the server notices the closed socket (waited for: a loaded machine takes longer); the
    # grace period has not run out
    server.wait_for(
        f"/api/tables/{game_id}/public",
        lambda v: [s for s in v["seats"] if s["name"] == "Rea"][0]["away"],
        timeout=20,
    )
    seat = _my_seat(server, game_id, "Rea")
    assert seat["away"] and seat["faults"] == 0 and not seat["taken_over"]
    with Wire(server.ws) as again:
        welcome = again.hello_guest("Rea", token)
        assert game_id in welcome["games"]
        again.send({"type": "resume", "game_id": game_id, "since": 0})
        request = again.expect("request")
        assert request["request_id"] == pending["request_id"]
        assert request["request"] == pending["request"]
        # the clock ran on: never more than was left
        assert request["deadline_ms"] <= pending["deadline_ms"]
        assert request["time_bank_ms"] <= pending["time_bank_ms"]
        assert _my_seat(server, game_id, "Rea")["faults"] == 0
        player = LocalPlayer("kuhhandel")
        player.start(next(m for m in again.received if m["type"] == "game_start"))
        again.send(
            {
                "type": "action",
                "game_id": game_id,
                "request_id": request["request_id"],
                "action": player.answer(request),
            }
        )
        end = play_until_end(again, "kuhhandel", timeout=60)
    detail = server.get(f"/api/games/{game_id}")
    assert end["result"]["termination"] == "normal"
    assert [f for f in detail["faults"] if f["seat"] == start["seat"]] == []


def test_after_the_grace_period_the_fallback_answers_with_one_disconnect_fault(
    tmp_path: Path,
) -> None:
    # the grace, 2.5 s on an idle machine, grows with the load: the seat is read within it
    # (the edges of the grace are tested on the table's clock: test_table_clock.py)
    grace_ms = round(2500 * load_factor())
    settings = fast_settings(db_url(tmp_path), grace_ms=grace_ms, away_pace="fast")
    with running_server(settings) as server:
        wire = Wire(server.ws)
        token = wire.hello_guest("Gus")["you"]["resume_token"]
        start = join_practice(wire)
        game_id = start["game_id"]
        pending = wire.expect("request")
        wire.close()
        # the server notices the closed socket (waited for, not slept: 0.3 s before)
        server.wait_for(
            f"/api/tables/{game_id}/public",
            lambda v: [s for s in v["seats"] if s["name"] == "Gus"][0]["away"],
        )
        assert _my_seat(server, game_id, "Gus")["faults"] == 0  # within the grace: waiting
        server.wait_for(
            f"/api/tables/{game_id}/public",
            lambda v: [s for s in v["seats"] if s["name"] == "Gus"][0]["faults"] == 1,
            timeout=10,
        )
        # the person comes back later: the seat is its own again, with a new decision
        with Wire(server.ws) as again:
            again.hello_guest("Gus", token)
            again.send({"type": "resume", "game_id": game_id})
            request = again.expect("request", timeout=15)
            assert request["request_id"] != pending["request_id"]
            seat = _my_seat(server, game_id, "Gus")
            assert not seat["away"] and seat["faults"] == 1


def test_a_table_whose_person_left_plays_on_slowly_so_the_seat_can_be_taken_back(
    tmp_path: Path,
) -> None:
    settings = fast_settings(db_url(tmp_path), away_pace="normal")
    with running_server(settings) as server, Wire(server.ws) as wire:
        wire.hello_guest("Lou")
        start = join_practice(wire, pace="instant")  # the person chose instant ...
        game_id = start["game_id"]
        wire.expect("request")
        seen = server.get(f"/api/tables/{game_id}/public")["events_seen"]
        wire.send({"type": "leave"})
        time.sleep(2.5)
        # ... but without a person the bots do not race: the game is still running, a few
        # moves later (random bots at the instant pace end a classic game within a second)
        view = server.get(f"/api/tables/{game_id}/public")
        assert view["events_seen"] - seen < 80
        assert [s for s in view["seats"] if s["name"] == "Lou"][0]["taken_over"]
        wire.send({"type": "resume", "game_id": game_id})
        wire.expect("request", timeout=15)
        assert not _my_seat(server, game_id, "Lou")["away"]
