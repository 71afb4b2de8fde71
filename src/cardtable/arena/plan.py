"""What a tournament plays: the line-up, the deals, the rotations and every seed.

A tournament of ``deals`` deals plays each deal once per *rotation* of the line-up over the seats,
with the same game seed each time (the engines shuffle from the game seed, so every rotation gets
the same deck: a *duplicate deal*). ``games = deals × seats``. Every seed is derived from the
tournament seed and the game's position in the schedule, never from the order in which workers
happen to finish, so the same plan gives the same games on any number of processes or machines.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardtable.core.registry import split_bot_ref
from cardtable.stdio.spec import is_program_ref


@dataclass(frozen=True)
class Entry:
    """One position of the line-up (``--bots``); entries are told apart by position.

    ``ref`` is what :func:`cardtable.core.load_bot` loads (a registered name or ``file.py:Class``,
    file paths made absolute); ``label`` is the short name shown in tables (``heuristic#2`` when the
    same bot appears more than once).
    """

    index: int
    ref: str
    label: str


@dataclass(frozen=True)
class TournamentPlan:
    """Everything a worker needs to play any game of the tournament (picklable)."""

    game: str
    #: A preset name or a full rule set as JSON.
    rules: str | Mapping[str, Any]
    seats: int
    entries: tuple[Entry, ...]
    deals: int
    seed: int = 0
    #: Seconds a bot may take per decision (and per hook call); ``None``: no deadline, no thread.
    decision_timeout: float | None = 5.0
    #: The bot that answers a decision a bot forfeited.
    fallback: str = "heuristic"
    #: Also run built-in (registered) bots under the deadline; by default only bots loaded from
    #: files are, because the deadline thread costs ~25 µs per decision, more than a built-in
    #: bot's whole decision.
    guard_builtin: bool = False
    #: Directory that receives every game's record, or ``None``.
    records: str | None = None
    #: Extra ``game name -> module`` registrations applied in every worker (out-of-tree games).
    extra_games: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.entries) != self.seats:
            raise ValueError(f"{len(self.entries)} bots for {self.seats} seats")
        if self.deals < 1:
            raise ValueError("a tournament needs at least one deal")

    @property
    def rotations(self) -> int:
        """Rotations per deal: one per seat (every entry sits at every seat once per deal)."""
        return self.seats

    @property
    def games(self) -> int:
        return self.deals * self.rotations

    def table_json(self) -> dict[str, Any]:
        """The table the reports describe: game, rules, seats, seed and deals."""
        return {
            "game": self.game,
            "rules": self.rules if isinstance(self.rules, str) else dict(self.rules),
            "seats": self.seats,
            "seed": self.seed,
            "deals": self.deals,
        }

    def schedule(self) -> list[tuple[int, int]]:
        """Every game as ``(deal, rotation)``, in the canonical order results are reported in."""
        return [(d, r) for d in range(self.deals) for r in range(self.rotations)]

    def seating(self, rotation: int) -> tuple[int, ...]:
        """Entry index per seat: rotation ``r`` seats entry ``e`` at ``(e + r) mod seats``."""
        n = self.seats
        return tuple((s - rotation) % n for s in range(n))

    def deal_seed(self, deal: int) -> int:
        """The game seed of a deal: the same for all its rotations (hence the same deck)."""
        return derive_seed(self.seed, "deal", deal)

    def bot_seed(self, deal: int, entry: int) -> int:
        """The seed of an entry's bot in a deal: the same in every rotation of the deal."""
        return derive_seed(self.seed, "bot", deal, entry)

    def fallback_seed(self, deal: int, rotation: int, seat: int) -> int:
        """The seed of the fallback answering for ``seat``: its bot's seed + 1, as a server's
        tournament table seeds its fallback, so a line-up played again offline with the same
        fallback makes the same moves after a fault too (docs/competitions.md)."""
        return self.bot_seed(deal, self.seating(rotation)[seat]) + 1

    def deadline_for(self, entry: Entry) -> float | None:
        """The deadline an entry's bot runs under (``None``: called directly, no thread)."""
        if self.guard_builtin or is_file_ref(entry.ref):
            return self.decision_timeout
        return None

    def record_path(self, deal: int, rotation: int) -> Path | None:
        if self.records is None:
            return None
        return Path(self.records) / f"{self.game}-{deal:05d}-r{rotation}.json"


def derive_seed(seed: int, *path: object) -> int:
    """A 53-bit seed (exact in JSON and JavaScript) from the tournament seed and a path."""
    text = "/".join(["cardtable-arena", str(seed), *map(str, path)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 11


def deals_for(games: int, seats: int) -> int:
    """Deals needed for at least ``games`` games: ``ceil(games / seats)`` (whole deals only)."""
    if games < 1:
        raise ValueError("--games must be at least 1")
    return math.ceil(games / seats)


def make_entries(refs: list[str], seats: int | None = None) -> tuple[Entry, ...]:
    """Entries from ``--bots``; with ``seats`` larger than the list, the last bot fills the rest.

    File references (``path.py`` or ``path.py:Class``) get absolute paths so workers started
    elsewhere (another directory, a Ray worker) find them.
    """
    refs = [r.strip() for r in refs if r.strip()]
    if not refs:
        raise ValueError("--bots names no bot")
    if seats is not None:
        if len(refs) > seats:
            raise ValueError(f"{len(refs)} bots for {seats} seats")
        refs = refs + [refs[-1]] * (seats - len(refs))
    resolved = [_absolute(r) for r in refs]
    shown = [_short(r) for r in refs]
    entries = []
    for i, (ref, short) in enumerate(zip(resolved, shown, strict=True)):
        label = short
        if shown.count(short) > 1:
            label = f"{short}#{shown[: i + 1].count(short)}"
        entries.append(Entry(i, ref, label))
    return tuple(entries)


def is_file_ref(ref: str) -> bool:
    """Whether ``ref`` names a bot file (``path.py`` or ``path.py:Class``), as load_bot reads it.

    A program (``cmd:...``) is not one: it keeps its own deadline (:mod:`cardtable.stdio`).
    """
    if is_program_ref(ref):
        return False
    base, _options = split_bot_ref(ref)
    return ":" in base or base.endswith(".py")


def _rewrite_path(ref: str, change: Callable[[Path], str]) -> str:
    """``ref`` with its bot file's path replaced by ``change(path)``; class and options kept."""
    base, _options = split_bot_ref(ref)
    if not is_file_ref(base):
        return ref  # a registered name
    path, sep, attr = base.rpartition(":") if ":" in base else (base, "", "")
    return f"{change(Path(path))}{sep}{attr}{ref[len(base) :]}"


def _absolute(ref: str) -> str:
    return _rewrite_path(ref, lambda path: str(path.resolve()))


def _short(ref: str) -> str:
    return _rewrite_path(ref, lambda path: path.name)
