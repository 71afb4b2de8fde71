"""Rated boards per rule set (issue 37 item 7): every rated game lands on a board the leaderboard
offers, named as the games list names the game's rule set (a rated Cunegonda match of one round
was rated on a "custom" board the leaderboard never offered, while the games list said
"standard (1 round)"); a rule set whose name cannot tell it apart is not rated (boards.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from server.wire import (
    RunningServer,
    Wire,
    db_url,
    fast_settings,
    person,
    play_until_end,
    running_server,
)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with running_server(fast_settings(db_url(tmp_path_factory.mktemp("boards")))) as running:
        yield running


def rated_practice(wire: Wire, game: str, rules: Any) -> dict[str, Any]:
    wire.received.clear()  # play_until_end starts from the newest game_start it has read
    wire.send(
        {
            "type": "join",
            "lobby": "practice",
            "game": game,
            "rules": rules,
            "opponents": "random",
            "rated": True,
        }
    )
    return play_until_end(wire, game, timeout=90)


def test_every_rated_game_lands_on_a_board_the_leaderboard_offers_by_the_same_name(
    server: RunningServer,
) -> None:
    ada = person(server, "Ada")
    try:
        one_round = rated_practice(ada, "cunegonda", {"rounds": 1})
        short = rated_practice(ada, "cunegonda", "short")
        open_classic = rated_practice(
            ada, "kuhhandel", {**_classic(server), "name": "classic", "auction_style": "open"}
        )
    finally:
        ada.close()
    listed = server.get("/api/games?player=Ada")["games"]
    ids = {g["id"] for g in listed}
    assert {one_round["game_id"], short["game_id"], open_classic["game_id"]} <= ids
    labels = {}
    for g in listed:
        assert g["rated"] is True
        labels[g["id"]] = (g["game"], g["rules_label"])
        board = server.get(
            "/api/leaderboard?" + urlencode({"game": g["game"], "rules": g["rules_label"]})
        )
        # the board the games list names is offered, and holds the game's player
        assert g["rules_label"] in board["boards"], (g["rules_label"], board["boards"])
        assert "Ada" in [e["name"] for e in board["entries"]], (g["rules_label"], board)
    assert labels[one_round["game_id"]] == ("cunegonda", "standard (1 round)")
    assert labels[short["game_id"]] == ("cunegonda", "short")
    assert labels[open_classic["game_id"]] == ("kuhhandel", "classic (open auction)")
    # no board of a name the games list never shows
    for game in ("cunegonda", "kuhhandel"):
        boards = server.get(f"/api/leaderboard?game={game}")["boards"]
        assert "custom" not in boards, boards
    # the profile and its rating history name the same boards
    profile = server.get("/api/players/Ada")
    assert sorted((r["game"], r["rules"]) for r in profile["ratings"]) == sorted(labels.values())
    history = {h["game_id"]: (h["game"], h["rules"]) for h in profile["rating_history"]}
    assert history == labels
    # one game on each board: the one-round match is not counted with the short ones
    one = server.get("/api/leaderboard?" + urlencode({"game": "cunegonda", "rules": "short"}))
    assert [e["games"] for e in one["entries"] if e["name"] == "Ada"] == [1]


def test_a_rule_set_its_name_cannot_tell_apart_is_refused_rated(server: RunningServer) -> None:
    bea = person(server, "Bea")
    try:
        many = {
            **_classic(server),
            "auction_style": "open",
            "min_raise": 20,
            "max_turns": 400,
            "countdown_from": 8,
        }
        bea.send(
            {
                "type": "join",
                "lobby": "practice",
                "game": "kuhhandel",
                "rules": many,
                "opponents": "random",
                "rated": True,
            }
        )
        refused = bea.expect("error", "game_start")
        assert refused["type"] == "error" and refused["code"] == "bad_join", refused
        assert "more changes" in refused["reason"] and "unrated" in refused["reason"]
    finally:
        bea.close()
    assert server.get("/api/games?player=Bea")["games"] == []


def _classic(server: RunningServer) -> dict[str, Any]:
    """Kuhhandel's classic rule set as JSON (from the engine, not written out here)."""
    from cardtable.core import game_spec

    rules = game_spec("kuhhandel").resolve_rules("classic")
    out: dict[str, Any] = rules.to_json()
    return out
