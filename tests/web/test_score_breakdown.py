"""The end screen's score breakdown (``scoreBreakdown`` in ``static/kuhhandel.js``) counts what the
engine counts (spec §7, classic and Master scoring).

The page explains each score from the result (quartets, money) and the final public board
(pedigree cards, rats): the quartets and their values, the sum times the number of quartets, the
pedigree bonus with and without its quartet, and the quartet a holder of every rat strikes out.
This test plays real classic and Master games to the end with the engine's bots, runs the page's
function in Node.js on each game's result, public view and rule set (JSON, as the page gets them)
and checks, per seat, that the page's own total equals the engine's score and that it strikes the
quartet the engine strikes. It skips when ``node`` is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cardtable.core import load_bot, run_match
from cardtable.games import kuhhandel

KUHHANDEL_JS = (
    Path(__file__).resolve().parents[2] / "src/cardtable/server/web/static/kuhhandel.js"
).as_uri()

NODE_SCRIPT = f"""
import {{ scoreBreakdown }} from {json.dumps(KUHHANDEL_JS)};
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {{
  const cases = JSON.parse(input);
  const out = cases.map((c) => scoreBreakdown(c.result, c.obs, c.rules)
    .map((r) => ({{ computed: r.computed, struck: r.struck, quartets: r.quartets }})));
  process.stdout.write(JSON.stringify(out));
}});
"""


def _games() -> list[tuple[Any, dict[str, Any]]]:
    """Finished games (the engine) and what the page gets at their end (JSON)."""
    out = []
    for preset, seats, seeds in (("classic", 4, 4), ("master", 4, 40), ("master-duel", 2, 6)):
        rules = kuhhandel.PRESETS[preset]
        for seed in range(seeds):
            game = kuhhandel.new_game(rules, seats, seed)
            # random bots take rats at random, so some seat holds every rat now and then
            bots = ["random", "heuristic"] if preset != "master" else ["random"]
            agents = [
                load_bot("kuhhandel", bots[(s + seed) % len(bots)], seed=seed * 10 + s)
                for s in range(seats)
            ]
            run_match(game, agents)
            case = {
                "result": game.result().to_json(),
                "obs": game.observe(None).to_json(),
                "rules": rules.to_json(),
            }
            out.append((game, case))
    return out


def test_the_page_counts_every_score_as_the_engine_does() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: kuhhandel.js cannot be run outside a browser")
    games = _games()
    run = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT],
        input=json.dumps([case for _, case in games]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    rows = json.loads(run.stdout)
    struck_seen = 0
    pedigrees_seen = 0
    for (game, case), seats in zip(games, rows, strict=True):
        assert case["result"]["termination"] == "normal"
        for s, row in enumerate(seats):
            assert row["computed"] == game.score(s), (case["rules"]["name"], s, row)
            assert row["struck"] == game.struck_quartet(s), (s, row)
            struck_seen += row["struck"] is not None
            pedigrees_seen += bool(case["obs"]["pedigrees"][s])
    # the games showed the rare parts of the count (a test that saw none proves nothing)
    assert struck_seen >= 1 and pedigrees_seen >= 10, (struck_seen, pedigrees_seen)
