"""Cunegonda against the platform contract: registry, actions as JSON, errors, records, events."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from cunegonda_support import ONE_ROUND, play_out, random_action, random_game

from cardtable.core import (
    IllegalAction,
    InvalidAction,
    Record,
    Termination,
    game_spec,
    load_bot,
    replay,
    run_match,
    verify,
)
from cardtable.games.cunegonda import SPEC, CunegondaGame, CunegondaRules, card, new_game
from cardtable.i18n import render


def snapshot(game: CunegondaGame) -> Any:
    """Everything observable about a game, to compare before and after a refused action."""
    return (
        game.record().dumps(),
        [game.observe_json(s) for s in (None, 0, 1, 2, 3)],
        len(game.events()),
        [game.request_to_json(r) for r in game.pending()],
    )


def test_spec_is_registered() -> None:
    spec = game_spec("cunegonda")
    assert spec is SPEC
    assert spec.default_rules == "standard"
    assert spec.resolve_rules(None) == CunegondaRules(rounds=10)
    assert spec.resolve_rules({"rounds": 2}) == CunegondaRules(rounds=2)
    assert spec.seat_range(spec.resolve_rules(None)) == (4, 4)
    assert {"random", "heuristic"} <= set(spec.bots)
    with pytest.raises(ValueError):
        spec.resolve_rules("nope")


@pytest.mark.parametrize("bad", [{"rounds": 0}, {"rounds": "3"}, {"rounds": True}, {"deck": 32}])
def test_rules_from_json_rejects_bad_rule_sets(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        SPEC.rules_from_json(bad)


def test_only_four_seats() -> None:
    with pytest.raises(ValueError):
        new_game(ONE_ROUND, 3, 0)


def test_card_names() -> None:
    assert card("QS") == 49 and card("10h") == card("TH") == 34 and card("2C") == 0
    with pytest.raises(ValueError):
        card("1S")


def test_action_json_round_trip() -> None:
    game = new_game(ONE_ROUND, 4, 0)
    for c in range(52):
        data = game.action_to_json(c)
        assert json.loads(json.dumps(data)) == data
        assert game.action_from_json(data) == c
    assert game.action_to_json((49, 0, 51)) == {"pass": ["2C", "QS", "AS"]}
    assert sorted(game.action_from_json({"pass": ["QS", "AS", "2C"]})) == [0, 49, 51]
    assert game.action_from_json({"play": "qs"}) == 49


@pytest.mark.parametrize(
    "data",
    [
        None,
        "QS",
        49,
        [],
        {},
        {"play": 49},
        {"play": "ZZ"},
        {"play": None},
        {"pass": "QS"},
        {"pass": ["QS", 3, "AS"]},
        {"pass": ["QS", "XX", "AS"]},
        {"play": "QS", "pass": ["2C", "3C", "4C"]},
        {"bid": 3},
    ],
)
def test_malformed_json_is_invalid(data: Any) -> None:
    with pytest.raises(InvalidAction):
        new_game(ONE_ROUND, 4, 0).action_from_json(data)


def test_refused_pass_actions_change_nothing() -> None:
    game = new_game(ONE_ROUND, 4, 4)
    hand = game.observe(0).hand
    other = game.observe(1).hand
    game.apply(2, game.observe(2).hand[:3])
    cases: list[tuple[int, Any, type[Exception]]] = [
        (0, "QS", InvalidAction),
        (0, None, InvalidAction),
        (0, (hand[0], hand[1]), InvalidAction),
        (0, (hand[0], hand[0], hand[1]), InvalidAction),
        (0, (hand[0], hand[1], 52), InvalidAction),
        (0, (hand[0], hand[1], True), InvalidAction),
        (0, [hand[0], hand[1], "2C"], InvalidAction),
        (0, (hand[0], hand[1], other[0]), IllegalAction),
        (0, hand[0], IllegalAction),  # playing a card while passing
        (2, game.observe(2).hand[3:6], IllegalAction),  # seat 2 already chose
        (7, hand[:3], InvalidAction),
    ]
    for seat, action, error in cases:
        before = snapshot(game)
        with pytest.raises(error):
            game.apply(seat, action)
        assert snapshot(game) == before, (seat, action)


def test_refused_play_actions_change_nothing() -> None:
    rng = random.Random(5)
    checked = 0
    for seed in range(10):
        game = new_game(ONE_ROUND, 4, seed)
        play_out(
            game, rng, until=lambda g: g.pending()[0].kind == "play" and bool(g.observe(None).trick)
        )
        req = game.pending()[0]
        hand = game.observe(req.seat).hand
        off_suit = [c for c in hand if req.choices and c not in req.choices]
        not_mine = [c for c in range(52) if c not in hand]
        cases: list[tuple[int, Any, type[Exception]]] = [
            (req.seat, "QS", InvalidAction),
            (req.seat, 2.0, InvalidAction),
            (req.seat, 52, InvalidAction),
            (req.seat, -1, InvalidAction),
            (req.seat, False, InvalidAction),
            (req.seat, hand[:3], IllegalAction),  # passing while playing
            (req.seat, not_mine[0], IllegalAction),
            ((req.seat + 1) % 4, game.observe((req.seat + 1) % 4).hand[0], IllegalAction),
        ]
        if off_suit:
            cases.append((req.seat, off_suit[0], IllegalAction))
        for seat, action, error in cases:
            before = snapshot(game)
            with pytest.raises(error):
                game.apply(seat, action)
            assert snapshot(game) == before, (seat, action)
            checked += 1
    assert checked >= 80


def test_no_action_after_the_end() -> None:
    game = random_game(1)
    before = snapshot(game)
    with pytest.raises(IllegalAction):
        game.apply(0, 0)
    assert snapshot(game) == before
    assert game.pending() == ()
    assert game.next_request() is None


def test_result_before_the_end_raises() -> None:
    with pytest.raises(RuntimeError):
        new_game(ONE_ROUND, 4, 0).result()


def test_record_replays_to_the_same_result() -> None:
    game = random_game(17, CunegondaRules(rounds=3))
    record = Record.loads(game.record().dumps())
    ok, why = verify(record)
    assert ok, why
    again = replay(record)
    assert again.result() == game.result()
    assert list(again.events()) == list(game.events())


def test_partial_replay_matches_the_game_midway() -> None:
    rng = random.Random(3)
    game = new_game(CunegondaRules(rounds=2), 4, 3)
    for _ in range(70):
        req = game.pending()[0]
        game.apply(req.seat, random_action(game, req, rng))
    record = game.record()
    assert record.result is None
    again = replay(Record.loads(record.dumps()))
    assert [again.observe_json(s) for s in range(4)] == [game.observe_json(s) for s in range(4)]
    assert replay(record, upto=10).observe_json(None) != game.observe_json(None)


def test_abort_reports_aborted() -> None:
    game = new_game(ONE_ROUND, 4, 0)
    game.apply(0, game.observe(0).hand[:3])
    game.abort("server stopped")
    assert game.is_over() and game.pending() == ()
    assert game.result().termination is Termination.ABORTED
    assert game.result().winners == ()
    assert (
        render("en", SPEC.describe_event(game.events()[-1], ()))
        == "The match was stopped: server stopped"
    )


def test_observation_json_is_plain_json() -> None:
    game = new_game(ONE_ROUND, 4, 9)
    play_out(game, random.Random(9), until=lambda g: len(g.observe(None).tricks) == 3)
    for s in (None, 0, 1, 2, 3):
        data = game.observe_json(s)
        assert json.loads(json.dumps(data)) == data
    data = game.observe_json(1)
    played_now = sum(1 for seat, _ in data["trick"] if seat == 1)
    assert data["seat"] == 1 and len(data["hand"]) == 10 - played_now
    assert len(data["tricks"]) == 3
    assert {"leader", "cards", "winner", "value"} <= set(data["tricks"][0])


def test_describe_event_reads_well() -> None:
    names = ("Ann", "Bea", "Carl", "Dan")
    game = random_game(2, CunegondaRules(rounds=2))
    lines = {e.kind: [] for e in game.events()}  # type: dict[str, list[str]]
    for e in game.events():
        line = render("en", SPEC.describe_event(e, names))
        assert line and "\n" not in line and "{" not in line
        lines[e.kind].append(line)
    kinds = {"round_start", "deal", "pass_chosen", "pass", "play", "trick", "round_end"}
    assert set(lines) >= kinds | {"match_end"}
    assert lines["round_start"][0] == "Round 1 of 2: Ann leads"
    assert any(line.endswith("plays the queen of spades") for line in lines["play"])
    queen = [line for line in lines["trick"] if "queen of spades -26" in line]
    assert len(queen) == 2
    assert lines["round_end"][0].startswith("Round 1 scores: Ann ")
    # Cards in the log are written as on the card faces ("6♣ Q♠"), never as engine codes ("6C QS").
    deal, passed = lines["deal"][0], lines["pass"][0]
    assert re.fullmatch(r"Ann is dealt ((10|[2-9JQKA])[♣♦♥♠] ){12}(10|[2-9JQKA])[♣♦♥♠]", deal), deal
    assert re.fullmatch(r"\w+ passes ((10|[2-9JQKA])[♣♦♥♠] ?){3} to \w+", passed), passed
    code = re.compile(r"\b(10|[2-9JQKA])[CDHS]\b")
    assert not any(code.search(line) for ls in lines.values() for line in ls)
    assert lines["match_end"][0].startswith("Match over after 2 rounds: 1st ")
    one = random_game(3, CunegondaRules(rounds=1)).events()[-1]
    assert render("en", SPEC.describe_event(one, names)).startswith(
        "Match over after 1 round: 1st "
    )
    # Without names, seats are numbered.
    assert render("en", SPEC.describe_event(game.events()[0], ())) == "Round 1 of 2: Seat 0 leads"


def test_bots_play_through_run_match() -> None:
    game = new_game(CunegondaRules(rounds=2), 4, 5)
    names = ["heuristic", "random", "heuristic", "random"]
    agents = [load_bot("cunegonda", name, seed=s) for s, name in enumerate(names)]
    result = run_match(game, agents)  # no fallback: an illegal bot action would raise here
    assert result.termination is Termination.NORMAL
    assert sum(result.scores) == 0
