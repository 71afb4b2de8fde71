"""What an operator reads (issue 34): Prometheus metrics at ``GET /metrics`` and structured logs.

Each test runs a real server on a free port, plays a real game over the wire protocol and reads
the figures or the log lines that game and some HTTP requests left.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from cardtable.server.oplog import JsonFormatter
from loopback import LOOPBACK
from server.wire import RunningServer, Wire, db_url, fast_settings, play_until_end, running_server

pytestmark = pytest.mark.timeout(120)


def _play_one_game(server: RunningServer, name: str) -> list[dict[str, Any]]:
    token = server.register(name)
    with Wire(server.ws) as wire:
        wire.hello_bot(name, token)
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "cunegonda",
                "rules": "standard",
                "opponents": "random",
            }
        )
        play_until_end(wire, "cunegonda")
    return wire.received


def _scrape(server: RunningServer, **headers: str) -> dict[str, Any]:
    reply = LOOPBACK.get(f"{server.http}/metrics", headers=headers)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain; version=")
    return {f.name: f for f in text_string_to_metric_families(reply.text)}


def _value(families: dict[str, Any], name: str, sample: str, **labels: str) -> float:
    values = [
        s.value
        for s in families[name].samples
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert values, (name, sample, labels, families[name].samples)
    return float(sum(values))


def test_prometheus_metrics_move_after_a_real_game(tmp_path: Path) -> None:
    with running_server(fast_settings(db_url(tmp_path))) as server:
        before = _scrape(server)
        assert not before["cardtable_games_ended"].samples  # none yet
        _play_one_game(server, "promo")
        LOOPBACK.get(f"{server.http}/api/bots/nobody-at-all")  # a 404 on a templated route
        LOOPBACK.get(f"{server.http}/no/such/page/{'x' * 40}")  # no route at all
        LOOPBACK.request("PROPFIND", f"{server.http}/api/lobbies")  # beyond the usual seven
        after = _scrape(server)
    ended = _value(after, "cardtable_games_ended", "cardtable_games_ended_total", game="cunegonda")
    assert ended >= 1
    assert _value(after, "cardtable_decisions", "cardtable_decisions_total", by="client") > 0
    latency = [s for s in after["cardtable_decision_latency_seconds"].samples]
    count = next(s.value for s in latency if s.name.endswith("_count"))
    buckets = [s.value for s in latency if s.name.endswith("_bucket")]
    assert count > 0 and buckets == sorted(buckets) and buckets[-1] == count  # cumulative
    assert _value(after, "cardtable_frames", "cardtable_frames_total", direction="in") >= 2
    assert "cardtable_event_loop_lag_seconds" in after
    assert _value(after, "cardtable_running_tables", "cardtable_running_tables") >= 0
    assert "cardtable_connections" in after and "cardtable_faults" in after
    assert "cardtable_errors_sent" in after and "process_cpu_seconds" in after
    requests = after["cardtable_http_requests"].samples
    routes = {(s.labels["method"], s.labels["route"], s.labels["status"]) for s in requests}
    assert ("POST", "/api/bots", "201") in routes  # the registration
    assert ("GET", "/api/bots/{name}", "404") in routes
    # a stranger's path adds no series of its own
    assert not any("no/such" in r for _, r, _ in routes)
    assert ("GET", "unmatched", "404") in routes
    assert not any(m == "PROPFIND" for m, _, _ in routes)  # counted, under one name for all
    assert any(m == "OTHER" for m, _, _ in routes)
    family = after.get("cardtable") or after["cardtable_info"]  # as the parser names an info
    info = next(iter(family.samples)).labels
    assert info["validator"] == "fast"


def test_metrics_token_keeps_strangers_out(tmp_path: Path) -> None:
    """``metrics_token`` set: no token or a wrong one is 401, the scraper's token reads."""
    secret = "scrape-" + "k" * 32
    with running_server(fast_settings(db_url(tmp_path), metrics_token=secret)) as server:
        assert LOOPBACK.get(f"{server.http}/metrics").status_code == 401
        wrong = {"Authorization": "Bearer " + "k" * 39}
        assert LOOPBACK.get(f"{server.http}/metrics", headers=wrong).status_code == 401
        families = _scrape(server, Authorization=f"Bearer {secret}")
    assert "cardtable_http_requests" in families


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def captured() -> Iterator[_Lines]:
    handler = _Lines()
    loggers = [logging.getLogger(n) for n in ("cardtable.access", "cardtable.games")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.INFO)
        lg.addHandler(handler)
    yield handler
    for lg, level in zip(loggers, levels, strict=True):
        lg.removeHandler(handler)
        lg.setLevel(level)


