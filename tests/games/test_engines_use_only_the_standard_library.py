"""Convention: the game engines and the core import nothing outside the standard library.

Every ``import`` of ``cardtable.core`` and ``cardtable.games`` at run time names a standard-library
module or ``cardtable`` itself (imports under ``if TYPE_CHECKING:`` are for the type checker and
the compiler only, such as ``mypy_extensions`` in ``core/compiled.py``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "cardtable"
FILES = sorted([*(SRC / "core").rglob("*.py"), *(SRC / "games").rglob("*.py")])


class _Imports(ast.NodeVisitor):
    """Every import that runs (in any function too), skipping ``if TYPE_CHECKING:`` bodies."""

    def __init__(self) -> None:
        self.names: list[tuple[int, str]] = []

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:  # the body runs for the type checker only
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.names += [(node.lineno, a.name) for a in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.names.append((node.lineno, node.module))


def _runtime_imports(tree: ast.Module) -> list[tuple[int, str]]:
    imports = _Imports()
    imports.visit(tree)
    return imports.names


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_only_the_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    outside = [
        f"line {line}: {name}"
        for line, name in _runtime_imports(tree)
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "cardtable"
    ]
    assert not outside, f"{path.name} imports outside the standard library: {outside}"


def test_the_check_sees_a_third_party_import() -> None:
    tree = ast.parse("import numpy\nif TYPE_CHECKING:\n    import mypy_extensions\n")
    assert [name for _, name in _runtime_imports(tree)] == ["numpy"]
