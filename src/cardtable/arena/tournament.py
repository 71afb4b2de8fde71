"""Run a whole tournament and build its report."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from cardtable.core import game_spec, load_bot
from cardtable.core.registry import GAME_MODULES

from .backends import run_games
from .journal import Journal
from .plan import TournamentPlan
from .play import GameOutcome
from .progress import Progress
from .report import Report
from .stats import openskill_ratings, standings


def default_fallback(game: str) -> str:
    """The game's ``heuristic`` bot if it has one, else ``random``."""
    bots = game_spec(game).bots
    return "heuristic" if "heuristic" in bots else "random"


def check_plan(plan: TournamentPlan) -> None:
    """Fail early, in the caller's process, with a clear ``ValueError``: unknown game, rule set,
    seat count out of range, or a bot (or the fallback) that does not load."""
    GAME_MODULES.update(plan.extra_games)
    spec = game_spec(plan.game)
    rules = spec.resolve_rules(plan.rules)
    low, high = spec.seat_range(rules)
    if not low <= plan.seats <= high:
        raise ValueError(f"{plan.game} with these rules seats {low} to {high}, not {plan.seats}")
    for ref in {e.ref for e in plan.entries} | {plan.fallback}:
        load_bot(plan.game, ref, seed=0)
    if plan.decision_timeout is not None and plan.decision_timeout < 0:
        raise ValueError("--decision-timeout must not be negative")


def run_tournament(
    plan: TournamentPlan,
    *,
    jobs: int = 1,
    backend: str = "process",
    address: str | None = None,
    progress: Progress | None = None,
    journal: str | Path | None = None,
) -> Report:
    """Play every game of ``plan`` and report per entry (see :mod:`cardtable.arena`).

    With a ``journal`` file, finished games are written to it as they come in and games already
    in it are not played again (see :mod:`cardtable.arena.journal`).
    """
    started = time.monotonic()
    outcomes, resumed = play_outcomes(
        plan, jobs=jobs, backend=backend, address=address, progress=progress, journal=journal
    )
    rows = standings(plan.entries, outcomes)
    note = ""
    try:
        for row, (ordinal, mu, sigma) in zip(
            rows, openskill_ratings(plan.entries, outcomes), strict=True
        ):
            row.rating, row.rating_mu, row.rating_sigma = ordinal, mu, sigma
    except ImportError as exc:
        note = str(exc)
    return Report(
        plan=plan,
        rows=rows,
        terminations=Counter(g.termination for g in outcomes),
        rating_note=note,
        elapsed=time.monotonic() - started,
        jobs=jobs,
        backend=backend,
        resumed=resumed,
    )


def play_outcomes(
    plan: TournamentPlan,
    *,
    jobs: int = 1,
    backend: str = "process",
    address: str | None = None,
    progress: Progress | None = None,
    journal: str | Path | None = None,
) -> tuple[list[GameOutcome], int]:
    """Every game's outcome of ``plan`` in schedule order, and how many came from the journal."""
    check_plan(plan)
    if plan.records is not None:
        Path(plan.records).mkdir(parents=True, exist_ok=True)
    advance = progress.advance if progress is not None else (lambda n: None)
    book = Journal(journal, plan) if journal is not None else None
    earlier = book.load() if book is not None else []
    if earlier and progress is not None:
        progress.resume(len(earlier))
    played = {(g.deal, g.rotation) for g in earlier}
    todo = [game for game in plan.schedule() if game not in played]
    outcomes = earlier + run_games(
        plan,
        jobs=jobs,
        backend=backend,
        address=address,
        advance=advance,
        games=todo,
        finished=book.append if book is not None else (lambda got: None),
        # with a journal, a deal at a time: a stop loses at most the deals being played
        deals_per_chunk=1 if book is not None else None,
    )
    if progress is not None:
        progress.finish()
    outcomes.sort(key=lambda g: (g.deal, g.rotation))
    if [(g.deal, g.rotation) for g in outcomes] != plan.schedule():
        raise RuntimeError("the backend lost or duplicated games")
    return outcomes, len(earlier)
