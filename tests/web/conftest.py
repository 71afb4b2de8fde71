"""Fixtures for the browser tests: a real server on a free loopback port (SQLite in a tmp dir)
and Debian's Chromium driven by Playwright, headless.

The tests skip with a reason when Playwright or ``/usr/bin/chromium`` is missing (CI installs
both; never run ``playwright install``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # browser_helpers (pytest's importlib mode adds no test folders)

from browser_helpers import CHROMIUM, Tab, WebServer, open_tab, run_server  # noqa: E402


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server for the whole web run: fast house bots, a short open-auction quiet period."""
    with run_server(tmp_path_factory.mktemp("web")) as web:
        yield web


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
