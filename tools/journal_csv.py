"""An arena journal as a small CSV: per game its deal, rotation, and each entry's place and score.

    python tools/journal_csv.py JOURNAL.jsonl > games.csv

A journal line also holds each game's decision-time histograms (kilobytes a game); the CSV keeps
what a paired comparison needs, with the tournament's identity as a first comment line. The
per-game tables in docs/strength-data/issue42/ were made with it.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as lines:
        tournament = json.loads(next(lines))["tournament"]
        games = {}
        for line in lines:
            try:
                game = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a stop
            games[(game["deal"], game["rotation"])] = game
    seats = tournament["seats"]
    print("# " + json.dumps(tournament))
    print("deal,rotation," + ",".join(f"place{e},score{e}" for e in range(seats)))
    for key in sorted(games):
        game = games[key]
        cells = []
        for entry in range(seats):
            seat = game["seating"].index(entry)
            cells.append(f"{game['places'][seat]},{game['scores'][seat]:g}")
        print(f"{key[0]},{key[1]}," + ",".join(cells))


if __name__ == "__main__":
    main()
