"""``cardtable bench GAME --bots cmd:...`` reports a program's cost per decision beside the same
rule in process (issue 39): both sides play the same decisions of the same games."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from stdio_games import KITS

from cardtable.cli import main


def test_bench_reports_the_adapters_overhead_per_decision(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = shlex.join([sys.executable, str(KITS / "python" / "bot.py")])
    argv = ["bench", "kuhhandel", "--bots", f"cmd:{command},heuristic", "--seats", "3"]
    assert main([*argv, "--games", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["program_decisions"] == out["python_decisions"] > 0
    assert out["program_us_per_decision"] > 0 and out["python_us_per_decision"] > 0
    assert "adapter_overhead_us_per_decision" in out
