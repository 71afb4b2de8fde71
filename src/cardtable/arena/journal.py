"""A tournament's journal: every finished game on disk, so that a long tournament survives a stop.

``cardtable arena ... --journal FILE`` appends each game's outcome to ``FILE`` (JSON lines, flushed
and synced chunk by chunk) as soon as its chunk is done. Run the same command again and the games
already in the journal are not played again: the tournament goes on where it stopped, and the
report covers every game. Because a deal's deck and bot seeds depend only on the tournament seed
and the deal's number, a journal can also be *extended*: the same command with a larger
``--games`` plays only the new deals.

The first line identifies the tournament (game, rules, seats, line-up, seed, deadline, fallback);
a journal written for another tournament is refused rather than mixed in. A last line cut short
by a crash is ignored (those games are played again).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .plan import TournamentPlan
from .play import FaultNote, GameOutcome

VERSION = 1


def identity(plan: TournamentPlan) -> dict[str, Any]:
    """What makes two runs the same tournament (the number of deals may differ)."""
    return {
        "game": plan.game,
        "rules": plan.rules,
        "seats": plan.seats,
        "entries": [entry.ref for entry in plan.entries],
        "seed": plan.seed,
        "decision_timeout": plan.decision_timeout,
        "fallback": plan.fallback,
        "guard_builtin": plan.guard_builtin,
    }


def outcome_to_json(outcome: GameOutcome) -> dict[str, Any]:
    return dataclasses.asdict(outcome)


def outcome_from_json(data: dict[str, Any]) -> GameOutcome:
    return GameOutcome(
        deal=int(data["deal"]),
        rotation=int(data["rotation"]),
        seating=tuple(int(x) for x in data["seating"]),
        termination=str(data["termination"]),
        scores=tuple(float(x) for x in data["scores"]),
        places=tuple(int(x) for x in data["places"]),
        actions=int(data["actions"]),
        faults=tuple(FaultNote(**fault) for fault in data["faults"]),
        decisions=tuple(int(x) for x in data["decisions"]),
        think_time=tuple(float(x) for x in data["think_time"]),
        think_max=tuple(float(x) for x in data["think_max"]),
        cpu_time=tuple(float(x) for x in data.get("cpu_time", ())),
        cpu_max=tuple(float(x) for x in data.get("cpu_max", ())),
        wall_hist=tuple(_hist(h) for h in data.get("wall_hist", ())),
        cpu_hist=tuple(_hist(h) for h in data.get("cpu_hist", ())),
        searches=tuple(int(x) for x in data.get("searches", ())),
        capped=tuple(int(x) for x in data.get("capped", ())),
        queue_time=tuple(float(x) for x in data.get("queue_time", ())),
        queue_max=tuple(float(x) for x in data.get("queue_max", ())),
        own_max=tuple(float(x) for x in data.get("own_max", ())),
    )


def _hist(data: dict[str, Any]) -> dict[int, int]:
    """A histogram from JSON (whose keys are strings)."""
    return {int(k): int(v) for k, v in data.items()}


class JournalError(ValueError):
    """The journal belongs to another tournament, or is not a journal."""


class Journal:
    """Append-only record of a tournament's finished games (see the module docstring)."""

    def __init__(self, path: str | Path, plan: TournamentPlan) -> None:
        self.path = Path(path)
        self.plan = plan

    def load(self) -> list[GameOutcome]:
        """The games of this tournament already played (none if the file does not exist yet).

        Games outside the plan's schedule (a journal of a longer run) are left out of the report
        but kept in the file.
        """
        if not self.path.exists() or self.path.stat().st_size == 0:
            return []
        wanted = identity(self.plan)
        lines = self.path.read_text(encoding="utf-8").split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            raise JournalError(f"{self.path} is not an arena journal") from None
        if not isinstance(header, dict) or header.get("journal") != VERSION:
            raise JournalError(f"{self.path} is not an arena journal (version {VERSION})")
        if header.get("tournament") != json.loads(json.dumps(wanted)):
            raise JournalError(
                f"{self.path} is the journal of another tournament: "
                f"{json.dumps(header.get('tournament'))}; this one is {json.dumps(wanted)}"
            )
        in_plan = set(self.plan.schedule())
        found: dict[tuple[int, int], GameOutcome] = {}
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a crash (a whole line is always valid JSON)
            try:
                outcome = outcome_from_json(data)
            except (KeyError, TypeError, ValueError):
                raise JournalError(f"{self.path}, line {number}: not a game outcome") from None
            key = (outcome.deal, outcome.rotation)
            if key in in_plan:
                found[key] = outcome
        return [found[key] for key in sorted(found)]

    def append(self, outcomes: Iterable[GameOutcome]) -> None:
        """Add finished games, on disk before this returns (flushed and synced)."""
        text = "".join(json.dumps(outcome_to_json(o)) + "\n" for o in outcomes)
        new = not self.path.exists() or self.path.stat().st_size == 0
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            header = {"journal": VERSION, "tournament": identity(self.plan)}
            text = json.dumps(header) + "\n" + text
        else:
            with self.path.open("rb") as existing:
                existing.seek(-1, os.SEEK_END)
                if existing.read(1) != b"\n":
                    text = "\n" + text  # after a torn last line: start on a line of our own
        with self.path.open("a", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
