"""What ``cardtable bot`` prints per game: ``[3/10]`` for ten games, ``[3]`` in a tournament, whose
plan the server keeps (issue 35: it printed ``[5/1000000]``). The server is replaced by a stand-in
for :func:`cardtable.client.play` that finishes three games and then says the tournament is over,
as a server does; what is checked is the command's own output."""

from __future__ import annotations

from typing import Any

import pytest

import cardtable.client
from cardtable.cli import main
from cardtable.client.messages import ServerError
from cardtable.client.seat import GameReport
from cardtable.core.contract import Result, Termination


def _three_games_then_over(*_args: Any, on_result: Any, tournament: str | None, **_kw: Any) -> None:
    for i in range(3):
        result = Result(Termination.NORMAL, (10.0, 30.0), (1, 0))
        on_result(GameReport(f"g{i}", "kuhhandel", {}, 1, ("a", "b"), result))
    if tournament:
        raise ServerError("tournament_over", f"tournament {tournament} is over")


@pytest.mark.parametrize(
    ("extra", "shown"),
    [
        (["--tournament", "T1"], ["[1]", "[2]", "[3]"]),
        (["--games", "3"], ["[1/3]", "[2/3]", "[3/3]"]),
    ],
)
def test_progress_counts_games_with_a_real_total_or_none(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    shown: list[str],
) -> None:
    monkeypatch.setattr(cardtable.client, "play", _three_games_then_over)
    argv = ["bot", "--server", "127.0.0.1:1", "--name", "b", "--token", "t", "--bot", "random"]
    assert main([*argv, *extra]) == 0
    out = capsys.readouterr().out
    lines = [line.split(" ", 1)[0] for line in out.splitlines() if line.startswith("[")]
    assert lines == shown, out
    assert "1000000" not in out