def test_one_json_line_per_request_and_per_game_and_no_secret(
    tmp_path: Path, captured: _Lines
) -> None:
    secrets = ["QSECRETtoken123", "HSECRETbearer456", "CSECRETcookie789", "PSECRETpassword0"]
    with running_server(fast_settings(db_url(tmp_path))) as server:
        received = _play_one_game(server, "logbot")
        LOOPBACK.get(
            f"{server.http}/api/bots/logbot?token={secrets[0]}",
            headers={"Authorization": f"Bearer {secrets[1]}", "Cookie": f"session={secrets[2]}"},
        )
        LOOPBACK.post(
            f"{server.http}/api/account/signin",
            json={"name": "someone", "password": secrets[3]},
            headers={"Cookie": f"session={secrets[2]}"},
        )
        end = time.monotonic() + 10  # the game's line is written as its table closes
        while not any('"game_end"' in line for line in captured.lines):
            assert time.monotonic() < end, captured.lines
            time.sleep(0.05)
    records = [json.loads(line) for line in captured.lines]  # every line is one JSON object
    for line in captured.lines:
        for secret in secrets:
            assert secret not in line, line
    requests = [r for r in records if r.get("event") == "http_request"]
    read = next(r for r in requests if r["route"] == "/api/bots/{name}")
    assert read["method"] == "GET" and read["status"] == 200
    assert read["client"] == "127.0.0.1" and read["duration_ms"] >= 0
    assert {"ts", "level", "logger", "message"} <= set(read)
    signin = next(r for r in requests if r["route"] == "/api/account/signin")
    assert signin["method"] == "POST" and signin["status"] >= 400
    assert any(r["route"] == "/api/bots" and r["status"] == 201 for r in requests)
    game = next(r for r in records if r.get("event") == "game_end")
    end_frame = next(m for m in received if m["type"] == "game_end")
    assert game["game_id"] == end_frame["game_id"]
    assert game["game"] == "cunegonda" and game["rules"] == "standard"
    assert "logbot" in game["seats"] and len(game["seats"]) == len(game["places"])
    assert game["termination"] and game["duration_s"] > 0 and game["faults"] == 0


def test_serve_writes_json_lines_with_log_format_json(tmp_path: Path) -> None:
    """``cardtable serve`` with ``CARDTABLE_LOG_FORMAT=json``: its own lines are JSON too."""
    env = {**os.environ, "CARDTABLE_LOG_FORMAT": "json"}
    cmd = [sys.executable, "-c", "import sys; from cardtable.cli import main; sys.exit(main())"]
    proc = subprocess.Popen(
        [*cmd, "serve", "--port", "0", "--db", db_url(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        match = re.search(r"http://[\d.]+:\d+", proc.stdout.readline())
        assert match, "the server printed no address"
        base = match.group(0)
        end = time.monotonic() + 60
        while True:  # the address is printed just before the server listens
            try:
                if LOOPBACK.get(f"{base}/api/health?token=QSECRET").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < end and proc.poll() is None
            time.sleep(0.1)
        lines: list[dict[str, Any]] = []
        while not any(r.get("event") == "http_request" for r in lines):
            line = proc.stderr.readline()  # the server is up: the line is on its way
            assert line, "the server closed its log"
            assert "QSECRET" not in line
            lines.append(json.loads(line))  # every line, the server's start included, is JSON
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    request = next(r for r in lines if r.get("event") == "http_request")
    assert request["route"] == "/api/health" and request["status"] == 200
