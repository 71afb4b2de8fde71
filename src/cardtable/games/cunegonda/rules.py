"""Rule sets of Cunegonda (spec: cunegonda-rules.md).

The spec fixes every rule but the match length: a match is 10 rounds (section "Match"), and a
parameter may shorten it, never silently (the rule set is in every record and the round events say
"round 2 of 3").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

STANDARD_ROUNDS = 10


@dataclass(frozen=True)
class CunegondaRules:
    """A rule set. ``rounds`` is the match length (10 in the spec; fewer for short matches)."""

    rounds: int = STANDARD_ROUNDS

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int):
            raise ValueError(f"rounds must be an int, not {self.rounds!r}")
        if not 1 <= self.rounds <= 1000:
            raise ValueError(f"rounds must be between 1 and 1000, not {self.rounds}")

    @property
    def shortened(self) -> bool:
        """Whether the match is shorter than the spec's 10 rounds."""
        return self.rounds < STANDARD_ROUNDS

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CunegondaRules:
        """A rule set from JSON; missing keys take the standard value, unknown keys are errors."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a Cunegonda rule set is a JSON object, not {data!r}")
        unknown = set(data) - {"rounds"}
        if unknown:
            raise ValueError(f"unknown Cunegonda rule(s): {', '.join(sorted(unknown))}")
        return cls(rounds=data.get("rounds", STANDARD_ROUNDS))


STANDARD = CunegondaRules()
#: A three-round match for a quick game (the record says so).
SHORT = CunegondaRules(rounds=3)

PRESETS: dict[str, CunegondaRules] = {"standard": STANDARD, "short": SHORT}
