"""Puts ``tests/`` on ``sys.path``: pytest's importlib mode adds no test folder, and every folder
shares :mod:`loopback` (one HTTP client for the tests' own servers).

The tests test the plain build: a ``cardtable`` command they start would otherwise load the
compiled engine whenever ``build/compiled`` is current (cardtable/engine_build.py), so
``CARDTABLE_ENGINE=plain`` is set for them and their children; a test of the compiled build
(tests/cli/test_engine_choice.py, tests/games/kuhhandel/test_compiled.py) asks for it itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["CARDTABLE_ENGINE"] = "plain"
os.environ.pop("CARDTABLE_COMPILED_ENGINE", None)

TESTS = str(Path(__file__).parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

# Servers the tests start as processes (cardtable serve) queue a new bot in the ranked lobby at
# once; the validation game before its first ranked one is tested in test_validation.py.
os.environ.setdefault("CARDTABLE_VALIDATION_GAMES", "false")
