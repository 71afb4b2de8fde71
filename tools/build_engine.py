"""Set up the compiled (mypyc) engine that `make run` uses, or say in one line why not.

    python tools/build_engine.py [INTO] [--wheels DIR] [--force] [--strict]

Builds a wheel of this checkout with ``CARDTABLE_COMPILE=1`` (``setup.py`` compiles the modules
listed under ``[tool.cardtable.compile]`` in ``pyproject.toml``) into ``--wheels`` (default
``build/wheels``), and unpacks it into ``INTO`` (default ``build/compiled``), which the
``cardtable`` command uses when it is current. That wheel is also what to install elsewhere (same
Python version and platform): ``pip install 'build/wheels/cardtable-<version>-cp311-…whl[server]'``.

The build needs mypyc (mypy, in the dev extra), a C compiler (``$CC``, else the one Python was
built with) and the Python headers. Where one is missing, or the build fails, ``INTO`` is removed,
one line says that the plain build runs and why, and the exit status is 0 (``--strict``: 1), so
`make run` goes on with the plain (editable) install.

The compile is done again only when the engines' sources changed (a hash of ``core/``, ``games/``,
``pyproject.toml`` and ``setup.py`` is kept in ``INTO``); every other file of the package (server,
web pages...) is copied into ``INTO`` each time, so a ``PYTHONPATH=build/compiled`` run has the
checkout as it is. The ``cardtable`` command itself needs no ``PYTHONPATH``: it loads the compiled
modules from ``INTO`` whenever the stamp is current (``cardtable/engine_build.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cardtable"


def _engine_build() -> ModuleType:
    """This checkout's ``cardtable/engine_build.py`` (loaded from its file, not from whichever
    ``cardtable`` is installed): the stamp the ``cardtable`` command checks is made by its code."""
    spec = importlib.util.spec_from_file_location("_engine_build", PACKAGE / "engine_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENGINE_BUILD = _engine_build()
STAMP: str = ENGINE_BUILD.STAMP  # in INTO: the sources' hash the compiled modules were built from


def why_not() -> str | None:
    """Why the compiled build cannot be made here, or ``None``."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy, in the dev extra)"
    cc_text = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cc = shlex.split(cc_text)[0] if cc_text.strip() else "cc"
    if shutil.which(cc) is None:
        return f"no C compiler ({cc!r} not found)"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h) for this interpreter"
    return None


def compiled_modules() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths: list[str] = tomllib.load(f)["tool"]["cardtable"]["compile"]["modules"]
    return paths


def sources_hash() -> str:
    """The engines' sources hash (``cardtable.engine_build.sources_hash``: the ``cardtable``
    command uses ``build/compiled`` only while its stamp equals it)."""
    digest: str = ENGINE_BUILD.sources_hash(ROOT)
    return digest


def build_wheel(wheels: Path, log: Path) -> Path:
    """Compile a wheel of the checkout (copied to a temporary directory, so that the build's own
    files stay out of it) into ``wheels``; its path."""
    with tempfile.TemporaryDirectory(prefix="cardtable-build-") as tmp:
        source = Path(tmp) / "source"
        source.mkdir()
        for name in ("pyproject.toml", "setup.py", "README.md"):
            shutil.copy(ROOT / name, source / name)
        shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
        out = Path(tmp) / "wheels"
        env = {**os.environ, "CARDTABLE_COMPILE": "1"}
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            str(out),
            ".",
        ]
        with open(log, "w") as f:
            subprocess.run(cmd, cwd=source, env=env, stdout=f, stderr=subprocess.STDOUT, check=True)
        (wheel,) = out.glob("cardtable-*.whl")
        wheels.mkdir(parents=True, exist_ok=True)
        for old in wheels.glob("cardtable-*.whl"):
            old.unlink()
        return Path(shutil.copy(wheel, wheels / wheel.name))


def unpack(wheel: Path, into: Path, log: Path) -> None:
    shutil.rmtree(into, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    cmd += ["--no-deps", "--no-compile", "--target", str(into), str(wheel)]
    with open(log, "a") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=True)


def sync(into: Path) -> int:
    """Copy every file of the package that is not compiled into ``into`` (the compiled modules'
    extensions are loaded before their ``.py``), and drop ``.py`` files the checkout no longer
    has; the number of files copied."""
    target = into / "cardtable"
    copied = 0
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts or path.is_dir():
            continue
        dest = target / path.relative_to(PACKAGE)
        if dest.exists() and dest.stat().st_mtime_ns == path.stat().st_mtime_ns:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
        copied += 1
    for path in target.rglob("*.py"):
        if not (PACKAGE / path.relative_to(target)).exists():
            path.unlink()
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("into", nargs="?", default=str(ROOT / "build" / "compiled"))
    parser.add_argument("--wheels", default=str(ROOT / "build" / "wheels"))
    parser.add_argument("--force", action="store_true", help="compile even if up to date")
    parser.add_argument("--strict", action="store_true", help="exit 1 when it falls back")
    args = parser.parse_args(argv)
    into, wheels = Path(args.into), Path(args.wheels)

    def fall_back(reason: str) -> int:
        shutil.rmtree(into, ignore_errors=True)
        print(f"engine build: pure Python (the plain build), not compiled: {reason}", flush=True)
        return 1 if args.strict else 0

    reason = why_not()
    if reason:
        return fall_back(reason)
    digest = sources_hash()
    stamp = into / STAMP
    count = len(compiled_modules())
    if not args.force and stamp.exists() and stamp.read_text().strip() == digest:
        sync(into)
        print(f"engine build: compiled (mypyc), {count} modules, up to date in {into}")
        return 0
    log = wheels.parent / "engine-build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    print(f"engine build: compiling {count} modules with mypyc (about 45 s of CPU)...", flush=True)
    started = time.monotonic()
    try:
        wheel = build_wheel(wheels, log)
        unpack(wheel, into, log)
    except (subprocess.CalledProcessError, ValueError, OSError) as exc:
        return fall_back(f"the build failed ({exc.__class__.__name__}; see {log})")
    sync(into)
    stamp.write_text(digest + "\n")
    took = time.monotonic() - started
    print(
        f"engine build: compiled (mypyc), {count} modules in {took:.0f} s, into {into} "
        f"(wheel {wheel})",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
