"""Hosted bots in a tournament, and its re-run (issue 40): a Python and a C bot, uploaded and
chosen by their authors, are validated and play a tournament through a hosted-bot worker beside a
connected bot; the organiser creates the same tournament again (same seed, same entrants, the
same stored versions) and the worker plays it again: every game and the standings are the same."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hosted_bots import c_bot, python_bot, tar_gz, zip_bytes

from cardtable.client import ServerError, play
from cardtable.hosted import HostedWorker
from loopback import LOOPBACK
from server import wire
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(400)
ADMIN = "organiser-secret"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(db_url(tmp_path), admin_token=ADMIN, deadline_ms=4000)
    with running_server(settings) as running:
        yield running


def hosted(server: RunningServer, name: str, archive: bytes) -> None:
    token = server.register(name)
    headers = {"Authorization": f"Bearer {token}"}
    reply = LOOPBACK.post(
        f"{server.http}/api/bots/{name}/versions", content=archive, headers=headers
    )
    assert reply.status_code == 201, reply.text
    chosen = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=headers
    )
    assert chosen.status_code == 200, chosen.text


def run_tournament(
    server: RunningServer, worker: HostedWorker, token: str, seed: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    t = wire.organise(
        server.http,
        ADMIN,
        name=f"hosted-{seed}",
        seats=3,
        entrants=["thpy", "thc", "native"],
        deals=2,
        seed=seed,
        quiet_ms=40,
    )
    tid = t["id"]
    connected: dict[str, Any] = {}

    def native() -> None:
        try:
            play(
                server.ws,
                "native",
                token,
                "heuristic",
                lobby="tournament",
                games=10_000,
                tournament=tid,
            )
        except ServerError as exc:
            connected["error"] = exc.code

    thread = threading.Thread(target=native, daemon=True)
    thread.start()
    outcome = worker.play_tournament(tid)
    info = server.wait_for(f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", 60)
    thread.join(timeout=30)
    assert connected.get("error") == "tournament_over", connected
    for bot in ("thpy", "thc"):
        assert isinstance(outcome[bot], list) and outcome[bot], outcome
        assert not any(r.faults for r in outcome[bot]), outcome[bot]
    return info, outcome


def games_of(server: RunningServer, tid: str) -> list[tuple[Any, ...]]:
    rows = server.get(f"/api/tournaments/{tid}/games")["games"]
    out = []
    for g in sorted(rows, key=lambda g: g["slot"]):
        record = server.get(f"/api/games/{g['game_id']}/record")
        out.append((g["slot"], tuple(record["names"]), record["seed"], record["result"]))
    return out


def test_a_tournament_of_hosted_bots_and_its_rerun_give_the_same_results(
    server: RunningServer, open_dir: Path
) -> None:
    hosted(server, "thpy", tar_gz(python_bot("thpy")))
    hosted(server, "thc", zip_bytes(c_bot("thc")))
    token = server.register("native")
    worker = HostedWorker(server.http, ADMIN, open_dir)

    first, _ = run_tournament(server, worker, token, seed=11)
    versions = LOOPBACK.get(
        f"{server.http}/api/bots/thc/versions", headers={"Authorization": f"Bearer {ADMIN}"}
    ).json()["versions"]
    assert versions[0]["status"] == "valid"  # validated before its first tournament game

    again, _ = run_tournament(server, HostedWorker(server.http, ADMIN, open_dir), token, seed=11)
    assert first["id"] != again["id"]
    one, two = games_of(server, first["id"]), games_of(server, again["id"])
    assert len(one) == 6 and one == two
    rows = [
        server.get(f"/api/tournaments/{t}/standings")["rows"] for t in (first["id"], again["id"])
    ]
    assert rows[0] == rows[1]
