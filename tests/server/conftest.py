from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from server.wire import RunningServer, db_url, fast_settings, running_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """A fresh server (its own SQLite file) with fast deadlines."""
    with running_server(fast_settings(db_url(tmp_path))) as running:
        yield running


PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh PostgreSQL schema of this test module and process (skipped when unreachable)."""
    schema = f"cardtable_{request.module.__name__.rpartition('.')[2]}_{os.getpid()}"
    try:
        engine = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        engine.dispose()
    except Exception as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {type(exc).__name__}: {exc}")
    yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    engine.dispose()
