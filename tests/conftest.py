"""Puts ``tests/`` on ``sys.path``: pytest's importlib mode adds no test folder, and every folder
shares :mod:`loopback` (one HTTP client for the tests' own servers).

The tests test the plain build: a ``cardtable`` command they start would otherwise load the
compiled engine whenever ``build/compiled`` is current (cardtable/engine_build.py), so
``CARDTABLE_ENGINE=plain`` is set for them and their children; a test of the compiled build
(tests/cli/test_engine_choice.py, tests/games/kuhhandel/test_compiled.py) asks for it itself.

It also keeps the suite's cost visible: with ``--durations`` (``make test`` asks for the 25
slowest), the summary adds the time spent per top test folder (set-up, call and tear-down of every
test, summed over pytest-xdist's workers, so the folders' sum exceeds the wall time on 2 workers).
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
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

#: seconds and test count per top folder of tests/ ("web", "server", ...), filled from the
#: reports; with pytest-xdist the controller receives every worker's reports here too
FOLDER_SECONDS: dict[str, float] = defaultdict(float)
FOLDER_TESTS: dict[str, int] = defaultdict(int)


def top_folder(nodeid: str) -> str:
    """``tests/web/test_play.py::test_x`` -> ``tests/web``; a file directly in tests/ is its own."""
    parts = nodeid.split("::", 1)[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    folder = top_folder(report.nodeid)
    FOLDER_SECONDS[folder] += report.duration
    if report.when == "call" or (report.when == "setup" and report.skipped):
        FOLDER_TESTS[folder] += 1


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
