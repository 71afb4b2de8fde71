"""The hello options: ``events_in_request`` (events ride in the next request) and
``push_observations`` (the seat's view pushed after each change)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.core import Record, replay
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(90)


def _practice(wire: Wire, game: str, rules: str) -> None:
    wire.send(
        {"type": "join", "lobby": "practice", "game": game, "rules": rules, "opponents": "random"}
    )


@pytest.mark.parametrize(("game", "rules"), [("kuhhandel", "classic"), ("cunegonda", "short")])
def test_events_in_request_delivers_every_visible_event_once_in_order_before_each_request(
    server: RunningServer, game: str, rules: str
) -> None:
    token = server.register("alice")
    with Wire(server.ws) as wire:
        wire.send(
            {
                "type": "hello",
                "protocol": 1,
                "bot": "alice",
                "token": token,
                "events_in_request": True,
            }
        )
        wire.expect("welcome")
        _practice(wire, game, rules)
        end = play_until_end(wire, game)
    start = next(m for m in wire.received if m["type"] == "game_start")
    me = start["seat"]
    delivered: list[int] = []
    last_request = max(i for i, m in enumerate(wire.received) if m["type"] == "request")
    for i, m in enumerate(wire.received):
        if m["type"] == "request":
            delivered += [e["index"] for e in m.get("events", ())]
            assert all(e["game_id"] == m["game_id"] for e in m.get("events", ()))
        elif m["type"] == "event":
            # only the events still held when the game ended come one by one
            assert i > last_request, "an event frame was sent while requests could carry it"
            delivered.append(m["index"])
    assert any(m.get("events") for m in wire.received if m["type"] == "request")
    game_state = replay(Record.from_json(server.get(end["record_url"])))
    visible = [i for i, ev in enumerate(game_state.events()) if ev.visible_to(me)]
    assert delivered == visible  # each once, in order, nothing for other seats


def test_push_observations_sends_the_seats_own_view_after_changes(server: RunningServer) -> None:
    with Wire(server.ws) as wire:
        wire.send({"type": "hello", "protocol": 1, "guest": "Ada", "push_observations": True})
        wire.expect("welcome")
        _practice(wire, "kuhhandel", "classic")
        start = wire.expect("game_start")
        watched: dict[str, Any] = {}
        with Wire(server.ws) as spectator:
            spectator.send(
                {
                    "type": "hello",
                    "protocol": 1,
                    "spectate": start["game_id"],
                    "push_observations": True,
                }
            )
            spectator.expect("welcome")
            play_until_end(wire, "kuhhandel")
            spectator.expect("game_end", timeout=30)
            watched["seen"] = spectator.received
    me = start["seat"]
    pushed = [m for m in wire.received if m["type"] == "observation"]
    assert pushed, "a whole game without one pushed observation"
    for m in pushed:
        assert m["seat"] == me and m["observation"]["seat"] == me
        assert "wallets" not in m["observation"]  # only this seat's own wallet
    # a push always brings a view that differs from the last one sent (pushed or in a request)
    last = None
    for m in wire.received:
        if m["type"] == "observation":
            assert m["observation"] != last
        if m["type"] in ("observation", "request"):
            last = m["observation"]
    seen_counts = [m["events_seen"] for m in pushed]
    assert seen_counts == sorted(seen_counts)
    public = [m for m in watched["seen"] if m["type"] == "observation"]
    assert public and all(m["seat"] is None for m in public)
    assert not any(m["type"] == "request" for m in watched["seen"])
