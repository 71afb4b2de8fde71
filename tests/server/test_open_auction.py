"""Open-style Kuhhandel auctions (rules §4.3): several pending requests at once, and the
server's quiet clock knocks the auction down when nobody acts."""

from __future__ import annotations

import time
from typing import Any

import pytest

from cardtable.core import game_spec
from server.wire import RunningServer, Wire

pytestmark = pytest.mark.timeout(60)


def _answer(request: dict[str, Any]) -> Any:
    req = request["request"]
    if req["kind"] == "turn":
        return {"kind": "auction"}
    if req["choices"]:
        return req["choices"][0]
    if req["kind"] == "pay":  # largest notes first, then drop what is not needed
        amount, notes = req["info"]["amount"], sorted(req["info"]["wallet"], reverse=True)
        paid: list[int] = []
        for note in notes:
            if sum(paid) >= amount:
                break
            if note:
                paid.append(note)
        for note in sorted(paid):
            if sum(paid) - note >= amount:
                paid.remove(note)
        return {"kind": "pay", "notes": paid}
    return None


def test_quiet_clock_knocks_open_auctions_down_4_3(server: RunningServer) -> None:
    """§4.3 open style: a silent bidder is no fault, and after the quiet period the server
    knocks the auction down for the auctioneer."""
    rules = game_spec("kuhhandel").presets["classic"].to_json()
    rules["auction_style"] = "open"
    with Wire(server.ws) as wire:
        wire.hello_guest("Ada")
        wire.send(
            {
                "type": "join",
                "lobby": "private",
                "game": "kuhhandel",
                "create": {"rules": rules, "seats": 3, "bots": ["random", "random"]},
            }
        )
        start = wire.expect("game_start")
        me = start["seat"]
        knocks: list[float] = []
        auctions: dict[int, float] = {}
        optional: list[dict[str, Any]] = []
        end = time.monotonic() + 40
        while len(knocks) < 2 and time.monotonic() < end:
            message = wire.recv(timeout=end - time.monotonic())
            if message["type"] == "event":
                kind = message["event"]["kind"]
                if kind == "auction":
                    auctions[message["index"]] = time.monotonic()
                elif kind == "knock":
                    assert message["event"]["data"]["seat"] != me  # we never knocked
                    knocks.append(time.monotonic() - max(auctions.values()))
            elif message["type"] == "request":
                if message.get("optional"):
                    optional.append(message)  # stay silent: a bidder may simply not bid
                    continue
                action = _answer(message)
                if action is not None:
                    wire.send(
                        {
                            "type": "action",
                            "game_id": message["game_id"],
                            "request_id": message["request_id"],
                            "action": action,
                        }
                    )
            elif message["type"] == "game_end":
                break
        assert len(knocks) >= 2, "the server's clock knocked auctions down"
        quiet_s = server.settings.bot_quiet_ms / 1000.0
        assert all(k >= quiet_s * 0.9 for k in knocks), knocks
        assert optional and all(m["deadline_ms"] == server.settings.quiet_ms for m in optional)
        # our open requests: bids (while the house auctioneer may knock) and our own knocks
        kinds = {m["request"]["kind"] for m in optional}
        assert "bid" in kinds and kinds <= {"bid", "knock"}
        assert not [m for m in wire.received if m["type"] == "rejected"]
        wire.send({"type": "leave"})
    game_id = start["game_id"]
    detail = server.wait_for(f"/api/games/{game_id}", lambda d: d["status"] != "running", 40)
    # silence in an auction is no fault, and a person's own leave neither (server/presence.py)
    assert [f["code"] for f in detail["faults"]] == []
