"""Each fault kind of a program bot (issue 39): the right fault, the game goes on, nothing hangs.

The programs are small Python scripts (tests/stdio/stdio_games.py) that play like the starter kit
until one request and then crash, write garbage, sleep past the deadline, answer illegally or
flood; every test plays the whole game to its end with the fallback answering for them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from stdio_games import misbehaving, play

from cardtable.stdio.program import SPARE_LINES

pytestmark = pytest.mark.timeout(120)


def test_a_crash_mid_game_names_the_exit_code_and_last_stderr_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    game, log = play("kuhhandel", misbehaving(tmp_path, "crash", 3))
    assert game.is_over()
    first = log.faults[0]
    assert first.error == "ProgramCrashed"
    assert "exit code 3" in first.reason
    assert "boom at request 3" in first.reason
    # the rest of its decisions are forfeited to the fallback, each a fault saying why
    assert log.faults[1:] and {f.error for f in log.faults[1:]} == {"ProgramGone"}
    assert all(f.seat == 0 for f in log.faults)


def test_a_crashed_program_is_started_again_for_the_next_game(tmp_path: Path) -> None:
    ref = misbehaving(tmp_path, "crash", 3)
    for seed in (1, 2):
        game, log = play("kuhhandel", ref, seed=seed)
        assert game.is_over() and log.faults[0].error == "ProgramCrashed"


def test_an_answer_written_twice_is_skipped_by_its_id_and_the_answers_stay_in_step(
    tmp_path: Path,
) -> None:
    """The second copy carries an earlier request's id: skipped, never the next answer."""
    game, log = play("kuhhandel", misbehaving(tmp_path, "extra", 2))
    assert game.is_over()
    assert log.faults == []


def test_a_garbage_line_is_shown_and_is_one_fault(tmp_path: Path) -> None:
    game, log = play("kuhhandel", misbehaving(tmp_path, "garbage", 2))
    assert game.is_over()
    assert [f.error for f in log.faults] == ["NotAMessage"]
    assert "I think I will bid 10" in log.faults[0].reason
    assert "not JSON" in log.faults[0].reason


def test_an_answer_past_the_deadline_is_late_with_the_deadline_and_then_skipped(
    tmp_path: Path,
) -> None:
    # deadline 2 s, the answer 3 s late: the next request's 2 s are ample for the next answer
    ref = misbehaving(tmp_path, "slow", 2, "3", options="deadline=2")
    game, log = play("kuhhandel", ref)
    assert game.is_over()
    assert [f.error for f in log.faults] == ["ProgramLate"]
    assert "deadline of 2000 ms" in log.faults[0].reason


def test_a_stuck_program_is_killed_after_two_late_answers_and_nothing_hangs(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    game, log = play("kuhhandel", misbehaving(tmp_path, "stuck", 2, options="deadline=0.5"))
    assert game.is_over()
    assert [f.error for f in log.faults[:2]] == ["ProgramLate", "ProgramLate"]
    assert {f.error for f in log.faults[2:]} <= {"ProgramGone"}
    assert time.monotonic() - started < 60


def test_an_illegal_answer_lists_the_legal_choices(tmp_path: Path) -> None:
    # the first request of a classic game is a turn: choices [auction]; a claim is not one
    game, log = play("kuhhandel", misbehaving(tmp_path, "illegal", 1))
    assert game.is_over()
    assert [f.error for f in log.faults] == ["IllegalAction"]
    assert 'legal: {"kind":"auction"}' in log.faults[0].reason


def test_an_answer_that_is_no_action_of_the_game_is_invalid(tmp_path: Path) -> None:
    game, log = play("cunegonda", misbehaving(tmp_path, "illegal", 1), seats=4)
    assert game.is_over()
    assert [f.error for f in log.faults] == ["InvalidAction"]
    assert "nonsense" in log.faults[0].reason


@pytest.mark.parametrize("mode", ["long_line", "stderr_flood", "stdout_flood"])
def test_a_flooding_program_is_cut_off(tmp_path: Path, mode: str) -> None:
    game, log = play("kuhhandel", misbehaving(tmp_path, mode, 2))
    assert game.is_over()
    first = log.faults[0]
    if mode == "stdout_flood":
        # lines read before the count of unasked ones passes SPARE_LINES are taken as answers
        # (each a fault of its own when wrong); on a loaded machine the flooding program itself
        # may be slow to write, so how many is not fixed
        first = next(f for f in log.faults if f.error == "ProgramFlooded")
        before = log.faults[: log.faults.index(first)]
        assert {f.error for f in before} <= {"IllegalAction", "NotAMessage"}
        assert f"({SPARE_LINES} spare)" in first.reason
    assert first.error == "ProgramFlooded", log.faults
    assert "cut off" in first.reason
    assert {f.error for f in log.faults[log.faults.index(first) + 1 :]} <= {"ProgramGone"}


def test_a_program_that_cannot_start_faults_on_its_first_decision(tmp_path: Path) -> None:
    game, log = play("kuhhandel", f"cmd:{tmp_path / 'no-such-program'}")
    assert game.is_over()
    assert log.faults[0].error == "ProgramCrashed"
    assert "could not start" in log.faults[0].reason


def test_the_arena_counts_a_programs_faults_by_their_kind(tmp_path: Path) -> None:
    """A program's crash is a decision fault in the arena's report (``faults.decisions``),
    categorised ``crashed``, and its later decisions ``replaced``."""
    import json
    import subprocess
    import sys

    report = tmp_path / "report.json"
    ref = misbehaving(tmp_path, "crash", 3)
    cardtable = str(Path(sys.executable).with_name("cardtable"))
    argv = [cardtable, "arena", "kuhhandel", "--bots", f"{ref},random", "--games", "1"]
    done = subprocess.run(
        [*argv, "--json", str(report), "--no-progress"], capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    entry = next(e for e in json.loads(report.read_text())["entries"] if e["ref"] == ref)
    assert entry["faults"]["by_category"]["crashed"] == 3  # one per game: 3 rotations
    assert entry["faults"]["decisions"] == 3
    assert entry["faults"]["by_category"]["replaced"] > 0


@pytest.mark.parametrize("busy", [False, True], ids=["few-descriptors", "past-1023"])
def test_a_program_that_stops_reading_its_input_never_stalls_the_writer(
    tmp_path: Path, busy: bool
) -> None:
    """Writing to a program is bounded too: a full pipe past the timeout is a TimeoutError.
    ``past-1023``: in a busy process (a server, a test worker with browsers: CI found it there)
    the program's pipe gets a descriptor above 1023, which ``select.select`` refuses."""
    import resource
    import sys

    from cardtable.stdio.program import Program
    from cardtable.stdio.spec import ProgramSpec

    held: list[int] = []
    if busy:
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1200:
            pytest.skip("this process may not open 1,100 files")
        held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        program = Program(ProgramSpec((sys.executable, "-c", "import time; time.sleep(60)")))
        try:
            started = time.monotonic()
            with pytest.raises(TimeoutError, match="not read"):
                program.send("x" * 1_000_000, timeout=0.5)
            assert time.monotonic() - started < 10
        finally:
            program.close(grace=0)
    finally:
        for fd in held:
            os.close(fd)
