"""The :class:`Store`: every read and write of the server's database.

Methods are synchronous (SQLAlchemy 2 Core); the server calls them from a worker thread so the
event loop never waits on the disk. SQLite runs in WAL mode (readers never block the writer, a
killed process loses no committed transaction); a PostgreSQL URL works the same.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, func, select, update
from sqlalchemy.engine import make_url

from cardtable.server import ratings as rating_math
from cardtable.server.store.models import faults, game_seats, games, players, ratings

#: Bot names: letters, digits, ``_``, ``-``, ``.``; 2 to 32 characters, starting with a letter or
#: digit. Names starting with ``house-`` are reserved for house bots.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{1,31}$")
MIGRATIONS = Path(__file__).with_name("migrations")


def new_token() -> str:
    """A bot's token: 256 random bits, URL-safe (43 characters), never starting with ``-``: a
    token that did would be taken for an option in ``cardtable bot --token TOKEN`` (one in 64
    of them; a CI run met one)."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def hash_token(token: str) -> str:
    """The stored form of a token. Tokens are 256-bit random, so one SHA-256 is enough."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    """A stored time as ISO 8601 UTC (SQLite gives naive datetimes back; they are UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


class NameError_(ValueError):
    """A bot name is invalid (``code`` 400/422) or taken (409)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Identity:
    """A stored player as the server needs it at login."""

    id: int
    name: str
    kind: str
    suspended_until: datetime | None = None
    suspended_reason: str | None = None


@dataclass
class SeatOutcome:
    """One seat of a finished game, as the table hands it to :meth:`Store.finish_game`."""

    seat: int
    player_id: int | None
    faults: int
    taken_over: bool


@dataclass
class FaultRow:
    seat: int
    player_id: int | None
    decision: int
    request_kind: str
    code: str
    reason: str
    at: datetime = field(default_factory=now)


class Store:
    """The database behind one server (or several sharing a PostgreSQL)."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            database = parsed.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)

    def close(self) -> None:
        self.engine.dispose()

    # -- schema -----------------------------------------------------------------------------

    def migrate(self) -> None:
        """Bring the schema to the newest alembic revision (idempotent)."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    def revision(self) -> str | None:
        with self.engine.connect() as conn:
            try:
                row = conn.exec_driver_sql("SELECT version_num FROM alembic_version").first()
            except Exception:
                return None
            return None if row is None else str(row[0])

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # -- players ----------------------------------------------------------------------------

    def create_bot(self, name: str) -> tuple[Identity, str]:
        """Register a bot; returns it and its token (the only time the token exists in clear).

        Raises :class:`NameError_` (422 invalid, 409 taken).
        """
        if not NAME_PATTERN.match(name):
            raise NameError_(
                422,
                "a bot name has 2-32 letters, digits, '_', '-' or '.', starting with a letter "
                "or digit",
            )
        if name.lower().startswith("house-"):
            raise NameError_(422, "names starting with 'house-' are reserved for house bots")
        token = new_token()
        with self.engine.begin() as conn:
            taken = conn.execute(
                select(players.c.id).where(func.lower(players.c.name) == name.lower())
            ).first()
            if taken is not None:
                raise NameError_(409, f"the name {name!r} is taken")
            pid = conn.execute(
                players.insert().values(
                    name=name, kind="bot", token_hash=hash_token(token), created_at=now()
                )
            ).inserted_primary_key
        assert pid is not None
        return Identity(int(pid[0]), name, "bot"), token

    def authenticate(self, name: str, token: str) -> Identity | None:
        """The bot with this name if ``token`` is its token, else ``None`` (constant time)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(players).where(players.c.name == name, players.c.kind == "bot")
            ).first()
        expected = row.token_hash if row is not None else hash_token("no such bot")
        ok = hmac.compare_digest(expected or "", hash_token(token))
        if row is None or not ok:
            return None
        return Identity(
            row.id, row.name, row.kind, _aware(row.suspended_until), row.suspended_reason
        )

    def house_player(self, name: str) -> Identity:
        """The stored house bot called ``name`` (created on first use)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(players).where(players.c.name == name)).first()
            if row is None:
                pid = conn.execute(
                    players.insert().values(name=name, kind="house", created_at=now())
                ).inserted_primary_key
                assert pid is not None
                return Identity(int(pid[0]), name, "house")
            return Identity(row.id, row.name, row.kind)

    def player(self, name: str) -> Identity | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(players).where(players.c.name == name)).first()
        if row is None:
            return None
        return Identity(
            row.id, row.name, row.kind, _aware(row.suspended_until), row.suspended_reason
        )

    def rating(self, player_id: int, game: str, rules: str) -> tuple[float, float]:
        """``(mu, sigma)`` of a player for a game and rule set (the initial rating if none)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(ratings.c.mu, ratings.c.sigma).where(
                    ratings.c.player_id == player_id,
                    ratings.c.game == game,
                    ratings.c.rules == rules,
                )
            ).first()
        return rating_math.INITIAL if row is None else (row.mu, row.sigma)

    # -- games ------------------------------------------------------------------------------

    def start_game(
        self,
        *,
        game_id: str,
        game: str,
        rules_name: str | None,
        rules: Mapping[str, Any],
        seed: int,
        lobby: str,
        rated: bool,
        instance: str,
        seats: Sequence[tuple[int | None, str, str]],
    ) -> None:
        """Store a game that begins: ``seats`` are ``(player_id, name, kind)``."""
        with self.engine.begin() as conn:
            conn.execute(
                games.insert().values(
                    id=game_id,
                    game=game,
                    rules_name=rules_name,
                    rules_json=json.dumps(rules, sort_keys=True),
                    seats=len(seats),
                    seed=seed,
                    lobby=lobby,
                    rated=rated,
                    status="running",
                    instance=instance,
                    names_json=json.dumps([name for _, name, _ in seats]),
                    started_at=now(),
                )
            )
            conn.execute(
                game_seats.insert(),
                [
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "player_id": pid,
                        "name": name,
                        "kind": kind,
                        "faults": 0,
                        "taken_over": False,
                    }
                    for seat, (pid, name, kind) in enumerate(seats)
                ],
            )

    def finish_game(
        self,
        game_id: str,
        *,
        record: Mapping[str, Any],
        result: Mapping[str, Any],
        seats: Sequence[SeatOutcome],
        fault_rows: Sequence[FaultRow],
        suspend_after: int,
        suspend_window: int,
        suspend_minutes: float,
    ) -> list[str]:
        """Write a game's end in ONE transaction: record, result, places, faults, ratings and
        suspensions. Returns the names of bots suspended by this game.
        """
        ended = now()
        suspended: list[str] = []
        termination = str(result["termination"])
        status = "aborted" if termination == "aborted" else "finished"
        with self.engine.begin() as conn:
            game_row = conn.execute(select(games).where(games.c.id == game_id)).one()
            conn.execute(
                update(games)
                .where(games.c.id == game_id)
                .values(
                    status=status,
                    ended_at=ended,
                    termination=termination,
                    result_json=json.dumps(result, sort_keys=True),
                    record_json=json.dumps(record, sort_keys=True),
                )
            )
            places = list(result.get("places") or [])
            scores = list(result.get("scores") or [])
            for outcome in seats:
                values: dict[str, Any] = {
                    "faults": outcome.faults,
                    "taken_over": outcome.taken_over,
                }
                if status == "finished" and outcome.seat < len(places):
                    values["place"] = places[outcome.seat]
                    values["score"] = scores[outcome.seat] if outcome.seat < len(scores) else None
                conn.execute(
                    update(game_seats)
                    .where(game_seats.c.game_id == game_id, game_seats.c.seat == outcome.seat)
                    .values(**values)
                )
            if fault_rows:
                conn.execute(
                    faults.insert(),
                    [
                        {
                            "game_id": game_id,
                            "seat": f.seat,
                            "player_id": f.player_id,
                            "decision": f.decision,
                            "request_kind": f.request_kind,
                            "code": f.code,
                            "reason": f.reason,
                            "at": f.at,
                        }
                        for f in fault_rows
                    ],
                )
            if status == "finished" and game_row.rated:
                _apply_ratings(conn, game_id, game_row.game, game_row.rules_name, places, ended)
            for outcome in seats:
                if outcome.player_id is None:
                    continue
                reason = _suspension_reason(conn, outcome.player_id, suspend_after, suspend_window)
                if reason is not None:
                    until = ended + timedelta(minutes=suspend_minutes)
                    row = conn.execute(
                        update(players)
                        .where(players.c.id == outcome.player_id, players.c.kind == "bot")
                        .values(suspended_until=until, suspended_reason=reason)
                        .returning(players.c.name)
                    ).first()
                    if row is not None:
                        suspended.append(row.name)
        return suspended

    def abort_unfinished(self, instance: str | None = None) -> int:
        """Mark running games (of ``instance``, or all) aborted; returns how many."""
        with self.engine.begin() as conn:
            stmt = update(games).where(games.c.status == "running")
            if instance is not None:
                stmt = stmt.where(games.c.instance == instance)
            result = conn.execute(
                stmt.values(
                    status="aborted",
                    ended_at=now(),
                    termination="aborted",
                    result_json=json.dumps(
                        {
                            "termination": "aborted",
                            "scores": [],
                            "places": [],
                            "reason": "the server stopped while the game ran",
                            "details": {},
                        }
                    ),
                )
            )
            return int(result.rowcount or 0)

    # -- reads for the API ------------------------------------------------------------------

    def leaderboard(self, game: str, rules: str, limit: int = 100) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ratings, players.c.name, players.c.kind)
                .join(players, players.c.id == ratings.c.player_id)
                .where(ratings.c.game == game, ratings.c.rules == rules)
            ).all()
        board = [
            {
                "name": r.name,
                "kind": r.kind,
                "rating": round(rating_math.conservative(r.mu, r.sigma), 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
                "wins": r.wins,
                "last_played": iso(r.last_played),
            }
            for r in rows
        ]
        board.sort(key=lambda e: (-e["rating"], e["name"]))
        for rank, entry in enumerate(board[:limit], 1):
            entry["rank"] = rank
        return board[:limit]

    def list_games(
        self,
        *,
        status: str | None = None,
        game: str | None = None,
        rules: str | None = None,
        player: str | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        stmt = select(games).order_by(games.c.started_at.desc(), games.c.id).limit(limit)
        if status:
            stmt = stmt.where(games.c.status == status)
        if game:
            stmt = stmt.where(games.c.game == game)
        if rules:
            stmt = stmt.where(games.c.rules_name == rules)
        if player:
            stmt = stmt.where(
                games.c.id.in_(select(game_seats.c.game_id).where(game_seats.c.name == player))
            )
        with self.engine.connect() as conn:
            return [_game_summary(row) for row in conn.execute(stmt).all()]

    def game_detail(self, game_id: str) -> dict[str, Any] | None:
        """A game's summary, seats and faults; the full record only once it ended."""
        with self.engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.id == game_id)).first()
            if row is None:
                return None
            seat_rows = conn.execute(
                select(game_seats)
                .where(game_seats.c.game_id == game_id)
                .order_by(game_seats.c.seat)
            ).all()
            fault_rows = conn.execute(
                select(faults).where(faults.c.game_id == game_id).order_by(faults.c.id)
            ).all()
        detail = _game_summary(row)
        detail["seats_detail"] = [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                "place": s.place,
                "score": s.score,
                "faults": s.faults,
                "taken_over": s.taken_over,
                "rating_before": None
                if s.mu_before is None
                else rating_math.conservative(s.mu_before, s.sigma_before),
                "rating_after": None
                if s.mu_after is None
                else rating_math.conservative(s.mu_after, s.sigma_after),
            }
            for s in seat_rows
        ]
        if row.status != "running":
            detail["faults"] = [_fault_json(f) for f in fault_rows]
            detail["record"] = json.loads(row.record_json) if row.record_json else None
        return detail

    def record(self, game_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(games.c.record_json).where(
                    games.c.id == game_id, games.c.status != "running"
                )
            ).first()
        if row is None or row.record_json is None:
            return None
        data: dict[str, Any] = json.loads(row.record_json)
        return data

    def bot_detail(self, name: str, limit: int = 50) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            p = conn.execute(select(players).where(players.c.name == name)).first()
            if p is None:
                return None
            seat_rows = conn.execute(
                select(game_seats, games)
                .join(games, games.c.id == game_seats.c.game_id)
                .where(game_seats.c.player_id == p.id)
                .order_by(games.c.started_at.desc())
                .limit(limit)
            ).all()
            rating_rows = conn.execute(select(ratings).where(ratings.c.player_id == p.id)).all()
            history = conn.execute(
                select(
                    game_seats.c.game_id,
                    game_seats.c.mu_after,
                    game_seats.c.sigma_after,
                    games.c.game,
                    games.c.rules_name,
                    games.c.ended_at,
                )
                .join(games, games.c.id == game_seats.c.game_id)
                .where(game_seats.c.player_id == p.id, game_seats.c.mu_after.is_not(None))
                .order_by(games.c.ended_at, games.c.id)
            ).all()
            fault_rows = conn.execute(
                select(faults)
                .where(faults.c.player_id == p.id)
                .order_by(faults.c.id.desc())
                .limit(limit)
            ).all()
        until = _aware(p.suspended_until)
        suspended = until is not None and until > now()
        return {
            "name": p.name,
            "kind": p.kind,
            "created_at": iso(p.created_at),
            "suspended": suspended,
            "suspended_until": iso(until) if suspended else None,
            "suspension_reason": p.suspended_reason,
            "ratings": [
                {
                    "game": r.game,
                    "rules": r.rules,
                    "rating": rating_math.conservative(r.mu, r.sigma),
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "games": r.games,
                    "wins": r.wins,
                    "last_played": iso(r.last_played),
                }
                for r in rating_rows
            ],
            "rating_history": [
                {
                    "game_id": h.game_id,
                    "game": h.game,
                    "rules": h.rules_name,
                    "rating": rating_math.conservative(h.mu_after, h.sigma_after),
                    "at": iso(h.ended_at),
                }
                for h in history
            ],
            "games": [
                {
                    "game_id": s.game_id,
                    "game": s.game,
                    "rules": s.rules_name,
                    "lobby": s.lobby,
                    "status": s.status,
                    "seat": s.seat,
                    "place": s.place,
                    "score": s.score,
                    "faults": s.faults,
                    "taken_over": s.taken_over,
                    "started_at": iso(s.started_at),
                }
                for s in seat_rows
            ],
            "faults": [_fault_json(f) for f in fault_rows],
        }

    def counts(self) -> dict[str, int]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(games.c.status, func.count()).group_by(games.c.status))
            return {str(status): int(n) for status, n in rows}

    # -- ratings ----------------------------------------------------------------------------

    def recompute_ratings(self) -> int:
        """Rebuild every rating from the stored finished, rated games in the order they ended.

        One transaction; returns the number of games replayed.
        """
        with self.engine.begin() as conn:
            conn.execute(ratings.delete())
            conn.execute(
                update(game_seats).values(
                    mu_before=None, sigma_before=None, mu_after=None, sigma_after=None
                )
            )
            rows = conn.execute(
                select(
                    games.c.id,
                    games.c.game,
                    games.c.rules_name,
                    games.c.result_json,
                    games.c.ended_at,
                )
                .where(games.c.status == "finished", games.c.rated.is_(True))
                .order_by(games.c.ended_at, games.c.id)
            ).all()
            for row in rows:
                places = json.loads(row.result_json)["places"]
                _apply_ratings(conn, row.id, row.game, row.rules_name, places, row.ended_at)
        return len(rows)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: readers do not block the writer; synchronous=NORMAL keeps every committed
    # transaction across a killed process (only a power loss may drop the newest ones).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _apply_ratings(
    conn: Connection,
    game_id: str,
    game: str,
    rules: str | None,
    places: Sequence[int],
    ended: datetime,
) -> None:
    """Update the ratings of the rated seats of one finished game (inside the caller's
    transaction) and note before/after on its seats."""
    rules_key = rules or "custom"
    seat_rows = conn.execute(
        select(game_seats.c.seat, game_seats.c.player_id)
        .where(game_seats.c.game_id == game_id, game_seats.c.player_id.is_not(None))
        .order_by(game_seats.c.seat)
    ).all()
    if len(seat_rows) < 2:
        return
    current = {
        r.player_id: r
        for r in conn.execute(
            select(ratings).where(
                ratings.c.game == game,
                ratings.c.rules == rules_key,
                ratings.c.player_id.in_([s.player_id for s in seat_rows]),
            )
        )
    }
    before = [
        (current[s.player_id].mu, current[s.player_id].sigma)
        if s.player_id in current
        else rating_math.INITIAL
        for s in seat_rows
    ]
    seat_places = [places[s.seat] for s in seat_rows]
    after = rating_math.rate(before, seat_places)
    best = min(seat_places)
    for s, (mu0, sigma0), (mu1, sigma1), place in zip(
        seat_rows, before, after, seat_places, strict=True
    ):
        won = 1 if place == best else 0
        if s.player_id in current:
            conn.execute(
                update(ratings)
                .where(
                    ratings.c.player_id == s.player_id,
                    ratings.c.game == game,
                    ratings.c.rules == rules_key,
                )
                .values(
                    mu=mu1,
                    sigma=sigma1,
                    games=ratings.c.games + 1,
                    wins=ratings.c.wins + won,
                    last_played=ended,
                )
            )
        else:
            conn.execute(
                ratings.insert().values(
                    player_id=s.player_id,
                    game=game,
                    rules=rules_key,
                    mu=mu1,
                    sigma=sigma1,
                    games=1,
                    wins=won,
                    last_played=ended,
                )
            )
        conn.execute(
            update(game_seats)
            .where(game_seats.c.game_id == game_id, game_seats.c.seat == s.seat)
            .values(mu_before=mu0, sigma_before=sigma0, mu_after=mu1, sigma_after=sigma1)
        )


