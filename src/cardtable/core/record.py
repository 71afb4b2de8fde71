"""Game records: everything needed to re-simulate a game exactly, as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardtable.core.contract import JSON, Game, Result

#: Version of the record envelope (the game's own ``record_version`` is stored beside it).
SCHEMA_VERSION = 1


class RecordError(ValueError):
    """A record cannot be read or does not replay."""


@dataclass(frozen=True)
class Record:
    """Rule set, seed, seats, actions and result of one game."""

    game: str
    version: int
    rules: Mapping[str, Any]
    seats: int
    seed: int
    actions: tuple[tuple[int, JSON], ...]
    result: Result | None = None
    names: tuple[str, ...] = ()
    meta: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "game": self.game,
            "version": self.version,
            "rules": dict(self.rules),
            "seats": self.seats,
            "seed": self.seed,
            "actions": [[s, a] for s, a in self.actions],
            "result": self.result.to_json() if self.result else None,
        }
        if self.names:
            data["names"] = list(self.names)
        if self.meta:
            data["meta"] = dict(self.meta)
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        try:
            if data.get("schema") != SCHEMA_VERSION:
                raise RecordError(f"unknown record schema {data.get('schema')!r}")
            result = data.get("result")
            return cls(
                game=str(data["game"]),
                version=int(data["version"]),
                rules=dict(data["rules"]),
                seats=int(data["seats"]),
                seed=int(data["seed"]),
                actions=tuple((int(s), a) for s, a in data["actions"]),
                result=Result.from_json(result) if result else None,
                names=tuple(data.get("names", ())),
                meta=dict(data["meta"]) if data.get("meta") else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"not a cardtable record: {exc}") from exc

    @classmethod
    def loads(cls, text: str) -> Record:
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path) -> Record:
        return cls.loads(Path(path).read_text())


def replay(record: Record, *, upto: int | None = None) -> Game:
    """Re-simulate ``record`` (its first ``upto`` actions) and return the game.

    Raises :class:`RecordError` if an action does not apply.
    """
    from cardtable.core.registry import game_spec

    spec = game_spec(record.game)
    rules = spec.rules_from_json(record.rules)
    game = spec.new_game(rules, record.seats, record.seed)
    actions = record.actions if upto is None else record.actions[:upto]
    for i, (seat, data) in enumerate(actions):
        try:
            game.apply(seat, game.action_from_json(data))
        except ValueError as exc:
            raise RecordError(
                f"action {i} ({data!r} by seat {seat}) does not replay: {exc}"
            ) from exc
    return game


def verify(record: Record) -> tuple[bool, str]:
    """Replay a finished record and compare its result; returns ``(matches, explanation)``."""
    try:
        game = replay(record)
    except RecordError as exc:
        return False, str(exc)
    if record.result is None:
        return True, f"replayed {len(record.actions)} actions (no result recorded)"
    if record.result.termination.value == "aborted":
        return True, f"replayed {len(record.actions)} actions of an aborted game"
    if not game.is_over():
        return False, "the record's actions do not finish the game"
    if game.result() != record.result:
        return False, f"result differs: recorded {record.result}, replayed {game.result()}"
    return True, f"replayed {len(record.actions)} actions; the result matches"
