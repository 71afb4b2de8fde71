"""Client tests: the test game and test server beside this file are importable by name.

The game registry imports games by module name, so the test game Nim must be importable as
``client_nim`` (pytest's importlib mode does not put test folders on ``sys.path``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
