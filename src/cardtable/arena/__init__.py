"""Tournaments between bots: many games, seat rotation, duplicate deals, statistics.

A tournament plays ``deals`` deals; each deal is played once per rotation of the line-up over the
seats with the same game seed, hence the same deck (duplicate deals). Games run in this process,
over a process pool or on Ray, and the results depend only on the plan, never on where or in
which order games ran. Each bot decision runs under a deadline; a bot that raises, answers
something the engine refuses, or hangs forfeits that decision to a fallback bot and the fault is
counted against it. See ``docs/arena.md``.
"""

from .ab import ABReport, ab_plans, run_ab
from .guard import BotReplaced, DecisionTimeout, GuardedAgent, guard_agent
from .journal import Journal, JournalError
from .plan import Entry, TournamentPlan, deals_for, derive_seed, make_entries
from .play import ArenaError, FaultNote, GameOutcome, play_chunk, play_game
from .progress import Progress
from .report import Report
from .stats import (
    Estimate,
    Standing,
    mean_interval,
    openskill_ratings,
    standings,
    t95,
    wilson_interval,
)
from .tournament import check_plan, default_fallback, run_tournament

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
