"""The optional compiled build (mypyc) of the engines behaves exactly like plain Python.

The build is made from this checkout by the set-up `make run` uses (``tools/build_engine.py``:
``CARDTABLE_COMPILE=1``, ``pyproject.toml``'s ``[tool.cardtable.compile]`` list) into a temporary
directory; it starts from a copy of ``build/compiled`` (which `make test` sets up first, like
`make run`), so it compiles only when that build is missing or not of these engine sources (the
set-up's own stamp decides, as for `make run`). Then, against it: every listed module is loaded
compiled, the behaviour fingerprints (requests, observations, refusals, events, results, records
over every rule set, with random, heuristic and expert bots; ``fingerprint.py`` and Cunegonda's)
equal the plain build's, and the engines' own tests (Kuhhandel and Cunegonda) pass. Skipped, with
the reason, where the build cannot be made (no C compiler, no Python headers, no mypyc).

One build per run: the pytest-xdist workers share it (the first to need it makes it, under a
lock, the others wait for it), so the tests spread over the workers: the engines' tests run in
groups (each Hypothesis state machine alone, then every other file) and the Kuhhandel fingerprint
in parts (every game is in one part), each build's in its own process at the same time.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
#: The engines' own tests, one pytest run per group: these files alone (the state machines take
#: most of the time), then every other file of both engines' folders (so a new one is run too).
ALONE = {
    "kuhhandel-properties": HERE / "test_properties.py",
    "cunegonda-properties": HERE.parent / "cunegonda" / "test_cunegonda_properties.py",
}
#: The Kuhhandel fingerprint's parts (``fingerprint.py --part K/N``): each game is in one part.
FINGERPRINT_PARTS = 2


def _modules() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths: list[str] = tomllib.load(f)["tool"]["cardtable"]["compile"]["modules"]
    return [p.removesuffix(".py").replace("/", ".") for p in paths]


def _build_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "build_engine", ROOT / "tools" / "build_engine.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled build, made by the set-up `make run` uses (tools/build_engine.py), once for
    all the run's pytest-xdist workers (in the directory they share)."""
    build = _build_script()
    reason = build.why_not()
    if reason:
        pytest.skip(f"cannot build the compiled engine here: {reason}")
    base = tmp_path_factory.getbasetemp()
    tmp = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "compiled-engine"
    tmp.mkdir(exist_ok=True)
    site, outcome = tmp / "site", tmp / "exit-status"
    with open(tmp / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed: a worker that made it or failed
        if not outcome.exists():
            made = ROOT / "build" / "compiled"
            if (made / build.STAMP).exists():
                # `make test` runs the set-up first (`make engine`): start from its build, which
                # the set-up below keeps only if its stamp is the checkout's engine sources, else
                # compiles
                shutil.copytree(made, site, symlinks=True)
            code = build.main([str(site), "--wheels", str(tmp / "wheels"), "--strict"])
            outcome.write_text(f"{code}\n")
    log = tmp / "engine-build.log"
    assert outcome.read_text().strip() == "0", log.read_text()[-3000:] if log.exists() else ""
    return site


def _run(pythonpath: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def _run_both(
    compiled: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The same command run with the plain build and with the compiled one, at the same time."""
    with ThreadPoolExecutor(2) as pool:
        plain = pool.submit(_run, ROOT / "src", *args)
        fast = pool.submit(_run, compiled, *args)
        return plain.result(), fast.result()


def test_the_listed_modules_load_compiled(compiled: Path) -> None:
    modules = _modules()
    for name in ("kuhhandel.state", "kuhhandel.bots.heuristic", "kuhhandel.bots.sim"):
        assert f"cardtable.games.{name}" in modules
    assert "cardtable.games.cunegonda.game" in modules
    code = (
        "import importlib, sys\n"
        "from cardtable.core.compiled import engine_build, is_compiled\n"
        f"for name in {modules!r}:\n"
        "    assert is_compiled(importlib.import_module(name)), name\n"
        "print(engine_build('kuhhandel'), engine_build('cunegonda'), sep=',')\n"
    )
    run = _run(compiled, "-c", code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "compiled (mypyc),compiled (mypyc)"
    plain = _run(
        ROOT / "src",
        "-c",
        "from cardtable.core.compiled import engine_build as b; print(b('kuhhandel'))",
    )
    assert plain.stdout.strip() == "pure Python", plain.stderr


@pytest.mark.parametrize(
    "part", [f"{k}/{FINGERPRINT_PARTS}" for k in range(1, FINGERPRINT_PARTS + 1)]
)
def test_compiled_engine_plays_and_refuses_exactly_like_plain_python(
    compiled: Path, part: str
) -> None:
    """Same fingerprint: every request, observation, refusal (also of a seat ``"x"``, ``True``
    or ``1.0``, which a typed compiled boundary would otherwise handle differently), event,
    result and record of the same games, with the random, heuristic and expert bots (whose
    playouts run the compiled ``bots/sim.py``); each part plays its share of the games."""
    script = str(HERE / "fingerprint.py")
    plain, fast = _run_both(compiled, script, "--games", "3", "--part", part)
    assert plain.returncode == 0, plain.stderr
    assert fast.returncode == 0, fast.stderr
    assert len(plain.stdout.strip()) == 64
    assert fast.stdout == plain.stdout


def test_compiled_cunegonda_plays_and_refuses_exactly_like_plain_python(compiled: Path) -> None:
    """The same for Cunegonda's engine and bots (``tests/games/cunegonda/fingerprint.py``)."""
    script = str(HERE.parent / "cunegonda" / "fingerprint.py")
    plain, fast = _run_both(compiled, script, "--games", "3")
    assert plain.returncode == 0, plain.stderr
    assert fast.returncode == 0, fast.stderr
    assert len(plain.stdout.strip()) == 64
    assert fast.stdout == plain.stdout


def test_the_set_up_keeps_an_up_to_date_build_and_copies_the_rest(
    compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run again with unchanged engines, the set-up does not compile; the package's other files
    (the server, the pages...) are the checkout's, so `make run` serves the checkout as it is."""
    site = tmp_path / "site"  # a copy: the other workers' tests run the shared build meanwhile
    shutil.copytree(compiled, site, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    served = site / "cardtable" / "cli" / "serve.py"
    served.write_text("# stale\n")
    build = _build_script()
    assert build.main([str(site), "--wheels", str(tmp_path / "wheels")]) == 0
    assert "up to date" in capsys.readouterr().out
    assert served.read_text() == (ROOT / "src" / "cardtable" / "cli" / "serve.py").read_text()


def test_bots_subclassed_in_python_play_against_the_compiled_build(compiled: Path) -> None:
    """Bot authors may subclass the built-in bots (``allow_interpreted_subclasses``)."""
    code = (
        "from cardtable.core import game_spec, run_match\n"
        "from cardtable.core.compiled import is_compiled\n"
        "from cardtable.games.kuhhandel.bots import HeuristicBot, RandomBot, heuristic\n"
        "from cardtable.games.cunegonda.bots import RandomBot as CunegondaRandom\n"
        "assert is_compiled(heuristic)\n"
        "class Counting(HeuristicBot):\n"
        "    calls = 0\n"
        "    def act(self, observation, request):\n"
        "        Counting.calls += 1\n"
        "        return super().act(observation, request)\n"
        "class Mine(RandomBot): pass\n"
        "class Yours(CunegondaRandom): pass\n"
        "k = game_spec('kuhhandel')\n"
        "run_match(k.new_game(k.resolve_rules(None), 3, 1), [Counting(1), Mine(2), Counting(3)])\n"
        "c = game_spec('cunegonda')\n"
        "run_match(c.new_game(c.resolve_rules('short'), 4, 1), [Yours(s) for s in range(4)])\n"
        "print(Counting.calls > 0)\n"
    )
    run = _run(compiled, "-c", code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"


@pytest.mark.parametrize("group", [*ALONE, "every-other-file"])
def test_engine_tests_pass_against_the_compiled_build(compiled: Path, group: str) -> None:
    if group in ALONE:
        paths = [str(ALONE[group])]
    else:
        paths = [str(HERE), str(HERE.parent / "cunegonda")]
        paths += [f"--ignore={path}" for path in ALONE.values()]
    run = _run(
        compiled,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *paths,
        f"--ignore={Path(__file__)}",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout


def test_copies_continue_identically_in_the_compiled_build(compiled: Path) -> None:
    """Issue #41 item 1: ``pickle`` failed with the compiled engine for any Kuhhandel game, even a
    ``RuleSet`` (``FrozenInstanceError``); an environment copied mid-episode (pickle and
    deepcopy) must continue identically, in the AEC game and against every built-in opponent
    (``tests/rl/copies.py``, run by ``tests/rl/test_plug_in.py`` on the plain build; the
    expert's compiled search model pickles through ``expert._reduce_model``)."""
    for module in ("numpy", "gymnasium", "pettingzoo"):
        pytest.importorskip(module, reason="the rl extra")
    code = (
        "import pickle\n"
        "from cardtable.core.compiled import is_compiled\n"
        "from cardtable.games.kuhhandel import CLASSIC, new_game, state\n"
        "assert is_compiled(state)\n"
        "assert pickle.loads(pickle.dumps(CLASSIC)) == CLASSIC\n"
        "game = new_game(CLASSIC, 4, 1)\n"
        "assert pickle.loads(pickle.dumps(game)).pending() == game.pending()\n"
    )
    run = _run(compiled, "-c", code)
    assert run.returncode == 0, run.stderr[-3000:]
    script = str(ROOT / "tests" / "rl" / "copies.py")
    run = _run(compiled, script, "random", "heuristic", "expert:iterations=8,time_cap=none")
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert len(run.stdout.splitlines()) == 4
