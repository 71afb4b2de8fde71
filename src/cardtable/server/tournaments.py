"""Competitions on the server: what an organiser sets, the schedule in the database, standings.

A tournament is planned as the arena plans one (:mod:`cardtable.arena.plan`): every *line-up* of
``seats`` entrants is a :class:`~cardtable.arena.plan.TournamentPlan` of ``deals`` deals, each
deal played once per rotation of the line-up over the seats with the same deck (duplicate deals).
Format ``all``: every combination of ``seats`` entrants of the field is a line-up, all with the
tournament seed (so deal ``d`` is the same deck at every line-up). Format ``swiss``: ``rounds``
rounds; each round groups the field by the standings so far into tables of ``seats`` and plays
``deals`` new deals (round seed ``derive_seed(seed, "round", r)``) at every table.

Every planned game is a row of ``tournament_games`` (:mod:`cardtable.server.store.models`) with
state ``planned`` → ``running`` → ``done``; a running game that did not end (a restart, a crash)
turns ``void`` and a new ``planned`` row of the same slot with the next attempt replaces it, so a
slot is played to its end exactly once. Claims run in one transaction (``SELECT ... FOR UPDATE
SKIP LOCKED`` on PostgreSQL, so any process of a cluster may claim; SQLite serialises writers).

Standings are always recomputed from the stored records of the ``done`` games with the arena's
statistics (:func:`cardtable.arena.stats.standings`), and frozen when the last game is done.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import secrets
import zipfile
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, func, select, update

from cardtable.arena.plan import Entry, TournamentPlan, derive_seed
from cardtable.arena.play import FaultNote, GameOutcome
from cardtable.arena.stats import Standing, standings
from cardtable.core import game_spec
from cardtable.core.record import Record, verify
from cardtable.server import fair_play
from cardtable.server.store.db import Store, now
from cardtable.server.store.models import (
    faults,
    game_seats,
    games,
    players,
    tournament_entrants,
    tournament_games,
    tournaments,
)

#: Fault codes of the server as the arena's categories (for the standings' fault columns).
FAULT_CATEGORY = {
    "timeout": "timeout",
    "invalid_action": "invalid",
    "illegal_action": "illegal",
    "bot_raised": "raised",
    "disconnect": "timeout",
    "left": "replaced",
}
STATES = ("planned", "running", "done", "void")
LIVE = ("signup", "running", "paused")
#: The entrant position of a seat always played by the house bot (a swiss table the field does
#: not fill, with ``house_fill``).
HOUSE = -1
#: A claimed game whose table never stored its start is given up after this long.
STALE_CLAIM_S = 60.0


class TournamentSpec(BaseModel):
    """What an organiser sets when creating a tournament (``POST /api/tournaments``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, description="shown on the standings page")
    game: str = Field(default="kuhhandel", max_length=32)
    rules: str | dict[str, Any] | None = Field(
        default=None, description="a preset name or a full rule set as JSON (default: the game's)"
    )
    seats: int = Field(ge=1, le=16, description="seats per table")
    entrants: list[str] = Field(
        default_factory=list,
        max_length=256,
        description="registered bots (native or Kuh-Handel) by name; with signup_until, bots "
        "that join the tournament's lobby before then are entered too",
    )
    signup_until: datetime | None = Field(
        default=None, description="sign-up closes (and the tournament starts) at this time"
    )
    format: Literal["all", "swiss"] = "all"
    deals: int = Field(default=1, ge=1, le=10_000, description="deals per line-up (per round)")
    rounds: int = Field(default=3, ge=1, le=1000, description="swiss: rounds")
    seed: int = Field(default_factory=lambda: secrets.randbits(31), ge=0, lt=2**53)
    deadline_ms: int = Field(default=2000, ge=50, le=600_000)
    time_bank_ms: int = Field(default=10_000, ge=0, le=3_600_000)
    ban_after_faults: int = Field(
        default=3, ge=1, le=1000, description="faults in one game before the house bot plays on"
    )
    suspend_after_faults: int = Field(
        default=10, ge=1, le=100_000, description="faults in the tournament before suspension"
    )
    house_fill: bool = Field(
        default=True,
        description="seats of suspended entrants, and of entrants absent absent_after_ms after "
        "the start, are played by the house bot",
    )
    absent_after_ms: int = Field(default=60_000, ge=0, le=86_400_000)
    quiet_ms: int = Field(
        default=500, ge=20, le=60_000, description="an open auction closes after this quiet time"
    )


