"""The expert's review of a game (cardtable analyse): mistakes found, only the seat's view read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardtable.analysis.review import Analyst, Budget, adapter_for, analyse
from cardtable.cli import main
from cardtable.core import Game, GameInfo, Record, game_spec, load_bot, replay, run_match
from cardtable.core.decision import open_request
from cardtable.games.cunegonda.cards import NAMES, QUEEN_OF_SPADES

SPADES = 3


def _played(game_name: str, rules: str, seed: int, bot: str = "heuristic") -> Record:
    spec = game_spec(game_name)
    game = spec.new_game(spec.resolve_rules(rules), 4, seed)
    run_match(game, [load_bot(game_name, bot, seed=s) for s in range(4)])
    return game.record()


def _with_answer(record: Record, index: int, seat: int, answer: Any) -> Record:
    """The record's first ``index`` actions, then ``answer`` by ``seat`` (an unfinished game)."""
    actions = (*record.actions[:index], (seat, answer))
    return Record(record.game, record.version, record.rules, record.seats, record.seed, actions)


def _overpaid_chicken() -> tuple[Record, int]:
    """A classic game in which a seat opens the auction of a chicken by bidding all its money."""
    record = _played("kuhhandel", "classic", 7)
    values = [sp["value"] for sp in record.rules["species"]]
    game = replay(record, upto=0)
    for index, (seat, data) in enumerate(record.actions):
        request = open_request(game, seat)
        if request.kind == "bid":
            obs = game.observe(seat)
            if values[obs.auction.card] <= 40 and obs.money >= 90 and not obs.auction.high:
                return _with_answer(record, index, seat, {"kind": "bid", "amount": obs.money}), seat
        game.apply(seat, game.action_from_json(data))
    raise AssertionError("no chicken auction in the test game")


def test_paying_all_ones_money_for_a_chicken_is_a_mistake() -> None:
    record, seat = _overpaid_chicken()
    review = analyse(record, [seat], Budget(64)).reviews[-1]
    assert review.kind == "bid" and review.searched
    assert review.mistake, review.to_json()
    assert review.mistake_kind.startswith("overpaid in an auction")
    best = review.candidates[review.best_at]
    assert best.label == "pass" or best.label.startswith("bid up to")
    assert review.candidates[review.taken_at].win < best.win
    assert review.loss >= 10


