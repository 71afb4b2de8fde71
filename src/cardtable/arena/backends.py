"""Where the games run: this process, a process pool, or a Ray cluster.

Each backend plays chunks of the schedule with :func:`~cardtable.arena.play.play_chunk` and hands
back every outcome; the caller sorts them into the canonical order, so the backend and the number
of jobs never change the results.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .plan import TournamentPlan
from .play import GameOutcome, play_chunk

BACKENDS = ("process", "ray")

Chunk = list[tuple[int, int]]


def chunks(
    plan: TournamentPlan,
    jobs: int,
    games: Sequence[tuple[int, int]] | None = None,
    deals_per_chunk: int | None = None,
) -> list[Chunk]:
    """The schedule (or the ``games`` left of it) cut into chunks of about whole deals: enough
    chunks to keep ``jobs`` workers busy and the progress bar moving, few enough that pickling
    stays cheap (or ``deals_per_chunk`` deals each)."""
    schedule = plan.schedule() if games is None else list(games)
    deals = math.ceil(len(schedule) / plan.rotations)
    target = max(1, jobs) * 16
    per_chunk = deals_per_chunk or max(1, min(math.ceil(deals / target), 16))
    size = per_chunk * plan.rotations
    return [schedule[i : i + size] for i in range(0, len(schedule), size)]


def run_games(
    plan: TournamentPlan,
    *,
    jobs: int = 1,
    backend: str = "process",
    address: str | None = None,
    advance: Callable[[int], None] = lambda n: None,
    games: Sequence[tuple[int, int]] | None = None,
    finished: Callable[[list[GameOutcome]], None] = lambda outcomes: None,
    deals_per_chunk: int | None = None,
) -> list[GameOutcome]:
    """Play every game of ``plan`` (or only ``games``); as each chunk is done, ``finished`` gets
    its outcomes and ``advance(n)`` its number of games."""
    todo = chunks(plan, jobs, games, deals_per_chunk)
    if not todo:
        return []

    def done(got: list[GameOutcome]) -> None:
        finished(got)
        advance(len(got))

    if backend == "ray":
        return _run_ray(plan, jobs, address, todo, done)
    if backend != "process":
        raise ValueError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if jobs <= 1:
        outcomes: list[GameOutcome] = []
        for chunk in todo:
            got = play_chunk(plan, chunk)
            outcomes.extend(got)
            done(got)
        return outcomes
    return _run_pool(plan, jobs, todo, done)


def _run_pool(
    plan: TournamentPlan,
    jobs: int,
    todo: list[Chunk],
    done_chunk: Callable[[list[GameOutcome]], None],
) -> list[GameOutcome]:
    # Why spawn: workers start from a clean interpreter (no inherited threads or locks, the same
    # on every platform); the cost is one import of cardtable per worker.
    context = multiprocessing.get_context("spawn")
    outcomes: list[GameOutcome] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        running: set[Future[list[GameOutcome]]] = {
            pool.submit(play_chunk, plan, chunk) for chunk in todo
        }
        try:
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    got = future.result()
                    outcomes.extend(got)
                    done_chunk(got)
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return outcomes


def _run_ray(
    plan: TournamentPlan,
    jobs: int,
    address: str | None,
    todo: list[Chunk],
    done_chunk: Callable[[list[GameOutcome]], None],
) -> list[GameOutcome]:
    try:
        import ray
    except ImportError:
        raise ValueError(
            "--backend ray needs Ray: pip install 'cardtable[ray]' (or use --backend process)"
        ) from None
    started_here = not ray.is_initialized()
    if started_here:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        if address is None:
            options["num_cpus"] = max(1, jobs)  # a local instance sized like a process pool
        ray.init(address=address, **options)
    try:
        task = ray.remote(play_chunk)
        plan_ref = ray.put(plan)
        pending: list[Any] = [task.remote(plan_ref, chunk) for chunk in todo]
        outcomes: list[GameOutcome] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            got: list[GameOutcome] = list(ray.get(done[0]))
            outcomes.extend(got)
            done_chunk(got)
        return outcomes
    finally:
        if started_here:
            ray.shutdown()