class TournamentError(ValueError):
    """A request about a tournament that cannot be served; ``status`` is the HTTP status."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Planned:
    """One game of the schedule (a row of ``tournament_games`` before it is stored)."""

    slot: int
    lineup: int
    round: int
    deal: int
    rotation: int
    seating: tuple[int, ...]
    seed: int


@dataclass(frozen=True)
class Claimed:
    """A game claimed for this process: start it as ``game_id``."""

    row_id: int
    tournament_id: str
    slot: int
    lineup: int
    round: int
    deal: int
    rotation: int
    seating: tuple[int, ...]
    seed: int
    game_id: str


# -- planning -------------------------------------------------------------------------------


def lineup_plan_seed(spec: TournamentSpec, round_: int) -> int:
    """The arena seed of a line-up: the tournament's (format ``all``) or its round's (swiss)."""
    return spec.seed if spec.format == "all" else derive_seed(spec.seed, "round", round_)


def lineup_plan(
    spec: TournamentSpec, lineup: Sequence[int], round_: int, names: Sequence[str]
) -> TournamentPlan:
    """The arena plan of one line-up: what ``cardtable arena`` runs to play it again."""
    seed = lineup_plan_seed(spec, round_)
    return TournamentPlan(
        game=spec.game,
        rules=spec.rules if spec.rules is not None else game_spec(spec.game).default_rules,
        seats=spec.seats,
        entries=tuple(
            Entry(i, names[p] if p != HOUSE else "expert", names[p] if p != HOUSE else "house")
            for i, p in enumerate(lineup)
        ),
        deals=spec.deals,
        seed=seed,
    )


def plan_lineups(
    spec: TournamentSpec,
    lineups: Sequence[Sequence[int]],
    round_: int,
    first_lineup: int,
    first_slot: int,
    names: Sequence[str],
) -> list[Planned]:
    """Every game of ``lineups`` in canonical order (line-up, deal, rotation)."""
    out: list[Planned] = []
    slot = first_slot
    for k, lineup in enumerate(lineups):
        plan = lineup_plan(spec, lineup, round_, names)
        for deal, rotation in plan.schedule():
            seating = tuple(lineup[e] for e in plan.seating(rotation))
            out.append(
                Planned(
                    slot, first_lineup + k, round_, deal, rotation, seating, plan.deal_seed(deal)
                )
            )
            slot += 1
    return out


def first_plan(spec: TournamentSpec, field: int) -> list[Planned]:
    """The games planned when the tournament starts (swiss: the first round)."""
    names = [str(i) for i in range(field)]
    if spec.format == "all":
        return plan_lineups(
            spec, list(itertools.combinations(range(field), spec.seats)), 0, 0, 0, names
        )
    return plan_lineups(spec, swiss_groups(list(range(field)), spec.seats), 0, 0, 0, names)


def swiss_groups(order: Sequence[int], seats: int) -> list[list[int]]:
    """Tables of ``seats`` consecutive entrants of ``order`` (best first); the last table's
    missing seats are :data:`HOUSE` seats (played by the house bot)."""
    groups = [list(order[i : i + seats]) for i in range(0, len(order), seats)]
    if groups and len(groups[-1]) < seats:
        groups[-1] += [HOUSE] * (seats - len(groups[-1]))
    return groups


def interval_warnings(spec: TournamentSpec) -> list[str]:
    """What an organiser should know of the plan's statistics before it is played: with fewer
    than two distinct deals the vs-field comparison (averaged per deal) has no interval."""
    deals = spec.deals * (spec.rounds if spec.format == "swiss" else 1)
    if deals >= 2:
        return []
    return [
        f"{deals} distinct deal(s): the vs-field comparison of duplicate deals has no 95% "
        "interval (it needs at least 2 deals; use deals >= 2, better 10 or more, or swiss "
        "rounds)"
    ]


def check_spec(spec: TournamentSpec) -> tuple[Any, str | None, dict[str, Any]]:
    """The resolved rule set, its preset name and its JSON; raises :class:`TournamentError`."""
    try:
        gspec = game_spec(spec.game)
    except (KeyError, ValueError) as exc:
        raise TournamentError(422, f"no game {spec.game!r}: {exc}") from None
    try:
        rules = gspec.resolve_rules(spec.rules)
    except (ValueError, TypeError, KeyError) as exc:
        raise TournamentError(422, f"rules: {exc}") from None
    low, high = gspec.seat_range(rules)
    if not low <= spec.seats <= high:
        raise TournamentError(422, f"{spec.game} with these rules seats {low} to {high}")
    if len(set(spec.entrants)) != len(spec.entrants):
        raise TournamentError(422, "an entrant is named twice")
    if spec.signup_until is None and len(spec.entrants) < spec.seats:
        raise TournamentError(
            422, f"{len(spec.entrants)} entrants for {spec.seats} seats (or open a sign-up)"
        )
    if spec.format == "all" and math.comb(max(len(spec.entrants), spec.seats), spec.seats) > 5000:
        raise TournamentError(422, "too many line-ups for format 'all': use format 'swiss'")
    if (
        spec.format == "swiss"
        and spec.signup_until is None
        and len(spec.entrants) % spec.seats
        and not spec.house_fill
    ):
        raise TournamentError(422, "swiss without house_fill needs a field that fills whole tables")
    rules_name = (
        spec.rules
        if isinstance(spec.rules, str)
        else (gspec.default_rules if spec.rules is None else None)
    )
    game = gspec.new_game(rules, spec.seats, 0)
    return rules, rules_name, game.rules_json()


# -- the database ---------------------------------------------------------------------------


class TournamentStore:
    """Every read and write of tournaments (synchronous: call from the db executor)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def create(self, spec: TournamentSpec) -> str:
        """Store a new tournament; with a fixed field and no sign-up it starts at once."""
        _rules, rules_name, rules_json = check_spec(spec)
        tid = secrets.token_hex(4)
        with self.engine.begin() as conn:
            ids: list[int | None] = []
            for name in spec.entrants:
                row = conn.execute(
                    select(players.c.id, players.c.kind).where(players.c.name == name)
                ).first()
                if row is None or row.kind not in ("bot", "kh"):
                    raise TournamentError(422, f"no registered bot {name!r}")
                ids.append(int(row.id))
            conn.execute(
                tournaments.insert().values(
                    id=tid,
                    name=spec.name,
                    game=spec.game,
                    rules_name=rules_name,
                    rules_json=json.dumps(rules_json, sort_keys=True),
                    seats=spec.seats,
                    config_json=spec.model_dump_json(),
                    status="signup",
                    created_at=now(),
                )
            )
            for pos, (name, pid) in enumerate(zip(spec.entrants, ids, strict=True)):
                _enter(conn, tid, pos, name, pid)
            if spec.signup_until is None:
                self._start(conn, tid, spec)
        return tid

    def _start(self, conn: Connection, tid: str, spec: TournamentSpec) -> None:
        field = conn.execute(
            select(func.count()).where(tournament_entrants.c.tournament_id == tid)
        ).scalar_one()
        if field < spec.seats:
            conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tid)
                .values(status="cancelled", ended_at=now())
            )
            return
        if spec.format == "swiss" and field % spec.seats and not spec.house_fill:
            conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tid)
                .values(status="cancelled", ended_at=now())
            )
            return
        self._insert(conn, tid, first_plan(spec, field))
        conn.execute(
            update(tournaments)
            .where(tournaments.c.id == tid, tournaments.c.status == "signup")
            .values(status="running", started_at=now())
        )

    def _insert(self, conn: Connection, tid: str, planned: Sequence[Planned]) -> None:
        if not planned:
            return
        conn.execute(
            tournament_games.insert(),
            [
                {
                    "tournament_id": tid,
                    "slot": p.slot,
                    "attempt": 0,
                    "lineup": p.lineup,
                    "round": p.round,
                    "deal": p.deal,
                    "rotation": p.rotation,
                    "seating_json": json.dumps(list(p.seating)),
                    "seed": p.seed,
                    "state": "planned",
                }
                for p in planned
            ],
        )

    def start_due(self, tid: str) -> bool:
        """Close the sign-up of ``tid`` if its time has come; True if it started now."""
        with self.engine.begin() as conn:
            row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
            if row is None or row.status != "signup":
                return False
            spec = TournamentSpec.model_validate_json(row.config_json)
            if spec.signup_until is None or _aware(spec.signup_until) > now():
                return False
            self._start(conn, tid, spec)
            return True

    def start_now(self, tid: str) -> str:
        """Close the sign-up of ``tid`` before ``signup_until`` (the organiser: the field is
        complete); play starts as it would at that time (a field too small cancels it). Returns
        the new status."""
        with self.engine.begin() as conn:
            row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
            if row is None:
                raise TournamentError(404, f"no tournament {tid!r}")
            if row.status != "signup":
                raise TournamentError(409, f"tournament {tid} is {row.status}: cannot start")
            self._start(conn, tid, TournamentSpec.model_validate_json(row.config_json))
            status = conn.execute(
                select(tournaments.c.status).where(tournaments.c.id == tid)
            ).scalar_one()
        return str(status)

    def enter(self, tid: str, name: str, player_id: int) -> int:
        """Sign ``name`` up (idempotent); returns its position. Raises TournamentError."""
        with self.engine.begin() as conn:
            row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
            if row is None:
                raise TournamentError(404, f"no tournament {tid!r}")
            found = conn.execute(
                select(tournament_entrants.c.position).where(
                    tournament_entrants.c.tournament_id == tid,
                    tournament_entrants.c.name == name,
                )
            ).first()
            if found is not None:
                return int(found.position)
            if row.status != "signup":
                raise TournamentError(403, f"{name} is not an entrant of tournament {tid}")
            pos = conn.execute(
                select(func.count()).where(tournament_entrants.c.tournament_id == tid)
            ).scalar_one()
            _enter(conn, tid, pos, name, player_id)
            return int(pos)

    def get(self, tid: str) -> dict[str, Any] | None:
        from cardtable.server.organiser import entrant_json

        with self.engine.connect() as conn:
            row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
            if row is None:
                return None
            entrants = conn.execute(
                select(tournament_entrants)
                .where(tournament_entrants.c.tournament_id == tid)
                .order_by(tournament_entrants.c.position)
            ).all()
            counts: dict[str, int] = dict(
                conn.execute(
                    select(tournament_games.c.state, func.count())
                    .where(tournament_games.c.tournament_id == tid)
                    .group_by(tournament_games.c.state)
                )
                .tuples()
                .all()
            )
        return {
            "id": row.id,
            "name": row.name,
            "game": row.game,
            "rules_name": row.rules_name,
            "rules": json.loads(row.rules_json),
            "seats": row.seats,
            "status": row.status,
            "config": json.loads(row.config_json),
            "created_at": _iso(row.created_at),
            "started_at": _iso(row.started_at),
            "ended_at": _iso(row.ended_at),
            "games": {s: int(counts.get(s, 0)) for s in STATES},
            "entrants": [
                {
                    "position": e.position,
                    "name": e.name,
                    "faults": e.faults,
                    "bans": e.bans,
                    "suspended": bool(e.suspended),
                    "suspended_reason": e.suspended_reason,
                }
                | entrant_json(e)
                for e in entrants
            ],
        }

    def live(self) -> list[str]:
        """Tournaments a scheduler has work for (sign-up open or running)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tournaments.c.id).where(tournaments.c.status.in_(("signup", "running")))
            ).all()
        return [str(r.id) for r in rows]

    def set_status(self, tid: str, action: str) -> str:
        """``start`` (close the sign-up now), ``pause``, ``resume`` or ``cancel``; returns the
        new status."""
        if action == "start":
            return self.start_now(tid)
        moves = {
            "pause": ({"running"}, "paused"),
            "resume": ({"paused"}, "running"),
            "cancel": ({"signup", "running", "paused"}, "cancelled"),
        }
        if action not in moves:
            raise TournamentError(422, f"unknown action {action!r}")
        allowed, target = moves[action]
        with self.engine.begin() as conn:
            row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
            if row is None:
                raise TournamentError(404, f"no tournament {tid!r}")
            if row.status not in allowed:
                raise TournamentError(409, f"tournament {tid} is {row.status}: cannot {action}")
            values: dict[str, Any] = {"status": target}
            if target == "cancelled":
                values["ended_at"] = now()
                # planned games are never played; running ones end and are kept as played
                conn.execute(
                    update(tournament_games)
                    .where(
                        tournament_games.c.tournament_id == tid,
                        tournament_games.c.state == "planned",
                    )
                    .values(state="void", note="cancelled")
                )
            conn.execute(update(tournaments).where(tournaments.c.id == tid).values(**values))
        return target

    # -- the schedule ---------------------------------------------------------------------------

    def claim(
        self,
        tid: str,
        ready: set[int],
        instance: str,
        limit: int = 16,
        accept: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> list[Claimed]:
        """Claim planned games whose every seat is ``ready`` (entrant positions free here or
        played by the house bot), no entrant twice; marks them running for ``instance``. In a
        cluster ``accept`` (of a seating) says which of those games this process is to run."""
        out: list[Claimed] = []
        with self.engine.begin() as conn:
            status = conn.execute(
                select(tournaments.c.status).where(tournaments.c.id == tid)
            ).scalar_one_or_none()
            if status != "running":
                return out
            stmt = (
                select(tournament_games)
                .where(
                    tournament_games.c.tournament_id == tid, tournament_games.c.state == "planned"
                )
                .order_by(tournament_games.c.slot)
            )
            if not self.store.is_sqlite:
                stmt = stmt.with_for_update(skip_locked=True)
            rows = conn.execute(stmt).all()
            used: set[int] = set()
            for row in rows:
                seating = tuple(json.loads(row.seating_json))
                entrants = set(seating) - {HOUSE}
                if not set(seating) <= ready or used & entrants:
                    continue
                if accept is not None and not accept(seating):
                    continue
                game_id = secrets.token_hex(8)
                done = conn.execute(
                    update(tournament_games)
                    .where(tournament_games.c.id == row.id, tournament_games.c.state == "planned")
                    .values(state="running", instance=instance, game_id=game_id, claimed_at=now())
                ).rowcount
                if done != 1:
                    continue
                used |= entrants
                out.append(
                    Claimed(
                        row.id,
                        tid,
                        row.slot,
                        row.lineup,
                        row.round,
                        row.deal,
                        row.rotation,
                        seating,
                        int(row.seed),
                        game_id,
                    )
                )
                if len(out) >= limit:
                    break
        return out

    def release(self, row_id: int, game_id: str) -> bool:
        """Give back a claim whose game never started (in a cluster an entrant it needed was
        seated by another process meanwhile): the row is ``planned`` again, as if never
        claimed. ``False`` if the row is no longer that claim."""
        with self.engine.begin() as conn:
            moved = conn.execute(
                update(tournament_games)
                .where(
                    tournament_games.c.id == row_id,
                    tournament_games.c.state == "running",
                    tournament_games.c.game_id == game_id,
                )
                .values(state="planned", instance=None, game_id=None, claimed_at=None)
            ).rowcount
        return bool(moved == 1)

    def settle(self, row_id: int, *, instance_gone: bool = True) -> str:
        """Settle a running game by what the ``games`` table says: ``done`` when its end is
        stored (counting its faults and bans once), else ``void`` and planned again (when
        ``instance_gone`` or the game ended aborted). Returns the row's new state."""
        with self.engine.begin() as conn:
            stmt = select(tournament_games).where(tournament_games.c.id == row_id)
            if not self.store.is_sqlite:
                stmt = stmt.with_for_update()  # two processes settling one game: one waits
            row = conn.execute(stmt).first()
            if row is None or row.state != "running":
                return "" if row is None else str(row.state)
            game = conn.execute(select(games.c.status).where(games.c.id == row.game_id)).first()
            status = None if game is None else str(game.status)
            if status == "finished":
                moved = conn.execute(
                    update(tournament_games)
                    .where(tournament_games.c.id == row_id, tournament_games.c.state == "running")
                    .values(state="done", ended_at=now())
                ).rowcount
                if moved != 1:
                    return "done"  # settled meanwhile: its faults are counted already
                self._count_faults(conn, row)
                self._maybe_next_round(conn, row.tournament_id)
                self._maybe_finish(conn, row.tournament_id)
                return "done"
            if status == "running" and not instance_gone:
                return "running"
            moved = conn.execute(
                update(tournament_games)
                .where(tournament_games.c.id == row_id, tournament_games.c.state == "running")
                .values(
                    state="void",
                    ended_at=now(),
                    note=f"game {row.game_id} {status or 'never started'}",
                )
            ).rowcount
            if moved != 1:
                return "void"  # settled meanwhile: planned again already
            t_status = conn.execute(
                select(tournaments.c.status).where(tournaments.c.id == row.tournament_id)
            ).scalar_one()
            if t_status != "cancelled":
                conn.execute(
                    tournament_games.insert().values(
                        tournament_id=row.tournament_id,
                        slot=row.slot,
                        attempt=row.attempt + 1,
                        lineup=row.lineup,
                        round=row.round,
                        deal=row.deal,
                        rotation=row.rotation,
                        seating_json=row.seating_json,
                        seed=row.seed,
                        state="planned",
                    )
                )
            return "void"

    def recover(self, instance: str | None) -> list[int]:
        """Settle the running games of ``instance`` (or every process's): after a restart a
        game that had not stored its end is voided and planned again. Returns the row ids."""
        with self.engine.connect() as conn:
            stmt = select(tournament_games.c.id).where(tournament_games.c.state == "running")
            if instance is not None:
                stmt = stmt.where(tournament_games.c.instance == instance)
            ids = [int(r.id) for r in conn.execute(stmt).all()]
        for row_id in ids:
            self.settle(row_id)
        return ids

    def claimants(self) -> set[str]:
        """The processes (``instance``) holding running rows (in a cluster: whose leases the
        sweep asks about, server/dead_claims.py)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tournament_games.c.instance)
                .where(tournament_games.c.state == "running")
                .distinct()
            ).all()
        return {str(r.instance) for r in rows if r.instance is not None}

    def stale(self, instances_gone: Set[str] = frozenset()) -> list[int]:
        """Running rows that no live process will settle: their game ended (finished or
        aborted by a reaper) or never started within :data:`STALE_CLAIM_S`, or their process
        is one of ``instances_gone`` (in a cluster: it lost its lease, server/dead_claims.py),
        whatever their game's state."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    tournament_games.c.id,
                    tournament_games.c.instance,
                    tournament_games.c.claimed_at,
                    games.c.status,
                )
                .select_from(
                    tournament_games.outerjoin(games, games.c.id == tournament_games.c.game_id)
                )
                .where(tournament_games.c.state == "running")
            ).all()
        out = []
        for r in rows:
            if r.status == "aborted" or r.instance in instances_gone:
                # a dead process's claim is played again now, not STALE_CLAIM_S after it
                out.append(int(r.id))
            elif r.status in ("finished", None) and r.claimed_at is not None:
                # finished: its end is stored but its process died before settling it (a live
                # process settles its own at once; settling twice is harmless); None: never
                # started (a live process may be slow to start it: only after STALE_CLAIM_S)
                age = (now() - _aware(r.claimed_at)).total_seconds()
                if age > STALE_CLAIM_S:
                    out.append(int(r.id))
        return out

    def _count_faults(self, conn: Connection, row: Any) -> None:
        seating = json.loads(row.seating_json)
        spec = TournamentSpec.model_validate_json(
            conn.execute(
                select(tournaments.c.config_json).where(tournaments.c.id == row.tournament_id)
            ).scalar_one()
        )
        seats = conn.execute(
            select(
                game_seats.c.seat, game_seats.c.faults, game_seats.c.taken_over, game_seats.c.kind
            ).where(game_seats.c.game_id == row.game_id)
        ).all()
        for s in seats:
            if s.kind == "house":  # a stand-in for a suspended or absent entrant
                continue
            pos = seating[s.seat]
            entrant = conn.execute(
                select(tournament_entrants).where(
                    tournament_entrants.c.tournament_id == row.tournament_id,
                    tournament_entrants.c.position == pos,
                )
            ).one()
            total = entrant.faults + int(s.faults or 0)
            values: dict[str, Any] = {
                "faults": total,
                "bans": entrant.bans + (1 if s.taken_over else 0),
            }
            # crossing the threshold suspends (an entrant the organiser reinstated past it
            # is suspended again only by a new crossing: never, so it plays on)
            if not entrant.suspended and entrant.faults < spec.suspend_after_faults <= total:
                values["suspended"] = True
                values["suspended_reason"] = (
                    f"{total} faults (suspension after {spec.suspend_after_faults}); "
                    f"the house bot plays its remaining games"
                )
            conn.execute(
                update(tournament_entrants)
                .where(
                    tournament_entrants.c.tournament_id == row.tournament_id,
                    tournament_entrants.c.position == pos,
                )
                .values(**values)
            )

    def _maybe_next_round(self, conn: Connection, tid: str) -> None:
        row = conn.execute(select(tournaments).where(tournaments.c.id == tid)).one()
        spec = TournamentSpec.model_validate_json(row.config_json)
        if spec.format != "swiss":
            return
        last = conn.execute(
            select(func.max(tournament_games.c.round)).where(
                tournament_games.c.tournament_id == tid
            )
        ).scalar_one()
        open_ = conn.execute(
            select(func.count()).where(
                tournament_games.c.tournament_id == tid,
                tournament_games.c.state.in_(("planned", "running")),
            )
        ).scalar_one()
        if open_ or last is None or last + 1 >= spec.rounds:
            return
        table = self._standings(conn, tid)
        order = [
            r.entry.index
            for r in sorted(
                (r for r in table["rows"] if r.entry.index < table["field"]),
                key=lambda r: (-(_finite(r.vs_field.mean)), r.entry.index),
            )
        ]
        first_slot = (
            conn.execute(
                select(func.max(tournament_games.c.slot)).where(
                    tournament_games.c.tournament_id == tid
                )
            ).scalar_one()
            + 1
        )
        first_lineup = (
            conn.execute(
                select(func.max(tournament_games.c.lineup)).where(
                    tournament_games.c.tournament_id == tid
                )
            ).scalar_one()
            + 1
        )
        names = [str(i) for i in range(table["field"])]
        self._insert(
            conn,
            tid,
            plan_lineups(
                spec, swiss_groups(order, spec.seats), last + 1, first_lineup, first_slot, names
            ),
        )

    def _maybe_finish(self, conn: Connection, tid: str) -> None:
        open_ = conn.execute(
            select(func.count()).where(
                tournament_games.c.tournament_id == tid,
                tournament_games.c.state.in_(("planned", "running")),
            )
        ).scalar_one()
        if open_:
            return
        frozen = standings_json(self._standings(conn, tid))
        conn.execute(
            update(tournaments)
            .where(tournaments.c.id == tid, tournaments.c.status.in_(("running", "paused")))
            .values(status="finished", ended_at=now(), standings_json=json.dumps(frozen))
        )

    # -- standings --------------------------------------------------------------------------

    def standings(self, tid: str) -> dict[str, Any]:
        """The standings as JSON: frozen when finished, else computed from the records now."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(tournaments.c.standings_json, tournaments.c.status).where(
                    tournaments.c.id == tid
                )
            ).first()
            if row is None:
                raise TournamentError(404, f"no tournament {tid!r}")
            if row.standings_json:
                return dict(json.loads(row.standings_json), frozen=True)
            return dict(standings_json(self._standings(conn, tid)), frozen=False)

    def _standings(self, conn: Connection, tid: str) -> dict[str, Any]:
        entrants = conn.execute(
            select(tournament_entrants)
            .where(tournament_entrants.c.tournament_id == tid)
            .order_by(tournament_entrants.c.position)
        ).all()
        done = self._done_games(conn, tid)
        return compute_standings(entrants, done, self._counts(conn, tid))

    def _counts(self, conn: Connection, tid: str) -> dict[str, int]:
        counts: dict[str, int] = dict(
            conn.execute(
                select(tournament_games.c.state, func.count())
                .where(tournament_games.c.tournament_id == tid)
                .group_by(tournament_games.c.state)
            )
            .tuples()
            .all()
        )
        return {s: int(counts.get(s, 0)) for s in STATES}

    def _done_games(self, conn: Connection, tid: str) -> list[dict[str, Any]]:
        rows = conn.execute(
            select(
                tournament_games.c.slot,
                tournament_games.c.lineup,
                tournament_games.c.round,
                tournament_games.c.deal,
                tournament_games.c.rotation,
                tournament_games.c.seating_json,
                tournament_games.c.game_id,
                games.c.record_json,
                games.c.result_json,
            )
            .select_from(tournament_games.join(games, games.c.id == tournament_games.c.game_id))
            .where(tournament_games.c.tournament_id == tid, tournament_games.c.state == "done")
            .order_by(tournament_games.c.slot)
        ).all()
        ids = [r.game_id for r in rows]
        kinds: dict[tuple[str, int], str] = {}
        versions: dict[tuple[str, int], str | None] = {}
        notes: dict[str, list[tuple[int, str, str, str]]] = {}
        faulted: dict[str, set[int]] = {}
        if ids:
            for s in conn.execute(
                select(
                    game_seats.c.game_id,
                    game_seats.c.seat,
                    game_seats.c.kind,
                    game_seats.c.bot_version,
                ).where(game_seats.c.game_id.in_(ids))
            ).all():
                kinds[(s.game_id, s.seat)] = s.kind
                versions[(s.game_id, s.seat)] = s.bot_version
            for f in conn.execute(
                select(faults).where(faults.c.game_id.in_(ids)).order_by(faults.c.id)
            ).all():
                notes.setdefault(f.game_id, []).append((f.seat, f.code, f.request_kind, f.reason))
                if fair_play.own_fault(f.code, f.detail):
                    faulted.setdefault(f.game_id, set()).add(int(f.seat))
        return [
            {
                "slot": r.slot,
                "lineup": r.lineup,
                "round": r.round,
                "deal": r.deal,
                "rotation": r.rotation,
                "seating": json.loads(r.seating_json),
                "game_id": r.game_id,
                "record": json.loads(r.record_json or "null"),
                "result": json.loads(r.result_json or "null"),
                "house": [
                    kinds.get((r.game_id, s)) == "house"
                    for s in range(len(json.loads(r.seating_json)))
                ],
                "faults": notes.get(r.game_id, []),
                # seats placed below every seat without a fault of their own (fair_play)
                "faulted": sorted(faulted.get(r.game_id, ())),
                "versions": [
                    versions.get((r.game_id, s)) for s in range(len(json.loads(r.seating_json)))
                ],
            }
            for r in rows
        ]

    def games_list(self, tid: str) -> list[dict[str, Any]]:
        """Every row of the schedule (voided attempts too), in slot order."""
        with self.engine.connect() as conn:
            entrants = {
                e.position: e.name
                for e in conn.execute(
                    select(tournament_entrants).where(tournament_entrants.c.tournament_id == tid)
                ).all()
            }
            rows = conn.execute(
                select(tournament_games, games.c.result_json)
                .select_from(
                    tournament_games.outerjoin(games, games.c.id == tournament_games.c.game_id)
                )
                .where(tournament_games.c.tournament_id == tid)
                .order_by(tournament_games.c.slot, tournament_games.c.attempt)
            ).all()
        out = []
        for r in rows:
            result = json.loads(r.result_json) if r.result_json else None
            out.append(
                {
                    "slot": r.slot,
                    "attempt": r.attempt,
                    "lineup": r.lineup,
                    "round": r.round,
                    "deal": r.deal,
                    "rotation": r.rotation,
                    "state": r.state,
                    "seats": [entrants.get(p, "house") for p in json.loads(r.seating_json)],
                    "game_id": r.game_id,
                    "note": r.note,
                    "scores": result.get("scores") if result and r.state == "done" else None,
                    "places": result.get("places") if result and r.state == "done" else None,
                }
            )
        return out

    def archive(self, tid: str) -> bytes:
        """A zip: every record as JSON lines (each verified by re-simulation), the standings
        as JSON and CSV, the tournament's settings and the arena commands to run it again."""
        info = self.get(tid)
        if info is None:
            raise TournamentError(404, f"no tournament {tid!r}")
        with self.engine.connect() as conn:
            done = self._done_games(conn, tid)
        table = self.standings(tid)
        lines = []
        verified = 0
        failures = []
        for g in done:
            record = g["record"]
            ok, why = verify(Record.from_json(record))
            verified += ok
            if not ok:
                failures.append({"game_id": g["game_id"], "reason": why})
            lines.append(
                json.dumps(
                    {
                        k: g[k]
                        for k in (
                            "slot",
                            "lineup",
                            "round",
                            "deal",
                            "rotation",
                            "seating",
                            "game_id",
                        )
                    }
                    | {"record": record},
                    sort_keys=True,
                )
            )
        check = {"records": len(done), "verified": verified, "failures": failures}
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("records.jsonl", "".join(line + "\n" for line in lines))
            z.writestr("standings.json", json.dumps(table, indent=1, sort_keys=True) + "\n")
            z.writestr("standings.csv", standings_csv(table))
            z.writestr("tournament.json", json.dumps(info, indent=1, sort_keys=True) + "\n")
            z.writestr("verification.json", json.dumps(check, indent=1) + "\n")
            z.writestr("arena.txt", arena_commands(info, done))
        return buf.getvalue()