def _suspension_reason(conn: Connection, player_id: int, after: int, window: int) -> str | None:
    """Why this bot should be suspended now, or ``None``: taken over by the fallback in at
    least ``after`` of its last ``window`` ended games."""
    if after <= 0:
        return None
    rows = conn.execute(
        select(game_seats.c.game_id, game_seats.c.taken_over)
        .join(games, games.c.id == game_seats.c.game_id)
        .where(game_seats.c.player_id == player_id, games.c.status != "running")
        .order_by(games.c.ended_at.desc(), games.c.id.desc())
        .limit(window)
    ).all()
    bad = [r.game_id for r in rows if r.taken_over]
    if len(bad) < after:
        return None
    last = conn.execute(
        select(faults.c.code, faults.c.reason)
        .where(faults.c.player_id == player_id)
        .order_by(faults.c.id.desc())
        .limit(1)
    ).first()
    detail = f"; last fault: {last.code}: {last.reason}" if last is not None else ""
    return (
        f"taken over by the fallback for repeated faults in {len(bad)} of its last "
        f"{len(rows)} games ({', '.join(bad)}){detail}"
    )


def _fault_json(f: Any) -> dict[str, Any]:
    return {
        "game_id": f.game_id,
        "seat": f.seat,
        "decision": f.decision,
        "request_kind": f.request_kind,
        "code": f.code,
        "reason": f.reason,
        "at": iso(f.at),
    }


def _game_summary(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "game": row.game,
        "rules": row.rules_name,
        "lobby": row.lobby,
        "rated": row.rated,
        "status": row.status,
        "seats": row.seats,
        "names": json.loads(row.names_json),
        "started_at": iso(row.started_at),
        "ended_at": iso(row.ended_at),
        "termination": row.termination,
        "result": json.loads(row.result_json) if row.result_json else None,
    }
