"""docs/events.md documents every event kind and every ``data`` field the engines produce.

Issue 35: a bot author needed a probe bot to learn ``event.data``. The reference page is checked
against real games: every Kuhhandel preset at every seat count it allows (and an open auction) and
Cunegonda, played by random and heuristic bots; each event kind they produce must have a row in
its game's table and each ``data`` key must be named in that row. Event kinds the engines' sources
name but these games did not reach (an aborted game, a shot moon) must have a row too.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from cardtable.core import Event, load_bot, run_match
from cardtable.games import cunegonda, kuhhandel
from cardtable.games.kuhhandel.describe import describe_event as describe_message
from cardtable.i18n import render


def describe_event(event: Event, names: tuple[str, ...] = ()) -> str:
    """The English line of ``event`` (the catalog's words)."""
    return render("en", describe_message(event, names))


ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "events.md"
SECTIONS = {"kuhhandel": "## Kuhhandel events", "cunegonda": "## Cunegonda events"}
#: how an engine source names an event kind: ``_event("kind"``, ``Event("kind"``, ...
NAMED = re.compile(r'(?:[A-Za-z_]*[eE]vent\(\s*|_EVENT, \(\s*|_[a-z_]*event, )"([a-z_]+)"')


def _documented() -> dict[str, dict[str, str]]:
    """game -> event kind -> the text of its ``data`` column."""
    text = DOC.read_text()
    out: dict[str, dict[str, str]] = {}
    for game, heading in SECTIONS.items():
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        rows: dict[str, str] = {}
        for line in section.splitlines():
            m = re.match(r"\| `([a-z_]+)` \| [^|]+ \| (.*) \|$", line)
            if m:
                rows[m.group(1)] = m.group(2)
        out[game] = rows
    return out


def _kuhhandel_games() -> list[list[Event]]:
    games = []
    open_classic = dataclasses.replace(kuhhandel.PRESETS["classic"], auction_style="open")
    rule_sets = [*kuhhandel.PRESETS.values(), open_classic]
    for rules in rule_sets:
        for seats in range(rules.min_seats, rules.max_seats + 1):
            for seed in range(3):
                game = kuhhandel.new_game(rules, seats, seed)
                bots = ["heuristic", "random"] * seats
                agents = [load_bot("kuhhandel", bots[s + seed], seed=s) for s in range(seats)]
                run_match(game, agents)
                games.append(list(game.events()))
    return games


def _cunegonda_games() -> list[list[Event]]:
    games = []
    for rounds in (1, 3):
        for seed in range(3):
            game = cunegonda.new_game(cunegonda.CunegondaRules(rounds=rounds), 4, seed)
            bots = ["heuristic", "random"] * 2
            run_match(game, [load_bot("cunegonda", bots[s], seed=s) for s in range(4)])
            games.append(list(game.events()))
    return games


@pytest.fixture(scope="module")
def played() -> dict[str, list[list[Event]]]:
    return {"kuhhandel": _kuhhandel_games(), "cunegonda": _cunegonda_games()}


@pytest.mark.parametrize("game", ["kuhhandel", "cunegonda"])
def test_every_event_kind_and_data_field_is_documented(
    game: str, played: dict[str, list[list[Event]]]
) -> None:
    rows = _documented()[game]
    seen: dict[str, set[str]] = {}
    for events in played[game]:
        for ev in events:
            seen.setdefault(ev.kind, set()).update(ev.data)
    assert len(seen) >= 8, seen  # the games did play
    missing = sorted(kind for kind in seen if kind not in rows)
    assert not missing, f"event kinds not in docs/events.md ({game}): {missing}"
    fields = sorted(
        f"{kind}.{key}"
        for kind, keys in seen.items()
        for key in keys
        if f"`{key}`" not in rows[kind]
    )
    assert not fields, f"data fields not in docs/events.md ({game}): {fields}"


@pytest.mark.parametrize("game", ["kuhhandel", "cunegonda"])
def test_every_event_kind_the_engine_names_is_documented(game: str) -> None:
    named: set[str] = set()
    for path in (ROOT / "src" / "cardtable" / "games" / game).glob("*.py"):
        if path.name != "describe.py":
            named |= set(NAMED.findall(path.read_text()))
    assert {"start" if game == "kuhhandel" else "round_start", "pass"} <= named  # the scan works
    missing = sorted(named - set(_documented()[game]))
    assert not missing, f"event kinds the {game} engine names, not in docs/events.md: {missing}"


def test_an_accepted_trade_is_told_as_accepted_not_as_a_counter(
    played: dict[str, list[list[Event]]],
) -> None:
    """Issue 35: ``trade_notes.counter`` is ``None`` when the opponent accepted; the log said
    "counter accepted" as if a counter-offer had been accepted."""
    accepted: list[dict[str, Any]] = [
        dict(ev.data)
        for events in played["kuhhandel"]
        for ev in events
        if ev.kind == "trade_notes" and ev.data["counter"] is None
    ]
    assert accepted, "no accepted offer in these games"
    line = describe_event(Event("trade_notes", accepted[0], (0, 1)))
    assert "accepted, no counter-offer" in line and "counter accepted" not in line
    countered = Event("trade_notes", {**accepted[0], "counter": [10, 0]}, (0, 1))
    assert "counter 0 + 10 = 10" in describe_event(countered)
