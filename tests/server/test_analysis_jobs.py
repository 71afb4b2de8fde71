"""The expert's analysis as a server job: bounded (one worker, a queue limit), cached once done."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from loopback import LOOPBACK
from server.wire import RunningServer, Wire, db_url, fast_settings, play_until_end, running_server

pytestmark = pytest.mark.timeout(180)

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PG_SCHEMA = f"cardtable_analysis_tests_{os.getpid()}"


@pytest.fixture(params=["sqlite", "postgresql"])
def any_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningServer]:
    """A server on SQLite, or on PostgreSQL in a schema of its own (skipped when unreachable)."""
    url = db_url(tmp_path)
    engine = None
    if request.param == "postgresql":
        from sqlalchemy import create_engine, text

        try:
            engine = create_engine(PG_URL, connect_args={"connect_timeout": 3})
            with engine.begin() as conn:
                conn.execute(text(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE"))
                conn.execute(text(f"CREATE SCHEMA {PG_SCHEMA}"))
        except Exception as exc:
            pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {type(exc).__name__}: {exc}")
        url = f"{PG_URL}?options=-csearch_path%3D{PG_SCHEMA}"
    settings = fast_settings(url, analysis_workers=1, analysis_queue=2, analysis_worlds=2)
    try:
        with running_server(settings) as running:
            yield running
    finally:
        if engine is not None:
            from sqlalchemy import text

            with engine.begin() as conn:
                conn.execute(text(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE"))
            engine.dispose()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(
        db_url(tmp_path), analysis_workers=1, analysis_queue=2, analysis_worlds=2
    )
    with running_server(settings) as running:
        yield running


def _finished_game(server: RunningServer) -> tuple[str, int]:
    token = server.register("student")
    with Wire(server.ws) as wire:
        wire.hello_bot("student", token)
        wire.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "cunegonda",
                "rules": "short",
                "opponents": "random",
            }
        )
        end = play_until_end(wire, "cunegonda")
    seat = next(m for m in wire.received if m["type"] == "game_start")["seat"]
    return str(end["game_id"]), int(seat)


def _post(server: RunningServer, game_id: str, seat: int | None) -> httpx.Response:
    query = "" if seat is None else f"?seat={seat}"
    return LOOPBACK.post(f"{server.http}/api/games/{game_id}/analysis{query}", timeout=30)


def _get(server: RunningServer, game_id: str, seat: int) -> dict[str, Any]:
    r = LOOPBACK.get(f"{server.http}/api/games/{game_id}/analysis?seat={seat}", timeout=30)
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data


def test_one_worker_a_bounded_queue_and_a_cached_result(server: RunningServer) -> None:
    game_id, seat = _finished_game(server)
    others = [s for s in range(4) if s != seat]
    # nothing asked yet; bad input changes nothing
    assert (
        LOOPBACK.get(f"{server.http}/api/games/{game_id}/analysis?seat={seat}").status_code == 404
    )
    assert _post(server, "nope", 0).status_code == 404
    assert _post(server, game_id, 7).status_code == 422
    first = _post(server, game_id, seat)
    assert first.status_code == 202 and first.json()["status"] in ("queued", "running")
    assert _post(server, game_id, others[0]).status_code == 202
    full = _post(server, game_id, others[1])  # a third job while two wait or run: queue of 2
    assert full.status_code == 429 and "try again later" in full.text
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        rows = [_get(server, game_id, s) for s in (seat, others[0])]
        if all(r["status"] in ("done", "failed") for r in rows):
            break
        time.sleep(0.1)
    # the one worker ran one job at a time: their running times do not overlap
    a, b = sorted(rows, key=lambda r: r["started_at"])
    assert a["finished_at"] <= b["started_at"], rows
    assert a["claimed_by"] == b["claimed_by"]  # the same worker process
    mine = _get(server, game_id, seat)
    assert mine["status"] == "done", mine
    result = mine["result"]
    assert result["seats"] == [seat] and result["budget"]["worlds"] == 2
    assert mine["done"] == mine["total"] == len(result["reviews"]) > 0
    assert all(r["seat"] == seat for r in result["reviews"])
    assert str(seat) in result["summary"]
    # the second request gets the cached result at once: not run again
    again = _post(server, game_id, seat)
    assert again.status_code == 202
    assert again.json()["status"] == "done" and again.json()["result"] == result
    assert again.json()["finished_at"] == mine["finished_at"]
    # the queue has room again
    assert _post(server, game_id, others[1]).status_code == 202


def test_the_row_is_the_claim_and_the_time_budget_ends_a_job(any_server: RunningServer) -> None:
    """Two workers (of one process or several) given the same queued job: one runs it, the other
    finds it taken, on SQLite and on PostgreSQL. A job over its time budget fails and says so."""
    server = any_server
    from concurrent.futures import ThreadPoolExecutor

    from cardtable.server.analysis import _queue_row, read, run_job

    game_id, seat = _finished_game(server)
    store = server.app.state.store
    url = server.settings.db
    assert _queue_row(store, game_id, seat, {"worlds": 2}, replace=None)
    assert not _queue_row(store, game_id, seat, {"worlds": 2}, replace=None)  # queued once
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run_job, url, f"p{i}", game_id, seat, 2, 120.0) for i in range(2)]
        outcomes = sorted(f.result(timeout=120) for f in runs)
    assert outcomes == ["done", "taken"]
    row = read(store, game_id, seat, result=True)
    assert row is not None and row["status"] == "done" and row["claimed_by"].startswith("p")
    other = (seat + 1) % 4
    assert _queue_row(store, game_id, other, {"worlds": 2}, replace=None)
    assert run_job(url, "p0", game_id, other, 2, 0.0) == "failed"
    row = read(store, game_id, other)
    assert row is not None and row["status"] == "failed"
    assert "over the time budget of 0 s" in row["error"]
    # asked again, a failed analysis is queued anew
    again = _post(server, game_id, other)
    assert again.status_code == 202 and again.json()["status"] in ("queued", "running", "done")
    deadline = time.monotonic() + 120
    while _get(server, game_id, other)["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert _get(server, game_id, other)["status"] == "done"


def _wait_done(server: RunningServer, game_id: str, seat: int | None) -> dict[str, Any]:
    query = "" if seat is None else f"?seat={seat}"
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        row: dict[str, Any] = LOOPBACK.get(
            f"{server.http}/api/games/{game_id}/analysis{query}", timeout=30
        ).json()
        if row["status"] in ("done", "failed"):
            return row
        time.sleep(0.1)
    raise AssertionError("the analysis did not end")


def test_a_players_analyses_summed_up(server: RunningServer) -> None:
    """GET /api/players/{name}/analyses: the game's every-seat analysis counts for the player's
    seat (its reviews only), a job under way is listed as pending, and once the seat's own
    analysis is done too the game still counts once (the seat's own one)."""
    from cardtable.analysis.review import summary_of_json

    base = f"{server.http}/api/players/student/analyses"
    assert LOOPBACK.get(f"{server.http}/api/players/nobody/analyses").status_code == 404
    game_id, seat = _finished_game(server)
    assert LOOPBACK.get(base).json() == {
        "name": "student",
        "kind": "bot",
        "by_game": [],
        "pending": [],
    }
    assert _post(server, game_id, None).status_code == 202
    pending = LOOPBACK.get(base).json()["pending"]
    assert [(p["game_id"], p["seat"]) for p in pending] in ([(game_id, seat)], [])  # quick job
    every = _wait_done(server, game_id, None)
    assert every["status"] == "done", every
    mine = [r for r in every["result"]["reviews"] if r["seat"] == seat]
    data = LOOPBACK.get(base).json()
    assert not data["pending"]
    [cunegonda] = data["by_game"]
    assert cunegonda["game"] == "cunegonda" and cunegonda["unit"] == "round points"
    assert [(g["game_id"], g["seat"]) for g in cunegonda["games"]] == [(game_id, seat)]
    assert cunegonda["summary"] == summary_of_json(mine) == cunegonda["games"][0]["summary"]
    assert cunegonda["summary"]["decisions"] == len(mine) > 0
    # the seat's own analysis done as well: the game counts once, from the seat's own row
    assert _post(server, game_id, seat).status_code == 202
    own = _wait_done(server, game_id, seat)
    data = LOOPBACK.get(base).json()
    [cunegonda] = data["by_game"]
    assert len(cunegonda["games"]) == 1
    assert cunegonda["summary"] == summary_of_json(own["result"]["reviews"])
