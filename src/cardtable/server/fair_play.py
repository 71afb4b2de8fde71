"""Fair play: what a take-over costs a seat, and who may be seated in ranked play.

This module owns the take-over policy (docs/protocol.md "Faults"). The table keeps the seed's
rule: a decision a seat failed (timeout, disconnect, invalid or illegal action, raised, ...) is
answered by the server's fallback bot and the game goes on. But a seat must never gain from
decisions it did not make, so:

- **a seat with a fault of its own in a game is placed below every seat without one**, for its
  rating, its wins and the standings of a tournament; faulted seats keep their order among
  themselves (their places at the table, ties share). :func:`fair_places` computes it from the
  game's places and the faults stored with it (:func:`own_fault`), so ``cardtable ratings
  recompute`` rebuilds the same ratings from what is stored.
- Not "unrated": a bot about to lose could fail on purpose to leave the game unrated and keep its
  rating; placed below every clean seat, failing is never better than any place it could have
  reached by playing (:func:`fair_places` never moves a seat up when it faults).
- A fault that is not the seat's own does not count: a connection the server lost with its own
  process (``detail.excused``), a Kuh-Handel reply the endpoint corrects (``rectified``: the
  reference's own correction, not a fallback's decision).

It also answers whether a bot is suspended now (:func:`suspended`): the ranked matchmaker asks at
seating, not only when the bot connects, so a bot suspended while queued is never seated.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from cardtable.server.store.models import faults, game_seats, players

if TYPE_CHECKING:
    from cardtable.server.lobby import QueueEntry
    from cardtable.server.store.db import Store

log = logging.getLogger("cardtable.server.fair_play")


@dataclass(frozen=True)
class Standing:
    """How one seat of a finished game counts: its place (from 0) and whether it was placed
    below the seats without a fault for a fault of its own."""

    place: int
    placed_last_for_faults: bool


#: Fault codes that are no failure of the seat's own (the Kuh-Handel endpoint's corrections).
EXCUSED_CODES = frozenset({"rectified"})
#: Lobbies where only the server's fallback may answer a failed decision (a client's own
#: fallback could be any strong bot): the fault is stored as answered by the server.
SERVER_ANSWERS = frozenset({"ranked", "tournament"})


def own_fault(code: str, detail: Mapping[str, Any] | str | None) -> bool:
    """Whether a stored fault was the seat's own failure (it counts against its place)."""
    if code in EXCUSED_CODES:
        return False
    if isinstance(detail, str):
        try:
            detail = json.loads(detail)
        except ValueError:
            detail = None
    return not (isinstance(detail, Mapping) and detail.get("excused") is True)


def faulted_seats(rows: Iterable[tuple[int, str, Mapping[str, Any] | str | None]]) -> set[int]:
    """The seats with a fault of their own among ``(seat, code, detail)`` rows of one game."""
    return {seat for seat, code, detail in rows if own_fault(code, detail)}


def fair_places(places: Sequence[int], faulted: Iterable[int]) -> list[int]:
    """The places that count for ratings and standings: every seat in ``faulted`` below every
    other seat; within each group the table's order (``places``, lower is better) stays, ties
    share a place (0-based, a shared place skips the next ones: 0, 0, 2)."""
    bad = set(faulted)
    keys = [(i in bad, p) for i, p in enumerate(places)]
    return [sum(1 for other in keys if other < key) for key in keys]


def game_fair_places(conn: Connection, game_id: str, places: Sequence[int]) -> list[int]:
    """:func:`fair_places` of one stored game, from its stored faults."""
    rows = conn.execute(
        select(faults.c.seat, faults.c.code, faults.c.detail).where(faults.c.game_id == game_id)
    ).all()
    return fair_places(places, faulted_seats((r.seat, r.code, r.detail) for r in rows))


