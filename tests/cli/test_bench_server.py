"""``cardtable bench server --validator fast,jsonschema`` (issue 34): one command prints the
servers' CPU per decision for both frame validators, with the load it ran at.

Its figures are not checked (no timed tests on a shared machine); what is: both runs happened,
each server says it checked frames with the validator the row names (``GET /api/metrics``),
and the summary prints CPU per decision and the load average for each. Needs PostgreSQL and
Redis (the command's own fresh database and prefix); skipped without them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(240)

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


def _reachable() -> str | None:
    try:
        import redis
        from sqlalchemy import create_engine, text

        engine = create_engine(PG_ADMIN, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def test_bench_server_prints_cpu_per_decision_for_both_validators() -> None:
    why = _reachable()
    if why is not None:
        pytest.skip(f"PostgreSQL or Redis not reachable: {why}")
    code = "import sys; from cardtable.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "bench",
            "server",
            "--processes",
            "alone",
            "--validator",
            "fast,jsonschema",
            "--bots",
            "4",
            "--tables",
            "1",
            "--duration",
            "2",
            "--grace",
            "5",
            "--no-pin",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=220,
        env={k: v for k, v in os.environ.items() if k != "CARDTABLE_VALIDATOR"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    start, end = lines.index("["), len(lines) - 1 - lines[::-1].index("]")
    rows = json.loads("\n".join(lines[start : end + 1]))
    assert [r["validator"] for r in rows] == ["fast", "jsonschema"]
    for row in rows:
        assert row["decisions"] > 0 and row["server_cpu_us_per_decision"] > 0
        assert [p["validator"] for p in row["server"]] == [row["validator"]]
        assert len(row["load_average"]) == 2
    summary = "\n".join(lines[end + 1 :])
    assert "server CPU per decision" in summary
    for validator in ("fast", "jsonschema"):
        line = next(x for x in summary.splitlines() if f"validator {validator}:" in x)
        assert "µs" in line and "load average" in line
