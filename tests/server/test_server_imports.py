"""What a server process imports is what serving needs: every ``cardtable serve`` (an operator's,
or one of the many the tests start) pays the CPU of each module it imports, at every start."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

#: Modules the server never runs: the bot client library, the stdio adapter, the offline arena.
NOT_SERVING = (
    "cardtable.client",
    "cardtable.stdio.agent",
    "cardtable.arena.ab",
    "cardtable.arena.tournament",
    "websockets.asyncio.client",
)


def test_the_server_app_imports_neither_the_client_nor_the_offline_arena() -> None:
    """A fresh interpreter importing the app: the packages it takes a few names from
    (``cardtable.arena``, ``cardtable.stdio``) import the rest of themselves on first use."""
    code = (
        "import sys, cardtable.server.app; "
        f"print(sorted(m for m in {NOT_SERVING!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("package", ["cardtable.arena", "cardtable.stdio"])
def test_a_lazy_package_names_what_it_imports_for_the_type_checker(package: str) -> None:
    """Each name a package exports on first use comes from the module its ``TYPE_CHECKING``
    import names (what mypy sees is what a caller gets), and every exported name resolves."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(str(module.__file__)).read_text())
    declared = {
        alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package)
        for alias in node.names
    }
    assert sorted(module.__all__) == sorted(declared)
    for name in module.__all__:
        value = getattr(module, name)
        assert getattr(importlib.import_module(declared[name]), name) is value
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018
