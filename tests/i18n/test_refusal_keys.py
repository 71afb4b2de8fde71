"""Every refusal of the engines and every answer and mistake kind of the analysis has its words in
the catalogs (issue 38), read from the sources themselves:

- each ``IllegalAction``/``InvalidAction`` raised in ``games/`` names a rule (its second
  argument, a literal), and ``refusal.{rule}`` is an English key (tests/i18n/test_catalogs.py
  then finds it in every language); no ``refusal.*`` key is left that no engine names;
- each ``analysis.*`` key the analysis adapters name (a literal, or a literal prefix plus a
  literal) is an English key, and every ``analysis.*`` key is named somewhere (the action kinds
  of ``analysis.kuhhandel.action.{kind}`` by the plain actions' kinds).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from cardtable.analysis.kuhhandel import PLAIN

SRC = Path(__file__).resolve().parents[2] / "src" / "cardtable"
ENGLISH: dict[str, str] = json.loads((SRC / "i18n/catalogs/en.json").read_text(encoding="utf-8"))


def refusals() -> list[tuple[str, int, str | None]]:
    """(file, line, rule or None) of every refusal built in the engines."""
    out: list[tuple[str, int, str | None]] = []
    for path in sorted((SRC / "games").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id not in ("IllegalAction", "InvalidAction"):
                continue
            rule = node.args[1] if len(node.args) > 1 else None
            named = rule.value if isinstance(rule, ast.Constant) else None
            out.append((path.name, node.lineno, named if isinstance(named, str) else None))
    return out


def test_every_refusal_of_the_engines_names_a_rule_with_words() -> None:
    found = refusals()
    assert len(found) > 40, found
    unnamed = [(f, line) for f, line, rule in found if not rule]
    assert not unnamed, f"refusals without a rule: {unnamed}"
    missing = sorted({r for _, _, r in found if r and f"refusal.{r}" not in ENGLISH})
    assert not missing, f"rules without a catalog entry: {missing}"
    named = {f"refusal.{r}" for _, _, r in found}
    orphans = sorted(k for k in ENGLISH if k.startswith("refusal.") and k not in named)
    assert not orphans, f"refusal keys no engine names: {orphans}"


def analysis_keys() -> set[str]:
    """The ``analysis.*`` keys the adapters name: literals, and ``m + "x"`` / ``m + ("x" if ...
    else "y")`` where ``m`` is a literal prefix assigned in the same function."""
    keys: set[str] = set()
    for path in sorted((SRC / "analysis").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prefixes: dict[str, str] = {}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
                and node.value.value.startswith("analysis.")
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        prefixes[target.id] = node.value.value
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith("analysis.")
                and not node.value.endswith(".")
            ):
                keys.add(node.value)
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.left, ast.Name)
                and node.left.id in prefixes
            ):
                ends = [n.value for n in ast.walk(node.right) if isinstance(n, ast.Constant)]
                keys.update(prefixes[node.left.id] + e for e in ends if isinstance(e, str))
    keys.update(f"analysis.kuhhandel.action.{cls.kind}" for cls in PLAIN)
    return keys


def test_every_analysis_key_named_has_words_and_every_word_is_named() -> None:
    named = analysis_keys()
    assert len(named) > 40, sorted(named)
    missing = sorted(k for k in named if k not in ENGLISH)
    assert not missing, f"analysis keys without a catalog entry: {missing}"
    orphans = sorted(k for k in ENGLISH if k.startswith("analysis.") and k not in named)
    assert not orphans, f"analysis keys the analysis never names: {orphans}"
