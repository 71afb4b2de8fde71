"""Shared by tests/stdio: misbehaving programs and one in-process game with a program seated."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from cardtable.core import Game, MatchLog, game_spec, load_bot, run_match

REPO = Path(__file__).resolve().parents[2]
KITS = REPO / "examples" / "stdio"

#: One program that answers like the Python starter kit until its request number ``at`` and then
#: misbehaves as ``mode`` says (one of the modes below).
MISBEHAVING = r"""
import json, sys, time
sys.path.insert(0, {kit!r})
from bot import choose
mode, at = sys.argv[1], int(sys.argv[2])
asked = 0
def say(message):
    sys.stdout.write(json.dumps(message) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        say({{"type": "ready", "name": "misbehaving-" + mode}})
    elif message["type"] == "bye":
        break
    elif message["type"] == "request":
        asked += 1
        action = choose(message["observation"], message["request"])
        if asked == at:
            if mode == "crash":
                sys.stderr.write("about to fail\nTraceback: boom at request %d\n" % asked)
                sys.stderr.flush()
                sys.exit(3)
            if mode == "extra":  # its answer, and one more line nobody asked for
                say({{"type": "action", "id": message["id"], "action": action}})
            if mode == "garbage":
                sys.stdout.write("I think I will bid 10\n"); sys.stdout.flush()
                continue
            if mode == "slow":
                time.sleep(float(sys.argv[3]))
            if mode == "stuck":
                time.sleep(3600)
            if mode == "illegal":
                action = {{"kind": "nonsense"}} if message["request"]["choices"] is None else (
                    {{"kind": "claim", "count": 99}})
            if mode == "long_line":
                sys.stdout.write("x" * 200_000); sys.stdout.flush(); time.sleep(3600)
            if mode == "stderr_flood":
                chunk = "spam " * 2000 + "\n"
                while True:
                    sys.stderr.write(chunk)
            if mode == "stdout_flood":
                while True:
                    sys.stdout.write('{{"type":"action","action":{{"kind":"pass"}}}}\n')
        say({{"type": "action", "id": message["id"], "action": action}})
"""


def misbehaving(tmp_path: Path, mode: str, at: int, *extra: str, options: str = "") -> str:
    """The ``cmd:`` reference of a program that misbehaves as ``mode`` at request ``at``."""
    script = tmp_path / f"misbehaving_{mode}.py"
    script.write_text(MISBEHAVING.format(kit=str(KITS / "python")))
    argv = shlex.join([sys.executable, str(script), mode, str(at), *extra])
    return f"cmd[{options}]:{argv}" if options else f"cmd:{argv}"


def python_kit(options: str = "") -> str:
    argv = shlex.join([sys.executable, str(KITS / "python" / "bot.py")])
    return f"cmd[{options}]:{argv}" if options else f"cmd:{argv}"


def play(
    game_name: str,
    ref: str,
    *,
    rules: str | None = None,
    seats: int = 3,
    seed: int = 1,
    seat: int = 0,
    **options: Any,
) -> tuple[Game, MatchLog]:
    """One game with the program at ``seat``, random bots elsewhere, random as the fallback."""
    spec = game_spec(game_name)
    game = spec.new_game(spec.resolve_rules(rules), seats, seed)
    agents = [load_bot(game_name, "random", seed=s) for s in range(seats)]
    agents[seat] = load_bot(game_name, ref, **options)
    log = MatchLog()
    try:
        run_match(game, agents, fallback=lambda s: load_bot(game_name, "random", seed=99), log=log)
    finally:
        close = getattr(agents[seat], "close", None)
        if close is not None:
            close()
    return game, log
