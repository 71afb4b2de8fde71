"""A window into one search of a search bot, for the analysis (``cardtable analyse``).

A search bot that supports it (both ``expert`` bots) reads its ``probe`` attribute: when set, its
next search adds :attr:`SearchProbe.extra` to its candidates (the answer actually given, so it is
valued like the rest), samples :attr:`SearchProbe.worlds` worlds when that is set, and writes what
every world gave every candidate into the probe. The bot's answer itself is unchanged; the probe
only watches. Only the observation the bot was given is ever searched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: ``judge(scores)`` turns one playout's scores (one per seat) into ``(win, margin)`` for the seat.
Judge = Callable[[Sequence[float]], tuple[float, float]]


@dataclass
class SearchProbe:
    """The candidates of one search and, per candidate, ``(utility, win, margin)`` per world."""

    #: Candidates to add to the search (in the bot's own form), e.g. the answer actually given.
    extra: list[Any] = field(default_factory=list)
    #: Search only these candidates (a second look at two of them on fresh worlds).
    only: list[Any] | None = None
    #: Worlds to sample (overrides the bot's own budget; ``None``: the bot's budget).
    worlds: int | None = None
    #: For bots whose playouts give scores only: how a playout's scores become ``(win, margin)``.
    judge: Judge | None = None
    candidates: list[Any] = field(default_factory=list)
    samples: list[list[tuple[float, float, float]]] = field(default_factory=list)
    searched: bool = False

    def open(self, candidates: Sequence[Any]) -> list[Any]:
        """The candidates to search: the bot's, then the extra ones it did not have."""
        out = list(candidates) if self.only is None else list(self.only)
        for cand in self.extra:
            if cand not in out:
                out.append(cand)
        self.candidates = out
        self.samples = [[] for _ in out]
        self.searched = True
        return out

    def add(self, index: int, utility: float, win: float, margin: float) -> None:
        self.samples[index].append((utility, win, margin))
