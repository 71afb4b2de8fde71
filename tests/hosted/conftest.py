"""Hosted-bot tests: skipped, with the reason, where the sandbox cannot run (no ``bwrap``, no
namespaces); puts this folder on ``sys.path`` for :mod:`hosted_bots` (the archives and the
hostile programs)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

STDIO = str(Path(__file__).resolve().parents[1] / "stdio")
if STDIO not in sys.path:
    sys.path.insert(0, STDIO)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    from cardtable.sandbox import capabilities

    found = None
    for item in items:
        if "tests/hosted/" in str(item.fspath) and not item.get_closest_marker("no_sandbox"):
            if found is None:
                found = capabilities()
            if not found.usable:
                reason = "; ".join(found.notes)
                item.add_marker(pytest.mark.skip(reason=f"the sandbox cannot run here: {reason}"))


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder the sandbox's own user can reach (pytest's tmp_path is root's alone, 0700)."""
    path = Path(tempfile.mkdtemp(prefix="cardtable-hosted-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_program_left() -> Iterator[None]:
    yield
    from cardtable.stdio import close_kept_programs

    close_kept_programs()


@pytest.fixture(scope="module")
def redis_client() -> Iterator[Any]:
    """A client of the machine's Redis; the test is skipped, with the reason, without one."""
    from hosted_bots import REDIS

    try:
        import redis
    except ImportError:
        pytest.skip("the redis client library is not installed")
    client = redis.Redis.from_url(REDIS, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {REDIS} (Debian package redis-server): {exc}")
    yield client
    client.close()
