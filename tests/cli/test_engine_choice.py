"""The ``cardtable`` command runs the compiled engine whenever ``build/compiled`` is built and
current, without ``PYTHONPATH`` (issue 35, item 7), and says which build runs in its first line.

A copy of the checkout (sources, ``tools/``, and ``build/compiled`` when `make test` made one) is
set up in a temporary directory with the same set-up `make run` uses (``tools/build_engine.py``,
which compiles only when the copy's build is missing or not of these sources). Then, in that copy:
``cardtable bench kuhhandel --games 50`` reports the compiled build; with ``CARDTABLE_ENGINE=plain``
it reports the plain one and why; after an engine source changes it reports the plain one and that
the build is out of date; a child process of the command loads the compiled modules too. Skipped,
with the reason, where the compiled build cannot be made (no C compiler, no Python headers, no
mypyc).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
#: what the ``cardtable`` console script runs
COMMAND = "import sys; from cardtable.cli import main; sys.exit(main())"


def _why_not() -> str | None:
    spec = importlib.util.spec_from_file_location(
        "build_engine", ROOT / "tools" / "build_engine.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reason: str | None = module.why_not()
    return reason


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this checkout with its compiled build set up (as `make engine` does)."""
    reason = _why_not()
    if reason:
        pytest.skip(f"no compiled build can be made here, so none to choose: {reason}")
    root = tmp_path_factory.mktemp("checkout")
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("src", "tools"):
        shutil.copytree(ROOT / name, root / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, root / name)
    made = ROOT / "build" / "compiled"
    if (made / ".engine-build").exists():  # `make test` set it up: compiled again only if stale
        shutil.copytree(made, root / "build" / "compiled", symlinks=True)
    setup = subprocess.run(
        [sys.executable, str(root / "tools" / "build_engine.py"), "--strict"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return root


def _cardtable(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``cardtable ARGS`` as the console script runs it (``main()``, no argv given)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CARDTABLE_")}
    environ.update(PYTHONPATH=str(root / "src"), **env)
    return subprocess.run(
        [sys.executable, "-c", COMMAND, *args],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_bench_runs_the_compiled_build_when_it_is_current(checkout: Path) -> None:
    bench = _cardtable(checkout, "bench", "kuhhandel", "--games", "50")
    assert bench.returncode == 0, bench.stderr
    assert bench.stdout.splitlines()[0] == "engine build: compiled (mypyc) (kuhhandel)"


def test_child_processes_load_the_compiled_modules_too(checkout: Path) -> None:
    """What an arena worker or server instance does: it imports cardtable with the parent's
    choice in its environment."""
    code = "import cardtable.games.kuhhandel.state as s, cardtable.cli as c; print(s.__file__)"
    build = checkout / "build" / "compiled"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CARDTABLE_")}
    environ.update(PYTHONPATH=str(checkout / "src"), CARDTABLE_COMPILED_ENGINE=str(build))
    child = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=False
    )
    assert child.returncode == 0, child.stderr
    state = Path(child.stdout.strip())
    assert state.parent == build / "cardtable" / "games" / "kuhhandel"
    assert state.suffix == ".so"


def test_the_variable_forces_the_plain_build_and_says_so(checkout: Path) -> None:
    bench = _cardtable(checkout, "bench", "kuhhandel", "--games", "50", CARDTABLE_ENGINE="plain")
    assert bench.returncode == 0, bench.stderr
    first = bench.stdout.splitlines()[0]
    assert first == "engine build: pure Python (kuhhandel); CARDTABLE_ENGINE=plain asks for it"


def test_a_stale_build_is_not_used_and_the_reason_is_given(checkout: Path) -> None:
    rules = checkout / "src" / "cardtable" / "games" / "kuhhandel" / "rules.py"
    before = rules.read_text()
    rules.write_text(before + "\n# an edit after the build\n")
    try:
        bench = _cardtable(checkout, "bench", "kuhhandel", "--games", "50")
    finally:
        rules.write_text(before)
    assert bench.returncode == 0, bench.stderr
    first = bench.stdout.splitlines()[0]
    assert first.startswith("engine build: pure Python (kuhhandel); "), first
    assert "compiled from other engine sources" in first and "`make engine`" in first
