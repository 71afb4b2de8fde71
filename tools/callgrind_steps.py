"""Instructions per Kuhhandel env step or plain engine decision, for callgrind.

Runs the loops of ``cardtable bench --env`` (:func:`cardtable.rl.speed.measure_env`, or
:func:`~cardtable.rl.speed.measure_plain`: ``run_match`` with ``random`` bots) over the games of
seeds 0..N-1, after a warm-up game, inside ``functools.reduce``, so that callgrind counts only
them::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect=functools_reduce \\
        --callgrind-out-file=/dev/null .venv/bin/python tools/callgrind_steps.py env classic 10

prints the steps (or decisions) counted; divide callgrind's ``I refs`` by it. Identical runs give
identical counts (docs/rl.md, "Fifth round"). Mode ``env`` plays in a new environment (its caches
empty), ``env-used`` in one that has played N games of other seeds first (as ``cardtable bench
--env`` measures it: :func:`cardtable.rl.speed.compare`), ``plain`` the engine alone.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from cardtable.rl.aec import CardtableEnv
from cardtable.rl.speed import OTHER_GAMES, measure_env, measure_plain


def main() -> None:
    mode, rules, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seats = int(sys.argv[4]) if len(sys.argv) > 4 else (2 if rules == "master-duel" else 4)
    measure: Any = measure_env
    key = "env_steps"
    if mode == "plain":
        measure, key = measure_plain, "plain_decisions"
    measure("kuhhandel", rules, seats, 1, 1000)  # warm-up
    env = None
    if mode == "env-used":
        env = CardtableEnv("kuhhandel", rules, seats)
        measure_env("kuhhandel", rules, seats, games, OTHER_GAMES, env=env)
    runs: list[dict[str, Any]] = []

    def play(_a: int, _b: int) -> int:
        if env is not None:
            runs.append(measure_env("kuhhandel", rules, seats, games, 0, env=env))
        else:
            runs.append(measure("kuhhandel", rules, seats, games, 0))
        return 0

    functools.reduce(play, [0, 0])
    print(mode, rules, seats, key, runs[0][key])


if __name__ == "__main__":
    main()
