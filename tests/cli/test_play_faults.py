"""`cardtable play` names the seat, the bot and the request of a failed decision, offers the
arena's --fallback and --deadline, and exits with its own code (3; 2 is a bad argument)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardtable.cli import main
from cardtable.cli.play import EXIT_BOT_FAILED
from cardtable.games.kuhhandel.actions import not_an_action

BOTS = """
import time


class Banana:
    def act(self, observation, request):
        return "banana"


class Sleepy:
    def act(self, observation, request):
        time.sleep(2)
        return request.choices[0]


class SlowOnce:
    def __init__(self, seed=0):
        from cardtable.core import load_bot
        self.inner = load_bot("kuhhandel", "random", seed=seed)
        self.first = True

    def act(self, observation, request):
        if self.first:
            self.first = False
            time.sleep(2.2)
        return self.inner.act(observation, request)


class Raiser:
    def act(self, observation, request):
        raise RuntimeError("oops")
"""

BANANA = not_an_action("banana").reason


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "bad.py").write_text(BOTS)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "bad.py"


def test_a_malformed_action_names_seat_bot_and_request_and_exits_3(
    bots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["play", "kuhhandel", "--bots", "random,bad.py:Banana,random", "--quiet",
                 "--record", "partial.json"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == EXIT_BOT_FAILED == 3
    assert "seat 1 (Banana-1, bot bad.py:Banana) failed its " in err
    assert f"invalid: {BANANA}" in err
    assert 'the request: {"seat": 1, "kind": ' in err
    assert "--fallback heuristic" in err
    assert "cardtable replay partial.json --seat 1 --step" in err
    assert json.loads((bots.parent / "partial.json").read_text())["result"] is None


def test_fallback_answers_and_the_game_goes_on(
    bots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["play", "kuhhandel", "--bots", "bad.py:Raiser,random,random", "--quiet",
                 "--fallback", "heuristic"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "faults of seat 0 (Raiser-0, bot bad.py:Raiser): " in out
    line = BOTS.splitlines().index('        raise RuntimeError("oops")') + 1
    assert f"raised on turn: RuntimeError: oops (at bad.py:{line} in act)" in out
    code = main(["play", "kuhhandel", "--bots", "bad.py:Banana,random,random", "--json",
                 "--fallback", "random"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["faults"]
    assert {f["category"] for f in data["faults"]} == {"invalid"}
    assert data["faults"][0]["reason"] == BANANA and data["faults"][0]["seat"] == 0


def test_a_sleeping_bot_meets_the_deadline(bots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "kuhhandel", "--bots", "bad.py:Sleepy,random,random", "--quiet",
                 "--deadline", "0.2"])  # fmt: skip
    assert code == 3
    assert "timeout: DecisionTimeout: no answer within 0.2 s" in capsys.readouterr().err
    # with a fallback: the first late decision is a timeout, then the bot is abandoned
    code = main(["play", "kuhhandel", "--bots", "bad.py:Sleepy,random,random", "--quiet",
                 "--deadline", "0.2", "--fallback", "random"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "timeout 1" in out and "replaced" in out


def test_a_slow_bot_within_the_deadline_gets_a_warning(
    bots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["play", "kuhhandel", "--bots", "bad.py:SlowOnce,random,random", "--quiet"])
    assert code == 0
    err = capsys.readouterr().err  # 2.2 s or more on a loaded machine
    assert re.search(r"took \d+\.\d s for its slowest decision; a server gives 2 s", err), err


def test_bad_arguments_still_exit_2(bots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "kuhhandel", "--bots", "random", "--fallback", "nobody"]) == 2
    assert main(["play", "kuhhandel", "--bots", "random", "--deadline", "-1"]) == 2


def test_the_engine_and_the_client_codec_say_the_same_about_banana() -> None:
    from cardtable.client.seat import GameCodec
    from cardtable.core import InvalidAction
    from cardtable.games import kuhhandel

    game = kuhhandel.new_game(kuhhandel.CLASSIC, 3, 0)
    with pytest.raises(InvalidAction) as local:
        game.apply(0, "banana")
    codec = GameCodec("kuhhandel", kuhhandel.CLASSIC.to_json(), 3)  # what the client encodes with
    with pytest.raises(InvalidAction) as remote:
        codec.action_to_json("banana")
    assert local.value.reason == remote.value.reason == BANANA


def test_the_arena_report_names_the_line_that_raised(
    bots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["arena", "kuhhandel", "--bots", "bad.py:Raiser,random,random", "--games", "3",
                 "--no-progress", "--deadline", "2"])  # fmt: skip
    out = capsys.readouterr().out
    line = BOTS.splitlines().index('        raise RuntimeError("oops")') + 1
    assert code == 0
    assert f"raised on turn: RuntimeError: oops (at bad.py:{line} in act)" in out
