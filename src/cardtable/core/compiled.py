"""The optional compiled build of the engines: what it needs to know, and which build is in use.

The engines' hot modules can be compiled with mypyc (the list is ``[tool.cardtable.compile]`` in
``pyproject.toml``; docs/performance.md). A compiled class is closed to subclasses written in
Python unless it says otherwise, so a class users may subclass (a built-in bot) carries
``@mypyc_attr(allow_interpreted_subclasses=True)``. The compiler reads the decorator from its type
information; at run time it is a no-op, so plain Python needs nothing outside the standard library.

This module knows no game: each game's :class:`~cardtable.core.registry.GameSpec` names a module
of its engine (``engine``), and the build is read off that module.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*_args, **_kwargs):
        return lambda cls: cls


COMPILED = "compiled (mypyc)"
PLAIN = "pure Python"


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension (the optional mypyc build)."""
    return not (getattr(module, "__file__", None) or "").endswith(".py")


def engine_build(game: str) -> str:
    """``"compiled (mypyc)"`` or ``"pure Python"``: how the engine of ``game`` in use was built
    (asked of the game's registered spec)."""
    from cardtable.core.registry import game_spec

    engine = game_spec(game).engine
    return COMPILED if engine is not None and is_compiled(engine) else PLAIN


def build_line(games: Iterable[str] | None = None) -> str:
    """One line saying which build runs, for a command to print at its start, for example
    ``engine build: compiled (mypyc) (kuhhandel, cunegonda)`` or, when they differ,
    ``engine build: kuhhandel compiled (mypyc), cunegonda pure Python``; with the plain build, why
    (the ``cardtable`` command's reason, :func:`cardtable.engine_build.plain_reason`)."""
    from cardtable.core.registry import game_names

    names = list(games) if games is not None else game_names()
    builds = {name: engine_build(name) for name in names}
    kinds = set(builds.values())
    if len(kinds) == 1:
        (kind,) = kinds
        text = f"{kind} ({', '.join(names)})"
    else:
        text = ", ".join(f"{name} {build}" for name, build in builds.items())
    if PLAIN in kinds:
        from cardtable.engine_build import plain_reason

        reason = plain_reason()
        text += f"; {reason}" if reason else "; for the compiled one: `make engine` (README)"
    return f"engine build: {text}"
