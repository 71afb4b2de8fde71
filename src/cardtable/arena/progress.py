"""A plain-text progress bar on stderr (no dependency)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Shows ``done/total`` games, rate and time left.

    On a terminal the bar redraws in place (at most ten times a second); elsewhere (a log file, a
    pipe) it writes a line every tenth of the way, so logs stay short.
    """

    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.done = 0
        self.earlier = 0  # games done before this run (a journal's): not in the rate
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._last_tenth = -1

    def resume(self, n: int) -> None:
        """``n`` games were played by an earlier run: counted as done, not in the rate."""
        self.earlier += n
        self.advance(n)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self._last_draw >= 0.1 or self.done >= self.total:
                self._last_draw = now
                self.stream.write("\r" + self.line(now))
                self.stream.flush()
        else:
            tenth = self.done * 10 // max(self.total, 1)
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(self.line(now) + "\n")
                self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        elapsed = now - self.started
        frac = self.done / self.total if self.total else 1.0
        width = 30
        filled = int(frac * width)
        bar = "#" * filled + "." * (width - filled)
        rate = (self.done - self.earlier) / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = f"{left:5.0f} s left" if left != float("inf") else "      "
        return (
            f"[{bar}] {self.done}/{self.total} games {frac:4.0%}  "
            f"{rate:7.1f} games/s  {elapsed:5.0f} s  {eta}"
        )