def seat_standing(conn: Connection, game_ids: Iterable[str]) -> dict[tuple[str, int], Standing]:
    """For the seats of these stored games that have a place: the place that counts (from 0)
    and whether the seat had a fault of its own (placed below every seat without one)."""
    ids = sorted(set(game_ids))
    if not ids:
        return {}
    places: dict[str, dict[int, int]] = {}
    for r in conn.execute(
        select(game_seats.c.game_id, game_seats.c.seat, game_seats.c.place).where(
            game_seats.c.game_id.in_(ids), game_seats.c.place.is_not(None)
        )
    ):
        places.setdefault(str(r.game_id), {})[int(r.seat)] = int(r.place)
    bad: dict[str, set[int]] = {}
    for r in conn.execute(
        select(faults.c.game_id, faults.c.seat, faults.c.code, faults.c.detail).where(
            faults.c.game_id.in_(ids)
        )
    ):
        if own_fault(r.code, r.detail):
            bad.setdefault(str(r.game_id), set()).add(int(r.seat))
    out: dict[tuple[str, int], Standing] = {}
    for game_id, by_seat in places.items():
        seats = sorted(by_seat)
        faulted = bad.get(game_id, set())
        fair = fair_places(
            [by_seat[s] for s in seats], [i for i, s in enumerate(seats) if s in faulted]
        )
        for i, seat in enumerate(seats):
            out[(game_id, seat)] = Standing(fair[i], seat in faulted)
    return out


def suspended(
    conn: Connection, player_ids: Iterable[int], at: datetime
) -> dict[int, tuple[datetime, str]]:
    """The players among ``player_ids`` suspended at ``at``: until when, and why."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    rows = conn.execute(
        select(players.c.id, players.c.suspended_until, players.c.suspended_reason).where(
            players.c.id.in_(ids), players.c.suspended_until.is_not(None)
        )
    ).all()
    out: dict[int, tuple[datetime, str]] = {}
    for r in rows:
        until = r.suspended_until
        if until.tzinfo is None:  # SQLite hands back naive UTC
            until = until.replace(tzinfo=at.tzinfo)
        if until > at:
            out[int(r.id)] = (until, str(r.suspended_reason or "repeated faults"))
    return out


def suspension_message(name: str, until: datetime, reason: str) -> dict[str, Any]:
    """The ``error`` a suspended bot gets when it is refused a ranked seat."""
    return {
        "type": "error",
        "code": "suspended",
        "reason": f"{name} is suspended until {until.isoformat()}: {reason}; "
        "it is out of the ranked queue",
    }


def suspension_of(store: Store, player_id: int, name: str) -> str | None:
    """Why ``player_id`` may not join the ranked queue now (suspended), or ``None``."""
    with store.engine.connect() as conn:
        found = suspended(conn, [player_id], datetime.now(UTC))
    if player_id not in found:
        return None
    until, reason = found[player_id]
    return f"{name} is suspended until {until.isoformat()}: {reason}"


async def drop_suspended(
    store: Store, executor: Executor, queue: list[QueueEntry]
) -> list[tuple[QueueEntry, dict[str, Any]]]:
    """Take the bots suspended now out of a ranked ``queue`` (in place), checked in the
    database at seating: a bot suspended while it waited (by a game that just ended, on any
    process of a cluster) is never seated. Returns each one dropped with the ``error`` to send
    it (``suspended``, saying until when)."""
    ids = [e.member.player_id for e in queue if e.member.player_id is not None]
    if not ids:
        return []

    def read() -> dict[int, tuple[datetime, str]]:
        with store.engine.connect() as conn:
            return suspended(conn, ids, datetime.now(UTC))

    found = await asyncio.get_running_loop().run_in_executor(executor, read)
    dropped = []
    for entry in [e for e in queue if e.member.player_id in found]:
        assert entry.member.player_id is not None
        until, reason = found[entry.member.player_id]
        queue.remove(entry)
        log.warning("%s is suspended until %s: out of the ranked queue", entry.member.name, until)
        dropped.append((entry, suspension_message(entry.member.name, until, reason)))
    return dropped
