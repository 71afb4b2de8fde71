from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import create_engine, text

from server.wire import RunningServer, db_url, fast_settings, running_server

if TYPE_CHECKING:
    from server.test_cluster import Process


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


@pytest.fixture(scope="session")
def quiet_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Process]]:
    """Two processes ``q0`` and ``q1`` of one cluster (:func:`server.cluster_cup.two_processes`:
    random house and fallback bots, the organiser's token ``ADMIN``) on a PostgreSQL database and
    a Redis prefix of their own, started once for the tournament tests that kill neither and
    need no setting of their own (each organises its own tournament with entrants of names of
    its own). They are marked ``xdist_group("quiet_pair")``: one pytest-xdist worker starts the
    pair once for all of them. A pair's start-up costs about 5 s of CPU."""
    from server import cluster_cup as cup
    from server.test_cluster import fresh_database, fresh_redis_prefix, start_together

    with fresh_redis_prefix() as prefix, fresh_database("ct_quiet") as db:
        with pytest.MonkeyPatch.context() as env:
            procs = cup.two_processes("q", db, prefix, tmp_path_factory.mktemp("quiet"), env)
        for p in procs:  # the token without changing this process's environment
            p.env["CARDTABLE_ADMIN_TOKEN"] = cup.ADMIN
        try:
            start_together(procs)
            yield procs
        finally:
            for p in procs:
                p.stop()
