"""The set-up `make run` does (tools/build_engine.py) falls back cleanly to the plain build.

Where no C compiler is found (``CC`` names a missing one, or none is on ``PATH``), the set-up says
so in one line, leaves no compiled build behind and exits 0, and the plain install works and says
it is the plain one. (That it builds the compiled engine where it can is checked by
tests/games/kuhhandel/test_compiled.py, which builds it with the same script.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "build_engine.py"


def _setup(tmp: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    into = tmp / "compiled"
    (into / "cardtable").mkdir(parents=True)  # a stale build: it must not be used
    (into / "cardtable" / "__init__.py").write_text("raise SystemExit('stale build used')\n")
    cmd = [sys.executable, str(SCRIPT), str(into), "--wheels", str(tmp / "wheels"), *extra]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)


def _env(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CC"}
    env.update(changes)
    return env


@pytest.mark.parametrize("how", ["CC", "PATH"])
def test_no_compiler_falls_back_to_the_plain_build_in_one_line(tmp_path: Path, how: str) -> None:
    if how == "CC":
        env = _env(CC=str(tmp_path / "no-such-cc"))
        missing = str(tmp_path / "no-such-cc")
    else:
        empty = tmp_path / "bin"
        empty.mkdir()
        env = _env(PATH=str(empty))  # no cc, gcc or clang to be found
        missing = ""
    run = _setup(tmp_path, env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1, run.stdout
    assert lines[0].startswith("engine build: pure Python (the plain build), not compiled: ")
    assert "no C compiler" in lines[0] and missing in lines[0]
    assert not (tmp_path / "compiled").exists()  # nothing left that would shadow the plain build
    assert not (tmp_path / "wheels").exists()

    # the plain install works, with the compiled build's place first on the path as `make run` has
    code = (
        "import sys; from cardtable.cli import main; "
        "sys.exit(main(['bench', 'kuhhandel', '--games', '2', '--json']))"
    )
    pythonpath = os.pathsep.join([str(tmp_path / "compiled"), str(ROOT / "src")])
    bench = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bench.returncode == 0, bench.stderr
    data = json.loads(bench.stdout)
    assert data["engine_build"] == "pure Python" and data["games"] == 2


def test_strict_set_up_fails_without_a_compiler(tmp_path: Path) -> None:
    run = _setup(tmp_path, _env(CC=str(tmp_path / "no-such-cc")), "--strict")
    assert run.returncode == 1
    assert "not compiled: no C compiler" in run.stdout


def test_make_run_sets_up_the_compiled_build_and_serves_with_it() -> None:
    """`make run` runs the set-up, then serves with the `cardtable` command, which loads that
    build by itself (no PYTHONPATH: tests/cli/test_engine_choice.py)."""
    dry = subprocess.run(
        ["make", "-n", "-W", ".venv/bin/.installed", "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if dry.returncode != 0 and "No such file" in dry.stderr:
        pytest.skip("make is not installed")
    lines = dry.stdout.splitlines()
    setup = [i for i, line in enumerate(lines) if "tools/build_engine.py build/compiled" in line]
    serve = [i for i, line in enumerate(lines) if "cardtable serve" in line]
    assert setup and serve and setup[0] < serve[0], dry.stdout
    assert "PYTHONPATH" not in lines[serve[0]] and "CARDTABLE_ENGINE" not in lines[serve[0]]


def test_serve_and_bench_say_which_build_runs(tmp_path: Path) -> None:
    """`cardtable serve` prints the build after its address; `bench` starts with it."""
    code = "import sys; from cardtable.cli import main; sys.exit(main(sys.argv[1:]))"
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    serve = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", "0", "--db", db, "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert serve.stdout is not None
        first, second = serve.stdout.readline(), serve.stdout.readline()
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    assert first.startswith("cardtable server: http://"), first
    assert second.startswith("engine build: ") and "kuhhandel" in second and "cunegonda" in second
    bench = subprocess.run(
        [sys.executable, "-c", code, "bench", "cunegonda", "--games", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bench.returncode == 0, bench.stderr
    assert bench.stdout.startswith("engine build: pure Python (cunegonda)")  # tests run plain
