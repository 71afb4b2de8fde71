"""How long a test may wait for an event on this machine now: a margin derived from the load.

A test waits for events (a line printed, a health check answering, a frame), never for fixed
sleeps; its cap is only how long it gives up after. On a machine shared by other jobs everything
takes longer, so a fixed cap that is generous on an idle machine fails a correct test under load
(CI: "the server never became healthy" after 30 s at load 25 on 2 cores). ``patience(s)`` scales
the idle-machine cap ``s`` by the load the test measures now: the 1-minute load average per core,
never less than 1 and at most 4 (a cap must still end a test that hangs). pytest's timeout
of each test (pytest-timeout) is scaled the same way in tests/conftest.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

#: the largest factor: a test that hangs still fails (pytest's timeout is scaled alike,
#: tests/conftest.py)
MOST = 4.0


def load_factor() -> float:
    """The 1-minute load average per core now, between 1 and :data:`MOST`."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not measurable here: assume an idle machine
        return 1.0
    return min(MOST, max(1.0, load / (os.cpu_count() or 1)))


def patience(seconds: float) -> float:
    """``seconds`` (enough on an idle machine) scaled by :func:`load_factor`."""
    return seconds * load_factor()


def polls(first: float = 0.02, most: float = 0.25) -> Iterator[float]:
    """The pauses between a test's polls of something it cannot be told about (an HTTP status
    page): ``first`` at first, growing by half each time up to ``most``. A condition met at once
    is seen at once, and a long wait (a tournament played out) polls 4 times a second, not 20:
    each poll of a test server costs CPU on both sides (a tournament's status: about 3 ms), which
    on 2 cores slows the very games the test waits for."""
    pause = first
    while True:
        yield pause
        pause = min(most, pause * 1.5)
