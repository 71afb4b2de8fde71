"""A game the server gave up without a result (in a cluster, the process running it died: its
``game_end`` has no scores and no places) is reported, not a crash of ``cardtable bot``."""

from __future__ import annotations

from cardtable.cli.bot import totals
from cardtable.client.seat import GameReport
from cardtable.core.contract import Result, Termination


def report(game_id: str, scores: tuple[float, ...], places: tuple[int, ...]) -> GameReport:
    termination = Termination.ABORTED if not places else Termination.NORMAL
    reason = "the server process running the game stopped" if not places else ""
    return GameReport(
        game_id, "kuhhandel", {}, 1, ("a", "b"), Result(termination, scores, places, reason)
    )


def test_a_game_given_up_without_a_result_is_reported() -> None:
    gone = report("g1", (), ())
    assert "aborted without a result" in gone.summary()
    assert "process running the game stopped" in gone.summary()
    played = report("g2", (10.0, 30.0), (1, 0))
    line = totals([gone, played])
    assert line.startswith("1 games: 1 won, mean place 1.00, mean score 30.0")
    assert "1 more given up" in line
    assert totals([gone]) == "no game finished (1 given up)"
