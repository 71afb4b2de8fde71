"""The example bots of docs/writing-a-bot.md run as written: no faults, and better than random."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardtable.arena import TournamentPlan, make_entries, run_tournament

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-a-bot.md"


def example(name: str) -> str:
    """The ```python block of the guide whose first line is ``# name``."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)
    found = [b for b in blocks if b.startswith(f"# {name}\n")]
    assert len(found) == 1, f"{name} is not in {GUIDE}"
    return found[0]


@pytest.mark.parametrize(
    ("game", "rules", "file", "cls"),
    [
        ("kuhhandel", "classic", "value_bidder.py", "ValueBidder"),
        ("cunegonda", "short", "ducker.py", "Ducker"),
    ],
)
def test_example_bot_plays_without_faults_and_beats_random(
    tmp_path: Path, game: str, rules: str, file: str, cls: str
) -> None:
    path = tmp_path / file
    path.write_text(example(file))
    entries = make_entries([f"{path}:{cls}", "random"], seats=4)
    plan = TournamentPlan(game, rules, 4, entries, deals=8, seed=2)
    report = run_tournament(plan, jobs=2)
    mine = report.rows[0]
    assert not mine.faults, dict(mine.reasons)
    assert mine.vs_field.low is not None and mine.vs_field.low > 0
