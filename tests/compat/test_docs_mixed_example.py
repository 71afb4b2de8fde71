"""docs/competitions.md's mixed-field example enters the names its pyhandel runner plays as.

Issue 35: the example ran the runner with ``--prefix kh0``, which names its bot ``kh00_simple``
(the runner's rule: prefix, position in ``--bots``, ``_``, kind), not the ``kh0_simple`` entered:
403 on every retry. The rule is read from the runner itself (``pyhandel_run.py``) when it is
there, else taken as documented.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT.parent / "shared" / "interop" / "pyhandel_run.py"


def _runner_names(prefix: str, bots: str) -> list[str]:
    if RUNNER.exists():  # the runner's own rule, so that a change to it fails here
        assert "name = f\"{args.prefix}{i}_{kind.split(':')[0]}\"" in RUNNER.read_text()
    return [f"{prefix}{i}_{kind.split(':')[0]}" for i, kind in enumerate(bots.split(","))]


def test_the_runner_plays_as_the_entered_names() -> None:
    text = (ROOT / "docs" / "competitions.md").read_text()
    block = text.split("How to run one:", 1)[1].split("```", 2)[1].replace("\\\n", " ")
    create = next(
        line for line in block.splitlines() if "tournament" in line and " create " in line
    )
    run = next(line for line in block.splitlines() if "pyhandel-bots run" in line)
    entrants = shlex.split(create)[shlex.split(create).index("--entrants") + 1].split(",")
    args = shlex.split(run)
    names = _runner_names(args[args.index("--prefix") + 1], args[args.index("--bots") + 1])
    assert names and set(names) <= set(entrants), (names, entrants)
    assert not any(re.fullmatch(r"kh\d\d_.*", n) for n in names)
