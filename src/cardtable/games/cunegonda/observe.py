"""What one seat of Cunegonda may know (spec: cunegonda-rules.md, section "Information").

A seat sees its own hand, the cards it passed and (once every seat has chosen) the cards it
received, every card played this round with the winner of each trick, and the scores. It never
sees another seat's hand or the cards another seat passed to a third. A spectator (seat ``None``)
sees only the public part.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from cardtable.games.cunegonda.cards import NAMES, card

SEATS = 4


class Trick(NamedTuple):
    """A finished trick: ``cards`` in play order, the first played by ``leader``."""

    leader: int
    cards: tuple[int, ...]
    winner: int
    value: int
    """What the trick was worth to its winner (+10 minus hearts minus 26 for the QS)."""

    def seats(self) -> tuple[int, ...]:
        """The seat that played each card of :attr:`cards`."""
        return tuple((self.leader + i) % SEATS for i in range(len(self.cards)))

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [[(self.leader + i) % SEATS, NAMES[c]] for i, c in enumerate(self.cards)],
            "winner": self.winner,
            "value": self.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Trick:
        """The inverse of :meth:`to_json`."""
        return cls(
            leader=data["leader"],
            cards=tuple(card(name) for _seat, name in data["cards"]),
            winner=data["winner"],
            value=data["value"],
        )


@dataclass(frozen=True)
class Observation:
    """One seat's view of the game; cards are ints (see :mod:`.cards`), JSON uses their names.

    ``phase`` is ``"pass"``, ``"play"`` or ``"over"``. ``passed`` is ``None`` until this seat has
    chosen its pass; ``received`` is ``None`` until every seat has chosen. ``trick`` holds the cards
    played so far in the current trick, the first by ``leader``; ``tricks`` the finished tricks of
    this round. ``round_points`` are this round's trick values so far (before any moon), and
    ``round_scores`` the final scores of every finished round. ``turn`` is the seat to play
    (``None`` while passing and after the end).
    """

    seat: int | None
    round: int
    rounds: int
    phase: str
    hand: tuple[int, ...]
    passed: tuple[int, ...] | None
    pass_to: int | None
    received: tuple[int, ...] | None
    received_from: int | None
    passes_chosen: tuple[bool, ...]
    leader: int
    trick: tuple[int, ...]
    tricks: tuple[Trick, ...]
    round_points: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    turn: int | None

    @property
    def led_suit(self) -> int | None:
        """The suit of the current trick's first card, ``None`` when nobody has played yet."""
        return self.trick[0] // 13 if self.trick else None

    def played(self) -> set[int]:
        """Every card played this round, including the current trick."""
        out = set(self.trick)
        for t in self.tricks:
            out.update(t.cards)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "round": self.round,
            "rounds": self.rounds,
            "phase": self.phase,
            "hand": [NAMES[c] for c in self.hand],
            "passed": None if self.passed is None else [NAMES[c] for c in self.passed],
            "pass_to": self.pass_to,
            "received": None if self.received is None else [NAMES[c] for c in self.received],
            "received_from": self.received_from,
            "passes_chosen": list(self.passes_chosen),
            "leader": self.leader,
            "trick": [[(self.leader + i) % SEATS, NAMES[c]] for i, c in enumerate(self.trick)],
            "tricks": [t.to_json() for t in self.tricks],
            "round_points": list(self.round_points),
            "round_scores": [list(r) for r in self.round_scores],
            "totals": list(self.totals),
            "turn": self.turn,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Observation:
        """The inverse of :meth:`to_json` (a remote bot gets the same value a local one does)."""

        def cards(names: list[str] | None) -> tuple[int, ...] | None:
            return None if names is None else tuple(card(n) for n in names)

        return cls(
            seat=data["seat"],
            round=data["round"],
            rounds=data["rounds"],
            phase=sys.intern(data["phase"]),
            hand=tuple(card(n) for n in data["hand"]),
            passed=cards(data["passed"]),
            pass_to=data["pass_to"],
            received=cards(data["received"]),
            received_from=data["received_from"],
            passes_chosen=tuple(data["passes_chosen"]),
            leader=data["leader"],
            trick=tuple(card(name) for _seat, name in data["trick"]),
            tricks=tuple(Trick.from_json(t) for t in data["tricks"]),
            round_points=tuple(data["round_points"]),
            round_scores=tuple(tuple(r) for r in data["round_scores"]),
            totals=tuple(data["totals"]),
            turn=data["turn"],
        )
