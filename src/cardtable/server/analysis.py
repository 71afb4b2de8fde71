"""The expert's analysis of an ended game as a bounded background job (issue #26).

``POST /api/games/{id}/analysis`` queues it, ``GET`` reads its status and, once done, the result
(the same JSON as ``cardtable analyse --json``). The job runs in a separate worker process
(:class:`concurrent.futures.ProcessPoolExecutor`, ``analysis_workers`` of them, default 1, each
lowered with ``os.nice``) so it never takes the event loop or the bot threads of live tables;
at most ``analysis_queue`` jobs wait or run in a process (more get 429); one game may take
``analysis_time_s`` seconds, then its job fails with that reason. The result is cached in the
``analyses`` table: a second request gets it at once.

A row of ``analyses`` is the job's claim: a worker takes a ``queued`` row by moving it to
``running`` in one UPDATE, so in a cluster (several processes on one PostgreSQL) whichever process
was asked queues it and exactly one worker runs it. A row left ``queued`` or ``running`` by a
process that died is taken as stale after ``analysis_time_s`` (plus a minute) and queued again
by the next request.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request, Response
from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from cardtable.server.store.db import Store, _aware, iso, now, rules_label
from cardtable.server.store.models import analyses, game_seats, games

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api")

#: Progress is written to the row at most this often (seconds).
PROGRESS_EVERY_S = 0.5
#: The niceness the worker processes add to themselves.
NICE = 10


class QueueFull(RuntimeError):
    pass


def _nice() -> None:
    with contextlib.suppress(OSError):  # not allowed here: run at the normal priority
        os.nice(NICE)


class AnalysisJobs:
    """This process's queue of analysis jobs (made on the first request)."""

    def __init__(self, store: Store, settings: Any) -> None:
        self.store = store
        self.url = store.url
        self.instance = str(settings.instance)
        self.workers = max(1, int(settings.analysis_workers))
        self.limit = max(1, int(settings.analysis_queue))
        self.worlds = max(1, int(settings.analysis_worlds))
        self.time_s = float(settings.analysis_time_s)
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._futures: dict[tuple[str, int], Future[str]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: never fork a process that runs an event loop and threads
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_nice
            )
        return self._pool

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def active(self) -> int:
        with self._lock:
            self._futures = {k: f for k, f in self._futures.items() if not f.done()}
            return len(self._futures)

    # ------------------------------------------------------------------ requests
    def start(self, game_id: str, seat: int) -> dict[str, Any]:
        """Queue the analysis of ``game_id`` for ``seat`` (-1: every seat) unless it is cached
        or under way; returns the row's status."""
        row = read(self.store, game_id, seat)
        if row is not None and row["status"] == "done":
            return row
        if row is not None and row["status"] in ("queued", "running") and not self._stale(row):
            return row  # under way here or in another process of the cluster
        if self.active() >= self.limit:
            raise QueueFull(
                f"{self.limit} analyses are waiting or running in this server; try again later"
            )
        budget = {"worlds": self.worlds, "time_s": self.time_s}
        if not _queue_row(
            self.store, game_id, seat, budget, replace=None if row is None else row["status"]
        ):
            out = read(self.store, game_id, seat)  # another request took it just now
            assert out is not None
            return out
        with self._lock:
            future = self._executor().submit(
                run_job, self.url, self.instance, game_id, seat, self.worlds, self.time_s
            )
            self._futures[(game_id, seat)] = future
        future.add_done_callback(_log_failure)
        out = read(self.store, game_id, seat)
        assert out is not None
        return out

    def _stale(self, row: dict[str, Any]) -> bool:
        since = row.get("started_at_dt") or row.get("created_at_dt")
        if since is None:
            return True
        return bool(now() - since > timedelta(seconds=self.time_s + 60))


def _log_failure(future: Future[str]) -> None:
    exc = future.exception()
    if exc is not None:
        log.warning("an analysis worker failed: %r", exc)


def _queue_row(
    store: Store, game_id: str, seat: int, budget: dict[str, Any], *, replace: str | None
) -> bool:
    """Queue the job: a new row, or (``replace``: the status last read) the old row again, only
    if nobody changed it since. Returns whether this call queued it."""
    values = {
        "status": "queued",
        "budget_json": json.dumps(budget),
        "done": 0,
        "total": 0,
        "result_json": None,
        "error": None,
        "claimed_by": None,
        "created_at": now(),
        "started_at": None,
        "finished_at": None,
    }
    if replace is not None:
        with store.transaction() as conn:
            changed = conn.execute(
                update(analyses)
                .where(
                    and_(
                        analyses.c.game_id == game_id,
                        analyses.c.seat == seat,
                        analyses.c.status == replace,
                    )
                )
                .values(**values)
            ).rowcount
        return bool(changed == 1)
    try:
        with store.transaction() as conn:
            conn.execute(insert(analyses).values(game_id=game_id, seat=seat, **values))
    except IntegrityError:  # another request (or process) queued it just now: that row stands
        return False
    return True


