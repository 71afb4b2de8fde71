from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.wire import RunningServer, db_url, fast_settings, running_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """A fresh server (its own SQLite file) with fast deadlines and no address exempt from the
    limits (the tests connect from the loopback address)."""
    settings = fast_settings(
        db_url(tmp_path),
        connection_cap_exempt="",
        rate_limit_exempt="",
        admin_token="the-organiser",
    )
    with running_server(settings) as running:
        yield running
