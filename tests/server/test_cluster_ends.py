"""A bot is never told "aborted" for a game the database holds finished (a race of issue #22's
cluster that a CI run under load found once in ``test_cluster.py``).

Two ``cardtable serve`` processes share a fresh PostgreSQL database and a Redis prefix. A bot's
practice game runs on ``ea``; the bot takes its seat back through ``eb`` (relayed) and plays. ``ea``
runs with the test hook ``CARDTABLE_TEST_HOLD_ENDS`` (``server/cluster_ends.py``): once the
game's end is committed it publishes nothing more, as if killed right then, and the test kills it
with SIGKILL. ``eb``'s reaper finds ``ea`` dead with the game still listed in ``P:tables``. On the
code before, the bot got ``game_end`` aborted while the game was stored finished. Skipped with the
reason when PostgreSQL or Redis is unreachable.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from cardtable.server.cluster_ends import HOLD_ENDS
from cardtable.server.store.models import games
from patience import patience
from server.test_cluster import RANDOM_BOTS, cluster, database, redis_prefix
from server.wire import LocalPlayer, Wire

pytestmark = pytest.mark.timeout(180)
__all__ = ["database", "redis_prefix"]  # fixtures


def test_a_game_stored_finished_is_never_told_aborted_when_its_process_dies(
    database: str, redis_prefix: str, tmp_path: Path
) -> None:
    owner, other = cluster(["ea", "eb"], database, redis_prefix, tmp_path, RANDOM_BOTS)
    owner.env[HOLD_ENDS] = "1"
    log = owner.log
    engine = create_engine(database)

    def stored(game_id: str) -> tuple[str, str | None, bool]:
        with engine.connect() as conn:
            row = conn.execute(
                select(games.c.status, games.c.result_json, games.c.rated).where(
                    games.c.id == game_id
                )
            ).one()
        return str(row.status), row.result_json, bool(row.rated)

    try:
        owner.start()
        other.start()
        token = owner.register("ender")
        with Wire(owner.ws) as first:
            first.hello_bot("ender", token)
            first.send({"type": "join", "lobby": "practice", "game": "kuhhandel"})
            start = first.expect("game_start", timeout=15)
            game_id = start["game_id"]
        player = LocalPlayer("kuhhandel")
        player.start(start)
        held = f"test hook {HOLD_ENDS}: game {game_id} ended"
        with Wire(other.ws) as wire:
            assert wire.hello_bot("ender", token)["games"] == [game_id]  # held by the owner
            wire.send({"type": "resume", "game_id": game_id})
            # play through eb until ea has committed the end and holds everything after it
            end = time.monotonic() + patience(60)
            while held not in log.read_text():
                assert time.monotonic() < end, f"the game never ended (see {log})"
                try:
                    message = wire.recv(timeout=0.2)
                except TimeoutError:
                    continue
                assert message["type"] != "game_end", message  # ea publishes nothing after it
                if message["type"] == "game_start":
                    player.start(message)
                elif message["type"] == "request":
                    action = player.answer(message)
                    wire.send(
                        {
                            "type": "action",
                            "game_id": game_id,
                            "request_id": message["request_id"],
                            "action": action,
                        }
                    )
            status, result_json, rated = stored(game_id)
            assert status == "finished" and result_json is not None
            owner.kill()  # before the relayed game_end went out
            told = wire.expect("game_end", timeout=30)
        # the game's end as the database holds it, not "aborted"
        result = json.loads(result_json)
        assert told["game_id"] == game_id
        assert told["result"]["termination"] == result["termination"] != "aborted", told
        assert told["result"]["places"] == result["places"]
        assert told["result"]["scores"] == result["scores"]
        assert told["rated"] is rated is False  # a practice game
        assert stored(game_id)[0] == "finished"  # the reaper left it as it was
        assert f"cluster: process {owner.name}-" in log.read_text()  # reaped by eb
    finally:
        engine.dispose()
        owner.stop()
        other.stop()
