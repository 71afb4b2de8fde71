"""The fallback answers within the seat's remaining deadline: when it is too slow, the quick
(heuristic) bot answers on time instead (docs/server.md, "Faults and the fallback")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.wire import Wire, db_url, fast_settings, play_until_end, running_server

pytestmark = pytest.mark.timeout(120)

SLOW = Path(__file__).with_name("slow_bot.py")


def test_a_slow_fallback_is_replaced_by_the_quick_bot_within_the_deadline(
    tmp_path: Path,
) -> None:
    settings = fast_settings(
        db_url(tmp_path),
        fallback_bot={"cunegonda": f"{SLOW}:SlowBot"},
        max_faults_per_game=10,
    )
    with running_server(settings) as server:
        token = server.register("alice")
        faults: list[str] = []

        def misbehave(wire: Wire, message: dict[str, Any]) -> bool:
            if len(faults) == 0:  # an invalid action: the fallback has the rest of the deadline
                faults.append("invalid")
                wire.send(
                    {
                        "type": "action",
                        "game_id": message["game_id"],
                        "request_id": message["request_id"],
                        "action": {"no": "such action"},
                    }
                )
                return True
            if len(faults) == 1:  # silence: after the timeout nothing is left, answer at once
                faults.append("silent")
                return True
            return False

        with Wire(server.ws) as wire:
            wire.hello_bot("alice", token)
            wire.send(
                {
                    "type": "join",
                    "lobby": "practice",
                    "game": "cunegonda",
                    "rules": "short",
                    "opponents": "random",
                }
            )
            end = play_until_end(wire, "cunegonda", misbehave=misbehave, timeout=90)
        rejected = [m["code"] for m in wire.received if m["type"] == "rejected"]
        assert rejected == ["invalid_action", "timeout"]
        assert end["result"]["termination"] == "normal"
        metrics = server.get("/api/metrics")
        # both faulty decisions were answered by the quick bot, not by the sleeping fallback
        assert metrics["rescues"] == 2
        game = server.get(f"/api/games/{end['game_id']}")
        assert [f["code"] for f in game["faults"]] == ["invalid_action", "timeout"]
