"""`cardtable replay --seat N --at K`: a seat's view and request at one of its decisions, asking a
bot again (`--ask`), stepping through a game (`--step`). The HTTP form: tests/server/
test_decision_api.py."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cardtable.cli import main
from cardtable.cli.replay import step
from cardtable.core import Record, load_bot, replay
from cardtable.core.decision import ask_again, decision_at, decision_indices

ASKER = '''
import logging

class Echo:
    """Deterministic: bids the minimum up to 20, else the first choice; says why."""

    def act(self, observation, request):
        info = request.info or {}
        print(f"asked {request.kind}")
        logging.getLogger("echo").info("thinking about %s", request.kind)
        if request.kind == "bid":
            from cardtable.games.kuhhandel import actions as A
            return A.Bid(info["min"]) if info["min"] <= min(20, info["money"]) else A.PASS
        if request.choices:
            return request.choices[0]
        from cardtable.core import load_bot
        return load_bot("kuhhandel", "heuristic", seed=0).act(observation, request)
'''


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "game.json"
    code, _ = run(
        capsys, "play", "kuhhandel", "--seed", "3", "--bots", "heuristic,random,random",
        "--record", str(path), "--quiet",
    )  # fmt: skip
    assert code == 0
    return path


def test_at_prints_the_seats_view_and_request_as_the_engine_gives_them(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = Record.load(recorded)
    for seat, number in ((1, 1), (1, 7), (0, 12), (2, 30)):
        code, out = run(capsys, "replay", str(recorded), "--seat", str(seat), "--at", str(number),
                        "--json")  # fmt: skip
        assert code == 0
        shown = json.loads(out)
        index = decision_indices(record, seat)[number - 1]
        game = replay(record, upto=index)  # the engine itself, just before that action
        request = next(r for r in game.pending() if r.seat == seat)
        assert shown["observation"] == game.observe_json(seat)
        assert shown["request"] == game.request_to_json(request)
        assert shown["recorded"] == record.actions[index][1]
        assert shown["upto"] == index and shown["decision"] == number
        # only what this seat may know: its own notes, the others' counts
        assert shown["observation"]["wallet"] is not None
        code, text = run(capsys, "replay", str(recorded), "--seat", str(seat), "--at", str(number))
        obs = game.observe(seat)
        assert f"notes {list(obs.wallet)} = {obs.money} (yours)" in text
        for other in range(record.seats):
            if other != seat:
                assert f"{obs.note_counts[other]} notes (values hidden)" in text
        assert f"Request: {request.kind}" in text
        assert f"decision {number} of {len(decision_indices(record, seat))}" in text


def test_at_out_of_range_is_a_clear_error(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["replay", str(recorded), "--seat", "1", "--at", "100000"])
    assert code == 2
    assert "--at counts them from 1" in capsys.readouterr().err
    assert main(["replay", str(recorded), "--at", "3"]) == 2
    assert main(["replay", str(recorded), "--seat", "9", "--at", "3"]) == 2


def test_asking_the_recorded_bot_again_gives_the_recorded_action(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = Record.load(recorded)
    # the random bot is deterministic given its seed: play stored it, and the earlier decisions
    # are asked again first, so its generator is where it was
    for number in (1, 9, 40):
        code, out = run(capsys, "replay", str(recorded), "--seat", "2", "--at", str(number),
                        "--ask", "random", "--json")  # fmt: skip
        asked = json.loads(out)["asked"]
        assert code == 0 and asked["same"], asked
    answer = ask_again(record, 0, 20, load_bot("kuhhandel", "heuristic", seed=0))
    assert answer.same and answer.action == answer.decision.recorded


def test_ask_shows_the_bots_answer_and_what_it_printed(
    tmp_path: Path, recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "echo.py"
    bot.write_text(ASKER)
    record = Record.load(recorded)
    seat = 1
    number = next(
        n + 1
        for n, i in enumerate(decision_indices(record, seat))
        if decision_at(record, seat, n + 1).request.kind == "bid"
    )
    code, out = run(capsys, "replay", str(recorded), "--seat", str(seat), "--at", str(number),
                    "--ask", f"{bot}:Echo")  # fmt: skip
    assert code == 0
    assert "Asked again: " in out and "Recorded answer: " in out
    assert "| asked bid" in out and "| INFO echo: thinking about bid" in out
    assert out.count("asked bid") == 1  # earlier decisions' prints are not shown


def test_step_walks_forward_and_back(recorded: Path) -> None:
    record = Record.load(recorded)
    out = io.StringIO()
    step(record, 1, io.StringIO("\nn\n\np\nbanana\nq\n"), out)
    text = out.getvalue()
    assert "[0/" in text and "[3/" in text and "(back to before action 3)" in text
    assert "decision 1 of" in text  # seat 1's first decision shown before it is taken
    assert "Enter or n: next action, p: one back, q: quit" in text
    # to the end: the final table
    out = io.StringIO()
    step(record, None, io.StringIO("\n" * (len(record.actions) + 1)), out)
    assert "Result (normal" in out.getvalue()


def test_arena_records_keep_the_seeds_so_ask_reproduces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    code = main(
        ["arena", "cunegonda", "--rules", "short", "--bots", "random", "--seats", "4",
         "--games", "4", "--records", str(records), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    capsys.readouterr()
    path = sorted(records.glob("*.json"))[1]
    code, out = run(capsys, "replay", str(path), "--seat", "3", "--at", "12", "--ask", "random")
    assert code == 0 and "the same as recorded" in out
    assert "Your hand: " in out and "Request: play" in out


def test_decision_at_takes_a_record_its_json_or_its_path(recorded: Path) -> None:
    """Issue 35: ``decision_at(json.load(f), ...)`` failed with ``'dict' object has no attribute
    'seats'``; a record, its JSON dict and its path all work, anything else names the calls."""
    record = Record.load(recorded)
    expected = decision_at(record, 1, 7).to_json()
    assert decision_at(json.loads(recorded.read_text()), 1, 7).to_json() == expected
    assert decision_at(recorded, 1, 7).to_json() == expected
    assert decision_at(str(recorded), 1, 7).to_json() == expected
    assert decision_indices(json.loads(recorded.read_text()), 1) == decision_indices(record, 1)
    with pytest.raises(TypeError, match=r"Record\.load\(path\)"):
        decision_at(recorded.read_bytes(), 1, 7)  # type: ignore[arg-type]


def test_lang_says_the_decision_and_the_steps_in_the_catalogs_language(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--lang de` as `cardtable play --lang`: the decision, the view and the steps in German
    (the catalog's replay.* and the games' own words), the request's codes as the bot got them."""
    asked = ("replay", str(recorded), "--seat", "1", "--at", "7", "--lang")
    code, english = run(capsys, *asked, "en")
    code_de, german = run(capsys, *asked, "de")
    assert code == code_de == 0
    assert "decision 7 of" in english and "Recorded answer: " in english
    assert "Entscheidung 7 von" in german and "Aufgezeichnete Antwort: " in german
    assert "Anfrage: " in german and "decision 7" not in german and "Request:" not in german
    # the request's kind and the recorded answer are codes: the same in both languages
    assert english.split("Request: ")[1].split()[0] == german.split("Anfrage: ")[1].split()[0]
    assert english.split("Recorded answer: ")[1] == german.split("Aufgezeichnete Antwort: ")[1]
    record = Record.load(recorded)
    out = io.StringIO()
    step(record, 1, io.StringIO("\nn\n\np\nbanana\nq\n"), out, "fr")
    text = out.getvalue()
    assert "(retour avant l’action 3)" in text and "décision 1 sur" in text
    assert "Entrée ou n : action suivante, p : une en arrière, q : quitter" in text
    assert "next:" not in text and "ensuite :" in text


