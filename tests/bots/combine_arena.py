"""Combine ``cardtable arena --json`` outputs of independent chunks (different ``--seed``s).

    .venv/bin/python tests/bots/combine_arena.py out-s0.json out-s1.json ...

A long tournament on a shared machine is easier to run as chunks of whole deals with different
tournament seeds (the deals of different seeds are independent). This prints, per entry, the
combined games, wins, win share with its Wilson 95% interval, mean score and the paired
``vs field`` mean with a 95% interval (per-chunk standard errors recovered from the chunks'
t intervals and pooled by deal counts), and mean place.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return (centre - half) / den, (centre + half) / den


def combine(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for i, first in enumerate(reports[0]["entries"]):
        games = sum(r["entries"][i]["games"] for r in reports)
        wins = sum(r["entries"][i]["wins"] for r in reports)
        score = sum(r["entries"][i]["score"]["mean"] * r["entries"][i]["games"] for r in reports)
        place = sum(r["entries"][i]["mean_place"] * r["entries"][i]["games"] for r in reports)
        deals = 0
        vf = 0.0
        var = 0.0
        for r in reports:
            v = r["entries"][i]["vs_field"]
            n = v["n"]
            deals += n
            vf += v["mean"] * n
            se = (v["high"] - v["low"]) / (2 * 1.96) if v["high"] is not None else 0.0
            var += (se * n) ** 2
        vf /= max(deals, 1)
        se_all = math.sqrt(var) / max(deals, 1)
        low, high = wilson(wins, games)
        rows.append(
            {
                "bot": first["bot"],
                "games": games,
                "wins": wins,
                "win_share": wins / games,
                "low": low,
                "high": high,
                "score": score / games,
                "vs_field": vf,
                "vs_low": vf - 1.96 * se_all,
                "vs_high": vf + 1.96 * se_all,
                "place": place / games,
            }
        )
    return rows


def main() -> None:
    reports = [json.loads(Path(path).read_text()) for path in sys.argv[1:]]
    r0 = reports[0]
    games = sum(r["games"] for r in reports)
    seeds = ", ".join(str(r["seed"]) for r in reports)
    print(
        f"{r0['game']} {r0['rules']}, {r0['seats']} seats: {games} games "
        f"(seeds {seeds}; equal win share {100 * r0['equal_share']:.1f}%)"
    )
    print("| bot | games | wins | win share [95% CI] | mean score | vs field [95% CI] | place |")
    print("|---|---:|---:|---|---:|---|---:|")
    for row in combine(reports):
        print(
            f"| {row['bot']} | {row['games']} | {row['wins']:g} | "
            f"{100 * row['win_share']:.1f}% [{100 * row['low']:.1f}%, {100 * row['high']:.1f}%] | "
            f"{row['score']:.1f} | {row['vs_field']:+.1f} [{row['vs_low']:+.1f}, "
            f"{row['vs_high']:+.1f}] | {row['place']:.2f} |"
        )


if __name__ == "__main__":
    main()