def compute_standings(
    entrants: Sequence[Any], done: Sequence[Mapping[str, Any]], counts: Mapping[str, int]
) -> dict[str, Any]:
    """Standings of ``entrants`` from the ``done`` games (canonical order) with the arena's
    statistics. A seat the house bot played for a suspended or absent entrant counts for a
    separate ``house stand-in`` row, never for the entrant. Places (wins, mean place) are the
    ones that count (:func:`~cardtable.server.fair_play.fair_places`: a seat with a fault of
    its own below every seat without one); scores are the table's."""
    field = len(entrants)
    entries = [Entry(e.position, e.name, e.name) for e in entrants]
    stand_in = Entry(field, "house stand-in", "house stand-in")
    outcomes = []
    for g in done:
        result = g["result"] or {}
        seating = tuple(field if g["house"][s] else pos for s, pos in enumerate(g["seating"]))
        notes = tuple(
            FaultNote(seat, FAULT_CATEGORY.get(code, code), kind, reason)
            for seat, code, kind, reason in g["faults"]
        )
        n = len(seating)
        outcomes.append(
            GameOutcome(
                deal=g["round"] * 1_000_000 + g["deal"],
                rotation=g["rotation"],
                seating=seating,
                termination=str(result.get("termination", "aborted")),
                scores=tuple(float(x) for x in result.get("scores", [0.0] * n)),
                # the places that count: a seat with a fault of its own below every seat
                # without one (docs/protocol.md "Faults")
                places=tuple(
                    fair_play.fair_places(
                        [int(x) for x in result.get("places", [0] * n)], g.get("faulted", ())
                    )
                ),
                actions=len((g["record"] or {}).get("actions", [])),
                faults=notes,
                decisions=(0,) * n,
                think_time=(0.0,) * n,
                think_max=(0.0,) * n,
            )
        )
    used_stand_in = any(field in o.seating for o in outcomes)
    rows = standings([*entries, stand_in], outcomes)
    if not used_stand_in:
        rows = rows[:field]
    # the versions each entrant's client sent (hello), in the order they first played
    versions: dict[int, list[str]] = {}
    for g in done:
        for s, pos in enumerate(g["seating"]):
            v = (g.get("versions") or [None] * len(g["seating"]))[s]
            if v and not g["house"][s] and v not in versions.setdefault(pos, []):
                versions[pos].append(v)
    return {
        "field": field,
        "rows": rows,
        "entrants": entrants,
        "counts": counts,
        "versions": versions,
    }


