from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.wire import RunningServer, db_url, fast_settings, running_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """A fresh server (its own SQLite file) with fast deadlines."""
    with running_server(fast_settings(db_url(tmp_path))) as running:
        yield running
