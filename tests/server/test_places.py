"""One counting of places: 1 is first for people and bot authors (the CLI, the arena, the HTTP
API, the client's GameReport.place, the web pages); the wire's `result.places` are indices from 0.

One game played through the client library against a real server is compared seat by seat
across all of them. The same game checks that a value that is no action gets, through the
client, the engine's own wording.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli import main
from cardtable.client import play
from cardtable.core import Request, load_bot
from cardtable.games.kuhhandel.actions import not_an_action
from server.wire import RunningServer

pytestmark = pytest.mark.timeout(120)

TABLE_LINE = re.compile(r"^  (\d+)\. (\S+)\s", re.M)


class BananaOnce:
    """The heuristic bot, except that its first answer is the string 'banana'."""

    def __init__(self) -> None:
        self.inner = load_bot("kuhhandel", "heuristic", seed=3)
        self.first = True

    def act(self, observation: Any, request: Request) -> Any:
        if self.first:
            self.first = False
            return "banana"
        return self.inner.act(observation, request)


def cli_places(record: dict[str, Any], path: Path, capsys: pytest.CaptureFixture[str]) -> list[int]:
    """Places per seat as `cardtable replay` prints them in its final table."""
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 0
    shown = {name: int(place) for place, name in TABLE_LINE.findall(capsys.readouterr().out)}
    return [shown[name] for name in record["names"]]


def test_one_game_has_the_same_places_everywhere(
    server: RunningServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = server.register("alice")
    (report,) = play(
        server.ws, "alice", token, BananaOnce(),
        lobby="practice", game="kuhhandel", rules="classic", opponents="random",
    )  # fmt: skip
    game_id = report.game_id
    detail = server.get(f"/api/games/{game_id}")
    api = [s["place"] for s in sorted(detail["seats_detail"], key=lambda s: s["seat"])]
    assert sorted(api)[0] == 1  # someone is first, and first is 1
    # the client library
    assert report.place == api[report.seat]
    assert f"place {report.place}/{len(api)}" in report.summary()
    # the bot's page in the API
    (mine,) = [g for g in server.get("/api/bots/alice")["games"] if g["game_id"] == game_id]
    assert mine["place"] == api[report.seat]
    # the CLI, replaying the stored record
    record = server.get(f"/api/games/{game_id}/record")
    assert cli_places(record, tmp_path / "game.json", capsys) == api
    # the web pages: the replay viewer's data and the table's game_end carry the wire's result,
    # which the pages show as index + 1 (kuhhandel.js final table, replay.js winners at 0)
    wire = server.get(f"/api/games/{game_id}/replay")["result"]["places"]
    assert [p + 1 for p in wire] == api == [p + 1 for p in report.result.places]
    # through the client, a value that is no action gets the engine's wording
    assert any(not_an_action("banana").reason in fault for fault in report.faults), report.faults


def test_the_arena_counts_places_as_the_cli_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    code = main(
        ["arena", "kuhhandel", "--bots", "heuristic,random,random", "--games", "3",
         "--records", str(records), "--json", "--no-progress"]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    places: dict[str, list[int]] = {}
    for path in sorted(records.glob("*.json")):
        record = json.loads(path.read_text())
        for name, place in zip(record["names"], cli_places(record, path, capsys), strict=True):
            places.setdefault(name, []).append(place)
    for entry in report["entries"]:
        assert entry["mean_place"] == pytest.approx(sum(places[entry["bot"]]) / 3)
    # `cardtable play --json` says the same: places from 1 beside the record's result
    assert main(["play", "kuhhandel", "--bots", "heuristic,random,random", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["places"] == [p + 1 for p in out["result"]["places"]]
