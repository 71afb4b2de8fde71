"""Misbehaving clients, one per failure mode: the server refuses clearly, records the fault with
its reason, lets the fallback answer, and keeps the game (and itself) going."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from cardtable.server.config import Settings
from server.wire import (
    RunningServer,
    Wire,
    closed_by_server,
    db_url,
    fast_settings,
    once,
    play_until_end,
    running_server,
)

pytestmark = pytest.mark.timeout(60)


def _practice(wire: Wire, game: str = "cunegonda", **extra: Any) -> None:
    extra.setdefault("rules", "short")
    wire.send({"type": "join", "lobby": "practice", "game": game, "opponents": "random", **extra})


def _first_request(wire: Wire) -> dict[str, Any]:
    return wire.expect("request")


def _faults(server: RunningServer, game_id: str) -> list[dict[str, Any]]:
    detail = server.wait_for(f"/api/games/{game_id}", lambda d: d["status"] != "running")
    return detail["faults"]  # type: ignore[no-any-return]


@pytest.fixture
def bot(server: RunningServer) -> Iterator[Wire]:
    token = server.register("mallory")
    with Wire(server.ws) as wire:
        assert wire.hello_bot("mallory", token)["type"] == "welcome"
        yield wire


def test_malformed_json_is_a_fault_answered_by_the_fallback(
    server: RunningServer, bot: Wire
) -> None:
    _practice(bot)
    end = play_until_end(bot, "cunegonda", misbehave=once(lambda w, r: w.send_raw("{nope")))
    errors = [m for m in bot.received if m["type"] == "error"]
    assert errors[0]["code"] == "bad_json"
    rejected = [m for m in bot.received if m["type"] == "rejected"]
    assert rejected[0]["code"] == "bad_json" and "fallback" in rejected[0]["reason"]
    faults = _faults(server, end["game_id"])
    assert [f["code"] for f in faults] == ["bad_json"]
    assert end["result"]["termination"] == "normal"


def test_wrong_message_type_is_refused_and_counted(server: RunningServer, bot: Wire) -> None:
    _practice(bot)
    end = play_until_end(bot, "cunegonda", misbehave=once(lambda w, r: w.send({"type": "bid"})))
    error = next(m for m in bot.received if m["type"] == "error")
    assert error["code"] == "bad_message" and "unknown message type" in error["reason"]
    assert [f["code"] for f in _faults(server, end["game_id"])] == ["bad_message"]


def test_illegal_and_invalid_actions_are_rejected_with_the_engine_reason(
    server: RunningServer, bot: Wire
) -> None:
    answers = iter([{"play": "2C"}, {"kind": "zzz"}])  # play while passing; not an action

    def misbehave(wire: Wire, request: dict[str, Any]) -> bool:
        action = next(answers, None)
        if action is None:
            return False
        wire.send(
            {
                "type": "action",
                "game_id": request["game_id"],
                "request_id": request["request_id"],
                "action": action,
            }
        )
        return True

    _practice(bot)
    end = play_until_end(bot, "cunegonda", misbehave=misbehave)
    rejected = [m for m in bot.received if m["type"] == "rejected"]
    assert [r["code"] for r in rejected] == ["illegal_action", "invalid_action"]
    assert "{'kind': 'zzz'}" in rejected[1]["reason"]  # the engine's own words
    faults = _faults(server, end["game_id"])
    assert [f["code"] for f in faults] == ["illegal_action", "invalid_action"]
    assert faults[0]["reason"] == rejected[0]["reason"].split("; the fallback")[0]


def test_stale_request_id_is_not_your_turn_and_no_fault(server: RunningServer, bot: Wire) -> None:
    def misbehave(wire: Wire, request: dict[str, Any]) -> bool:
        if not misbehave.done:  # type: ignore[attr-defined]
            misbehave.done = True  # type: ignore[attr-defined]
            wire.send(
                {
                    "type": "action",
                    "game_id": request["game_id"],
                    "request_id": "999999",
                    "action": {"kind": "auction"},
                }
            )
        return False

    misbehave.done = False  # type: ignore[attr-defined]
    _practice(bot)
    end = play_until_end(bot, "cunegonda", misbehave=misbehave)
    rejected = [m for m in bot.received if m["type"] == "rejected"]
    assert [r["code"] for r in rejected] == ["not_your_turn"]
    assert _faults(server, end["game_id"]) == []


def test_silence_times_out_uses_the_time_bank_then_the_fallback_plays_on(
    server: RunningServer, bot: Wire
) -> None:
    silent: list[float] = []

    def misbehave(wire: Wire, request: dict[str, Any]) -> bool:
        if len(silent) < 2:
            silent.append(time.monotonic())
            return True  # say nothing
        return False

    _practice(bot)
    end = play_until_end(bot, "cunegonda", misbehave=misbehave)
    rejected = [m for m in bot.received if m["type"] == "rejected"]
    assert [r["code"] for r in rejected] == ["timeout", "timeout"]
    requests = [m for m in bot.received if m["type"] == "request"]
    settings = server.settings  # 400 and 300 ms on an idle machine (fast_settings)
    assert requests[0]["deadline_ms"] == settings.deadline_ms
    assert requests[0]["time_bank_ms"] == settings.time_bank_ms
    assert requests[1]["time_bank_ms"] == 0  # the first silence spent the whole bank
    assert [f["code"] for f in _faults(server, end["game_id"])] == ["timeout", "timeout"]
    assert end["result"]["termination"] == "normal"


def test_disconnect_mid_request_hands_the_seat_to_the_fallback(server: RunningServer) -> None:
    token = server.register("flaky")
    with Wire(server.ws) as wire:
        wire.hello_bot("flaky", token)
        _practice(wire)
        request = _first_request(wire)
    game_id = request["game_id"]
    detail = server.wait_for(f"/api/games/{game_id}", lambda d: d["status"] == "finished", 30)
    assert [f["code"] for f in detail["faults"]] == ["disconnect"]
    seat = next(s for s in detail["seats_detail"] if s["name"] == "flaky")
    assert seat["faults"] == 1
    assert detail["result"]["termination"] == "normal"


def test_oversized_frame_is_refused_and_the_connectionclosed_by_server(bot: Wire) -> None:
    bot.send({"type": "leave", "padding": "x" * (70 * 1024)})
    error = bot.expect("error")
    assert error["code"] == "too_large" and "65536" in error["reason"]
    close = closed_by_server(bot)
    assert close == 1009


def test_flooding_is_refused_and_the_connectionclosed_by_server(bot: Wire) -> None:
    # Past the burst (200 by default, refilled at 50/s) in small volleys, looking for the
    # server's answer between them. Frames still in flight when the server closes can make the
    # kernel reset the connection before the client read the error frame; the server's close
    # frame (code 1008, reason "flood") then carries the same refusal.
    error = None
    try:
        for _ in range(Settings().flood_burst // 20 + 30):
            for _ in range(20):
                bot.send({"type": "leave"})
            try:
                message = bot.recv(timeout=0.01)
            except TimeoutError:
                continue
            if message["type"] == "error":
                error = message
                break
        if error is None:
            error = bot.expect("error")
    except ConnectionClosed as exc:
        assert exc.rcvd is not None, "closed without the server's close frame"
        assert (exc.rcvd.code, exc.rcvd.reason) == (1008, "flood")
        return
    assert error["code"] == "flood"
    assert closed_by_server(bot) == 1008


def test_bad_token_is_refused_and_never_logged(
    server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    token = server.register("alice")
    wrong = "W" * 43
    caplog.set_level(logging.DEBUG)
    with Wire(server.ws) as wire:
        reply = wire.hello_bot("alice", wrong)
        assert reply["type"] == "error" and reply["code"] == "bad_token"
        assert closed_by_server(wire) == 1008
    with Wire(server.ws) as wire:
        reply = wire.hello_bot("nobody", token)
        assert reply["code"] == "bad_token"
    with Wire(server.ws) as wire:
        assert wire.hello_bot("alice", token)["type"] == "welcome"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "bad token" in logged  # the refusal is logged ...
    assert wrong not in logged and token not in logged  # ... the tokens never are


def test_first_message_must_be_hello_and_protocol_must_match(server: RunningServer) -> None:
    with Wire(server.ws) as wire:
        wire.send({"type": "join", "lobby": "ranked"})
        assert wire.expect("error")["code"] == "not_hello"
    with Wire(server.ws) as wire:
        wire.send({"type": "hello", "protocol": 2, "guest": "Ada"})
        assert wire.expect("error")["code"] == "unsupported_protocol"
        assert closed_by_server(wire) == 1008


def test_repeated_faults_hand_the_game_to_the_fallback_and_then_suspend(
    tmp_path: Path,
) -> None:
    settings = fast_settings(
        db_url(tmp_path), max_faults_per_game=2, suspend_after_games=2, suspend_window_games=3
    )
    with running_server(settings) as server:
        token = server.register("sloppy")
        for game in range(2):
            with Wire(server.ws) as wire:
                assert wire.hello_bot("sloppy", token)["type"] == "welcome"
                _practice(wire)
                # answer every request with garbage: two faults, then the fallback plays on
                end = play_until_end(
                    wire,
                    "cunegonda",
                    misbehave=lambda w, r: w.send(
                        {
                            "type": "action",
                            "game_id": r["game_id"],
                            "request_id": r["request_id"],
                            "action": "garbage",
                        }
                    )
                    or True,
                )
                taken = [m for m in wire.received if m.get("code") == "taken_over"]
                assert len(taken) == 1, f"game {game}: taken over once"
                assert end["result"]["termination"] == "normal"
            seat = next(
                s
                for s in server.get(f"/api/games/{end['game_id']}")["seats_detail"]
                if s["name"] == "sloppy"
            )
            assert seat["taken_over"] is True and seat["faults"] == 2
        info = server.get("/api/bots/sloppy")
        assert info["suspended"] is True
        assert "repeated faults" in info["suspension_reason"]
        assert "invalid_action" in info["suspension_reason"]
        assert {f["code"] for f in info["faults"]} == {"invalid_action"}
        with Wire(server.ws) as wire:
            # it connects (it may play the tournaments it entered: docs/competitions.md §6),
            # but may not join another lobby
            assert wire.hello_bot("sloppy", token)["type"] == "welcome"
            wire.send({"type": "join", "lobby": "ranked", "game": "kuhhandel"})
            reply = wire.expect("error", "waiting", "game_start")
            assert reply["code"] == "suspended" and "repeated faults" in reply["reason"]


def test_same_token_reconnecting_resumes_its_seat(tmp_path: Path) -> None:
    settings = fast_settings(db_url(tmp_path), deadline_ms=3000, time_bank_ms=0)
    with running_server(settings) as server:
        token = server.register("phoenix")
        first = Wire(server.ws)
        first.hello_bot("phoenix", token)
        _practice(first)
        start = first.expect("game_start")
        request = first.expect("request")
        # a second connection with the same token takes over; the first is closed
        with Wire(server.ws) as second:
            welcome = second.hello_bot("phoenix", token)
            assert welcome["games"] == [start["game_id"]]
            assert first.expect("error")["code"] == "replaced"
            first.close()
            second.send({"type": "resume", "game_id": start["game_id"]})
            again = second.expect("game_start")
            assert again["seat"] == start["seat"] and again["game_id"] == start["game_id"]
            end = play_until_end(second, "cunegonda")
        assert end["game_id"] == request["game_id"]
        detail = server.get(f"/api/games/{end['game_id']}")
        # at most the one decision that was open while nobody held the seat went to the fallback
        assert [f["code"] for f in detail["faults"]] in ([], ["disconnect"])
        assert detail["status"] == "finished"


def test_leave_during_a_game_lets_the_fallback_finish_it(server: RunningServer, bot: Wire) -> None:
    _practice(bot)
    request = _first_request(bot)
    bot.send({"type": "leave"})
    faults = _faults(server, request["game_id"])
    assert [f["code"] for f in faults] == ["left"]
    detail = server.get(f"/api/games/{request['game_id']}")
    assert detail["status"] == "finished"
    assert detail["result"]["termination"] == "normal"
