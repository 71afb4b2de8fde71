"""Puts ``tests/`` on ``sys.path``: pytest's importlib mode adds no test folder, and every folder
shares :mod:`loopback` (one HTTP client for the tests' own servers)."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = str(Path(__file__).parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
