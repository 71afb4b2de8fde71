"""Server-side decision latency (``GET /api/metrics``): the ring of samples and a real game."""

from __future__ import annotations

import math

import pytest

from cardtable.server.metrics import Latencies
from server.wire import RunningServer, Wire, play_until_end

pytestmark = pytest.mark.timeout(90)


def _rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def test_latency_ring_keeps_the_newest_samples_and_counts_all() -> None:
    ring = Latencies(size=8)
    values = [0.001 * ((i * 37) % 11 + 1) for i in range(13)]
    for v in values:
        ring.add(v)
    assert ring.count == 13
    held, complete = ring.samples(0)
    assert held == values[-8:] and not complete  # the 5 oldest were overwritten
    held, complete = ring.samples(9)
    assert held == values[9:] and complete
    summary = ring.summary(6)
    assert summary["samples"] == 7 and summary["complete"]
    assert summary["p50_ms"] == round(_rank(values[6:], 0.5) * 1000, 3)
    assert summary["max_ms"] == round(max(values[6:]) * 1000, 3)
    assert ring.summary(13)["samples"] == 0 and ring.summary(13)["p99_ms"] is None


def test_a_game_leaves_decision_and_bot_samples_in_the_metrics(server: RunningServer) -> None:
    before = server.get("/api/metrics")
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
        play_until_end(wire, "kuhhandel")
    since = before["decision_latency"]["count"]
    after = server.get(f"/api/metrics?since={since}")
    actions = sum(1 for m in wire.received if m["type"] == "request")
    latency = after["decision_latency"]
    # each sample answers one of our actions: at least one, never more than we sent
    assert 0 < latency["samples"] <= actions and latency["complete"]
    assert 0 <= latency["p50_ms"] <= latency["p99_ms"] <= latency["max_ms"]
    assert after["bot_think"]["count"] > before["bot_think"]["count"]  # the house bots played
    assert after["frames_in"] - before["frames_in"] >= 2  # at least hello and join
    health = server.get("/api/health")
    assert health["decision_latency"]["count"] == latency["count"]
