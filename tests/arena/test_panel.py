"""The mixed-field panel (``cardtable arena --panel``): every seating, each bot's share."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cardtable.arena import TournamentPlan, make_entries, panel, run_tournament
from cardtable.arena.panel import panel_refs, run_panel, seatings
from cardtable.cli import main


def test_the_kuhhandel_panel_has_the_styles_and_no_random() -> None:
    refs = panel_refs("kuhhandel")
    assert "heuristic" in refs and "expert" in refs and "random" not in refs
    assert any(r.endswith(":PriceBlind") for r in refs)
    assert any(r.endswith(":Accepter") for r in refs)
    assert any(r.endswith(":ValueBidder") for r in refs)


def test_a_panel_plays_every_seating_and_reports_each_share() -> None:
    styles = [r for r in panel_refs("kuhhandel") if ":" in r]
    panel = ["heuristic", "random", *styles]
    lineups = seatings("heuristic", panel, 3)
    assert len(lineups) == 6  # the 4 others, 2 at a time
    assert all(lineup[0] == "heuristic" and len(set(lineup)) == 3 for lineup in lineups)

    def plan_for(lineup: list[str]) -> TournamentPlan:
        return TournamentPlan("kuhhandel", "classic", 3, make_entries(lineup, 3), 1, seed=4)

    result = run_panel(plan_for, "heuristic", lineups, lambda plan: run_tournament(plan))
    assert len(result.reports) == 6
    assert all(report.rows[0].games == 3 for report in result.reports)
    text = result.to_text()
    assert sum(line.startswith("seating ") for line in text.splitlines()) == 6
    assert "has the highest win share in" in text
    for name in ("heuristic", "random", "styles.py:PriceBlind", "styles.py:Accepter"):
        assert f"  {name}" in text


def test_the_panel_command_writes_every_seating_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a smaller panel than the real one (no expert, no learned): the same command, quicker
    styles = [r for r in panel_refs("kuhhandel") if ":" in r]
    monkeypatch.setattr(panel, "panel_refs", lambda game: ["heuristic", "random", *styles])
    out = tmp_path / "panel.json"
    code = main(
        [
            "arena", "kuhhandel", "--rules", "classic", "--panel", "--bots", "heuristic",
            "--seats", "3", "--games", "3", "--seed", "5", "--no-progress", "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    assert data["tested"] == "heuristic"
    assert len(data["seatings"]) == math.comb(4, 2)  # the 4 others, two at a time
    for seating in data["seatings"]:
        assert seating["entries"][0]["ref"] == "heuristic" and seating["games"] == 3
        shares = [e["win_share"] for e in seating["entries"]]
        assert seating["tested_highest"] == (shares[0] >= max(shares))
    assert data["highest_in"] == sum(s["tested_highest"] for s in data["seatings"])
    # each bot's total is the sum of its rows over the seatings
    for total in data["totals"]:
        rows = [e for s in data["seatings"] for e in s["entries"] if e["ref"] == total["ref"]]
        assert total["games"] == sum(e["games"] for e in rows)
        assert total["wins"] == sum(e["wins"] for e in rows)
    assert {t["bot"] for t in data["totals"]} == {"heuristic", "random"} | {
        "styles.py:" + r.rpartition(":")[2] for r in styles
    }


def test_the_mirror_panel_has_the_panel_and_three_value_bidder_shapes() -> None:
    refs = panel.mirror_refs("kuhhandel")
    assert set(panel_refs("kuhhandel")) <= set(refs)
    for shape in ("TableBidder", "HerdBidder", "ShareBidder", "Pushover", "Newcomer"):
        assert any(r.endswith(":" + shape) for r in refs)
    lineups = panel.mirror_lineups("expert", refs, 4)
    assert len(lineups) == len(refs) - 1  # every bot but the tested one, once
    assert all(lineup[1:] == ["expert"] * 3 and lineup[0] != "expert" for lineup in lineups)


def test_the_mirror_command_seats_each_bot_once_against_copies_of_the_tested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    styles = [r for r in panel.mirror_refs("kuhhandel") if ":" in r]
    monkeypatch.setattr(panel, "mirror_refs", lambda game: ["heuristic", "random", *styles])
    out = tmp_path / "mirror.json"
    code = main(
        [
            "arena", "kuhhandel", "--rules", "classic", "--mirror", "--bots", "random",
            "--seats", "4", "--games", "4", "--seed", "5", "--no-progress", "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    assert data["tested"] == "random"
    singles = [s["single"] for s in data["seatings"]]
    assert singles == ["heuristic", *("styles.py:" + r.rpartition(":")[2] for r in styles)]
    for seating in data["seatings"]:
        refs = [e["ref"] for e in seating["entries"]]
        assert refs[1:] == ["random"] * 3 and seating["games"] == 4
        assert seating["single_win_share"] == seating["entries"][0]["win_share"]
        assert seating["single_win_share_low"] <= seating["single_win_share"]


def test_a_stopped_mirror_panel_goes_on_from_its_seatings_journals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--mirror --journal FILE`` (and ``--panel``): seating N's games in FILE.N; run again after
    a stop, the seatings done play nothing again, the one cut short plays only its missing games,
    and the report equals the one without a journal."""
    styles = [r for r in panel.mirror_refs("kuhhandel") if r.endswith((":Pushover", ":Newcomer"))]
    monkeypatch.setattr(panel, "mirror_refs", lambda game: ["heuristic", *styles])
    args = ["arena", "kuhhandel", "--rules", "classic", "--mirror", "--bots", "random",
            "--seats", "3", "--games", "6", "--seed", "5", "--no-progress", "--json"]  # fmt: skip
    whole, first, again = tmp_path / "whole.json", tmp_path / "first.json", tmp_path / "again.json"
    assert main([*args, str(whole)]) == 0
    journal = tmp_path / "mirror.jsonl"
    assert main([*args, str(first), "--journal", str(journal)]) == 0
    books = panel.seating_journals(journal, 3)
    assert [p.name for p in books] == ["mirror.1.jsonl", "mirror.2.jsonl", "mirror.3.jsonl"]
    assert not journal.exists()
    assert [len(p.read_text().splitlines()) for p in books] == [7, 7, 7]  # a header, 6 games
    # a stop during seating 2: four of its games kept, the fifth cut short, seating 3 not begun
    lines = books[1].read_text().splitlines(keepends=True)
    books[1].write_text("".join(lines[:5]) + lines[5][:40])
    books[2].unlink()
    kept = books[0].read_text()
    assert main([*args, str(again), "--journal", str(journal)]) == 0
    assert books[0].read_text() == kept  # seating 1 played nothing again
    reports = [json.loads(p.read_text())["seatings"] for p in (whole, first, again)]
    from_journal = [s["timing"]["games_from_journal"] for s in reports[2]]
    assert from_journal == [6, 4, 0]
    for seatings_ in reports[1:]:
        for seating, plain in zip(seatings_, reports[0], strict=True):
            for key in ("entries", "games", "single", "single_win_share"):
                assert seating[key] == plain[key], key


