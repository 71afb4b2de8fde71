"""The paired difference (B - A) of one entry's win share between two arena journals.

    python tools/journal_pairs.py A.jsonl B.jsonl [ENTRY]

For two tournaments of twin games (the same seed, seats and rotations; the line-ups may differ,
as in a mirror line-up run once against one version of a bot and once against another), it
pairs the games both journals hold by deal and rotation and prints both win shares of entry
ENTRY (default 0) and the difference's 95% interval over deals (`cardtable arena --ab` does the
same for two versions of entry 0 played by one command). Used for issue #42 (docs/strength.md).
"""

from __future__ import annotations

import json
import math
import sys

from cardtable.arena.journal import outcome_from_json
from cardtable.arena.play import GameOutcome
from cardtable.arena.stats import mean_interval, win_credit


def load(path: str) -> dict[tuple[int, int], GameOutcome]:
    games = {}
    with open(path, encoding="utf-8") as lines:
        next(lines)  # the header
        for line in lines:
            try:
                outcome = outcome_from_json(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a line cut short by a stop
            games[(outcome.deal, outcome.rotation)] = outcome
    return games


def main() -> None:
    a_games, b_games = load(sys.argv[1]), load(sys.argv[2])
    entry = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    keys = sorted(set(a_games) & set(b_games))
    deals: dict[int, list[float]] = {}
    wins_a = wins_b = 0.0
    same = 0
    for key in keys:
        ga, gb = a_games[key], b_games[key]
        if ga.seating != gb.seating:
            raise SystemExit(f"game {key}: the two journals seat the entries differently")
        seat = ga.seating.index(entry)
        credit_a, credit_b = win_credit(ga.places, seat), win_credit(gb.places, seat)
        wins_a += credit_a
        wins_b += credit_b
        same += ga.scores == gb.scores
        deals.setdefault(key[0], []).append(credit_b - credit_a)
    diff = mean_interval([math.fsum(v) / len(v) for v in deals.values()])
    n = len(keys)
    print(
        f"{n} twin games, {len(deals)} deals: A {100 * wins_a / n:.1f}%, B {100 * wins_b / n:.1f}%;"
        f" B - A {100 * diff.mean:+.1f} points [{100 * diff.low:+.1f}, {100 * diff.high:+.1f}];"
        f" {same} games identical"
    )


if __name__ == "__main__":
    main()
