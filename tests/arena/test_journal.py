"""The arena's journal: a stopped tournament goes on where it stopped, and can be extended."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from cardtable.arena import (
    JournalError,
    Progress,
    Report,
    TournamentPlan,
    make_entries,
    run_tournament,
)
from cardtable.cli import main
from conftest import TOY

COUNTING_BOT = """
import os

class Bot:
    '''Plays like the toy game's lowest-card player and writes a line per game it starts.'''

    def __init__(self, seed=0, log=""):
        self.log = log

    def start(self, seat, info):
        with open(self.log, "a") as out:
            out.write("game\\n")

    def act(self, observation, request):
        return min(request.choices)
"""


def counting_bot(tmp_path: Path) -> tuple[str, Path]:
    source = tmp_path / "counting.py"
    source.write_text(COUNTING_BOT)
    log = tmp_path / "games.log"
    return f"{source}:Bot:log={log}", log


def plan(bots: list[str], deals: int, seed: int = 3) -> TournamentPlan:
    entries = make_entries(bots)
    return TournamentPlan(
        "toy",
        "standard",
        len(entries),
        entries,
        deals,
        seed=seed,
        decision_timeout=None,
        fallback="heuristic",
        extra_games=TOY,
    )


def results(report: Report) -> str:
    data: dict[str, Any] = report.to_json()
    del data["timing"]
    for entry in data["entries"]:
        entry.pop("time", None)
    return json.dumps(data, sort_keys=True)


def played(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_journal_changes_nothing_in_the_results(tmp_path: Path) -> None:
    bots = ["heuristic", "random", "random"]
    plain = run_tournament(plan(bots, 8))
    journal = tmp_path / "t.jsonl"
    kept = run_tournament(plan(bots, 8), journal=journal)
    assert results(kept) == results(plain)
    lines = journal.read_text().splitlines()
    assert json.loads(lines[0])["journal"] == 1
    assert len(lines) == 1 + 8 * 3  # the header, then one line per game


def test_a_stopped_tournament_goes_on_where_it_stopped(tmp_path: Path) -> None:
    ref, log = counting_bot(tmp_path)
    bots = [ref, "heuristic", "random"]
    whole = run_tournament(plan(bots, 10))
    assert played(log) == 30  # the counting bot sits in every game
    journal = tmp_path / "t.jsonl"
    run_tournament(plan(bots, 10), journal=journal)
    # a crash after 11 games, in the middle of writing the 12th
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:12]) + lines[12][: len(lines[12]) // 2])
    log.write_text("")
    again = run_tournament(plan(bots, 10), journal=journal, jobs=2)
    assert results(again) == results(whole)
    assert played(log) == 30 - 11  # only the games that were not in the journal
    outcomes = [json.loads(x) for x in journal.read_text().splitlines()[1:] if x.endswith("}")]
    assert sorted((o["deal"], o["rotation"]) for o in outcomes) == sorted(
        (d, r) for d in range(10) for r in range(3)
    )
    log.write_text("")
    once_more = run_tournament(plan(bots, 10), journal=journal)
    assert results(once_more) == results(whole) and played(log) == 0


def test_a_journal_extends_to_more_deals(tmp_path: Path) -> None:
    ref, log = counting_bot(tmp_path)
    bots = [ref, "heuristic", "random"]
    journal = tmp_path / "t.jsonl"
    run_tournament(plan(bots, 4), journal=journal)
    log.write_text("")
    longer = run_tournament(plan(bots, 9), journal=journal)
    assert played(log) == 5 * 3
    assert results(longer) == results(run_tournament(plan(bots, 9)))
    # a shorter report from the same journal plays nothing and uses the first deals only
    log.write_text("")
    shorter = run_tournament(plan(bots, 4), journal=journal)
    assert played(log) == 0 and shorter.rows[0].games == 12


def test_the_journal_of_another_tournament_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "t.jsonl"
    run_tournament(plan(["heuristic", "random"], 3, seed=1), journal=journal)
    before = journal.read_text()
    with pytest.raises(JournalError, match="another tournament"):
        run_tournament(plan(["heuristic", "random"], 3, seed=2), journal=journal)
    with pytest.raises(JournalError, match="another tournament"):
        run_tournament(plan(["random", "heuristic"], 3, seed=1), journal=journal)
    assert journal.read_text() == before
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(JournalError, match="not an arena journal"):
        run_tournament(plan(["heuristic", "random"], 3), journal=other)
    assert other.read_text() == "my notes\n"


def test_the_command_takes_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "t.jsonl"
    args = ["arena", "toy", "--bots", "heuristic,random", "--games", "6", "--no-progress"]
    assert main([*args, "--journal", str(journal), "--json", "-"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--journal", str(journal), "--json", "-"]) == 0
    second = json.loads(capsys.readouterr().out)
    for data in (first, second):
        del data["timing"]
    assert first == second
    assert main([*args, "--seed", "9", "--journal", str(journal)]) != 0
    assert "another tournament" in capsys.readouterr().err


def test_the_progress_rate_leaves_out_the_journals_games() -> None:
    out = io.StringIO()
    progress = Progress(100, stream=out)
    progress.resume(60)
    assert progress.done == 60
    line = progress.line(progress.started + 10)
    assert "60/100 games" in line and "0.0 games/s" in line
    progress.advance(20)
    line = progress.line(progress.started + 10)
    assert "80/100 games" in line and "2.0 games/s" in line and "10 s left" in line


def test_the_report_rate_counts_only_the_games_played_now(tmp_path: Path) -> None:
    journal = tmp_path / "t.jsonl"
    run_tournament(plan(["heuristic", "random"], 4), journal=journal)
    again = run_tournament(plan(["heuristic", "random"], 6), journal=journal)
    assert again.resumed == 8 and again.played == 4
    timing = again.to_json()["timing"]
    assert timing["games_from_journal"] == 8
    assert "(8 games from the journal)" in again.to_text()
