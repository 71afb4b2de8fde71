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


CORE = sorted((SRC / "core").rglob("*.py"))


def _all_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """Every import, also those under ``if TYPE_CHECKING:`` (the layers hold for the type checker
    and the compiler too)."""
    names: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.lineno, node.module))
            names += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return names


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(SRC)))
def test_core_imports_no_game(path: Path) -> None:
    """Layers: the core (contract, match loop, records, registry, builds) knows no game; it finds
    games through the registry (``GameSpec``), by the name of the game's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    games = [
        f"line {line}: {name}"
        for line, name in _all_imports(tree)
        if name == "cardtable.games" or name.startswith("cardtable.games.")
    ]
    assert not games, f"core/{path.name} imports a game: {games}"


def test_the_layer_check_sees_a_game_import() -> None:
    tree = ast.parse(
        "from cardtable import games\nif TYPE_CHECKING:\n"
        "    from cardtable.games.kuhhandel import state\n"
    )
    found = [name for _, name in _all_imports(tree)]
    assert "cardtable.games" in found and "cardtable.games.kuhhandel" in found


GAMES = sorted((SRC / "games").rglob("*.py"))


@pytest.mark.parametrize("path", GAMES, ids=lambda p: str(p.relative_to(SRC)))
def test_engines_import_nothing_above_them(path: Path) -> None:
    """Layers: an engine and its bots import only the core and the games, never a layer built on
    them (the RL adapters, the server, the arena...): bots that live there, such as ``learned``
    in ``cardtable.rl``, reach the game's bots through the registry (``OUTSIDE_BOTS``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    above = [
        f"line {line}: {name}"
        for line, name in _all_imports(tree)
        if name.split(".")[0] == "cardtable"
        and name != "cardtable"
        and name.split(".")[1] not in ("core", "games")
    ]
    assert not above, f"games/{path.name} imports a layer above the engines: {above}"


def test_the_engine_layer_check_sees_an_rl_import() -> None:
    tree = ast.parse("def f():\n    from cardtable.rl.learned import LearnedBot\n")
    found = [name for _, name in _all_imports(tree)]
    assert "cardtable.rl.learned" in found
