"""`cardtable new-bot GAME` writes a starter bot that plays a whole game without a fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardtable.cli import main


@pytest.mark.parametrize(
    ("game", "rules", "others"),
    [
        ("kuhhandel", "classic", "heuristic,random"),
        ("kuhhandel", "master", "heuristic,random,random"),
        ("kuhhandel", "master-duel", "heuristic"),
        ("cunegonda", "short", "heuristic,random,random"),
    ],
)
def test_the_starter_bot_plays_a_game(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    game: str,
    rules: str,
    others: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", game, "--out", "starter.py", "--name", "Starter"]) == 0
    assert "cardtable play" in capsys.readouterr().out
    for seed in (1, 2):
        code = main(["play", game, "--rules", rules, "--bots", f"starter.py:Starter,{others}",
                     "--seed", str(seed), "--json"])  # fmt: skip
        assert code == 0  # no --fallback: any failed decision would stop the game (exit 3)
        out = json.loads(capsys.readouterr().out)
        assert out["faults"] == [] and out["result"]["termination"] in ("normal", "cap")


def test_new_bot_refuses_to_overwrite_and_bad_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "kuhhandel"]) == 0
    before = (tmp_path / "mybot.py").read_text()
    assert main(["new-bot", "kuhhandel"]) == 2
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "mybot.py").read_text() == before
    assert main(["new-bot", "chess"]) == 2
    assert main(["new-bot", "kuhhandel", "--out", "x.py", "--name", "not a name"]) == 2
    assert main(["new-bot", "cunegonda", "--force"]) == 0
