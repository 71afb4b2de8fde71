"""Full games over a real WebSocket: practice, ranked, private tables, spectators, privacy."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from cardtable.core import Record, verify
from patience import patience
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize(("game", "rules"), [("kuhhandel", "classic"), ("cunegonda", "short")])
def test_practice_game_runs_to_a_stored_replayable_record(
    server: RunningServer, game: str, rules: str
) -> None:
    token = server.register("alice")
    with Wire(server.ws) as wire:
        welcome = wire.hello_bot("alice", token)
        assert welcome["type"] == "welcome" and welcome["you"] == {"name": "alice", "kind": "bot"}
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": game,
                "rules": rules,
                "opponents": "random",
            }
        )
        end = play_until_end(wire, game)
    start = next(m for m in wire.received if m["type"] == "game_start")
    assert start["names"].count("alice") == 1 and start["rated"] is False
    assert end["result"]["termination"] in ("normal", "cap")
    # the record is stored, replays to the same result, and holds no fault
    record = Record.from_json(server.get(end["record_url"]))
    ok, why = verify(record)
    assert ok, why
    detail = server.get(f"/api/games/{end['game_id']}")
    assert detail["status"] == "finished" and detail["lobby"] == "practice"
    assert detail["faults"] == []
    # events carry increasing indexes
    indexes = [m["index"] for m in wire.received if m["type"] == "event"]
    assert indexes == sorted(indexes) and len(set(indexes)) == len(indexes)


def test_ranked_two_bots_meet_and_house_bots_fill_the_table(server: RunningServer) -> None:
    tokens = {name: server.register(name) for name in ("alice", "bob")}
    ends: dict[str, Any] = {}
    starts: dict[str, Any] = {}
    # Both join within the fill wait: the wait runs out only once both are queued. (With the
    # 0.3 s of fast_settings running from alice's join, bob queued 0.4 s later on a loaded
    # machine got a table of his own: two game ids.) The matchmaker reads the setting anew
    # each round, as an operator's change would be read.
    fill_wait_ms = server.settings.fill_wait_ms
    server.settings.fill_wait_ms = 3_600_000
    queued = threading.Barrier(3, timeout=patience(30))

    def play(name: str) -> None:
        with Wire(server.ws) as wire:
            wire.hello_bot(name, tokens[name])
            wire.send({"type": "join", "lobby": "ranked", "game": "cunegonda", "rules": "short"})
            waiting = wire.expect("waiting")
            assert waiting["lobby"] == "ranked" and waiting["rules"] == "short"
            queued.wait()
            ends[name] = play_until_end(wire, "cunegonda")
            starts[name] = next(m for m in wire.received if m["type"] == "game_start")

    threads = [threading.Thread(target=play, args=(n,)) for n in tokens]
    for t in threads:
        t.start()
    queued.wait()  # both are in the queue, nobody was seated: now the fill wait runs out
    server.settings.fill_wait_ms = fill_wait_ms
    for t in threads:
        t.join(timeout=patience(80))
    assert set(ends) == {"alice", "bob"}
    # both joined within the fill wait, so they share one table of 4 with two house bots
    assert ends["alice"]["game_id"] == ends["bob"]["game_id"]
    names = starts["alice"]["names"]
    assert sorted(n for n in names if not n.startswith("house-")) == ["alice", "bob"]
    assert len(names) == 4 and starts["alice"]["rated"] is True
    board = server.get("/api/leaderboard?game=cunegonda&rules=short")["entries"]
    assert {e["name"] for e in board} == set(names)
    assert all(e["games"] == 1 for e in board)
    for e in board:
        assert e["rating"] == pytest.approx(e["mu"] - 3 * e["sigma"], abs=0.01)
    winners = {n for n, p in zip(names, ends["alice"]["result"]["places"], strict=True) if p == 0}
    assert {e["name"] for e in board if e["wins"] == 1} == winners
    bot = server.get("/api/bots/alice")
    assert bot["games"][0]["game_id"] == ends["alice"]["game_id"]
    assert len(bot["rating_history"]) == 1 and bot["ratings"][0]["rules"] == "short"


def test_private_table_with_invite_code_and_a_spectator(server: RunningServer) -> None:
    with Wire(server.ws) as host, Wire(server.ws) as guest:
        host.hello_guest("Ada")
        host.send(
            {
                "type": "join",
                "lobby": "private",
                "game": "kuhhandel",
                "create": {"rules": "competition", "seats": 3, "bots": ["random"]},
            }
        )
        table = host.expect("table")
        assert table["open_seats"] == 1 and table["rules"]["name"] == "competition"
        guest.hello_guest("Grace")
        guest.send({"type": "join", "lobby": "private", "invite": table["invite"].lower()})
        start = guest.expect("game_start")
        assert sorted(start["names"]) == ["Ada", "Grace", "house-random"]
        with Wire(server.ws) as spectator:
            spectator.send({"type": "hello", "protocol": 1, "spectate": start["game_id"]})
            assert spectator.expect("welcome")["you"]["kind"] == "spectator"
            assert spectator.expect("game_start")["seat"] is None
            results: dict[str, Any] = {}
            t = threading.Thread(target=lambda: results.update(h=play_until_end(host, "kuhhandel")))
            t.start()
            results["g"] = play_until_end(guest, "kuhhandel")
            t.join(timeout=60)
            spectator_end = spectator.expect("game_end", timeout=30)
        assert results["h"]["game_id"] == results["g"]["game_id"] == spectator_end["game_id"]
        # the spectator saw only public events and no request
        seen = spectator.received
        assert not any(m["type"] == "request" for m in seen)
        game = server.get(f"/api/games/{start['game_id']}")
        record_events = len([m for m in seen if m["type"] == "event"])
        assert record_events > 0 and game["lobby"] == "private" and game["rated"] is False


def test_a_seat_never_receives_another_seats_private_information(server: RunningServer) -> None:
    """Privacy: the wallets of other seats (Kuhhandel) never reach a client, neither in
    observations nor in events addressed to other seats."""
    token = server.register("alice")
    with Wire(server.ws) as wire:
        wire.hello_bot("alice", token)
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "kuhhandel",
                "rules": "classic",
                "opponents": "heuristic",
            }
        )
        end = play_until_end(wire, "kuhhandel")
    start = next(m for m in wire.received if m["type"] == "game_start")
    me = start["seat"]
    record = Record.from_json(server.get(end["record_url"]))
    from cardtable.core import replay

    game = replay(record)
    hidden = [i for i, ev in enumerate(game.events()) if not ev.visible_to(me)]
    assert hidden, "a Kuhhandel game has events only some seats may see (payments)"
    got = {m["index"] for m in wire.received if m["type"] == "event"}
    assert not got & set(hidden), "an event meant for other seats reached this client"
    visible = {i for i, ev in enumerate(game.events()) if ev.visible_to(me)}
    assert got == visible, "every event this seat may see was delivered"
    for m in wire.received:
        if m["type"] == "request":
            obs = m["observation"]
            assert obs["seat"] == me and m["request"]["seat"] == me
            assert "wallets" not in obs  # only this seat's own wallet is in its observation
