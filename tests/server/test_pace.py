"""The pace of a table (issue #20): at a table with a person the server emits the other seats'
moves one at a time (a finished trick stays on the table), spectators get everything
``spectator_delay_ms`` later (and never a seat's private data), house bots bid over time in
open auctions, and bot-only and ranked tables are never slowed.

Arrival times are measured with generous tolerances: the checks are about the shape (spread,
not one burst; late by about the delay), not about exact figures.
"""

from __future__ import annotations

import statistics
import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from cardtable.core import game_spec
from server.wire import LocalPlayer, RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)

DELAY_MS = 1500


class Watcher(threading.Thread):
    """A spectator that notes when each frame arrived, until game_end or ``stop``."""

    def __init__(self, url: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.wire = Wire(url)
        self.wire.send(
            {"type": "hello", "protocol": 1, "spectate": game_id, "push_observations": True}
        )
        self.frames: list[tuple[float, dict[str, Any]]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                message = self.wire.recv(timeout=0.2)
            except TimeoutError:
                continue
            except Exception:
                return
            self.frames.append((time.monotonic(), message))
            if message["type"] == "game_end":
                return

    def events(self) -> dict[int, float]:
        return {m["index"]: t for t, m in self.frames if m["type"] == "event"}

    def finish(self) -> None:
        self.join(timeout=30)
        self.stop.set()
        self.wire.close()


def _answer(wire: Wire, player: LocalPlayer, message: dict[str, Any]) -> None:
    wire.send(
        {
            "type": "action",
            "game_id": message["game_id"],
            "request_id": message["request_id"],
            "action": player.answer(message),
        }
    )


def test_bot_moves_reach_a_person_paced_and_spectators_late_by_the_delay(
    server: RunningServer,
) -> None:
    with Wire(server.ws) as wire:
        wire.hello_guest("Pia")
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "cunegonda",
                "rules": "short",
                "opponents": "random",
                "pace": "normal",
                "spectator_delay_ms": DELAY_MS,
            }
        )
        start = wire.expect("game_start")
        assert start["pace"] == "normal" and start["spectator_delay_ms"] == DELAY_MS
        game_id, me = start["game_id"], start["seat"]
        listed = server.get("/api/tables")["running"]
        (entry,) = [t for t in listed if t["id"] == game_id]
        assert entry["pace"] == "normal" and entry["spectator_delay_ms"] == DELAY_MS
        watcher = Watcher(server.ws, game_id)
        watcher.start()
        player = LocalPlayer("cunegonda")
        player.start(start)
        arrivals: list[tuple[float, dict[str, Any]]] = []
        late: Watcher | None = None
        end = time.monotonic() + 60
        tricks = 0
        while tricks < 3 and time.monotonic() < end:
            message = wire.recv(timeout=end - time.monotonic())
            arrivals.append((time.monotonic(), message))
            if message["type"] == "request":
                # a person's clock starts when the request is sent: the whole deadline
                assert message["deadline_ms"] == server.settings.person_deadline_ms
                _answer(wire, player, message)
            elif message["type"] == "event" and message["event"]["kind"] == "trick":
                tricks += 1
                if tricks == 1:
                    # a spectator who comes now starts where the spectators are, not here
                    seat_has = message["index"] + 1
                    public = server.get(f"/api/tables/{game_id}/public")
                    assert public["spectator_delay_ms"] == DELAY_MS
                    assert public["events_seen"] < seat_has
                    late = Watcher(server.ws, game_id)
                    late.start()
                    time.sleep(0.3)
                    first_has = max(watcher.events(), default=-1) + 1
                    backlog = [m["index"] for _, m in late.frames if m["type"] == "event"]
                    assert backlog and max(backlog) < seat_has
                    assert max(backlog) <= first_has + 1
        assert tricks == 3, "the game did not get through three tricks"
        time.sleep(DELAY_MS / 1000 + 0.5)  # the spectators catch up with the third trick
        watcher.stop.set()
        assert late is not None
        late.stop.set()
        watcher.finish()
        late.finish()
        wire.send({"type": "leave"})

    # -- the person saw the other seats' moves one at a time, a finished trick stayed a moment
    plays = [
        (t, m["event"]["data"]["seat"])
        for t, m in arrivals
        if m["type"] == "event" and m["event"]["kind"] == "play"
    ]
    others = [t for t, seat in plays if seat != me]
    gaps = [b - a for a, b in pairwise(others)]
    assert len(gaps) >= 6, plays
    # never a burst (instant: all within milliseconds); 0.6 s apart by design. A busy machine can
    # stall this reader and hand it two frames at once, so most gaps, not all, are checked
    assert sum(g >= 0.3 for g in gaps) >= 0.75 * len(gaps), gaps
    assert statistics.median(gaps) >= 0.5, gaps
    holds = []
    for i, (t, m) in enumerate(arrivals):
        if m["type"] == "event" and m["event"]["kind"] == "trick" and i + 1 < len(arrivals):
            later = [
                t2
                for t2, m2 in arrivals[i + 1 :]
                if m2["type"] == "request"
                or (m2["type"] == "event" and m2["event"]["kind"] == "play")
            ]
            if later:
                holds.append(later[0] - t)
    # a finished trick stays 1.2 s before anything moves
    assert holds and max(holds) >= 0.8 and statistics.median(holds) >= 0.8, holds

    # -- the spectator got each public event about DELAY_MS later than the seat
    seat_at = {m["index"]: t for t, m in arrivals if m["type"] == "event"}
    watched = watcher.events()
    # (the first events waited in the seat's socket while the test set up: not measured)
    common = sorted(i for i in set(seat_at) & set(watched) if seat_at[i] > arrivals[0][0] + 0.5)
    assert len(common) >= 10
    lags = [watched[i] - seat_at[i] for i in common]
    assert sum(lag >= DELAY_MS / 1000 - 0.3 for lag in lags) >= 0.8 * len(lags), lags
    assert statistics.median(lags) >= DELAY_MS / 1000 - 0.1, lags
    assert statistics.median(lags) <= DELAY_MS / 1000 + 1.0, lags

    # -- and never anything private, delayed or not: no deal, no passed cards, no hand
    private = {m["index"] for _, m in arrivals if m["type"] == "event"} - set(watched)
    assert any(m["event"]["kind"] == "deal" for _, m in arrivals if m["type"] == "event")
    for spectator in (watcher, late):
        for _, m in spectator.frames:
            assert m["type"] not in ("request", "rejected", "cancel")
            if m["type"] == "event":
                assert m["event"]["kind"] not in ("deal", "pass"), m
                assert m["index"] not in private or m["index"] > max(seat_at), m
            if m["type"] in ("observation", "game_end") and m.get("observation"):
                assert m.get("seat") is None
                view = m["observation"]
                assert view["hand"] == [] and view["passed"] is None and view["received"] is None