def read(store: Store, game_id: str, seat: int, *, result: bool = False) -> dict[str, Any] | None:
    """The analysis row as the API shows it (``result`` parsed when asked and done)."""
    with store.engine.connect() as conn:
        row = conn.execute(
            select(analyses).where(and_(analyses.c.game_id == game_id, analyses.c.seat == seat))
        ).first()
    if row is None:
        return None
    out: dict[str, Any] = {
        "game_id": row.game_id,
        "seat": None if row.seat < 0 else row.seat,
        "status": row.status,
        "budget": json.loads(row.budget_json),
        "done": row.done,
        "total": row.total,
        "error": row.error,
        "claimed_by": row.claimed_by,
        "created_at": iso(row.created_at),
        "started_at": iso(row.started_at),
        "finished_at": iso(row.finished_at),
        "created_at_dt": _aware(row.created_at),
        "started_at_dt": _aware(row.started_at),
    }
    if result and row.status == "done" and row.result_json:
        out["result"] = json.loads(row.result_json)
    return out


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.endswith("_dt")}


# ---------------------------------------------------------------------- the worker process
class _OverTime(Exception):
    pass


def run_job(url: str, instance: str, game_id: str, seat: int, worlds: int, time_s: float) -> str:
    """Claim the queued row and run the analysis (in a worker process); returns the status."""
    from cardtable.analysis.review import Budget, analyse, decision_count
    from cardtable.core import Record

    store = Store(url)
    try:
        with store.transaction() as conn:
            claimed = conn.execute(
                update(analyses)
                .where(
                    and_(
                        analyses.c.game_id == game_id,
                        analyses.c.seat == seat,
                        analyses.c.status == "queued",
                    )
                )
                .values(status="running", claimed_by=f"{instance}/{os.getpid()}", started_at=now())
            ).rowcount
        if claimed != 1:
            return "taken"  # another worker has it, or it was answered meanwhile
        try:
            data = store.record(game_id)
            if data is None:
                raise ValueError(f"no ended game {game_id!r}")
            record = Record.from_json(data)
            seats = list(range(record.seats)) if seat < 0 else [seat]
            total = decision_count(record, seats)
            _progress(store, game_id, seat, 0, total)
            started = time.monotonic()
            state = {"done": 0, "written": started}

            def step(_review: Any) -> None:
                state["done"] += 1
                t = time.monotonic()
                if t - started > time_s:
                    raise _OverTime(
                        f"over the time budget of {time_s:g} s "
                        f"({int(state['done'])} of {total} decisions analysed)"
                    )
                if t - state["written"] >= PROGRESS_EVERY_S:
                    state["written"] = t
                    _progress(store, game_id, seat, int(state["done"]), total)

            analysis = analyse(record, seats, Budget(worlds=worlds), on_review=step)
            result = json.dumps(analysis.to_json(), separators=(",", ":"))
            _finish(store, game_id, seat, "done", result=result, done=total)
            return "done"
        except _OverTime as exc:
            _finish(store, game_id, seat, "failed", error=str(exc))
            return "failed"
        except Exception as exc:
            _finish(store, game_id, seat, "failed", error=f"{type(exc).__name__}: {exc}")
            return "failed"
    finally:
        store.close()


def _progress(store: Store, game_id: str, seat: int, done: int, total: int) -> None:
    with store.transaction() as conn:
        conn.execute(
            update(analyses)
            .where(and_(analyses.c.game_id == game_id, analyses.c.seat == seat))
            .values(done=done, total=total)
        )


def _finish(
    store: Store,
    game_id: str,
    seat: int,
    status: str,
    *,
    result: str | None = None,
    error: str | None = None,
    done: int | None = None,
) -> None:
    values: dict[str, Any] = {
        "status": status,
        "result_json": result,
        "error": error,
        "finished_at": now(),
    }
    if done is not None:
        values["done"] = done
    with store.transaction() as conn:
        conn.execute(
            update(analyses)
            .where(and_(analyses.c.game_id == game_id, analyses.c.seat == seat))
            .values(**values)
        )


# ---------------------------------------------------------------------- HTTP
def jobs_of(request: Request) -> AnalysisJobs:
    app = request.app
    with _APP_LOCK:
        jobs: AnalysisJobs | None = getattr(app.state, "analysis_jobs", None)
        if jobs is None:
            jobs = AnalysisJobs(app.state.store, app.state.settings)
            app.state.analysis_jobs = jobs
    return jobs


_APP_LOCK = threading.Lock()


def _seat_key(seat: int | None, seats: int) -> int:
    if seat is None:
        return -1
    if not 0 <= seat < seats:
        raise HTTPException(422, f"no seat {seat} in this {seats}-seat game (seats count from 0)")
    return seat


def _ended(request: Request, game_id: str) -> dict[str, Any]:
    store: Store = request.app.state.store
    data = store.record(game_id)
    if data is None:
        raise HTTPException(404, f"no ended game {game_id!r}")
    if data.get("game") not in ("kuhhandel", "cunegonda"):
        raise HTTPException(422, f"no analysis for the game {data.get('game')!r}")
    return data


