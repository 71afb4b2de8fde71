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

from browser_helpers import (  # noqa: E402
    CHROMIUM,
    OPEN_TABS,
    Tab,
    WebServer,
    open_tab,
    run_server,
    what_the_page_saw,
)


@pytest.fixture(autouse=True)
def _tabs_of_this_test() -> Iterator[None]:
    """At the end of a test every tab it opened is closed and its person's context goes back to
    the pool, reset (profiles.py): nothing of a test runs on, or is seen, in the next one."""
    OPEN_TABS.clear()
    yield
    failed: list[BaseException] = []
    for tab in OPEN_TABS:
        try:
            tab.close()
        except Exception as exc:  # a reset that left a cookie (profiles.py): after every tab
            failed.append(exc)
    OPEN_TABS.clear()
    if failed:
        raise failed[0]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed browser test reports, for each tab it opened, what the page saw (toasts, its
    sockets and how they closed, the last frames): a flake on a loaded CI machine then says
    more than a timeout."""
    outcome: Any = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for i, tab in enumerate(OPEN_TABS):
            try:
                report.sections.append((f"tab {i}: what the page saw", what_the_page_saw(tab)))
            except Exception as exc:  # a report must never fail the run
                report.sections.append((f"tab {i}", f"(could not read: {exc})"))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server for the whole web run: fast house bots, a short open-auction quiet period."""
    with run_server(tmp_path_factory.mktemp("web")) as web:
        yield web


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Chromium for the tests of this folder, closed when a run leaves it: Playwright's sync API
    keeps its event loop running in the main thread while it is started, and other tests (the
    client's) call asyncio.run, which refuses to run inside it. With pytest-xdist a worker may
    run other tests after these; `tests/web` is a package (``__init__.py``) for this scope.
    Its contexts are kept between tests (a pool, profiles.py), one person each at a time.

    Flags measured and left out, no saving (tests/web/test_play.py, ``tools/cpu_of.py
    --kinds``, back to back: 51.5 s of CPU without, 51.3 s with): ``--disable-gpu-rasterization``
    against the ``--enable-gpu-rasterization`` of Debian's wrapper (/etc/chromium.d) and
    ``--num-raster-threads=1``: with ``--disable-gpu`` Chromium rasterizes in software on one
    raster thread anyway (``SystemInfo.getInfo``: rasterization ``disabled_software``,
    multiple_raster_threads ``disabled_off``, with and without); ``--mute-audio``,
    ``--disable-lcd-text``, ``--disable-smooth-scrolling``. The CPU is the renderers' (more
    than half: the pages' own drawing), then the browser and GPU processes'."""
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
    """A tab of a person of its own (open_tab: a context from the pool), closed after the test."""
    t = open_tab(browser)
    try:
        yield t
    finally:
        t.close()
