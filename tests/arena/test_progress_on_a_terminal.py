"""On a terminal the arena shows a `rich` progress bar and `rich` tables; elsewhere plain text."""

from __future__ import annotations

import io
import re

import pytest

from cardtable.arena import Progress
from cardtable.cli import main


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_is_a_rich_bar_with_rate_and_time_left() -> None:
    out = _Terminal()
    progress = Progress(200, stream=out)
    progress.resume(50)  # a journal's games: where the bar starts
    for _ in range(15):
        progress.advance(10)
    progress.finish()
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())
    assert "200/200" in text and "games/s" in text and "left" in text
    assert "━" in text  # drawn by rich, in place
    assert "[#####" not in text  # not the plain line


def test_arena_report_on_a_terminal_is_a_rich_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    args = ["arena", "kuhhandel", "--bots", "heuristic,random,random", "--games", "3"]
    assert main([*args, "--no-progress"]) == 0
    out = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", capsys.readouterr().out)
    assert "┃ bot" in out and "│ heuristic" in out
    assert "games/s on 1 job(s)" in out  # the notes under the table


def test_arena_report_into_a_pipe_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "kuhhandel", "--bots", "heuristic,random,random", "--games", "3"]
    assert main([*args, "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "┃" not in captured.out and "heuristic" in captured.out
    assert captured.err.startswith("engine build: ")  # which build runs, one line at the start
