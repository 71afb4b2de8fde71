"""The final board is never stale: after the last action every seat and every spectator gets
the view of the ended game before ``game_end`` (and inside it), and that view agrees with the
stored result and record.

Issue #20: a classic game showed a Dog at 2/4 while the log said the person had won it, and
Cunegonda still said "your turn" in trick 13, because the server returned before pushing the
final observation.
"""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.core import Record, replay
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(120)


def _last_view(received: list[dict[str, Any]]) -> Any:
    """The newest observation a client got before game_end (pushed or inside a request)."""
    view = None
    for m in received:
        if m["type"] == "game_end":
            break
        if m["type"] in ("observation", "request"):
            view = m["observation"]
    return view


@pytest.mark.parametrize(
    ("game", "rules", "seats", "delay_ms"),
    [
        ("kuhhandel", "classic", 3, 0),
        ("kuhhandel", "master", 3, 0),
        ("kuhhandel", "master-duel", 2, 300),  # a delayed spectator gets the final board too
        ("cunegonda", "short", 4, 0),
    ],
)
def test_the_last_view_of_a_seat_and_a_spectator_is_the_board_of_the_result(
    server: RunningServer, game: str, rules: str, seats: int, delay_ms: int
) -> None:
    with Wire(server.ws) as wire:
        wire.send({"type": "hello", "protocol": 1, "guest": "Ada", "push_observations": True})
        wire.expect("welcome")
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": game,
                "rules": rules,
                "seats": seats,
                "opponents": "heuristic",
                "spectator_delay_ms": delay_ms,
            }
        )
        start = wire.expect("game_start")
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
            end = play_until_end(wire, game, bot="heuristic", timeout=100)
            watched_end = spectator.expect("game_end", timeout=30)
            watched = list(spectator.received)
    me = start["seat"]
    stored = server.get(f"/api/games/{start['game_id']}")
    assert stored["status"] == "finished"
    result = end["result"]
    assert stored["result"] == result == watched_end["result"]
    final = replay(Record.from_json(server.get(end["record_url"])))
    assert final.is_over()

    seat_view = _last_view(wire.received)
    public_view = _last_view(watched)
    # the board each client shows last is the board of the stored game's end
    assert seat_view == final.observe_json(me)
    assert public_view == final.observe_json(None)
    assert end["observation"] == seat_view
    assert watched_end["observation"] == public_view
    # ... and says what the result says, in the game's words
    if game == "kuhhandel":
        assert seat_view["over"] and public_view["over"]
        assert sum(seat_view["wallet"]) == result["details"]["money"][me]
        assert public_view["herds"] == seat_view["herds"]
        for s, quartets in enumerate(result["details"]["quartets"]):
            for species in quartets:
                assert seat_view["herds"][s][species] == 4, (s, species, seat_view["herds"])
    else:
        assert seat_view["phase"] == public_view["phase"] == "over"
        assert seat_view["turn"] is None and seat_view["hand"] == []
        assert seat_view["totals"] == public_view["totals"] == result["scores"]
    # the seat never got a view after game_end that could contradict it
    assert wire.received[-1]["type"] == "game_end"
