"""The arena on the real engines: strength smoke tests, duplicate deals, faults, the command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cardtable.arena import TournamentPlan, make_entries, run_tournament
from cardtable.cli import main
from cardtable.core import Record, replay, verify
from conftest import bot


def plan(
    game: str, rules: str, bots: list[str], seats: int, deals: int, **kw: object
) -> TournamentPlan:
    return TournamentPlan(game, rules, seats, make_entries(bots, seats), deals, **kw)  # type: ignore[arg-type]


@pytest.mark.slow
def test_kuhhandel_heuristic_beats_three_random_with_95_percent_confidence() -> None:
    """The issue's smoke test: 200 games (50 deals x 4 rotations) of classic Kuhhandel."""
    report = run_tournament(
        plan("kuhhandel", "classic", ["heuristic", "random"], 4, 50, seed=11), jobs=2
    )
    best = report.rows[0]
    assert best.games == 200
    assert best.win_low > 0.25, f"win share {best.win_share:.1%} [{best.win_low:.1%}, ...]"
    assert best.vs_field.low is not None and best.vs_field.low > 0


@pytest.mark.slow
def test_cunegonda_heuristic_beats_three_random_with_95_percent_confidence() -> None:
    report = run_tournament(
        plan("cunegonda", "short", ["heuristic", "random"], 4, 25, seed=11), jobs=2
    )
    best = report.rows[0]
    assert best.games == 100
    assert best.win_low > 0.25
    assert best.vs_field.low is not None and best.vs_field.low > 0


def _auctioned_cards(record: Record) -> list[int]:
    game = replay(record)
    cards = [e.data["card"] for e in game.events() if e.kind == "auction"]
    return [c for i, c in enumerate(cards) if i == 0 or c != cards[i - 1]]


def test_kuhhandel_duplicate_deals_draw_the_same_deck_in_every_rotation(tmp_path: Path) -> None:
    p = plan("kuhhandel", "classic", ["heuristic", "random"], 4, 2, records=str(tmp_path))
    run_tournament(p)
    for deal in range(2):
        records = [Record.load(tmp_path / f"kuhhandel-{deal:05d}-r{r}.json") for r in range(4)]
        assert {r.seed for r in records} == {p.deal_seed(deal)}
        draws = [_auctioned_cards(r) for r in records]
        shortest = min(len(d) for d in draws)
        assert shortest >= 5
        assert all(d[:shortest] == draws[0][:shortest] for d in draws)
        assert [r.names.index("heuristic") for r in records] == [0, 1, 2, 3]
    first = [_auctioned_cards(Record.load(f))[:8] for f in sorted(tmp_path.glob("*-r0.json"))]
    assert first[0] != first[1]  # two different deals


def test_cunegonda_duplicate_deals_deal_the_same_hands_in_every_rotation(tmp_path: Path) -> None:
    p = plan("cunegonda", "short", ["heuristic", "random"], 4, 1, records=str(tmp_path))
    run_tournament(p)
    records = [Record.load(tmp_path / f"cunegonda-00000-r{r}.json") for r in range(4)]
    hands = [[replay(r, upto=0).observe(s).hand for s in range(4)] for r in records]
    assert all(h == hands[0] for h in hands)


@pytest.mark.parametrize(("fixture", "category"), [("raises", "raised"), ("illegal", "illegal")])
def test_misbehaving_bots_on_cunegonda(fixture: str, category: str) -> None:
    report = run_tournament(plan("cunegonda", "short", [bot(fixture), "random"], 4, 1))
    assert report.rows[0].faults[category] > 0
    assert report.terminations == {"normal": 4}


def test_garbage_on_kuhhandel_is_refused_as_invalid() -> None:
    report = run_tournament(plan("kuhhandel", "classic", [bot("garbage"), "random"], 4, 1))
    assert report.rows[0].faults["invalid"] > 0
    assert sum(report.terminations.values()) == 4


def test_the_arena_command_json_csv_and_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    args = ["arena", "kuhhandel", "--rules", "classic", "--bots", "heuristic,random", "--seats",
            "4", "--games", "7", "--jobs", "2", "--seed", "3", "--no-progress"]  # fmt: skip
    assert main([*args, "--json", "--records", str(records)]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert "rounded up to 2 deals x 4 rotations = 8 games" in err
    assert data["games"] == 8 and data["deals"] == 2
    assert [e["bot"] for e in data["entries"]] == ["heuristic", "random#1", "random#2", "random#3"]
    assert sum(e["wins"] for e in data["entries"]) == pytest.approx(8)
    files = sorted(records.glob("*.json"))
    assert len(files) == 8
    for f in files:
        ok, why = verify(Record.load(f))
        assert ok, why

    assert main([*args, "--jobs", "1", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["bot"] for r in rows] == ["heuristic", "random#1", "random#2", "random#3"]
    assert [float(r["wins"]) for r in rows] == [e["wins"] for e in data["entries"]]

    assert main(args) == 0
    table = capsys.readouterr().out
    assert "win share [95% CI]" in table and "heuristic" in table

    assert (
        main(["arena", "kuhhandel", "--bots", "nonesuch,random", "--seats", "4", "--no-progress"])
        == 2
    )
    assert "unknown bot" in capsys.readouterr().err


def test_the_command_fills_a_four_seat_game_from_two_bots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["arena", "cunegonda", "--rules", "short", "--bots", "heuristic,random", "--games",
            "4", "--json", "--no-progress"]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seats"] == 4
    assert [e["bot"] for e in data["entries"]] == ["heuristic", "random#1", "random#2", "random#3"]
