"""Kuh-Handel bots enter a tournament unchanged: bots of the published ``pyhandel`` client
connect to ``/kuh-handel/tournament-ID`` (a lobby name, as they connect to ``pvp_games``), are
entered during the sign-up and play every planned game of a 4-seat competition-rules
tournament with duplicate deals; the standings equal a recomputation from the stored records.

Skipped, with the reason, where the shared pyhandel script, Python 3.13 or its install is
missing (as tests/compat/test_interop_pyhandel.py)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopback import LOOPBACK
from patience import patience

# the server tests' helpers: pytest's importlib mode puts no test folder on sys.path, and this
# module may be collected before tests/server is (a full run failed here with "No module named
# 'server'" while running the two folders in the other order passed)
TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from compat.test_interop_pyhandel import SCRIPT, pyhandel  # noqa: E402, F401  (the fixture)
from server.test_tournament_restart import ADMIN, free_port, recompute, serve  # noqa: E402

#: in the worker of the other pyhandel tests (test_interop_pyhandel.py)
pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("pyhandel")]


def test_pyhandel_bots_play_a_tournament(pyhandel: str, tmp_path) -> None:  # noqa: F811
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serve(f"sqlite:///{tmp_path / 'kh.db'}", port, tmp_path / "server.log"):
        # the sign-up closes when the four bots are in (``start``), not at a time that must
        # allow for the slowest start of the runner: this one is only a bound
        start = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10)
        r = LOOPBACK.post(
            f"{url}/api/tournaments",
            json={
                "name": "kh cup",
                "seats": 4,
                "rules": "competition",
                "deals": 1,
                "signup_until": start.isoformat(),
                "deadline_ms": 2000,
                "seed": 9,
            },
            headers={"Authorization": f"Bearer {ADMIN}"},
            timeout=10,
        )
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        out_file = (tmp_path / "runner.out").open("w")
        err_file = (tmp_path / "runner.err").open("w")
        runner = subprocess.Popen(
            [
                str(SCRIPT),
                "run",
                "--url",
                f"://127.0.0.1:{port}",
                "--lobby",
                f"tournament-{tid}",
                "--bots",
                "simple:0.5,simple:0.9,simple:0.7,simple:0.2",
                "--rounds",
                "4",
                "--timeout",
                "200",
                "--prefix",
                "tk",
            ],
            # files, not pipes: nobody reads a pipe while the test waits for the sign-up
            stdout=out_file,
            stderr=err_file,
        )
        try:
            end = time.monotonic() + patience(60)
            while len(LOOPBACK.get(f"{url}/api/tournaments/{tid}").json()["entrants"]) < 4:
                assert runner.poll() is None, (tmp_path / "runner.err").read_text()[-2000:]
                assert time.monotonic() < end, "the four bots did not sign up"
                time.sleep(0.1)
            r = LOOPBACK.post(
                f"{url}/api/tournaments/{tid}/start",
                headers={"Authorization": f"Bearer {ADMIN}"},
                timeout=10,
            )
            assert r.status_code == 200 and r.json()["status"] == "running", r.text
            runner.wait(timeout=240)
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait()
            out_file.close()
            err_file.close()
        out, err = (tmp_path / "runner.out").read_text(), (tmp_path / "runner.err").read_text()
        lines = out.strip().splitlines()
        summary = json.loads(lines[-1]) if lines else {}
        assert runner.returncode == 0, f"{out[-2000:]}{err[-1000:]}"
        assert summary["finished"] == summary["expected"] == 16
        end = time.monotonic() + 30
        while True:
            info = LOOPBACK.get(f"{url}/api/tournaments/{tid}").json()
            if info["status"] == "finished":
                break
            assert time.monotonic() < end, info
            time.sleep(0.3)
        assert len(info["entrants"]) == 4 and info["games"]["done"] == 4
        games = LOOPBACK.get(f"{url}/api/tournaments/{tid}/games").json()["games"]
        assert sorted(g["slot"] for g in games if g["state"] == "done") == [0, 1, 2, 3]
        for g in games:  # the records say where each game is in the plan, with the bot seeds
            meta = LOOPBACK.get(f"{url}/api/games/{g['game_id']}/record").json()["meta"]
            assert meta["lobby_protocol"] == "kuh-handel" and meta["tournament"] == tid
            assert (meta["slot"], meta["deal"], meta["rotation"]) == (
                g["slot"],
                g["deal"],
                g["rotation"],
            )
            assert len(meta["bot_seeds"]) == 4 and isinstance(meta["faults"], list)
        table = LOOPBACK.get(f"{url}/api/tournaments/{tid}/standings").json()
        mine = recompute(url, tid)
        for row in table["rows"]:
            games_, wins, mean = mine[row["name"]]
            assert row["games"] == games_ == 4
            assert row["wins"] == pytest.approx(wins)
            assert row["score"]["mean"] == pytest.approx(mean)