def test_bot_only_and_ranked_tables_play_instantly(tmp_path: Path) -> None:
    settings = fast_settings(db_url(tmp_path), house_bots={"cunegonda": "random"}, pace="normal")
    with running_server(settings) as server:
        _ranked_instantly(server)


def _ranked_instantly(server: RunningServer) -> None:
    token = server.register("pacer")
    with Wire(server.ws) as wire:
        wire.hello_bot("pacer", token)
        # schema: an unknown pace or a negative delay is refused and changes nothing
        wire.send({"type": "join", "lobby": "practice", "pace": "slow"})
        assert wire.expect("error")["code"] == "bad_message"
        wire.send({"type": "join", "lobby": "practice", "spectator_delay_ms": -1})
        assert wire.expect("error")["code"] == "bad_message"
        wire.send({"type": "join", "lobby": "ranked", "game": "cunegonda", "rules": "short"})
        start = wire.expect("game_start", timeout=10)
        assert start["pace"] == "instant" and start["rated"]
        game_id = start["game_id"]
        with Wire(server.ws) as spectator:  # a spectator does not slow a ranked table
            spectator.send({"type": "hello", "protocol": 1, "spectate": game_id})
            spectator.expect("welcome")
            player = LocalPlayer("cunegonda")
            player.start(start)
            plays: list[float] = []
            while True:
                message = wire.recv()
                if message["type"] == "request":
                    _answer(wire, player, message)
                elif message["type"] == "event" and message["event"]["kind"] == "play":
                    plays.append(time.monotonic())
                    if len(plays) >= 40:
                        break
            wire.send({"type": "leave"})
    # at the normal pace they would be at least 0.3 s apart
    gaps = sorted(b - a for a, b in pairwise(plays))
    assert statistics.median(gaps) < 0.3, gaps[len(gaps) // 2]
    with Wire(server.ws) as wire:
        wire.hello_bot("pacer", token)
        wire.send({"type": "join", "lobby": "practice", "game": "cunegonda", "rules": "short"})
        assert wire.expect("game_start")["pace"] == "instant"  # bot-only default


def _open_rules() -> dict[str, Any]:
    rules = game_spec("kuhhandel").presets["classic"].to_json()
    rules["auction_style"] = "open"
    return dict(rules)


def test_house_bots_bid_over_time_in_open_auctions(server: RunningServer) -> None:
    """Open auctions at a person's table: a house bot's bid comes a human-like delay after the
    auction changed (never within milliseconds), so a person can bid against it."""
    with Wire(server.ws) as wire:
        wire.hello_guest("Olga")
        wire.send(
            {
                "type": "join",
                "lobby": "private",
                "game": "kuhhandel",
                "create": {
                    "rules": _open_rules(),
                    "seats": 3,
                    "bots": ["heuristic", "heuristic"],
                    "quiet_ms": 4000,
                    "pace": "normal",
                },
            }
        )
        start = wire.expect("game_start")
        table = next(m for m in wire.received if m["type"] == "table")
        assert start["pace"] == table["pace"] == "normal"
        me = start["seat"]
        changed: float | None = None  # when the auction last changed (its start or a bid)
        delays: list[float] = []
        end = time.monotonic() + 60
        while len(delays) < 2 and time.monotonic() < end:
            message = wire.recv(timeout=end - time.monotonic())
            now = time.monotonic()
            if message["type"] == "request":
                req = message["request"]
                if req["kind"] == "turn":
                    wire.send(
                        {
                            "type": "action",
                            "game_id": message["game_id"],
                            "request_id": message["request_id"],
                            "action": {"kind": "auction"},
                        }
                    )
                elif not message.get("optional") and req["choices"]:
                    wire.send(
                        {
                            "type": "action",
                            "game_id": message["game_id"],
                            "request_id": message["request_id"],
                            "action": req["choices"][0],
                        }
                    )
                elif req["kind"] == "pay":
                    from server.test_open_auction import _answer as pay  # the same payer

                    wire.send(
                        {
                            "type": "action",
                            "game_id": message["game_id"],
                            "request_id": message["request_id"],
                            "action": pay(message),
                        }
                    )
                # open bids and knocks of the person: silence (the quiet clock knocks)
            elif message["type"] == "event":
                kind = message["event"]["kind"]
                if kind == "auction":
                    changed = now
                elif kind == "bid":
                    if message["event"]["data"]["seat"] != me and changed is not None:
                        delays.append(now - changed)
                    changed = now
                elif kind in ("closed", "no_bid"):
                    changed = None
        wire.send({"type": "leave"})
    assert len(delays) >= 2, delays
    assert min(delays) >= 0.4, delays  # drawn from 0.8-3 s at the normal pace
