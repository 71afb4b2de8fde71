"""Which engine build the ``cardtable`` command runs: the compiled one when it is built and current.

``tools/build_engine.py`` (``make engine``, run by ``make test`` and ``make run``) compiles the
engines' hot modules with mypyc into ``build/compiled`` of the checkout and keeps there a stamp: a
hash of the engines' sources (:func:`sources_hash`). When the ``cardtable`` command starts (before
it imports any engine), :func:`choose` compares that stamp with the checkout's sources:

* equal: the compiled modules (the extension files in ``build/compiled``) are loaded in place of
  their ``.py`` files; every other module still comes from the checkout, so an edit to the server
  or the command line needs no new build. Child processes the command starts (arena workers,
  server instances, analysis workers) do the same: the choice travels in the environment
  (``CARDTABLE_COMPILED_ENGINE``), read when they import :mod:`cardtable`.
* missing, out of date, or ``CARDTABLE_ENGINE=plain`` in the environment: the plain build runs, and
  :func:`plain_reason` says why (the command's first line, ``engine build: ...``, shows it).

Nothing here runs when :mod:`cardtable` is imported as a library (tests, notebooks, a bot author's
script): they run the build they import, plain from a checkout. This module imports no engine and
only the standard library; ``tools/build_engine.py`` uses its :func:`sources_hash` and
:data:`STAMP`, so the build and the check cannot disagree.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

#: In the build directory: the hash of the engine sources its compiled modules were built from.
STAMP = ".engine-build"
#: Source folders (under ``src/cardtable``) whose change means compiling again.
ENGINE_PARTS = ("core", "games")
#: ``plain`` forces the plain build; unset (or ``auto``) uses the compiled one when current.
CHOICE_VARIABLE = "CARDTABLE_ENGINE"
#: Set by :func:`choose` for child processes: the build directory whose compiled modules to load.
COMPILED_VARIABLE = "CARDTABLE_COMPILED_ENGINE"

_plain_reason: str | None = None


def sources_hash(root: Path) -> str:
    """The hash of the checkout at ``root`` that a compiled build must carry to be current: the
    engines' sources (``core/``, ``games/``), ``pyproject.toml``, ``setup.py`` and the Python
    version."""
    package = root / "src" / "cardtable"
    files = [root / "pyproject.toml", root / "setup.py"]
    for part in ENGINE_PARTS:
        files += sorted((package / part).rglob("*.py"))
    h = hashlib.sha256()
    h.update(sys.version.encode())
    for path in files:
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def checkout_root() -> Path | None:
    """The checkout this package is imported from (``<root>/src/cardtable``), or ``None`` for an
    installed package (a wheel, or ``build/compiled`` itself on ``PYTHONPATH``)."""
    package = Path(__file__).resolve().parent
    root = package.parents[1]
    if package.parent.name != "src" or not (root / "pyproject.toml").exists():
        return None
    return root


class _CompiledModules(importlib.abc.MetaPathFinder):
    """Finds the compiled extension of each module the build compiled; no other module."""

    def __init__(self, build: Path) -> None:
        self.build = build
        self.files: dict[str, Path] = {}
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        for path in build.iterdir():  # mypyc's shared library of the compiled group
            if path.name.endswith(suffixes) and "__mypyc" in path.name:
                self.files[path.name.split(".", 1)[0]] = path
        for path in (build / "cardtable").rglob("*"):
            if path.name.endswith(suffixes):
                parts = path.relative_to(build).parts
                self.files[".".join([*parts[:-1], path.name.split(".", 1)[0]])] = path

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        return None if file is None else importlib.util.spec_from_file_location(fullname, file)


def _install(build: Path) -> _CompiledModules:
    for finder in sys.meta_path:
        if isinstance(finder, _CompiledModules) and finder.build == build:
            return finder
    finder = _CompiledModules(build)
    sys.meta_path.insert(0, finder)
    return finder


def choose() -> bool:
    """Called by the ``cardtable`` command first: use the compiled build if it is current (and
    tell child processes to), else keep the plain one and remember why. Whether compiled."""
    global _plain_reason
    os.environ.pop(COMPILED_VARIABLE, None)
    _plain_reason = None
    if os.environ.get(CHOICE_VARIABLE, "").strip().lower() == "plain":
        _plain_reason = f"{CHOICE_VARIABLE}=plain asks for it"
        return False
    root = checkout_root()
    if root is None:
        return False  # an installed package: it is the build it was installed as
    build = root / "build" / "compiled"
    stamp = build / STAMP
    if not stamp.exists():
        _plain_reason = f"no compiled build in {build} (`make engine` builds it)"
        return False
    try:
        current = stamp.read_text().strip() == sources_hash(root)
    except OSError as exc:  # unreadable: as good as missing
        _plain_reason = f"cannot read {stamp} ({exc.strerror or exc})"
        return False
    if not current:
        _plain_reason = (
            f"{build} was compiled from other engine sources or another Python "
            "(`make engine` compiles it again)"
        )
        return False
    if any(
        name.startswith("cardtable.core") or name.startswith("cardtable.games")
        for name in sys.modules
    ):
        _plain_reason = "an engine was imported before the build was chosen"
        return False
    finder = _install(build)
    try:  # the group's shared library: it fails to load here rather than mid-command
        for name in finder.files:
            if "." not in name:
                importlib.import_module(name)
    except ImportError as exc:
        sys.meta_path.remove(finder)
        _plain_reason = f"the compiled build in {build} does not load ({exc})"
        return False
    os.environ[COMPILED_VARIABLE] = str(build)
    return True


def plain_reason() -> str | None:
    """Why the ``cardtable`` command runs the plain build (``None`` if it made no choice)."""
    return _plain_reason


def follow_parent() -> None:
    """In a child process of the ``cardtable`` command: load the compiled modules its parent
    chose (``CARDTABLE_COMPILED_ENGINE``), unless ``CARDTABLE_ENGINE=plain``."""
    build = os.environ.get(COMPILED_VARIABLE)
    if not build or os.environ.get(CHOICE_VARIABLE, "").strip().lower() == "plain":
        return
    path = Path(build)
    root = checkout_root()
    if root is not None and path == root / "build" / "compiled" and (path / STAMP).exists():
        _install(path)  # (only for the same checkout: another one's modules would not match)
