"""`cardtable arena --ab A,B`: two versions of a bot on the same deals and seatings, with paired
95% intervals on the difference in win share and mean score."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cardtable.arena import GameOutcome, TournamentPlan, make_entries
from cardtable.arena.ab import ab_journals, ab_plans, compare
from cardtable.arena.stats import t95
from cardtable.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(list(argv)) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_same_bot_twice_differs_by_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "arena", "kuhhandel", "--ab", "random,random", "--bots", "heuristic",
                    "--seats", "3", "--games", "12", "--no-progress", "--json")  # fmt: skip
    diff = data["difference"]
    assert isinstance(diff, dict)
    assert diff["win_share"]["mean"] == 0 and diff["score"]["mean"] == 0
    assert diff["score"]["low"] == diff["score"]["high"] == 0
    assert data["same_outcome_games"] == data["games"] == 12
    assert data["a"]["bot"] == "random (A)" and data["b"]["bot"] == "random (B)"  # type: ignore[index]


def test_a_better_version_is_found_and_each_side_matches_a_plain_arena(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("--seats", "3", "--games", "30", "--no-progress", "--json")
    data = run_json(capsys, "arena", "kuhhandel", "--ab", "random,heuristic", "--bots", "heuristic",
                    *args)  # fmt: skip
    diff = data["difference"]
    assert isinstance(diff, dict) and diff["score"]["n"] == 10  # paired over 10 deals
    assert diff["score"]["low"] > 0 and diff["win_share"]["low"] > 0
    # side A is exactly the plain tournament with A at position 1 (same seeds, same games)
    plain = run_json(capsys, "arena", "kuhhandel", "--bots", "random,heuristic", *args)
    (first,) = [e for e in plain["entries"] if e["position"] == 1]  # type: ignore[attr-defined]
    assert data["a"]["win_share"] == first["win_share"]  # type: ignore[index]
    assert data["a"]["score"]["mean"] == pytest.approx(first["score"]["mean"])  # type: ignore[index]


def _game(deal: int, rotation: int, score0: float, place0: int) -> GameOutcome:
    seating = ((0, 1), (1, 0))[rotation]
    seat = seating.index(0)
    scores = [0.0, 0.0]
    places = [0, 0]
    scores[seat], places[seat] = score0, place0
    places[1 - seat] = 1 - place0
    return GameOutcome(deal, rotation, seating, "normal", tuple(scores), tuple(places), 1,
                       (), (0, 0), (0.0, 0.0), (0.0, 0.0))  # fmt: skip


def test_the_difference_is_paired_per_deal() -> None:
    plan = TournamentPlan("kuhhandel", "master-duel", 2, make_entries(["a.py:X", "random"]), 3)
    plan_a, plan_b = ab_plans(plan, "a.py:X", "b.py:X")
    a = [_game(d, r, 10.0 * d, 1) for d in range(3) for r in range(2)]
    b = [_game(d, r, 10.0 * d + (d + 1) * (r + 1), 0 if d == 2 else 1) for d in range(3)
         for r in range(2)]  # fmt: skip
    report = compare(plan_a, plan_b, a, b)
    # per deal: mean over its two rotations of B - A = 1.5, 3, 4.5
    assert report.score_diff.mean == pytest.approx(3.0)
    half = t95(2) * math.sqrt(1.5**2 * 2 / 2 / 3)
    assert report.score_diff.low == pytest.approx(3.0 - half)
    assert report.win_diff.mean == pytest.approx(1 / 3) and report.win_diff.n == 3
    assert report.same == 0 and report.b.wins == 2 and report.a.wins == 0
    text = report.to_text()
    assert "paired over 3 deals" in text and "+3.0 [" in text
    # three deals are too few for 95%: the interval holds 0
    assert "mean score: neither version shown to score more (the 95% interval holds 0)" in text


def test_a_stopped_comparison_goes_on_from_its_two_journals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--ab A,B --journal FILE``: side A's games in FILE.a, side B's in FILE.b; run again after
    a stop, only the games missing from a journal are played, and the report is the same."""
    args = ("arena", "kuhhandel", "--ab", "random,heuristic", "--bots", "heuristic",
            "--seats", "3", "--games", "18", "--no-progress", "--json")  # fmt: skip
    whole = run_json(capsys, *args)
    journal = tmp_path / "ab.jsonl"
    first = run_json(capsys, *args, "--journal", str(journal))
    side_a, side_b = ab_journals(journal)
    assert (side_a.name, side_b.name) == ("ab.a.jsonl", "ab.b.jsonl") and not journal.exists()
    assert [len(p.read_text().splitlines()) for p in (side_a, side_b)] == [19, 19]
    # a stop during side B: seven of its games kept, the eighth cut short
    lines = side_b.read_text().splitlines(keepends=True)
    side_b.write_text("".join(lines[:8]) + lines[8][:40])
    kept_a = side_a.read_text()
    again = run_json(capsys, *args, "--journal", str(journal))
    assert side_a.read_text() == kept_a  # side A played nothing again
    games_b = [json.loads(x) for x in side_b.read_text().splitlines()[1:] if x.endswith("}")]
    assert len(games_b) == 18 and len({(g["deal"], g["rotation"]) for g in games_b}) == 18
    for data in (first, again):
        for key in ("a", "b", "difference", "same_outcome_games", "games"):
            assert data[key] == whole[key], key
    # side A's journal is the plain tournament with A at position 1: it plays nothing again
    plain = run_json(capsys, "arena", "kuhhandel", "--bots", "random,heuristic", "--seats", "3",
                     "--games", "18", "--no-progress", "--json",
                     "--journal", str(side_a))  # fmt: skip
    assert plain["timing"]["games_from_journal"] == 18  # type: ignore[index]
