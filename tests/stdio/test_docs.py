"""docs/stdio-bots.md's example exchanges are from real games (issue 39): regenerated here and
compared, so a change to the protocol, the encodings or the kits that changes them fails."""

from __future__ import annotations

import os
import subprocess
import sys

from stdio_games import REPO


def test_the_docs_examples_are_what_the_adapter_and_the_kit_write_now() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "stdio_examples.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_docs_show_every_request_kind_of_both_games() -> None:
    text = (REPO / "docs" / "stdio-bots.md").read_text()
    kinds = ["turn", "bid", "sell_or_buy", "pay", "offer", "respond", "claim", "preempt"]
    kinds += ["rat", "divide", "pass", "play"]
    for kind in kinds:
        assert f'"kind":"{kind}","choices"' in text, kind
