"""Instructions per Kuhhandel env step or plain engine decision, for callgrind.

The measured loop runs inside ``functools.reduce``, so that callgrind counts only it::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect=functools_reduce \\
        --callgrind-out-file=/dev/null .venv/bin/python tools/callgrind_steps.py env classic 10

prints the steps (env: steps of the uniform masked policy of ``measure_env``; plain: engine
decisions of ``run_match`` with ``random`` bots) of the games of seeds 0..N-1, after a warm-up
game; divide callgrind's ``I refs`` by it. Identical runs give identical counts (docs/rl.md,
"Fifth round").
"""

from __future__ import annotations

import functools
import random
import sys
from typing import Any


def main() -> None:
    mode, rules, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seats = int(sys.argv[4]) if len(sys.argv) > 4 else (2 if rules == "master-duel" else 4)
    counted = [0]
    if mode == "env":
        from cardtable.rl.aec import CardtableEnv

        env = CardtableEnv("kuhhandel", rules, seats)
        rng = random.Random(0)

        def play(_a: int, _b: int) -> int:
            for g in range(games):
                env.reset(seed=g)
                for _agent in env.agent_iter():
                    obs, _r, terminated, truncated, _info = env.last()
                    if terminated or truncated:
                        env.step(None)
                        continue
                    legal = obs["action_mask"].nonzero()[0]
                    env.step(int(legal[int(rng.random() * len(legal))]))
                    counted[0] += 1
            return 0

        env.reset(seed=1000)
    else:
        from cardtable.core.match import run_match
        from cardtable.core.registry import game_spec, load_bot

        spec = game_spec("kuhhandel")
        ruleset = spec.resolve_rules(rules)

        def bots(g: int) -> list[Any]:
            return [load_bot("kuhhandel", "random", seed=g * 1000 + s) for s in range(seats)]

        def play(_a: int, _b: int) -> int:
            for g in range(games):
                match = spec.new_game(ruleset, seats, g)
                run_match(match, bots(g))
                counted[0] += len(match.history())
            return 0

        run_match(spec.new_game(ruleset, seats, 1000), bots(1000))
    functools.reduce(play, [0, 0])
    print(mode, rules, seats, "steps" if mode == "env" else "decisions", counted[0])


if __name__ == "__main__":
    main()
