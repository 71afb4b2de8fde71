"""The stdio protocol as a program sees it (issue 39): every line under its schema, only the
seat's own information, one process per game or per match as the program asks."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from stdio_games import play, python_kit

from cardtable.core import game_spec, load_bot
from cardtable.protocol import validate
from cardtable.stdio import parse_program_ref
from cardtable.stdio.messages import ADAPTER_SCHEMAS, PROGRAM_SCHEMAS


def _lines(log: Path, direction: str) -> list[dict]:
    return [
        json.loads(line[2:])
        for line in log.read_text().splitlines()
        if line.startswith(direction + " ")
    ]


@pytest.mark.parametrize(
    ("game_name", "rules", "seats"),
    [("kuhhandel", "classic", 3), ("kuhhandel", "master", 4), ("cunegonda", None, 4)],
)
def test_a_program_gets_exactly_its_seats_observations_and_events(
    tmp_path: Path, game_name: str, rules: str | None, seats: int
) -> None:
    """No hidden information through the adapter: the lines the program received are, one for
    one, ``observe(seat)`` at each of its decisions and the events ``events_for(seat)``."""
    log = tmp_path / "lines.log"
    seat = 1
    game, faults = play(
        game_name, python_kit(f"log={log}"), rules=rules, seats=seats, seat=seat, seed=7
    )
    assert game.is_over() and not faults.faults
    sent = _lines(log, ">")
    requests = [m for m in sent if m["type"] == "request"]
    events = [m["event"] for m in sent if m["type"] == "event"]
    # the same game again, step by step: what the seat could see at each of its decisions
    spec = game_spec(game_name)
    again = spec.new_game(game.rules, seats, game.seed)
    expected = []
    for who, action in game.history():
        if again.pending()[0].seat == seat == who:
            expected.append(json.loads(json.dumps(again.observe_json(seat))))
        again.apply(who, action)
    assert [r["observation"] for r in requests] == expected
    assert events == json.loads(
        json.dumps([{"kind": e.kind, "data": e.data} for e in game.events_for(seat)])
    )
    hidden = [e for e in game.events() if not e.visible_to(seat)]
    if game_name == "kuhhandel":
        assert hidden, "the test needs events the seat may not see"


def test_every_line_both_ways_matches_the_protocols_schemas(tmp_path: Path) -> None:
    log = tmp_path / "lines.log"
    play("kuhhandel", python_kit(f"log={log}"), rules="master", seats=4)
    sent, received = _lines(log, ">"), _lines(log, "<")
    assert sent[0]["type"] == "hello" and sent[0]["protocol"] == "cardtable-stdio"
    assert {m["type"] for m in sent} == {"hello", "request", "event", "game_end"}
    for message in sent:
        validate(message, ADAPTER_SCHEMAS[message["type"]])
    for message in received:
        validate(message, PROGRAM_SCHEMAS[message["type"]])
    assert received[0]["type"] == "ready"
    assert len(received) == 1 + sum(m["type"] == "request" for m in sent)


COUNTER = r"""
import json, sys
sys.path.insert(0, {kit!r})
from bot import choose
games = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        games += 1
        print(json.dumps({{"type": "ready", "name": "game-%d" % games, "keep": sys.argv[1]}}),
              flush=True)
    elif m["type"] == "request":
        print(json.dumps({{"type": "action", "action": choose(m["observation"], m["request"])}}),
              flush=True)
    elif m["type"] == "bye":
        sys.stderr.write("bye after %d games\n" % games)
        break
"""


@pytest.mark.parametrize(("keep", "second"), [("match", "game-2"), ("game", "game-1")])
def test_a_program_is_kept_for_the_match_or_started_per_game_as_it_says(
    tmp_path: Path, keep: str, second: str
) -> None:
    script = tmp_path / "counter.py"
    script.write_text(COUNTER.format(kit=str(Path(__file__).parents[2] / "examples/stdio/python")))
    ref = "cmd:" + shlex.join([sys.executable, str(script), keep])
    names = []
    for seed in (1, 2):
        spec = game_spec("kuhhandel")
        game = spec.new_game(spec.resolve_rules(None), 3, seed)
        agents = [load_bot("kuhhandel", ref), *(load_bot("kuhhandel", "random") for _ in "xy")]
        from cardtable.core import run_match

        run_match(game, agents)
        names.append(agents[0].name)
    assert names == ["game-1", second]


@pytest.mark.parametrize(
    ("ref", "argv", "cwd"),
    [
        ("cmd:./mybot --depth 3", ("./mybot", "--depth", "3"), None),
        ('cmd:"node bot.js"', ("node", "bot.js"), None),
        ("cmd[cwd=/tmp,deadline=2]:node bot.js", ("node", "bot.js"), "/tmp"),
    ],
)
def test_program_references(ref: str, argv: tuple[str, ...], cwd: str | None) -> None:
    spec = parse_program_ref(ref)
    assert spec.argv == argv and spec.cwd == cwd


@pytest.mark.parametrize(
    "ref", ["cmd:", "cmd[cwd=/tmp:x", "cmd[colour=red]:x", "cmd[deadline=-1]:x", "cmd:'x"]
)
def test_a_bad_program_reference_says_what_is_wrong(ref: str) -> None:
    with pytest.raises(ValueError, match="program|command"):
        parse_program_ref(ref)


def test_a_bot_list_keeps_a_programs_bracketed_options_together() -> None:
    from cardtable.core import split_bot_list

    assert split_bot_list("cmd[cwd=/tmp,deadline=2]:./b,heuristic") == [
        "cmd[cwd=/tmp,deadline=2]:./b",
        "heuristic",
    ]


def test_replay_ask_puts_a_recorded_decision_to_a_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardtable replay --ask cmd:...``: the program answers the recorded request (issue 39)."""
    from cardtable.cli import main

    ref = python_kit()
    record = tmp_path / "game.json"
    argv = ["play", "kuhhandel", "--bots", f"{ref},random,random", "--seed", "4", "--quiet"]
    assert main([*argv, "--record", str(record)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record), "--seat", "0", "--at", "3", "--ask", ref]) == 0
    out = capsys.readouterr().out
    assert "the same as recorded" in out, out