LOWBALL = '''
class Lowball:
    """Bids 1 at every bid: under every auction's minimum, so the engine refuses it."""

    def act(self, observation, request):
        from cardtable.games.kuhhandel import actions as A
        return A.Bid(1)
'''


def test_a_refused_answer_is_said_in_the_catalogs_language(
    tmp_path: Path, recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's refusal of the answer asked again names its rule: `--lang de` says it from
    the German catalog (refusal.kuhhandel.bid_too_low), not in the engine's English."""
    from cardtable.i18n import translate

    bot = tmp_path / "lowball.py"
    bot.write_text(LOWBALL)
    record = Record.load(recorded)
    seat = 1
    number = next(
        n + 1
        for n, i in enumerate(decision_indices(record, seat))
        if decision_at(record, seat, n + 1).request.kind == "bid"
    )
    low = decision_at(record, seat, number).request.info["min"]
    code, out = run(capsys, "replay", str(recorded), "--seat", str(seat), "--at", str(number),
                    "--ask", f"{bot}:Lowball", "--lang", "de")  # fmt: skip
    assert code == 0
    why = translate("de", "refusal.kuhhandel.bid_too_low", low=low, amount=1)
    assert translate("de", "replay.refused", problem=why) in out, out
    assert "a bid must be" not in out
