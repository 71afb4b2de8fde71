"""The optional compiled build (mypyc) of the engine behaves exactly like plain Python.

The build is made here from this checkout (``CARDTABLE_COMPILE=1``, ``pyproject.toml``'s
``[tool.cardtable.compile]`` list) into a temporary directory. Then, against it: every listed module
is loaded compiled, the behaviour fingerprint (requests, observations, refusals, events, results,
records over every rule set; ``fingerprint.py``) equals the plain build's, and the engine's own
tests pass. Skipped, with the reason, where the build cannot be made (no C compiler, no Python
headers, no mypyc).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _modules() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths: list[str] = tomllib.load(f)["tool"]["cardtable"]["compile"]["modules"]
    return [p.removesuffix(".py").replace("/", ".") for p in paths]


def _why_not() -> str | None:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with mypy, in the dev extra)"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc!r} not found)"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h) for this interpreter"
    return None


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = _why_not()
    if reason:
        pytest.skip(f"cannot build the compiled engine here: {reason}")
    tmp = tmp_path_factory.mktemp("compiled")
    source = tmp / "source"  # a copy, so the build's own files stay out of the checkout
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "CARDTABLE_COMPILE": "1"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    build = [*pip, "wheel", "--no-build-isolation", "--no-deps", "-w", str(tmp / "wheels"), "."]
    subprocess.run(build, cwd=source, env=env, check=True)
    wheels = list((tmp / "wheels").glob("cardtable-*.whl"))
    assert len(wheels) == 1, wheels
    site = tmp / "site"
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(site), str(wheels[0])], check=True
    )
    return site


def _run(pythonpath: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def test_the_listed_modules_load_compiled(compiled: Path) -> None:
    modules = _modules()
    assert "cardtable.games.kuhhandel.state" in modules
    code = (
        "import importlib, sys\n"
        "from cardtable.core.compiled import engine_build, is_compiled\n"
        f"for name in {modules!r}:\n"
        "    assert is_compiled(importlib.import_module(name)), name\n"
        "print(engine_build())\n"
    )
    run = _run(compiled, "-c", code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "compiled (mypyc)"
    plain = _run(
        ROOT / "src", "-c", "from cardtable.core.compiled import engine_build as b; print(b())"
    )
    assert plain.stdout.strip() == "pure Python", plain.stderr


def test_compiled_engine_plays_and_refuses_exactly_like_plain_python(compiled: Path) -> None:
    """Same fingerprint: every request, observation, refusal (also of a seat ``"x"``, ``True``
    or ``1.0``, which a typed compiled boundary would otherwise handle differently), event,
    result and record of the same games."""
    script = str(HERE / "fingerprint.py")
    plain = _run(ROOT / "src", script, "--games", "3")
    fast = _run(compiled, script, "--games", "3")
    assert plain.returncode == 0, plain.stderr
    assert fast.returncode == 0, fast.stderr
    assert len(plain.stdout.strip()) == 64
    assert fast.stdout == plain.stdout


def test_engine_tests_pass_against_the_compiled_build(compiled: Path) -> None:
    run = _run(
        compiled,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(HERE),
        f"--ignore={Path(__file__)}",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
