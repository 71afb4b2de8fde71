"""Puts ``tests/`` on ``sys.path``: pytest's importlib mode adds no test folder, and every folder
shares :mod:`loopback` (one HTTP client for the tests' own servers).

The tests test the plain build: a ``cardtable`` command they start would otherwise load the
compiled engine whenever ``build/compiled`` is current (cardtable/engine_build.py), so
``CARDTABLE_ENGINE=plain`` is set for them and their children; a test of the compiled build
(tests/cli/test_engine_choice.py, tests/games/kuhhandel/test_compiled.py) asks for it itself.

It also keeps the suite's cost visible and its wall time short:

- with ``--durations`` (``make test`` asks for the 25 slowest), the summary adds the time spent
  per top test folder (set-up, call and tear-down of every test, summed over pytest-xdist's
  workers, so the folders' sum exceeds the wall time on 2 workers);
- it counts the descriptors a test worker holds after each test (``/proc/self/fd``) and names,
  with ``--durations``, the most a worker held and the tests after which the count grew most: a
  leak (a socket, a pipe, a server left open) shows where it starts, before a worker reaches
  1,024 and ``select`` or a child's limits fail somewhere unrelated;
- the longest test files start first (``tests/durations.json``: seconds per file, measured), so
  that on 2 workers the run does not end on one worker finishing a long file while the other
  waits. The browser tests come first as one block (each worker starts its Chromium once: the
  ``browser`` fixture is per package), then every other file by its time; a file keeps its own
  order (its module fixtures are set up once per worker) and a file not measured yet counts as
  long (a new end-to-end file should not end the run). ``--store-durations`` writes the file
  again from the run (run the whole suite: ``make test PYTEST_ARGS=--store-durations``).
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["CARDTABLE_ENGINE"] = "plain"
os.environ.pop("CARDTABLE_COMPILED_ENGINE", None)

TESTS = str(Path(__file__).parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

# Servers the tests start as processes (cardtable serve) queue a new bot in the ranked lobby at
# once; the validation game before its first ranked one is tested in test_validation.py.
os.environ.setdefault("CARDTABLE_VALIDATION_GAMES", "false")
# They cost the CPU of the tests' own servers (server/wire.py fast_settings), not an operator's:
# the cheapest argon2id (about 0.1 ms a sign-up or sign-in, not 0.17 s; no real password is
# guarded) and the event loop's lag sampled every 100 ms, not 10 (about 1% of a core each).
for _key, _value in {
    "CARDTABLE_PASSWORD_TIME_COST": "1",
    "CARDTABLE_PASSWORD_MEMORY_KIB": "8",
    "CARDTABLE_PASSWORD_LANES": "1",
    "CARDTABLE_LOOP_LAG_MS": "100",
}.items():
    os.environ.setdefault(_key, _value)

from patience import load_factor  # noqa: E402 (tests/ is on the path from here on)

#: measured seconds per test file (``tests/web/test_play.py``), for the order of the run
DURATIONS = Path(__file__).parent / "durations.json"
#: the browser tests, run first as one block
BROWSER_FOLDER = "tests/web"

#: seconds and test count per top folder of tests/ ("tests/web", ...) and seconds per file,
#: filled from the reports; with pytest-xdist the controller receives every worker's reports
FOLDER_SECONDS: dict[str, float] = defaultdict(float)
FOLDER_TESTS: dict[str, int] = defaultdict(int)
FILE_SECONDS: dict[str, float] = defaultdict(float)
#: descriptors open in each worker after its last test, the most seen (count, worker, test)
#: and the growth after each test (growth, worker, test)
WORKER_FDS: dict[str, int] = {}
MOST_FDS: list[tuple[int, str, str]] = []
FD_GROWTH: list[tuple[int, str, str]] = []


def open_descriptors() -> int | None:
    """How many descriptors this process holds now (Linux), else ``None``."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """The tear-down report carries the descriptors this process holds after the test (read by
    the controller: pytest-xdist sends the reports there)."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown":
        count = open_descriptors()
        if count is not None:
            report.user_properties = [*report.user_properties, ("open_fds", count)]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help=f"write the seconds per test file of this run into {DURATIONS.name} (the order of "
        "later runs: longest first)",
    )


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def top_folder(nodeid: str) -> str:
    """``tests/web/test_play.py::test_x`` -> ``tests/web``; a file directly in tests/ is its own."""
    parts = file_of(nodeid).split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def measured() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser block first, then the longest files first (see the module's docstring). Every
    xdist worker sorts the same collection the same way, as xdist requires."""
    seconds = measured()
    if not seconds:
        return

    def key(item: pytest.Item) -> tuple[bool, float]:
        path = file_of(item.nodeid)
        return (top_folder(item.nodeid) != BROWSER_FOLDER, -seconds.get(path, float("inf")))

    items.sort(key=key)  # stable: a file's tests keep their order


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """pytest-timeout's limit for this test (its mark, or the ini's), scaled by the load measured
    now (patience.py): a loaded machine slows a test down instead of failing it, and a test that
    hangs still fails. Runs before pytest-timeout reads the mark."""
    factor = load_factor()
    marker = item.get_closest_marker("timeout")
    limit = (marker.args[0] if marker.args else marker.kwargs.get("timeout")) if marker else None
    if limit is None:
        limit = item.config.getini("timeout") or None
    if factor > 1 and limit:
        options = {k: v for k, v in marker.kwargs.items() if k != "timeout"} if marker else {}
        item.add_marker(pytest.mark.timeout(float(limit) * factor, **options), append=False)
    yield


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    folder = top_folder(report.nodeid)
    FOLDER_SECONDS[folder] += report.duration
    FILE_SECONDS[file_of(report.nodeid)] += report.duration
    if report.when == "call" or (report.when == "setup" and report.skipped):
        FOLDER_TESTS[folder] += 1
    count = dict(report.user_properties).get("open_fds") if report.when == "teardown" else None
    if isinstance(count, int):
        node = getattr(report, "node", None)  # the xdist worker that ran it
        worker = str(getattr(getattr(node, "gateway", None), "id", "main"))
        before = WORKER_FDS.get(worker)
        WORKER_FDS[worker] = count
        MOST_FDS[:] = sorted([*MOST_FDS, (count, worker, report.nodeid)], reverse=True)[:1]
        if before is not None and count > before:
            FD_GROWTH.append((count - before, worker, report.nodeid))


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if not config.getoption("store_durations") or hasattr(config, "workerinput"):
        return  # an xdist worker: the controller has every report
    data = measured()
    data.update({path: round(s, 1) for path, s in FILE_SECONDS.items()})
    DURATIONS.write_text(json.dumps(dict(sorted(data.items())), indent=0) + "\n", encoding="utf-8")


@pytest.hookimpl(trylast=True)  # after the slowest tests, before pytest's last line
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if config.option.durations is None or not FOLDER_SECONDS:
        return
    total = sum(FOLDER_SECONDS.values())
    terminalreporter.write_sep("=", "time per test folder (set-up + call + tear-down, all workers)")
    for folder, seconds in sorted(FOLDER_SECONDS.items(), key=lambda kv: -kv[1]):
        share = 100 * seconds / total if total else 0.0
        terminalreporter.write_line(
            f"{seconds:9.1f} s {share:5.1f} %  {FOLDER_TESTS[folder]:5d} tests  {folder}"
        )
    terminalreporter.write_line(f"{total:9.1f} s  in all")
    if MOST_FDS:
        count, worker, nodeid = MOST_FDS[0]
        terminalreporter.write_sep("=", "open descriptors of the test workers (/proc/self/fd)")
        terminalreporter.write_line(f"most: {count} in {worker}, after {nodeid}")
        for growth, worker, nodeid in sorted(FD_GROWTH, reverse=True)[:5]:
            terminalreporter.write_line(f"  +{growth:4d} in {worker} after {nodeid}")
