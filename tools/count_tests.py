"""Counts the suite, so a change to it can show it tests no less: the tests pytest collects and
the assertions written in tests/ (``assert`` statements, ``pytest.raises`` / ``pytest.warns``
checks and Playwright ``expect(...)`` calls, counted on the syntax tree), per top folder.

    python tools/count_tests.py            # both counts, per folder and in all
    python tools/count_tests.py --no-collect   # the assertions only (no pytest run)
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def folder_of(path: Path) -> str:
    """The top folder under tests/ (``tests/web``), or ``tests`` for a file directly in it."""
    parts = path.relative_to(ROOT).parts
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def assertions_in(source: str) -> int:
    """``assert`` statements, ``pytest.raises``/``pytest.warns`` and ``expect(...)`` calls."""
    checks = ("raises", "warns", "expect")
    return sum(
        isinstance(node, ast.Assert) or (isinstance(node, ast.Call) and called_name(node) in checks)
        for node in ast.walk(ast.parse(source))
    )


def count_assertions() -> Counter[str]:
    per_folder: Counter[str] = Counter()
    for path in sorted(TESTS.rglob("*.py")):
        if "vendor" in path.parts:
            continue
        per_folder[folder_of(path)] += assertions_in(path.read_text(encoding="utf-8"))
    return per_folder


def count_collected() -> Counter[str]:
    """The test ids ``pytest --collect-only -q`` lists, per top folder."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    per_folder: Counter[str] = Counter()
    for line in out.splitlines():
        if re.match(r"^tests/\S+::", line):
            per_folder[folder_of(ROOT / line.split("::", 1)[0])] += 1
    if not per_folder:
        raise SystemExit(f"pytest collected nothing:\n{out[-2000:]}")
    return per_folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-collect", action="store_true", help="count assertions only")
    args = parser.parse_args()
    asserts = count_assertions()
    tests = Counter[str]() if args.no_collect else count_collected()
    print(f"{'folder':<18}{'tests':>7}{'assertions':>12}")
    for folder in sorted(f for f in set(asserts) | set(tests) if asserts[f] or tests[f]):
        print(f"{folder:<18}{tests[folder]:>7}{asserts[folder]:>12}")
    print(f"{'in all':<18}{sum(tests.values()):>7}{sum(asserts.values()):>12}")


if __name__ == "__main__":
    main()
