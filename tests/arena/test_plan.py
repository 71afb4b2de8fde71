"""Tournament plans: rotations, duplicate-deal seeds, line-ups."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cardtable.arena import Progress, TournamentPlan, deals_for, derive_seed, make_entries


def test_every_entry_sits_at_every_seat_once_per_deal() -> None:
    plan = TournamentPlan("toy", "standard", 4, make_entries(["a", "b", "c", "d"]), deals=3)
    assert plan.games == 12
    assert plan.schedule()[:5] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    seats_of = {e: {plan.seating(r).index(e) for r in range(4)} for e in range(4)}
    assert all(s == {0, 1, 2, 3} for s in seats_of.values())
    assert plan.seating(0) == (0, 1, 2, 3)
    assert plan.seating(1) == (3, 0, 1, 2)


def test_a_deal_has_one_game_seed_and_deals_differ() -> None:
    plan = TournamentPlan("toy", "standard", 2, make_entries(["a", "b"]), deals=50, seed=3)
    seeds = {plan.deal_seed(d) for d in range(50)}
    assert len(seeds) == 50
    assert all(0 <= s < 2**53 for s in seeds)
    assert derive_seed(3, "deal", 7) == plan.deal_seed(7)
    other = TournamentPlan("toy", "standard", 2, make_entries(["a", "b"]), deals=50, seed=4)
    assert other.deal_seed(0) != plan.deal_seed(0)


def test_games_round_up_to_whole_deals() -> None:
    assert deals_for(1000, 4) == 250
    assert deals_for(1001, 4) == 251
    assert deals_for(1, 5) == 1
    with pytest.raises(ValueError):
        deals_for(0, 4)


def test_line_up_labels_file_paths_and_filling_seats(tmp_path: Path) -> None:
    entries = make_entries(["expert", "heuristic"], seats=4)
    assert [e.ref for e in entries] == ["expert", "heuristic", "heuristic", "heuristic"]
    assert [e.label for e in entries] == ["expert", "heuristic#1", "heuristic#2", "heuristic#3"]
    bot = tmp_path / "mine.py"
    (one,) = make_entries([f"{bot}:Mine"])
    assert one.ref == f"{bot.resolve()}:Mine" and one.label == "mine.py:Mine"
    with pytest.raises(ValueError):
        make_entries(["a", "b", "c"], seats=2)


def test_deadlines_apply_to_file_bots_unless_built_ins_are_guarded_too() -> None:
    entries = make_entries(["random", "x.py:Bot"])
    plan = TournamentPlan("toy", "standard", 2, entries, deals=1, decision_timeout=2.0)
    assert plan.deadline_for(entries[0]) is None
    assert plan.deadline_for(entries[1]) == 2.0
    strict = TournamentPlan(
        "toy", "standard", 2, entries, deals=1, decision_timeout=2.0, guard_builtin=True
    )
    assert strict.deadline_for(entries[0]) == 2.0


def test_progress_writes_few_lines_when_stderr_is_not_a_terminal() -> None:
    out = io.StringIO()
    progress = Progress(1000, stream=out)
    for _ in range(100):
        progress.advance(10)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert 10 <= len(lines) <= 11
    assert lines[-1].startswith("[" + "#" * 30 + "] 1000/1000 games")
