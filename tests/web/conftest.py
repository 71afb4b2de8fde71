"""Fixtures for the browser tests: a real server on a free loopback port (SQLite in a tmp dir)
and Debian's Chromium driven by Playwright, headless.

The tests skip with a reason when Playwright or ``/usr/bin/chromium`` is missing (CI installs
both; never run ``playwright install``).
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # browser_helpers (pytest's importlib mode adds no test folders)

import uvicorn  # noqa: E402
from browser_helpers import CHROMIUM, Tab, WebServer, open_tab  # noqa: E402

from cardtable.server.app import create_app  # noqa: E402
from cardtable.server.config import Settings  # noqa: E402


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server for the whole web run: fast house bots, a short open-auction quiet period."""
    db = tmp_path_factory.mktemp("web") / "web.db"
    settings = Settings(
        db=f"sqlite:///{db}",
        deadline_ms=1500,
        time_bank_ms=1000,
        person_deadline_ms=60000,
        person_time_bank_ms=60000,
        fill_wait_ms=200,
        bot_quiet_ms=200,
        quiet_ms=2000,
        log_level="warning",
    )
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    settings.port = sock.getsockname()[1]
    app = create_app(settings)
    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="on")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not uv.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield WebServer(f"http://127.0.0.1:{settings.port}", app, settings)
    finally:
        uv.should_exit = True
        thread.join(timeout=20)
        sock.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="the web extra (playwright) is not installed"
    )
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is missing (apt-get install -y chromium)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            headless=True,
        )
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    t = open_tab(browser)
    try:
        yield t
    finally:
        t.page.context.close()