def _queen_taken() -> tuple[Record, int, int]:
    """A Cunegonda position: the seat plays last to a spade trick below the queen, holding the
    queen and a lower spade; the record has it take the trick with the queen."""
    for seed in range(1, 40):
        record = _played("cunegonda", "short", seed, "random")
        game = replay(record, upto=0)
        for index, (seat, data) in enumerate(record.actions):
            request = open_request(game, seat)
            if request.kind == "play":
                obs = game.observe(seat)
                trick = list(obs.trick)
                hand = list(obs.hand)
                if (
                    len(trick) == 3
                    and trick[0] // 13 == SPADES
                    and QUEEN_OF_SPADES in hand
                    and max(trick) < QUEEN_OF_SPADES
                    and any(c // 13 == SPADES and c < max(trick) for c in hand)
                ):
                    answer = {"play": NAMES[QUEEN_OF_SPADES]}
                    return _with_answer(record, index, seat, answer), seat, index
            game.apply(seat, game.action_from_json(data))
    raise AssertionError("no such position in 40 games")


def test_taking_a_trick_with_the_queen_of_spades_is_a_mistake() -> None:
    record, seat, _index = _queen_taken()
    review = analyse(record, [seat], Budget(16)).reviews[-1]
    assert review.searched and review.mistake, review.to_json()
    assert review.mistake_kind == "took the queen of spades when a safe card existed"
    best = review.candidates[review.best_at]
    assert best.label != "play QS" and best.label.endswith("S")  # a lower spade ducks
    assert review.loss >= 26 - 10  # the queen's 26 points minus the trick's 10, about


def _review_at(game: Game, record: Record, seat: int, index: int) -> dict[str, Any]:
    """A fresh analyst fed only what ``seat`` may know of ``game`` reviews its open decision."""
    adapter = adapter_for(record.game)
    analyst = Analyst(adapter, seat, Budget(12), seed=5)
    names = tuple(f"seat-{i}" for i in range(record.seats))
    analyst.start(GameInfo(game.name, game.rules_json(), game.seats, seat, names))
    for event in game.events():
        if event.visible_to(seat):
            analyst.event(event)
    data = record.actions[index][1]
    review = analyst.review(
        game.observe(seat), open_request(game, seat), game.action_from_json(data), data, 1, index
    )
    return review.to_json()


def test_cunegonda_analysis_reads_only_the_seats_observation() -> None:
    record, seat, index = _queen_taken()
    a = replay(record, upto=index)
    b = replay(record, upto=index)
    # Other seats' hands: swap cards between two of them (they keep their hand sizes).
    x, y = [s for s in range(4) if s != seat][:2]
    hands = b._hands  # type: ignore[attr-defined]
    hands[x][0], hands[y][0] = hands[y][0], hands[x][0]
    hands[x].sort()
    hands[y].sort()
    assert a._hands != b._hands  # type: ignore[attr-defined]
    assert a.observe_json(seat) == b.observe_json(seat)
    first = _review_at(a, record, seat, index)
    assert first == _review_at(b, record, seat, index)
    assert first["searched"] and len(first["candidates"]) >= 2


def test_kuhhandel_analysis_reads_only_the_seats_observation() -> None:
    record, seat = _overpaid_chicken()
    index = len(record.actions) - 1
    a = replay(record, upto=index)
    b = replay(record, upto=index)
    # The deck beyond the top card nobody has seen, and two other seats' notes (same counts).
    b.deck[:-1] = list(reversed(b.deck[:-1]))  # type: ignore[attr-defined]
    x, y = [s for s in range(4) if s != seat][:2]
    wx, wy = b.wallets[x], b.wallets[y]  # type: ignore[attr-defined]
    i = next(i for i in range(len(wx)) if wx[i])
    j = next(j for j in range(len(wy)) if wy[j] and j != i)
    wx[i], wx[j], wy[j], wy[i] = wx[i] - 1, wx[j] + 1, wy[j] - 1, wy[i] + 1
    assert a.wallets != b.wallets and a.deck != b.deck  # type: ignore[attr-defined]
    assert a.observe_json(seat) == b.observe_json(seat)
    first = _review_at(a, record, seat, index)
    assert first == _review_at(b, record, seat, index)
    assert first["searched"] and len(first["candidates"]) >= 2


def test_cli_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, seat, _index = _queen_taken()
    path = tmp_path / "game.json"
    record.save(path)
    base = ["analyse", str(path), "--budget", "8", "--no-progress"]
    assert main([*base, "--seat", str(seat), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seats"] == [seat] and data["budget"]["worlds"] == 8
    assert data["threshold"]["loss_at_least"] == 10 and data["threshold"]["unit"] == "round points"
    assert data["reviews"][-1]["mistake"]
    assert data["summary"][str(seat)]["by_kind"][
        "took the queen of spades when a safe card existed"
    ]
    assert main([*base, "--seat", str(seat), "--mistakes"]) == 0
    text = capsys.readouterr().out
    assert "MISTAKE" in text and "took the queen of spades" in text
    assert "a mistake costs at least 10 round points" in text
    assert main([*base, "--seat", "9"]) == 2
    assert "no seat 9" in capsys.readouterr().err
    assert main(["analyse", str(path), "--budget", "lots"]) == 2
    assert "--budget" in capsys.readouterr().err


def test_a_players_summary_over_several_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, seat, _index = _queen_taken()
    names = [f"p{i}" for i in range(4)]
    names[seat] = "me"
    first = Record(
        record.game, record.version, record.rules, record.seats, record.seed, record.actions,
        None, tuple(names),
    )  # fmt: skip
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    first.save(a)
    first.save(b)
    base = ["analyse", str(a), str(b), "--budget", "8", "--no-progress", "--player", "me"]
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    one = data["games"][0]["summary"][str(seat)]
    assert data["summary"]["mistakes"] == 2 * one["mistakes"] >= 2
    assert data["summary"]["by_kind"]["took the queen of spades when a safe card existed"] == 2
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "=== me over 2 games ===" in text and "2 x took the queen of spades" in text
    assert main(["analyse", str(a), "--player", "nobody"]) == 2
    assert "no seat named 'nobody'" in capsys.readouterr().err


def test_cli_text_in_german(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--lang de`` (or ``LANG=de_DE.UTF-8``) says the analysis in German; --json stays."""
    record, seat, _index = _queen_taken()
    path = tmp_path / "game.json"
    record.save(path)
    base = ["analyse", str(path), "--budget", "8", "--no-progress", "--seat", str(seat)]
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    assert main(base) == 0
    from_env = capsys.readouterr().out
    assert main([*base, "--lang", "de"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1:] == from_env.splitlines()[1:]  # the first line times the run
    for german in (
        "Analyse einer Partie Cunegonda",
        "Ein Fehler kostet mindestens 10 Rundenpunkte",
        "FEHLER ",
        "Zusammenfassung: ",
        "durchsuchten Entscheidungen",
        "Karte ausspielen",  # the request kind
        "Pik-Dame",  # the mistake kind
    ):
        assert german in text, german
    for english in ("MISTAKE", "Summary", "searched", "mistake", "queen of spades", "Values:"):
        assert english not in text, english
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold"]["unit"] == "round points"
    assert (
        "took the queen of spades when a safe card existed" in data["summary"][str(seat)]["by_kind"]
    )
