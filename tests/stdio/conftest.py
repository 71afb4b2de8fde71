"""stdio bot tests: puts this folder on ``sys.path`` for :mod:`stdio_games` (the shared programs
and game helpers) and says bye to every program kept for a match after each test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(autouse=True)
def _no_program_left() -> Iterator[None]:
    yield
    from cardtable.stdio import close_kept_programs

    close_kept_programs()
