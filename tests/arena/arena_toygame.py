"""A tiny test-only game for the arena's mechanics ("high card"): not part of cardtable.

Each seat is dealt ``hand`` cards from a deck ``1..seats*hand+extra`` shuffled from the seed.
For ``hand`` rounds every seat plays one card (request kind ``card``, choices = its hand, sorted),
in seat order; the highest card wins the round and scores 1 point (the sum of the cards won
breaks ties in the ranking). ``heuristic`` (the cheapest card that wins the round, else the lowest)
is clearly stronger than ``random``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from cardtable.core import (
    Event,
    Game,
    GameSpec,
    IllegalAction,
    InvalidAction,
    Request,
    Result,
    Termination,
    places_from_keys,
)


@dataclass(frozen=True)
class ToyRules:
    hand: int = 4
    extra: int = 6


class ToyGame(Game):
    name = "toy"

    def __init__(self, rules: ToyRules, seats: int, seed: int) -> None:
        self._rules = rules
        self.seats = seats
        self.seed = seed
        deck = list(range(1, seats * rules.hand + rules.extra + 1))
        random.Random(seed).shuffle(deck)
        self.deck = tuple(deck)
        self.hands = [sorted(deck[s * rules.hand : (s + 1) * rules.hand]) for s in range(seats)]
        self.points = [0] * seats
        self.taken = [0] * seats
        self.table: list[int] = []
        self.round = 0
        self._history: list[tuple[int, int]] = []
        self._events: list[Event] = []

    @property
    def rules(self) -> ToyRules:
        return self._rules

    def rules_json(self) -> dict[str, Any]:
        return asdict(self._rules)

    def pending(self) -> Sequence[Request]:
        if self.is_over():
            return []
        seat = len(self.table)
        return [Request(seat, "card", tuple(self.hands[seat]))]

    def is_over(self) -> bool:
        return self.round >= self._rules.hand

    def observe(self, seat: int | None) -> dict[str, Any]:
        return {
            "hand": list(self.hands[seat]) if seat is not None else None,
            "table": list(self.table),
            "points": list(self.points),
            "round": self.round,
        }

    def apply(self, seat: int, action: Any) -> None:
        if not isinstance(action, int) or isinstance(action, bool):
            raise InvalidAction(f"a card is an int, not {type(action).__name__}")
        if self.is_over() or seat != len(self.table):
            raise IllegalAction(f"seat {seat} is not to play")
        if action not in self.hands[seat]:
            raise IllegalAction(f"card {action} is not in seat {seat}'s hand")
        self.hands[seat].remove(action)
        self.table.append(action)
        self._history.append((seat, action))
        self._events.append(Event("card", {"seat": seat, "card": action}))
        if len(self.table) == self.seats:
            winner = max(range(self.seats), key=lambda s: self.table[s])
            self.points[winner] += 1
            self.taken[winner] += sum(self.table)
            self._events.append(Event("round", {"winner": winner}))
            self.table = []
            self.round += 1

    def result(self) -> Result:
        if not self.is_over():
            raise RuntimeError("the game is not over")
        keys = [(float(p), float(t)) for p, t in zip(self.points, self.taken, strict=True)]
        return Result(
            Termination.NORMAL, tuple(float(p) for p in self.points), places_from_keys(keys)
        )

    def events(self, since: int = 0) -> Sequence[Event]:
        return self._events[since:]

    def history(self) -> Sequence[tuple[int, Any]]:
        return list(self._history)

    def action_to_json(self, action: Any) -> Any:
        return action

    def action_from_json(self, data: Any) -> Any:
        if not isinstance(data, int):
            raise InvalidAction("a card is an int")
        return data


class RandomBot:
    wants_observation = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any, request: Request) -> Any:
        assert request.choices is not None
        return self.rng.choice(request.choices)


class CheapWinBot:
    """The lowest card that beats the table, else the lowest card: clearly better than random."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def act(self, observation: Any, request: Request) -> Any:
        assert request.choices is not None
        best = max(observation["table"], default=0)
        winners = [c for c in request.choices if c > best]
        return min(winners) if winners else min(request.choices)


def _new_game(rules: ToyRules, seats: int, seed: int) -> ToyGame:
    return ToyGame(rules, seats, seed)


def _rules_from_json(data: Mapping[str, Any]) -> ToyRules:
    return ToyRules(**data)


SPEC = GameSpec(
    name="toy",
    new_game=_new_game,
    rules_from_json=_rules_from_json,
    presets={"standard": ToyRules(), "short": ToyRules(hand=2, extra=2)},
    default_rules="standard",
    seat_range=lambda rules: (2, 6),
    describe_event=lambda event, names: f"{event.kind} {dict(event.data)}",
    bots={"random": RandomBot, "heuristic": CheapWinBot},
)
