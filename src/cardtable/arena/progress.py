"""Progress of a tournament on stderr: a `rich` bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """Shows ``done/total`` games, rate and time left.

    On a terminal, a `rich` progress bar (games done, rate, time spent and left) redraws in place;
    elsewhere (a log file, a pipe) a plain line is written every tenth of the way, so logs stay
    short and carry no control characters.
    """

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
        unit: str = "games",
    ) -> None:
        self.total = total
        self.unit = unit
        self.done = 0
        self.earlier = 0  # games done before this run (a journal's): not in the rate
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._last_tenth = -1
        self._bar: Any = None  # the rich progress display, made on the first update
        self._task: Any = None

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
            self._draw(now)
        else:
            tenth = self.done * 10 // max(self.total, 1)
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(self.line(now) + "\n")
                self.stream.flush()

    def finish(self) -> None:
        if self._bar is not None:
            self._draw(time.monotonic())
            self._bar.stop()
            self._bar = None

    def rate(self, now: float | None = None) -> float:
        """Games per second of this run (a journal's games left out)."""
        elapsed = (time.monotonic() if now is None else now) - self.started
        return (self.done - self.earlier) / elapsed if elapsed > 0 else 0.0

    def _draw(self, now: float) -> None:
        rate = f"{self.rate(now):.1f} {self.unit}/s"
        if self._bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as Bar

            self._bar = Bar(
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=Console(file=self.stream, force_terminal=True),
            )
            self._bar.start()
            # games already done (a journal's) are where the bar starts, not part of its speed
            self._task = self._bar.add_task(
                "games", total=self.total, completed=self.done, rate=rate
            )
            return
        self._bar.update(self._task, completed=self.done, rate=rate)

    def line(self, now: float | None = None) -> str:
        """The plain line (written when the output is not a terminal)."""
        now = time.monotonic() if now is None else now
        elapsed = now - self.started
        frac = self.done / self.total if self.total else 1.0
        width = 30
        filled = int(frac * width)
        bar = "#" * filled + "." * (width - filled)
        rate = self.rate(now)
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = f"{left:5.0f} s left" if left != float("inf") else "      "
        return (
            f"[{bar}] {self.done}/{self.total} {self.unit} {frac:4.0%}  "
            f"{rate:7.1f} {self.unit}/s  {elapsed:5.0f} s  {eta}"
        )
