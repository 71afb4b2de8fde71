"""Taking a seat back on the same connection (the page's "Take my seat back", docs/protocol.md
item 9): the connection received the seat's events all along while away, so a ``resume`` on it
sends none of them again, whatever its ``since``. A page whose ``since`` lagged behind an event
still in flight got that event twice (seen by tests/web/test_together.py under load); here the
lag is provoked on purpose with ``since`` 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.wire import Wire, db_url, fast_settings, join_practice, running_server

pytestmark = pytest.mark.timeout(90)


def test_a_resume_on_the_same_connection_sends_no_event_twice(tmp_path: Path) -> None:
    settings = fast_settings(db_url(tmp_path), away_pace="normal")
    with running_server(settings) as server, Wire(server.ws) as wire:
        wire.hello_guest("Tove")
        game_id = join_practice(wire)["game_id"]
        wire.expect("request")
        wire.send({"type": "leave"})
        wire.expect("event")  # the seat's events keep coming while away
        wire.send({"type": "resume", "game_id": game_id, "since": 0})  # a lagging since
        wire.expect("request", timeout=30)
        indices = [m["index"] for m in wire.received if m["type"] == "event"]
        assert indices and len(indices) == len(set(indices)), indices
        assert indices == sorted(indices), indices