@router.post(
    "/games/{game_id}/analysis",
    status_code=202,
    summary="Start the expert's analysis of an ended game (cached once done)",
    responses={
        404: {"description": "no ended game"},
        422: {"description": "no such seat"},
        429: {"description": "the analysis queue is full"},
    },
)
def start_analysis(
    game_id: str,
    request: Request,
    seat: int | None = Query(None, description="the seat to analyse (default: every seat)"),
) -> dict[str, Any]:
    data = _ended(request, game_id)
    key = _seat_key(seat, int(data["seats"]))
    try:
        row = jobs_of(request).start(game_id, key)
    except QueueFull as exc:
        raise HTTPException(429, str(exc)) from None
    if row["status"] == "done":
        full = read(request.app.state.store, game_id, key, result=True)
        assert full is not None
        return _public(full)
    return _public(row)


@router.get(
    "/games/{game_id}/analysis",
    summary="The analysis of an ended game: its status, progress and (once done) the result",
    responses={
        204: {"description": "with cached=true: no analysis asked for yet"},
        404: {"description": "no ended game, or no analysis asked for yet"},
    },
)
def get_analysis(
    game_id: str,
    request: Request,
    seat: int | None = Query(None, description="the seat analysed (default: every seat)"),
    cached: bool = Query(
        False,
        description="a page asking whether one is cached: 204 (no content) when none was "
        "asked for yet, not 404 (an error in the browser's console)",
    ),
) -> Any:
    data = _ended(request, game_id)
    key = _seat_key(seat, int(data["seats"]))
    row = read(request.app.state.store, game_id, key, result=True)
    if row is None:
        if cached:
            return Response(status_code=204)
        raise HTTPException(404, "no analysis of this game yet: POST to start it")
    return _public(row)


@router.get(
    "/players/{name}/analyses",
    summary="The expert's summary over a player's analysed games (per game), and its jobs",
    responses={404: {"description": "no player of that name"}},
)
def player_analyses(name: str, request: Request) -> dict[str, Any]:
    """Every done analysis of a seat this player held (the seat's own analysis, or the game's
    every-seat analysis), summed up per game with :func:`summary_of_json` (what
    ``cardtable analyse A.json B.json --player NAME`` prints), the games one by one, and the
    jobs still queued or running for its seats."""
    from cardtable.analysis.review import (
        NOISE_Z,
        adapter_for,
        summary_of_json,
        threshold_words,
    )

    store: Store = request.app.state.store
    player = store.player(name)
    if player is None:
        raise HTTPException(404, f"no bot {name!r} and no person of that name")
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                game_seats.c.game_id,
                game_seats.c.seat,
                games.c.game,
                games.c.rules_name,
                games.c.rules_json,
                games.c.ended_at,
                analyses.c.seat.label("analysed"),
                analyses.c.status,
                analyses.c.done,
                analyses.c.total,
                analyses.c.result_json,
            )
            .join(games, games.c.id == game_seats.c.game_id)
            .join(analyses, analyses.c.game_id == game_seats.c.game_id)
            .where(
                game_seats.c.player_id == player.id,
                or_(analyses.c.seat == game_seats.c.seat, analyses.c.seat == -1),
            )
            .order_by(games.c.ended_at.desc(), analyses.c.seat.desc())
        ).all()
    per_game: dict[str, dict[str, Any]] = {}
    pending: list[dict[str, Any]] = []
    seen: set[str] = set()
    for row in rows:
        if row.status in ("queued", "running"):
            pending.append(
                {
                    "game_id": row.game_id,
                    "seat": row.seat,
                    "status": row.status,
                    "done": row.done,
                    "total": row.total,
                }
            )
            continue
        if row.status != "done" or not row.result_json or row.game_id in seen:
            continue  # failed, or this seat's own analysis was taken before the every-seat one
        seen.add(row.game_id)
        result = json.loads(row.result_json)
        reviews = [r for r in result["reviews"] if r["seat"] == row.seat]
        entry = per_game.get(row.game)
        if entry is None:
            adapter = adapter_for(row.game)
            entry = per_game[row.game] = {
                "game": row.game,
                "unit": adapter.unit,  # English for scripts, as "threshold": pages word them
                "threshold": threshold_words(adapter),  # from the game and the two numbers
                "loss_at_least": adapter.threshold,
                "noise_z": NOISE_Z,
                "reviews": [],
                "games": [],
            }
        entry["reviews"].extend(reviews)
        entry["games"].append(
            {
                "game_id": row.game_id,
                "seat": row.seat,
                "rules_label": rules_label(row.game, row.rules_json, row.rules_name),
                "ended_at": iso(row.ended_at),
                "summary": summary_of_json(reviews),
            }
        )
    out = []
    for entry in per_game.values():
        reviews = entry.pop("reviews")
        out.append({**entry, "summary": summary_of_json(reviews)})
    return {"name": player.name, "kind": player.kind, "by_game": out, "pending": pending}
