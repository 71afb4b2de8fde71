"""The real client: bots of the published ``pyhandel`` 0.2.5 (the Kuh-Handel reference's own
compiled client) play through ``cardtable serve`` on a loopback port, in the pvp and the
server-bot lobby (kuh-handel-wire.md §7, issue 7's proof).

It runs ``../shared/interop/pyhandel-bots`` (beside the repository; read-only in CI), which makes
a Python 3.13 venv with ``pyhandel==0.2.5`` once (pip needs the network the first time) and exits
0 only if every bot finished every round with a ranking and no client error. Skipped, with the
reason, where the script, Python 3.13 or the pip install is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from loopback import LOOPBACK
from patience import patience

#: the pyhandel tests share one worker (pytest-xdist): the first sets up its venv, once
pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("pyhandel")]

ROOT = Path(__file__).resolve().parents[2]
#: beside the repository (a git worktree of it may sit one folder deeper: the first one found)
SCRIPT = next(
    (
        p / "shared" / "interop" / "pyhandel-bots"
        for p in ROOT.parents
        if (p / "shared" / "interop" / "pyhandel-bots").is_file()
    ),
    ROOT.parent / "shared" / "interop" / "pyhandel-bots",
)
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))


def _python313() -> str | None:
    candidates = [shutil.which("python3.13")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        candidates += [str(p / "bin" / "python3") for p in sorted(pyenv.glob("3.13*"))]
    candidates += ["/usr/bin/python3.13", "/usr/local/bin/python3.13"]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return None


@pytest.fixture(scope="module")
def pyhandel() -> str:
    if not SCRIPT.is_file():
        pytest.skip(f"the shared interop script is not at {SCRIPT}")
    if _python313() is None:
        pytest.skip("Python 3.13 is missing (pyhandel 0.2.5 ships wheels for 3.13 only)")
    setup = subprocess.run(
        [str(SCRIPT), "setup"], capture_output=True, text=True, timeout=240, check=False
    )
    if setup.returncode != 0:
        pytest.skip(
            "pyhandel 0.2.5 could not be installed (network for pip?): "
            + (setup.stderr.strip().splitlines() or ["no output"])[-1][:300]
        )
    return setup.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``cardtable serve`` as its own process, exactly as users start it; yields its base URL
    without scheme letters (``://127.0.0.1:PORT``), as pyhandel takes it."""
    db = tmp_path_factory.mktemp("interop") / "kh.db"
    # house bots cheap to think (the default, expert, makes a 6-seat game take seconds)
    env = {
        **os.environ,
        "CARDTABLE_KH_FILL_WAIT_MS": "2000",
        "CARDTABLE_KH_MAX_TIMEOUTS": "5",
        "CARDTABLE_KH_HOUSE_BOTS": "heuristic,simple",
    }
    proc = subprocess.Popen(
        [CARDTABLE, "serve", "--port", "0", "--db", f"sqlite:///{db}", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        match = re.search(r"http://(127\.0\.0\.1:\d+)", proc.stdout.readline())
        assert match, "serve did not print its address"
        address = match.group(1)
        end = time.monotonic() + patience(30)  # longer on a loaded machine
        while True:
            try:
                if LOOPBACK.get(f"http://{address}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < end and proc.poll() is None, "the server did not start"
            time.sleep(0.1)
        yield f"://{address}"
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _run(lobby: str, url: str, prefix: str) -> dict[str, object]:
    run = subprocess.run(
        [
            str(SCRIPT),
            "run",
            "--url",
            url,
            "--lobby",
            lobby,
            "--bots",
            "simple:0.5,simple:0.9,random,simple:0.2",
            "--rounds",
            "3",
            "--timeout",
            "150",
            "--prefix",
            prefix,
        ],
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )
    lines = run.stdout.strip().splitlines()
    summary: dict[str, object] = json.loads(lines[-1]) if lines else {}
    assert run.returncode == 0, f"pyhandel bots failed: {run.stdout[-2000:]}{run.stderr[-1000:]}"
    return summary


@pytest.mark.parametrize("lobby", ["pvp_games", "server_bot_game"])
def test_s7_pyhandel_bots_finish_every_game_with_a_ranking(
    pyhandel: str, served: str, lobby: str
) -> None:
    summary = _run(lobby, served, prefix=f"it{lobby[:3]}")
    assert summary["finished"] == summary["expected"] == 12
    assert summary["errors"] == [] and summary["timed_out"] == []
    address = served.removeprefix("://")
    results = json.loads(LOOPBACK.get(f"http://{address}/kuh-handel/get_results").text)
    if lobby == "pvp_games":
        for i, kind in enumerate(["simple", "simple", "random", "simple"]):
            assert len(results[f"itpvp{i}_{kind}"]) == 3
    else:
        assert not any(name.startswith("itser") for name in results), "pvp results only"
