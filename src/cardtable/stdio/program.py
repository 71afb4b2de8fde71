"""One bot program as a child process: lines in, lines out, every read bounded.

Two reader threads drain the program's stdout and stderr at once, so a program never blocks on a
full pipe and the adapter never blocks on a silent program: stdout lines go to a small queue
(the adapter waits on it with a deadline), stderr lines to a ring buffer of the last lines (shown
when the program crashes). A program that writes a line longer than
:data:`~cardtable.stdio.messages.MAX_LINE_BYTES`, writes more lines than it was asked for (plus
:data:`SPARE_LINES`), or writes more than :data:`STDERR_LIMIT_BYTES` to stderr is *flooding*:
it is killed.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import select
import signal
import subprocess
import threading
import time
from typing import IO

from cardtable.stdio.messages import MAX_LINE_BYTES
from cardtable.stdio.spec import ProgramSpec

#: Lines a program may write beyond those it was asked for (one per hello and request) before
#: it is cut off for flooding.
SPARE_LINES = 8
#: Bytes of stderr a program may write over its life before it is cut off.
STDERR_LIMIT_BYTES = 4 * 1024 * 1024
#: stderr lines kept to show when the program crashes, and the characters kept of each.
STDERR_TAIL_LINES = 20
STDERR_LINE_CHARS = 300


class Exited:
    """Put on the line queue when stdout closes (the program exited or closed it)."""


class Flooded:
    """Put on the line queue when the program was cut off for flooding; ``why`` says how."""

    def __init__(self, why: str) -> None:
        self.why = why


class Program:
    """A running program: :meth:`send` a line, :meth:`receive` one before a deadline."""

    def __init__(self, spec: ProgramSpec) -> None:
        self.spec = spec
        self._log: IO[str] | None = None
        if spec.log:
            self._log = open(spec.log, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        self._log_lock = threading.Lock()
        self.lines: queue.Queue[bytes | Exited | Flooded] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self.flood: str | None = None
        self.expected = 0  # lines asked for so far (hello and requests)
        self.written = 0  # lines written so far
        self.last_id = 0  # the id of the last request sent to it
        self.proc = subprocess.Popen(
            list(spec.argv),
            cwd=spec.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: killed with its children
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        assert self.proc.stdin is not None
        self._stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(self.proc.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.proc.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # -- the two readers -------------------------------------------------------------------

    def _read_stdout(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = stream.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                if len(line) > MAX_LINE_BYTES:
                    self._cut_off(f"wrote a line longer than {MAX_LINE_BYTES} bytes")
                    return
                self._write_log("<", line.decode("utf-8", "replace").rstrip("\n"))
                self.written += 1
                if self.written > self.expected + SPARE_LINES:
                    self._cut_off(
                        f"wrote {self.written} lines when asked for {self.expected} "
                        f"({SPARE_LINES} spare)"
                    )
                    return
                self.lines.put(line)
        self.lines.put(Exited())

    def _read_stderr(self, stream: IO[bytes]) -> None:
        total = 0
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = stream.readline(64 * 1024)
                if not line:
                    return
                total += len(line)
                text = line.decode("utf-8", "replace").rstrip("\n")
                self.stderr_tail.append(text[:STDERR_LINE_CHARS])
                self._write_log("!", text)
                if total > STDERR_LIMIT_BYTES:
                    self._cut_off(f"wrote more than {STDERR_LIMIT_BYTES} bytes to stderr")
                    return

    def _cut_off(self, why: str) -> None:
        self.flood = why
        self.kill()
        with contextlib.suppress(queue.Empty):  # nothing it wrote before counts any more
            while True:
                self.lines.get_nowait()
        self.lines.put(Flooded(why))

    def _write_log(self, direction: str, text: str) -> None:
        if self._log is not None:
            with self._log_lock, contextlib.suppress(ValueError):
                self._log.write(f"{direction} {text}\n")

    # -- talking ---------------------------------------------------------------------------

    def expect(self, lines: int) -> None:
        """Count ``lines`` more answers as asked for (called before sending the question)."""
        self.expected += lines

    def send(self, line: str, timeout: float) -> None:
        """Write one line. :class:`TimeoutError` when the program has not read enough of its
        input to take it within ``timeout`` seconds (its pipe stays full: it is stuck), else
        :class:`BrokenPipeError` (both ``OSError``) when the program is gone. The pipe is written
        without blocking, so that a program that stops reading never stalls the table."""
        self._write_log(">", line)
        data = memoryview(line.encode() + b"\n")
        until = time.monotonic() + timeout
        while data:
            try:
                data = data[os.write(self._stdin_fd, data) :]
            except BlockingIOError:
                remaining = until - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"its input is full: not read for {timeout:g} s") from None
                # poll, not select: select refuses descriptors past 1023, which a busy process
                # (a server, a test run with browsers) reaches
                writable = select.poll()
                writable.register(self._stdin_fd, select.POLLOUT)
                writable.poll(remaining * 1000)

    def receive(self, timeout: float) -> bytes | Exited | Flooded | None:
        """The next line the program wrote, or ``None`` after ``timeout`` seconds."""
        try:
            return self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def alive(self) -> bool:
        return self.proc.poll() is None and self.flood is None

    def exit_code(self, wait: float = 1.0) -> int | None:
        """The exit code (``None``: still running after ``wait`` s); its stderr is read to the
        end first, so that :meth:`stderr_text` has its last words."""
        code = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self.proc.wait(wait)
        self._threads[1].join(wait)
        return code

    def stderr_text(self) -> str:
        """The last stderr lines, for a fault's reason (``""`` when it wrote none)."""
        return " | ".join(self.stderr_tail)

    def kill(self) -> None:
        """Kill the program and its process group, now."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()

    def close(self, grace: float = 1.0) -> None:
        """Say bye, give it ``grace`` seconds to exit, then kill it; close the log."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self.send('{"type":"bye"}', grace)
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            deadline = time.monotonic() + grace
            while self.proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
        self.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1.0)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        if self._log is not None:
            with self._log_lock:
                self._log.close()
            self._log = None

    def __repr__(self) -> str:
        return f"Program({self.spec.describe()}, pid {self.proc.pid})"
