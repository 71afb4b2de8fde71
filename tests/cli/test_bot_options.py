"""Bot options in a bot reference: ``expert:iterations=128,time_cap=none`` in every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardtable.cli import main
from cardtable.core import load_bot, split_bot_list, split_bot_ref
from cardtable.games.cunegonda.bots.expert import ExpertBot as CunegondaExpert
from cardtable.games.kuhhandel.bots.expert import DEFAULT_ITERATIONS, ExpertBot


def test_split_bot_ref_reads_typed_options() -> None:
    assert split_bot_ref("expert") == ("expert", {})
    assert split_bot_ref("bots/mine.py:MyBot") == ("bots/mine.py:MyBot", {})
    assert split_bot_ref("expert:iterations=128,time_cap=none,jump_bids=true,name=x") == (
        "expert",
        {"iterations": 128, "time_cap": None, "jump_bids": True, "name": "x"},
    )
    assert split_bot_ref("bots/mine.py:MyBot:depth=3,temp=0.5") == (
        "bots/mine.py:MyBot",
        {"depth": 3, "temp": 0.5},
    )


def test_split_bot_ref_refuses_malformed_options() -> None:
    with pytest.raises(ValueError, match="key=value"):
        split_bot_ref("expert:iterations=8,oops")
    with pytest.raises(ValueError, match="key=value"):
        split_bot_ref("expert:9x=1")


def test_split_bot_list_keeps_a_bots_options_together() -> None:
    assert split_bot_list("expert:iterations=8,time_cap=none,heuristic, random") == [
        "expert:iterations=8,time_cap=none",
        "heuristic",
        "random",
    ]
    assert split_bot_list("a.py:A:x=1,y=2,b.py") == ["a.py:A:x=1,y=2", "b.py"]
    with pytest.raises(ValueError, match="before any bot"):
        split_bot_list("iterations=8,expert")


def test_load_bot_passes_options_to_the_bot() -> None:
    bot = load_bot("kuhhandel", "expert:iterations=8,time_cap=none", seed=3)
    assert isinstance(bot, ExpertBot)
    assert bot.iterations == 8 and bot.time_cap is None
    plain = load_bot("kuhhandel", "expert")
    assert isinstance(plain, ExpertBot) and plain.iterations == DEFAULT_ITERATIONS
    # keyword options given by the caller win over those in the reference
    bot = load_bot("kuhhandel", "expert:iterations=8", iterations=5)
    assert isinstance(bot, ExpertBot) and bot.iterations == 5
    cune = load_bot("cunegonda", "expert:iterations=12")
    assert isinstance(cune, CunegondaExpert) and cune.iterations == 12


def test_load_bot_names_an_unknown_option() -> None:
    with pytest.raises(ValueError, match=r"expert:depth=3.*bad options"):
        load_bot("kuhhandel", "expert:depth=3")


def test_options_reach_a_bot_loaded_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mybot.py"
    path.write_text(
        "class MyBot:\n"
        "    def __init__(self, seed=0, depth=1):\n"
        "        self.depth = depth\n"
        "    def act(self, observation, request):\n"
        "        return request.choices[0]\n"
    )
    bot = load_bot("kuhhandel", f"{path}:MyBot:depth=3")
    assert getattr(bot, "depth", None) == 3
    with pytest.raises(ValueError, match="bad options"):
        load_bot("kuhhandel", f"{path}:MyBot:width=3")


def test_play_and_arena_take_bot_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["play", "kuhhandel", "--rules", "master-duel", "--seats", "2", "--seed", "4"]
    code = main([*argv, "--bots", "expert:iterations=2,time_cap=none,heuristic", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out)["result"]["places"]
    out_file = tmp_path / "arena.json"
    code = main(
        [
            "arena",
            "kuhhandel",
            "--rules",
            "master-duel",
            "--bots",
            "expert:iterations=2,time_cap=none,heuristic",
            "--games",
            "2",
            "--json",
            str(out_file),
        ]
    )
    capsys.readouterr()
    assert code == 0
    names = [row["bot"] for row in json.loads(out_file.read_text())["entries"]]
    assert names == ["expert:iterations=2,time_cap=none", "heuristic"]
    code = main(["arena", "kuhhandel", "--bots", "expert:nope=1,heuristic", "--games", "1"])
    assert code != 0
    assert "bad options" in capsys.readouterr().err


def test_options_after_a_second_colon_name_the_option_syntax(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: ``--bots x.py:C:a=1:b=2`` said "bot file x.py:C not found"."""
    path = tmp_path / "mybot.py"
    path.write_text(
        "class C:\n"
        "    def __init__(self, a=0, b=0):\n"
        "        self.a, self.b = a, b\n"
        "    def act(self, observation, request):\n"
        "        return request.choices[0]\n"
    )
    with pytest.raises(ValueError, match=r"separated by commas, as in path\.py:Class:key=value,"):
        load_bot("cunegonda", f"{path}:C:a=1:b=2")
    assert load_bot("cunegonda", f"{path}:C:a=1,b=2").b == 2  # the syntax it names works
    code = main(["play", "cunegonda", "--bots", f"{path}:C:a=1:b=2,random,random,random"])
    err = capsys.readouterr().err
    assert code == 2 and "options come after one ':'" in err and "not found" not in err
