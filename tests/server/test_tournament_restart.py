"""The real thing: ``cardtable serve`` as a process, an organiser's ``cardtable tournament``
commands, ``cardtable bot --tournament`` processes, and a SIGKILL of the server mid-way. The
tournament completes with every planned game played exactly once and standings equal to a
recomputation from the stored records."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cardtable.arena.plan import Entry
from cardtable.arena.play import GameOutcome
from cardtable.arena.stats import standings
from loopback import LOOPBACK
from patience import patience
from server import cluster_cup as cup

pytestmark = pytest.mark.timeout(240)

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
ADMIN = "organiser-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(db: str, port: int, log: Path, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "CARDTABLE_ADMIN_TOKEN": ADMIN}
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [CARDTABLE, "serve", "--port", str(port), "--db", db, "--log-level", "info", *extra],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        end = time.monotonic() + patience(40)  # longer on a loaded machine
        while True:
            try:
                if (
                    LOOPBACK.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code
                    == 200
                ):
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < end and proc.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def organiser(url: str, *args: str) -> str:
    done = subprocess.run(
        [CARDTABLE, "tournament", "--server", url, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CARDTABLE_ADMIN_TOKEN": ADMIN},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def recompute(url: str, tid: str) -> dict[str, tuple[int, float, float]]:
    """games, wins and mean score per entrant from the stored records alone."""
    info = LOOPBACK.get(f"{url}/api/tournaments/{tid}").json()
    names = [e["name"] for e in info["entrants"]]
    games = LOOPBACK.get(f"{url}/api/tournaments/{tid}/games").json()["games"]
    outcomes = []
    for g in sorted((g for g in games if g["state"] == "done"), key=lambda g: g["slot"]):
        record = LOOPBACK.get(f"{url}/api/games/{g['game_id']}/record").json()
        seating = tuple(names.index(n) for n in record["names"])
        result = record["result"]
        n = len(seating)
        outcomes.append(
            GameOutcome(
                g["deal"],
                g["rotation"],
                seating,
                result["termination"],
                tuple(result["scores"]),
                tuple(result["places"]),
                0,
                (),
                (0,) * n,
                (0.0,) * n,
                (0.0,) * n,
            )
        )
    rows = standings([Entry(i, n, n) for i, n in enumerate(names)], outcomes)
    return {r.entry.label: (r.games, r.wins, r.score.mean) for r in rows}


def test_sigkill_mid_tournament(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cup.db'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    names = [f"kb{i}" for i in range(4)]
    bots: dict[str, subprocess.Popen[str]] = {}
    try:
        with serve(db, port, log) as proc:
            tokens = cup.register_bots(url, names)
            tid = organiser(
                url,
                "create",
                "--name",
                "kill cup",
                "--seats",
                "4",
                "--rules",
                "competition",
                "--entrants",
                ",".join(names),
                "--deals",
                "1",
                "--seed",
                "5",
                "--quiet-ms",
                "40",
            ).strip()
            assert organiser(url, "pause", tid).strip() == "paused"
            assert json.loads(organiser(url, "status", tid, "--json"))["status"] == "paused"
            assert organiser(url, "resume", tid).strip() == "running"
            for n in names:
                bots[n] = cup.native_bot(url, n, tid, tokens[n], bot="heuristic")
            # kill the server while the second game runs (one done, one running)
            cup.wait_running(url, tid, done=1, deadline=time.monotonic() + patience(120))
            # once its start is stored (waited for, not slept on: a second before)
            end = time.monotonic() + patience(60)
            while not any(
                g["state"] == "running" and g["game_id"] and cup.stored(url, g["game_id"])
                for g in cup.games_of(tid, url)
            ):
                assert time.monotonic() < end, cup.games_of(tid, url)
                time.sleep(0.03)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        with serve(db, port, log):
            info = cup.wait_finished(url, tid, time.monotonic() + patience(150))
            cup.wait_bots_over(bots, tid, timeout=60)
            games = cup.games_of(tid, url)
            done = cup.played_once(games)  # each exactly once
            assert info["games"]["void"] >= 1  # the game cut off by the kill was played again
            void = [g for g in games if g["state"] == "void"]
            assert all(g["slot"] in {d["slot"] for d in done} for g in void)
            table = cup.frozen_standings(url, tid)
            mine = recompute(url, tid)
            for row in table["rows"]:
                games_, wins, mean = mine[row["name"]]
                assert row["games"] == games_ == 4
                assert row["wins"] == pytest.approx(wins)
                assert row["score"]["mean"] == pytest.approx(mean)
            out = tmp_path / "cup.zip"
            organiser(url, "archive", tid, "-o", str(out))
            z = zipfile.ZipFile(io.BytesIO(out.read_bytes()))
            assert json.loads(z.read("verification.json"))["verified"] == 4
            assert "cardtable arena kuhhandel --rules competition" in z.read("arena.txt").decode()
    finally:
        cup.clean_up(bots)