def _enter(conn: Connection, tid: str, position: int, name: str, player_id: int | None) -> None:
    """An entrant's row: at ``position`` of the field, no faults, bans or suspension yet."""
    conn.execute(
        tournament_entrants.insert().values(
            tournament_id=tid,
            position=position,
            name=name,
            player_id=player_id,
            faults=0,
            bans=0,
            suspended=False,
        )
    )


def standings_json(table: Mapping[str, Any]) -> dict[str, Any]:
    counts = table["counts"]
    planned = counts["planned"] + counts["running"] + counts["done"]
    by_pos = {e.position: e for e in table["entrants"]}
    rows = []
    for row in table["rows"]:
        e = by_pos.get(row.entry.index)
        rows.append(
            _row_json(row, e) | {"versions": table.get("versions", {}).get(row.entry.index, [])}
        )
    rows.sort(
        key=lambda r: (-(r["win_share"] if r["win_share"] is not None else -1), r["position"])
    )
    # a disqualified entrant leaves the ranking (server/organiser.py); its games stay played
    disqualified = [r for r in rows if r["sanction"] == "disqualified"]
    rows = [r for r in rows if r["sanction"] != "disqualified"]
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    for r in disqualified:
        r["rank"] = None
    return {
        "games_done": counts["done"],
        "games_planned": planned,
        "games_void": counts["void"],
        "rows": rows,
        "disqualified": disqualified,
    }


