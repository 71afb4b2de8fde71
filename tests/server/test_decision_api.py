"""`GET /api/games/{id}/decision?seat=N&at=K`: a seat's decision in an ended game, the same as
`cardtable replay --seat N --at K` and the same as the request the seat was sent."""

from __future__ import annotations

import pytest

from cardtable.core import Record
from cardtable.core.decision import decision_at
from loopback import LOOPBACK
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(90)


def test_decision_of_an_ended_game_is_what_the_seat_was_sent(server: RunningServer) -> None:
    token = server.register("alice")
    with Wire(server.ws) as wire:
        wire.hello_bot("alice", token)
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "kuhhandel",
                "rules": "classic",
                "opponents": "random",
            }
        )
        end = play_until_end(wire, "kuhhandel")
    seat = next(m for m in wire.received if m["type"] == "game_start")["seat"]
    sent = [m for m in wire.received if m["type"] == "request"]
    record = Record.from_json(server.get(end["record_url"]))
    for at in (1, 5, len(sent)):
        got = server.get(f"/api/games/{end['game_id']}/decision?seat={seat}&at={at}")
        assert got == decision_at(record, seat, at).to_json()
        assert got["request"] == sent[at - 1]["request"]
        assert got["observation"] == sent[at - 1]["observation"]
    too_far = LOOPBACK.get(
        f"{server.http}/api/games/{end['game_id']}/decision?seat={seat}&at={len(sent) + 1}",
        timeout=10,
    )
    assert too_far.status_code == 422 and "counts them from 1" in too_far.text
    assert LOOPBACK.get(f"{server.http}/api/games/nope/decision?seat=0&at=1").status_code == 404


def test_a_fault_names_the_decision_replay_at_counts(server: RunningServer) -> None:
    """Issue 35: a fault's ``decision`` is the seat's decision number (``replay --at K``), its
    ``move`` the actions played before it (the replay page's ``?at=``)."""
    token = server.register("bob")
    spoiled: list[str] = []

    def spoil_first_turn(wire: Wire, message: dict[str, object]) -> bool:
        if spoiled or message["request"]["kind"] != "turn":  # type: ignore[index]
            return False
        spoiled.append(str(message["request_id"]))
        wire.send(
            {
                "type": "action",
                "game_id": message["game_id"],
                "request_id": message["request_id"],
                "action": {"no": "such action"},
            }
        )
        return True

    with Wire(server.ws) as wire:
        wire.hello_bot("bob", token)
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "kuhhandel",
                "rules": "classic",
                "opponents": "random",
            }
        )
        end = play_until_end(wire, "kuhhandel", misbehave=spoil_first_turn)
    assert spoiled
    seat = next(m for m in wire.received if m["type"] == "game_start")["seat"]
    record = Record.from_json(server.get(end["record_url"]))
    (fault,) = [
        f for f in server.get(f"/api/games/{end['game_id']}")["faults"] if f["seat"] == seat
    ]
    decision = decision_at(record, seat, fault["decision"])
    assert decision.request.kind == "turn" and decision.upto == fault["move"]
    assert fault["detail"] is None or "seat_decision" not in fault["detail"]
    # the same decision through the API that `replay --at` mirrors
    got = server.get(f"/api/games/{end['game_id']}/decision?seat={seat}&at={fault['decision']}")
    assert got["upto"] == fault["move"]
