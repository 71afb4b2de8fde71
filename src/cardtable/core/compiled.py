"""The optional compiled build of the engine: what it needs to know, and which build is in use.

The engine's hot modules can be compiled with mypyc (the list is ``[tool.cardtable.compile]`` in
``pyproject.toml``; docs/performance.md). A compiled class is closed to subclasses written in
Python unless it says otherwise, so a class users may subclass (a built-in bot) carries
``@mypyc_attr(allow_interpreted_subclasses=True)``. The compiler reads the decorator from its type
information; at run time it is a no-op, so plain Python needs nothing outside the standard library.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*_args, **_kwargs):
        return lambda cls: cls


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension (the optional mypyc build)."""
    return not (getattr(module, "__file__", None) or "").endswith(".py")


def engine_build() -> str:
    """``"compiled (mypyc)"`` or ``"pure Python"``: how the Kuhhandel engine in use was built."""
    from cardtable.games.kuhhandel import state

    return "compiled (mypyc)" if is_compiled(state) else "pure Python"
