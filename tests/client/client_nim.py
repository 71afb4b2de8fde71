"""A tiny test-only game (Nim) so the client's network logic is tested without a real engine.

Seats take 1 to 3 sticks in turn from one pile; whoever takes the last stick wins. It follows the
core contract (observation with ``to_json``/``from_json``, actions as ints), and the tests register
it as the game ``"nim"`` through the game registry.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
class NimRules:
    sticks: int = 9


@dataclass(frozen=True)
class NimObservation:
    seat: int | None
    pile: int
    turn: int | None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "pile": self.pile, "turn": self.turn}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NimObservation:
        return cls(data["seat"], int(data["pile"]), data["turn"])


class Nim(Game):
    name = "nim"

    def __init__(self, rules: NimRules, seats: int, seed: int) -> None:
        self._rules = rules
        self.seats = seats
        self.seed = seed
        self.pile = rules.sticks
        self.turn = 0
        self._history: list[tuple[int, int]] = []
        self._events: list[Event] = []

    @property
    def rules(self) -> NimRules:
        return self._rules

    def rules_json(self) -> dict[str, Any]:
        return {"sticks": self._rules.sticks}

    def pending(self) -> Sequence[Request]:
        if self.is_over():
            return []
        return [Request(self.turn, "take", tuple(range(1, min(3, self.pile) + 1)), {})]

    def is_over(self) -> bool:
        return self.pile == 0

    def observe(self, seat: int | None) -> NimObservation:
        return NimObservation(seat, self.pile, None if self.is_over() else self.turn)

    def apply(self, seat: int, action: Any) -> None:
        if not isinstance(action, int) or isinstance(action, bool):
            raise InvalidAction(f"take a number of sticks, not {action!r}")
        if seat != self.turn or not 1 <= action <= min(3, self.pile):
            raise IllegalAction(f"seat {seat} cannot take {action} now")
        self.pile -= action
        self._history.append((seat, action))
        self._events.append(Event("take", {"seat": seat, "sticks": action, "pile": self.pile}))
        # A private note only the taker sees: the client must get it, other seats must not.
        self._events.append(Event("note", {"seat": seat}, to=(seat,)))
        self.turn = (self.turn + 1) % self.seats

    def result(self) -> Result:
        if not self.is_over():
            raise RuntimeError("not over")
        winner = self._history[-1][0]
        keys = [(1.0 if s == winner else 0.0,) for s in range(self.seats)]
        scores = tuple(k[0] for k in keys)
        return Result(Termination.NORMAL, scores, places_from_keys(keys))

    def events(self, since: int = 0) -> Sequence[Event]:
        return self._events[since:]

    def history(self) -> Sequence[tuple[int, Any]]:
        return list(self._history)

    def action_to_json(self, action: Any) -> Any:
        if not isinstance(action, int):
            raise InvalidAction(f"not an action: {action!r}")
        return action

    def action_from_json(self, data: Any) -> Any:
        if not isinstance(data, int) or isinstance(data, bool):
            raise InvalidAction(f"not an action: {data!r}")
        return data


class RandomNim:
    """Takes a random legal number of sticks."""

    def __init__(self, seed: int = 0) -> None:
        self.random = random.Random(seed)

    def act(self, observation: NimObservation, request: Request) -> int:
        assert isinstance(observation, NimObservation)
        assert request.choices is not None
        return int(self.random.choice(request.choices))


SPEC = GameSpec(
    name="nim",
    new_game=Nim,
    rules_from_json=lambda data: NimRules(int(data.get("sticks", 9))),
    presets={"short": NimRules(9), "long": NimRules(40)},
    default_rules="short",
    seat_range=lambda rules: (2, 4),
    describe_event=lambda event, names: f"{event.kind} {dict(event.data)}",
    bots={"random": RandomNim},
)
