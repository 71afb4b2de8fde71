"""The `cardtable` command: play, replay, bench, the terminal seat, and the README's bot."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli import main
from cardtable.cli.human import TerminalPlayer
from cardtable.core import Record, Request
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        [
            "kuhhandel",
            "--rules",
            "classic",
            "--seats",
            "4",
            "--bots",
            "heuristic,random,random,random",
        ],
        ["kuhhandel", "--rules", "competition", "--seats", "5", "--bots", "random"],
        ["kuhhandel", "--rules", "master", "--seats", "6", "--bots", "heuristic"],
        ["kuhhandel", "--rules", "master-duel", "--seats", "2", "--bots", "heuristic,random"],
        ["cunegonda", "--rules", "short", "--bots", "heuristic,random,random,random"],
    ],
)
def test_play_json_result(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out = run(capsys, "play", *argv, "--seed", "7", "--json")
    data = json.loads(out)
    assert code == 0 and data["result"]["termination"] == "normal"
    assert sorted(data["result"]["places"])[0] == 0 and data["decisions"] > 0


def test_play_prints_a_readable_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "play", "kuhhandel", "--seats", "4", "--seed", "7")
    assert code == 0
    assert "draws the" in out and "Result (normal" in out and "money" in out


def test_record_and_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, _ = run(capsys, "play", "kuhhandel", "--seed", "3", "--record", str(path), "--quiet")
    assert code == 0 and Record.load(path).result is not None
    code, out = run(capsys, "replay", str(path))
    assert code == 0 and "MATCHES" in out
    data = json.loads(path.read_text())
    data["result"]["scores"][0] += 1  # tamper: the replay must notice
    path.write_text(json.dumps(data))
    code, out = run(capsys, "replay", str(path), "--quiet")
    assert code == 1 and "DOES NOT MATCH" in out


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    for game in ("kuhhandel", "cunegonda"):
        code, out = run(capsys, "bench", game, "--games", "5", "--json")
        data = json.loads(out)
        assert code == 0 and data["games"] == 5 and data["decisions_per_game"] > 50
        assert data["games_per_second"] > 0 and data["us_per_decision"] > 0
        # the build in use, as the engine module was loaded (tests run the editable, plain one;
        # test_compiled.py checks the compiled build's answer)
        state = sys.modules["cardtable.games.kuhhandel.state"]
        plain = (state.__file__ or "").endswith(".py")
        assert data["engine_build"] == ("pure Python" if plain else "compiled (mypyc)")


def test_bench_repeat_reports_the_fastest_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "bench", "kuhhandel", "--games", "3", "--repeat", "3", "--json")
    data = json.loads(out)
    each = data["games_per_second_each_run"]
    assert code == 0 and data["runs"] == 3 and len(each) == 3
    assert data["games_per_second"] == max(each)
    assert data["decisions_per_game"] > 50  # the same games each run: one run's count


def test_bad_arguments_give_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "kuhhandel", "--rules", "nope"]) == 2
    assert "unknown rule set 'nope'" in capsys.readouterr().err
    assert main(["play", "kuhhandel", "--seats", "7"]) == 2
    assert "3–5 seats" in capsys.readouterr().err
    assert main(["play", "kuhhandel", "--bots", "nobot"]) == 2
    assert "unknown bot 'nobot'" in capsys.readouterr().err


def scripted(monkeypatch: pytest.MonkeyPatch, answers: list[str]) -> None:
    it = iter(answers)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(it))


def test_terminal_seat_explains_bad_input_and_asks_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = K.new_game(K.CLASSIC, 3, 1)
    game.apply(0, A.AUCTION)
    person = TerminalPlayer("kuhhandel")
    person.game = game
    request = game.pending()[0]
    scripted(monkeypatch, ["lots", "5", "pass"])
    assert person.act(game.observe(request.seat), request) == A.PASS
    out = capsys.readouterr().out
    assert "Not understood" in out and "at least 10" in out
    assert len(game.history()) == 1  # checking input never touched the real game


def test_terminal_seat_cunegonda_cards_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.core import game_spec

    spec = game_spec("cunegonda")
    game = spec.new_game(spec.presets["short"], 4, 1)
    request = game.pending()[0]
    person = TerminalPlayer("cunegonda")
    person.game = game
    hand = game.observe(request.seat).to_json()["hand"]
    scripted(monkeypatch, ["ZZ", " ".join(hand[:2]), " ".join(hand[:3])])
    chosen = person.act(game.observe(request.seat), request)
    game.apply(request.seat, chosen)  # accepted by the engine


def test_readme_bot_in_a_dozen_lines_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block, "README shows a bot"
    path = tmp_path / "mybot.py"
    path.write_text(block.group(1))
    bots = f"{path}:CheapSkate,heuristic,random"
    code, out = run(capsys, "play", "kuhhandel", "--bots", bots, "--seed", "2", "--json")
    assert code == 0 and json.loads(out)["result"]["termination"] == "normal"


def test_request_is_a_plain_value() -> None:
    r: Any = Request(0, "turn", (A.AUCTION,), {})
    assert r.seat == 0 and r.kind == "turn" and r.choices == (A.AUCTION,)


def test_bench_frames_times_the_schema_checks(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "bench", "kuhhandel", "--frames", "--games", "1", "--json")
    data = json.loads(out)
    assert code == 0 and "jsonschema" in data["validator"]
    assert data["client_us_per_frame"] > data["client_json_us_per_frame"] > 0
    # both validators timed in the one run (the A/B of issue 34), the default one reported
    assert set(data["validators"]) == {"fast", "jsonschema"}
    assert data["client_us_per_frame"] == data["validators"]["fast"]["client_us_per_frame"]
    assert all(v["server_us_per_frame"] > 0 for v in data["validators"].values())
    assert data["server_frames"] > 100 and data["server_us_per_frame"] > 0
    # one observation per request frame, timed both ways
    requests = data["server_frames"] - data["server_events"]
    assert data["observations"] == requests
    assert data["observation_to_json_us"] > 0 and data["observation_from_json_us"] > 0


def test_bench_skeleton_plays_beside_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "bench", "kuhhandel", "--games", "5", "--skeleton", "--json")
    data = json.loads(out)
    assert code == 0 and data["skeleton_games_per_second"] > 0
    # the speeds are shown to 0.1 game/s, the ratio is of the unrounded speeds
    ratio = data["games_per_second"] / data["skeleton_games_per_second"]
    assert data["vs_skeleton"] == pytest.approx(ratio, rel=0.01, abs=0.002)
    assert data["skeleton_decisions_per_game"] > 200  # whole games, of about the engine's length
    assert main(["bench", "cunegonda", "--games", "1", "--skeleton"]) == 2
    assert "classic Kuhhandel with random bots only" in capsys.readouterr().err


def test_the_skeleton_plays_whole_classic_games() -> None:
    """The yardstick is a game, not an empty loop: seeded games that end, with scores."""
    from cardtable.cli import skeleton

    for seed in range(20):
        decisions, scores = skeleton.play(4, seed)
        assert decisions > 100 and len(scores) == 4
        assert sum(scores) > 0
    assert skeleton.play(4, 3) == skeleton.play(4, 3)  # seeded


def test_every_measurement_is_a_bench_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``cardtable bench server|analysis|analysis-latency|table`` are the cluster's, the
    analysis's, the live tables' and the browser table's benchmarks under one name; their options
    reach them."""
    from cardtable.cli import BENCHES

    for name, target in BENCHES.items():
        with pytest.raises(SystemExit) as exit_:
            main(["bench", name, "--help"])
        assert exit_.value.code == 0
        shown = capsys.readouterr().out
        assert shown.startswith(f"usage: cardtable {target[0]}"), (name, shown[:80])
        for option in target[1:]:
            assert option in shown
    assert main(["bench", "analysis", "--game", "nosuchgame"]) == 2
    assert "nosuchgame" in capsys.readouterr().err