def test_the_panel_keeps_a_journal_per_seating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    styles = [r for r in panel_refs("kuhhandel") if r.endswith((":PriceBlind", ":Accepter"))]
    monkeypatch.setattr(panel, "panel_refs", lambda game: ["heuristic", "random", *styles])
    journal = tmp_path / "panel.jsonl"
    args = ["arena", "kuhhandel", "--rules", "classic", "--panel", "--bots", "heuristic",
            "--seats", "3", "--games", "3", "--seed", "5", "--no-progress",
            "--journal", str(journal), "--json", str(tmp_path / "p.json")]  # fmt: skip
    assert main(args) == 0
    books = panel.seating_journals(journal, math.comb(3, 2))
    assert all(len(p.read_text().splitlines()) == 4 for p in books)
    assert main(args) == 0  # again: every seating read back from its journal
    data = json.loads((tmp_path / "p.json").read_text())
    assert [s["timing"]["games_from_journal"] for s in data["seatings"]] == [3, 3, 3]


def test_the_tested_bot_with_options_is_not_also_one_of_its_opponents() -> None:
    """``--panel --bots expert:time_cap=none`` meets the other five panel bots (10 seatings at 4
    seats), not the panel's ``expert`` as well (20); the mirror leaves it out likewise."""
    refs = panel_refs("kuhhandel")
    for tested in ("expert", "expert:time_cap=none", "expert:iterations=64,time_cap=none"):
        lineups = seatings(tested, refs, 4)
        assert len(lineups) == math.comb(len(refs) - 1, 3) == 10
        assert all(ref != "expert" for lineup in lineups for ref in lineup[1:])
        mirrored = panel.mirror_lineups(tested, panel.mirror_refs("kuhhandel"), 4)
        assert len(mirrored) == len(panel.mirror_refs("kuhhandel")) - 1
        assert all(lineup[0] != "expert" for lineup in mirrored)
