"""One source of sentences for the terminal and the browser (issue 38): the catalogs.

``static/describe.js`` (the table's, the watch page's and the replay's log) builds the same
catalog keys with the same arguments as the engines' ``describe_event`` and renders them with the
same catalogs. This test plays real games of every Kuhhandel preset and of Cunegonda, runs
``describe.js`` in Node.js on their events (public and private, as the server sends them) with
the English and the German catalog, and compares every line with what the Python side renders
(``cardtable.i18n.render``) in that language. It replaces the hand-kept English mirror: a
sentence is written once, in the catalogs. It skips when ``node`` is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cardtable.core import load_bot, run_match
from cardtable.games import cunegonda, kuhhandel
from cardtable.games.cunegonda.describe import describe_event as describe_cunegonda
from cardtable.games.kuhhandel.describe import describe_event as describe_kuhhandel
from cardtable.i18n import render

STATIC = Path(__file__).resolve().parents[2] / "src/cardtable/server/web/static"
CATALOGS = Path(__file__).resolve().parents[2] / "src/cardtable/i18n/catalogs"

NODE_SCRIPT = """
import { describe } from %s;
import { useCatalog } from %s;
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const { lang, own, english, cases } = JSON.parse(input);
  useCatalog(lang, own, english);
  const out = cases.map((c) => c.events.map((ev) => describe(c.game, ev, c.names)));
  process.stdout.write(JSON.stringify(out));
});
"""

NAMES = ("Ann", "Bob", "Cy", "Di", "Ed")


def _games() -> list[tuple[str, tuple[str, ...], list[Any]]]:
    """(game, names, events) of finished games that between them show every event kind."""
    out: list[tuple[str, tuple[str, ...], list[Any]]] = []
    for preset, seats in (("classic", 4), ("competition", 5), ("master", 4), ("master-duel", 2)):
        for seed in range(3):
            game = kuhhandel.new_game(kuhhandel.PRESETS[preset], seats, seed)
            bots = ["heuristic", "random"] * seats
            agents = [load_bot("kuhhandel", bots[s + seed], seed=s) for s in range(seats)]
            run_match(game, agents)
            out.append(("kuhhandel", NAMES[:seats], list(game.events())))
    for rounds in (2, 1):  # "after 2 rounds", "after 1 round"
        rules = cunegonda.CunegondaRules(rounds=rounds)
        game = cunegonda.new_game(rules, 4, 0)
        run_match(game, [load_bot("cunegonda", "heuristic", seed=s) for s in range(4)])
        out.append(("cunegonda", NAMES[:4], list(game.events())))
    return out


@pytest.fixture(scope="module")
def games() -> list[tuple[str, tuple[str, ...], list[Any]]]:
    return _games()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_describe_js_says_what_the_engines_say_from_the_same_catalog(
    games: list[tuple[str, tuple[str, ...], list[Any]]], lang: str
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: describe.js cannot be run outside a browser")
    cases = [
        {"game": g, "names": list(names), "events": [{"kind": e.kind, "data": e.data} for e in evs]}
        for g, names, evs in games
    ]
    own = json.loads((CATALOGS / f"{lang}.json").read_text())
    english = json.loads((CATALOGS / "en.json").read_text())
    script = NODE_SCRIPT % (
        json.dumps((STATIC / "describe.js").as_uri()),
        json.dumps((STATIC / "i18n.js").as_uri()),
    )
    run = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"lang": lang, "own": own, "english": english, "cases": cases}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    js_lines = json.loads(run.stdout)
    kinds: set[str] = set()
    mismatches: dict[str, str] = {}  # one example per event kind
    for (game, names, events), lines in zip(games, js_lines, strict=True):
        describe = describe_kuhhandel if game == "kuhhandel" else describe_cunegonda
        for event, js in zip(events, lines, strict=True):
            kinds.add(f"{game}:{event.kind}")
            message = describe(event, names)
            py = "" if message is None else render(lang, message).strip()
            if py != js:
                mismatches.setdefault(f"{game}:{event.kind}", f"python {py!r} / js {js!r}")
    assert not mismatches, "\n".join(f"{k}: {v}" for k, v in sorted(mismatches.items()))
    # The games must have shown the events that carry words (a test that saw none proves nothing).
    for kind in ("bid", "payment", "challenge", "trade", "rat", "claimed", "divided", "exposed"):
        assert f"kuhhandel:{kind}" in kinds, kind
    for kind in ("deal", "pass", "play", "trick", "round_end", "match_end"):
        assert f"cunegonda:{kind}" in kinds, kind