def _row_json(row: Standing, e: Any) -> dict[str, Any]:
    def est(x: Any) -> dict[str, Any]:
        return {"mean": _num(x.mean), "low": x.low, "high": x.high, "n": x.n}

    return {
        "position": row.entry.index,
        "name": row.entry.label,
        "games": row.games,
        "wins": row.wins,
        "win_share": _num(row.win_share),
        "win_share_low": row.win_low,
        "win_share_high": row.win_high,
        "score": est(row.score),
        "vs_field": est(row.vs_field),
        "mean_place": _num(row.mean_place),
        "faults": int(e.faults) if e is not None else sum(row.faults.values()),
        "bans": int(e.bans) if e is not None else 0,
        "suspended": bool(e.suspended) if e is not None else False,
        "suspended_reason": e.suspended_reason if e is not None else None,
        "sanction": _sanction(e),
        "sanction_reason": getattr(e, "sanction_reason", None),
        "stand_in": e is None,
    }


def _sanction(e: Any) -> str | None:
    """The organiser's sanction of an entrant row in force now (none for the stand-in)."""
    from cardtable.server.organiser import active

    return None if e is None else active(e.sanction, e.sanction_until)


def standings_csv(table: Mapping[str, Any]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(
        [
            "rank",
            "name",
            "games",
            "wins",
            "win_share",
            "win_low",
            "win_high",
            "score_mean",
            "score_low",
            "score_high",
            "vs_field_mean",
            "vs_field_low",
            "vs_field_high",
            "mean_place",
            "faults",
            "bans",
            "suspended",
        ]
    )
    for r in [*table["rows"], *table.get("disqualified", [])]:
        w.writerow(
            [
                r["rank"],
                r["name"],
                r["games"],
                r["wins"],
                r["win_share"],
                r["win_share_low"],
                r["win_share_high"],
                r["score"]["mean"],
                r["score"]["low"],
                r["score"]["high"],
                r["vs_field"]["mean"],
                r["vs_field"]["low"],
                r["vs_field"]["high"],
                r["mean_place"],
                r["faults"],
                r["bans"],
                r["suspended"],
            ]
        )
    return out.getvalue()


def arena_commands(info: Mapping[str, Any], done: Sequence[Mapping[str, Any]]) -> str:
    """One ``cardtable arena`` command per line-up: the same deals and seatings offline."""
    spec = TournamentSpec.model_validate(info["config"])
    names = [e["name"] for e in info["entrants"]]
    rules = info["rules_name"] or "(custom: see tournament.json)"
    seen: dict[int, tuple[list[int], int]] = {}
    for g in done:
        if g["rotation"] == 0 and g["lineup"] not in seen:
            plan_order = g["seating"]
            seen[g["lineup"]] = (plan_order, g["round"])
    lines = [
        "# Each line-up again offline: same deals (seed), same seatings (rotations).",
        "# Replace each name with the bot file or built-in bot that entrant ran.",
    ]
    for lineup, (order, round_) in sorted(seen.items()):
        plan = lineup_plan(spec, order, round_, names)
        bots = ",".join(e.label for e in plan.entries)
        lines.append(
            f"cardtable arena {info['game']} --rules {rules} --bots {bots} --seats {plan.seats} "
            f"--games {plan.games} --seed {plan.seed}   # line-up {lineup}"
        )
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return value


def _finite(value: float) -> float:
    return value if not math.isnan(value) else -math.inf


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else _aware(value).isoformat()
