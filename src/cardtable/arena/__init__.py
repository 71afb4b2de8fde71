"""Tournaments between bots: many games, seat rotation, duplicate deals, statistics.

A tournament plays ``deals`` deals; each deal is played once per rotation of the line-up over the
seats with the same game seed, hence the same deck (duplicate deals). Games run in this process,
over a process pool or on Ray, and the results depend only on the plan, never on where or in
which order games ran. Each bot decision runs under a deadline; a bot that raises, answers
something the engine refuses, or hangs forfeits that decision to a fallback bot and the fault is
counted against it. See ``docs/arena.md``.

The names are imported on first use (as :mod:`cardtable.rl` does): the server's tournaments need
the plan, the outcomes and the standings, not the A/B runner, the process pools or the stdio
bots and the client library that come with them (0.09 s of CPU at every server start).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.arena.ab import ABReport, ab_journals, ab_plans, run_ab
    from cardtable.arena.guard import BotReplaced, DecisionTimeout, GuardedAgent, guard_agent
    from cardtable.arena.journal import Journal, JournalError
    from cardtable.arena.plan import Entry, TournamentPlan, deals_for, derive_seed, make_entries
    from cardtable.arena.play import ArenaError, FaultNote, GameOutcome, play_chunk, play_game
    from cardtable.arena.progress import Progress
    from cardtable.arena.report import Report
    from cardtable.arena.stats import (
        Estimate,
        Standing,
        mean_interval,
        openskill_ratings,
        standings,
        t95,
        wilson_interval,
    )
    from cardtable.arena.tournament import check_plan, default_fallback, run_tournament

#: Each name of the package -> the module it lives in.
_WHERE = {
    "ABReport": "cardtable.arena.ab",
    "ArenaError": "cardtable.arena.play",
    "BotReplaced": "cardtable.arena.guard",
    "DecisionTimeout": "cardtable.arena.guard",
    "Entry": "cardtable.arena.plan",
    "Estimate": "cardtable.arena.stats",
    "FaultNote": "cardtable.arena.play",
    "GameOutcome": "cardtable.arena.play",
    "GuardedAgent": "cardtable.arena.guard",
    "Journal": "cardtable.arena.journal",
    "JournalError": "cardtable.arena.journal",
    "Progress": "cardtable.arena.progress",
    "Report": "cardtable.arena.report",
    "Standing": "cardtable.arena.stats",
    "TournamentPlan": "cardtable.arena.plan",
    "ab_journals": "cardtable.arena.ab",
    "ab_plans": "cardtable.arena.ab",
    "check_plan": "cardtable.arena.tournament",
    "deals_for": "cardtable.arena.plan",
    "default_fallback": "cardtable.arena.tournament",
    "derive_seed": "cardtable.arena.plan",
    "guard_agent": "cardtable.arena.guard",
    "make_entries": "cardtable.arena.plan",
    "mean_interval": "cardtable.arena.stats",
    "openskill_ratings": "cardtable.arena.stats",
    "play_chunk": "cardtable.arena.play",
    "play_game": "cardtable.arena.play",
    "run_ab": "cardtable.arena.ab",
    "run_tournament": "cardtable.arena.tournament",
    "standings": "cardtable.arena.stats",
    "t95": "cardtable.arena.stats",
    "wilson_interval": "cardtable.arena.stats",
}

__all__ = [
    "ABReport",
    "ArenaError",
    "BotReplaced",
    "DecisionTimeout",
    "Entry",
    "Estimate",
    "FaultNote",
    "GameOutcome",
    "GuardedAgent",
    "Journal",
    "JournalError",
    "Progress",
    "Report",
    "Standing",
    "TournamentPlan",
    "ab_journals",
    "ab_plans",
    "check_plan",
    "deals_for",
    "default_fallback",
    "derive_seed",
    "guard_agent",
    "make_entries",
    "mean_interval",
    "openskill_ratings",
    "play_chunk",
    "play_game",
    "run_ab",
    "run_tournament",
    "standings",
    "t95",
    "wilson_interval",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'cardtable.arena' has no attribute {name!r}")
    return getattr(import_module(where), name)
