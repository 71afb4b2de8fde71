"""A cardtable server in a child process, for the benchmarks that measure one from outside
(``bench analysis-latency``, ``bench table``): ``cardtable serve`` on a free loopback port with
SQLite in a folder of the caller's, its output in ``server.log`` there."""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@functools.cache
def http() -> httpx.Client:
    """One client for the whole run: ``httpx.get`` builds one, with a TLS context (about 30 ms of
    CPU), on every call, taken from the server the benchmark measures."""
    return httpx.Client(timeout=10)


@contextlib.contextmanager
def child_server(folder: Path, env: Mapping[str, str]) -> Iterator[str]:
    """Start the server (``env``: ``CARDTABLE_*`` settings beside the database), wait until
    ``/api/health`` answers and yield its base URL; stop it on the way out."""
    port = free_port()
    settings = {
        **os.environ,
        "CARDTABLE_DB": f"sqlite:///{folder / 'bench.db'}",
        "CARDTABLE_LOG_LEVEL": "warning",
        **env,
    }
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from cardtable.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=settings,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        end = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server stopped: see {folder / 'server.log'}")
            try:
                if http().get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > end:
                raise RuntimeError("the server did not start within 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
