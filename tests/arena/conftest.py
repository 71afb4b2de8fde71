"""Arena tests: the test-only toy game (registered as ``toy``) and the misbehaving bot fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.core.registry import GAME_MODULES

HERE = Path(__file__).resolve().parent
BOTS = HERE.parent / "fixtures" / "bots"

# Why sys.path and not a package: spawned worker processes get the parent's sys.path, so the toy
# game module imports there under the same name.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TOY = {"toy": "arena_toygame"}


@pytest.fixture(autouse=True)
def toy_game() -> Iterator[None]:
    GAME_MODULES.update(TOY)
    yield
    GAME_MODULES.pop("toy", None)


def bot(name: str, cls: str = "Bot") -> str:
    """A ``file.py:Class`` reference to a fixture bot."""
    return f"{BOTS / name}.py:{cls}"
