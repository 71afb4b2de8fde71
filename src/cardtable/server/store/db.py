"""The :class:`Store`: every read and write of the server's database.

Methods are synchronous (SQLAlchemy 2 Core); the server calls them from a worker thread so the
event loop never waits on the disk. SQLite runs in WAL mode (readers never block the writer, a
killed process loses no committed transaction); a PostgreSQL URL works the same.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import random
import re
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import argon2
from sqlalchemy import (
    Connection,
    Engine,
    and_,
    case,
    create_engine,
    event,
    func,
    or_,
    select,
    update,
)
from sqlalchemy import Sequence as DbSequence
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError

from cardtable.core.registry import game_spec
from cardtable.server import fair_play, names
from cardtable.server import ratings as rating_math
from cardtable.server.store.models import faults, game_seats, games, players, ratings, sessions

#: Bot names: letters, digits, ``_``, ``-``, ``.``; 2 to 32 characters, starting with a letter or
#: digit. Names starting with ``house-`` are reserved for house bots.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{1,31}$")
#: People's names: Unicode letters and digits, ``_``, ``-``, ``.`` and single spaces inside; 2 to
#: 32 characters, starting with a letter or digit (after NFKC, see names.py).
PERSON_NAME_PATTERN = re.compile(r"^(?=.{2,32}$)[^\W_](?:[\w.\-]| (?! ))*(?<! )$")
#: Passwords: 8 to 256 characters.
PASSWORD_MIN, PASSWORD_MAX = 8, 256
MIGRATIONS = Path(__file__).with_name("migrations")
#: The newest migration in ``migrations/versions``: a start whose database already stores it has
#: nothing to migrate and never imports alembic (0.3 s CPU of a server's start, measured). A new
#: migration changes it too (tests/server/test_store.py checks it is alembic's own head).
HEAD_REVISION = "0012"
#: PostgreSQL numbers game ends with this sequence (migration 0002).
END_SEQ = DbSequence("games_end_seq")
#: SQLSTATEs after which a transaction is simply tried again: serialization failure, deadlock.
RETRY_SQLSTATES = frozenset({"40001", "40P01"})
#: Attempts of one transaction before :meth:`Store.finish_game` gives the error to its caller
#: (the table keeps the result and calls again: a game end is never dropped).
ATTEMPTS = 8

log = logging.getLogger("cardtable.server.store")


def retryable(exc: BaseException) -> bool:
    """A database error after which the same transaction may simply run again."""
    if not isinstance(exc, DBAPIError):
        return False
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code in RETRY_SQLSTATES:
        return True
    return "database is locked" in str(exc.orig)  # SQLite past its busy timeout


def new_token() -> str:
    """A bot's token: 256 random bits, URL-safe (43 characters), never starting with ``-``: a
    token that did would be taken for an option in ``cardtable bot --token TOKEN`` (one in 64
    of them; a CI run met one)."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


#: Stored token hashes: ``h1$<salt>$<HMAC-SHA256(salt, SHA-256 hex of the token)>``.
TOKEN_SCHEME = "h1"


def hash_token(token: str, salt: str | None = None) -> str:
    """The stored form of a token: HMAC-SHA256 keyed with a random per-row salt over the
    token's SHA-256 (equal tokens get different hashes; the inner SHA-256 lets rows stored
    before salting be wrapped without their token, migration 0004). A slow hash (scrypt,
    argon2) was measured at 45-360 ms per login on this 2-core machine and would run on the
    store's one thread for every game a Kuh-Handel bot joins; native tokens are 256-bit random,
    where a slow hash adds nothing."""
    return wrap_digest(hashlib.sha256(token.encode("utf-8")).hexdigest(), salt)


def wrap_digest(digest: str, salt: str | None = None) -> str:
    """The stored form of a token whose SHA-256 hex is ``digest``."""
    salt = salt or secrets.token_hex(16)
    mac = hmac.new(salt.encode("ascii"), digest.encode("ascii"), "sha256").hexdigest()
    return f"{TOKEN_SCHEME}${salt}${mac}"


def verify_token(token: str, stored: str | None) -> bool:
    """Whether ``token`` is the token stored as ``stored`` (constant time for a given form)."""
    digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
    if stored is None:
        hmac.compare_digest(digest, wrap_digest(digest, "0" * 32))  # the same work
        return False
    parts = stored.split("$")
    if len(parts) == 3 and parts[0] == TOKEN_SCHEME:
        return hmac.compare_digest(stored, wrap_digest(digest, parts[1]))
    return hmac.compare_digest(stored, digest)  # an unsalted row of a process not yet upgraded


def name_keys(name: str) -> dict[str, str]:
    """The stored forms of a name that make two names the same (names.py)."""
    return {"name_fold": names.fold(name), "name_skeleton": names.skeleton(name)}


def _taken(name: str, taken: str) -> NameError_:
    if taken == name or names.fold(taken) == names.fold(name):
        return NameError_(409, f"the name {name!r} is taken", "name_taken", name=name)
    return NameError_(
        409,
        f"the name {name!r} is taken: it looks like {taken!r}",
        "name_looks_taken",
        name=name,
        taken=taken,
    )


def _reserved_code(name: str) -> str:
    return "name_house" if names.house_name(name) else "name_guest"


#: The password hasher: argon2id with argon2-cffi's defaults (RFC 9106's second recommended
#: profile: 3 passes over 64 MiB, 4 lanes); a store may be given another cost
#: (:func:`password_hasher`, the ``password_*`` settings).
passwords = argon2.PasswordHasher()


def password_hasher(time_cost: int, memory_kib: int, lanes: int) -> argon2.PasswordHasher:
    """An argon2id hasher of this cost (the defaults' when it is theirs)."""
    if (time_cost, memory_kib, lanes) == (
        passwords.time_cost,
        passwords.memory_cost,
        passwords.parallelism,
    ):
        return passwords
    return argon2.PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=lanes)


@functools.cache
def _dummy_hash(hasher: argon2.PasswordHasher) -> str:
    """A hash of the same cost as ``hasher``'s, for a name that has no password."""
    return hasher.hash("not a password of anyone")


def check_person_name(name: str) -> str:
    """A person's name, normalised (NFKC, spaces collapsed); raises :class:`NameError_` 422."""
    try:
        name = names.normalise(" ".join(name.split()))
    except names.NameRefused as exc:
        raise NameError_(422, exc.reason, exc.code, **exc.args_) from None
    if not PERSON_NAME_PATTERN.match(name):
        raise NameError_(
            422,
            "a name has 2-32 letters, digits, '_', '-', '.' or single spaces, starting with a "
            "letter or digit",
            "name_form",
        )
    reserved = names.reserved_reason(name)
    if reserved is not None:
        raise NameError_(422, reserved, _reserved_code(name))
    return name


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise NameError_(
            422,
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            "password_length",
            min=PASSWORD_MIN,
            max=PASSWORD_MAX,
        )


def _claim(conn: Connection, player_id: int, guest_key: str) -> int:
    rows = conn.execute(
        update(game_seats)
        .where(game_seats.c.guest_key == guest_key, game_seats.c.player_id.is_(None))
        .values(player_id=player_id)
    )
    return int(rows.rowcount or 0)


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


#: the PostgreSQL advisory lock key the schema migrations run under (any fixed 64-bit number)
MIGRATION_LOCK = 0x6361726474626C  # 'cardtbl'


class AlreadyEnded(RuntimeError):
    """The game is no longer ``running`` in the database: the reaper aborted it because its
    process was taken for dead. Nothing of the late end is stored."""

    def __init__(self, game_id: str, status: str) -> None:
        super().__init__(f"game {game_id} is already {status}")
        self.game_id = game_id
        self.status = status


class NameError_(ValueError):
    """A name or password is invalid (``status`` 422) or the name taken (409); ``code`` and
    ``args`` say which without words (refusals.CODES)."""

    def __init__(self, status: int, reason: str, code: str, **args: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code
        self.args_ = args


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
    #: Actions played before the fault (the ``faults.decision`` column; ``move`` in the API).
    decision: int
    request_kind: str
    code: str
    reason: str
    at: datetime = field(default_factory=now)
    #: More about the fault, as JSON (``None``: nothing more): for a fault the client reported,
    #: ``reported_by: "client"``, ``after_ms`` (request sent -> fault recorded), ``answered_by``
    #: (``client``/``server`` fallback) and, for ``raised``, the ``exception`` (type, message,
    #: file, line, function of the bot's own frame).
    detail: Mapping[str, Any] | None = None


class Store:
    """The database behind one server (or several sharing a PostgreSQL)."""

    def __init__(self, url: str, hasher: argon2.PasswordHasher | None = None) -> None:
        self.url = url
        #: people's passwords are hashed and checked with this (:func:`password_hasher`)
        self.passwords = hasher or passwords
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
        """Bring the schema to the newest alembic revision (idempotent). A database already at
        :data:`HEAD_REVISION` is left as it is, read with one query; a fresh SQLite database is
        given the newest schema in one script (:mod:`cardtable.server.store.fresh`); alembic is
        imported only for the others (an older database, PostgreSQL): :meth:`upgrade`."""
        if self.revision() == HEAD_REVISION:
            return
        if self.is_sqlite:
            from cardtable.server.store import fresh

            raw = self.engine.raw_connection()
            try:
                if fresh.create(raw.driver_connection):
                    return
            finally:
                raw.close()
        self.upgrade()

    def upgrade(self) -> None:
        """alembic's migrations from the stored revision (none: an empty database) to the
        newest."""
        with self.engine.begin() as conn:
            if not self.is_sqlite:
                # processes of a cluster starting at once: one migrates, the others wait for its
                # commit and find nothing left to do, without importing alembic (a lock of this
                # transaction, released by it)
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
                if conn.exec_driver_sql("SELECT to_regclass('alembic_version')").scalar():
                    row = conn.exec_driver_sql("SELECT version_num FROM alembic_version").first()
                    if row is not None and row[0] == HEAD_REVISION:
                        return
            from alembic import command
            from alembic.config import Config

            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
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
        if name != name.strip():
            # refused, not trimmed: the name a bot connects with is the one it registered
            raise NameError_(
                422,
                "a bot name may not begin or end with a space, a tab or a line break",
                "bot_name_spaces",
            )
        try:
            name = names.normalise(name)
        except names.NameRefused as exc:
            raise NameError_(422, exc.reason, exc.code, **exc.args_) from None
        if not NAME_PATTERN.fullmatch(name):
            raise NameError_(
                422,
                "a bot name has 2-32 letters, digits, '_', '-' or '.', starting with a letter "
                "or digit",
                "bot_name_form",
            )
        reserved = names.reserved_reason(name)
        if reserved is not None:
            raise NameError_(422, reserved, _reserved_code(name))
        token = new_token()
        with self.engine.begin() as conn:
            taken = self.name_taken(name, conn)
            if taken is not None:
                raise _taken(name, taken)
            try:
                pid = conn.execute(
                    players.insert().values(
                        name=name,
                        kind="bot",
                        token_hash=hash_token(token),
                        created_at=now(),
                        **name_keys(name),
                    )
                ).inserted_primary_key
            except IntegrityError:
                # another registration of the same name committed between the check and the
                # insert (two processes, or two requests at once)
                raise NameError_(
                    409, f"the name {name!r} is taken", "name_taken", name=name
                ) from None
        assert pid is not None
        return Identity(int(pid[0]), name, "bot"), token

    def authenticate(self, name: str, token: str) -> Identity | None:
        """The bot with this name if ``token`` is its token, else ``None`` (constant time)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(players).where(players.c.name == name, players.c.kind == "bot")
            ).first()
        ok = verify_token(token, row.token_hash if row is not None else None)
        if row is None or not ok:
            return None
        return Identity(
            row.id, row.name, row.kind, _aware(row.suspended_until), row.suspended_reason
        )

    def name_taken(self, name: str, conn: Connection | None = None) -> str | None:
        """The stored name that ``name`` would be mistaken for (same case folding or same
        confusable skeleton), or ``None``."""
        keys = name_keys(name)
        stmt = select(players.c.name).where(
            (players.c.name_fold == keys["name_fold"])
            | (players.c.name_skeleton == keys["name_skeleton"])
            | (players.c.name == name)
        )
        if conn is not None:
            row = conn.execute(stmt).first()
        else:
            with self.engine.connect() as own:
                row = own.execute(stmt).first()
        return None if row is None else str(row.name)

    def house_player(self, name: str) -> Identity:
        """The stored house bot called ``name`` (created on first use)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(players).where(players.c.name == name)).first()
            if row is None:
                conn.execute(
                    self._insert(players)
                    .values(name=name, kind="house", created_at=now())
                    .on_conflict_do_nothing(index_elements=["name"])
                )
                row = conn.execute(select(players).where(players.c.name == name)).one()
            return Identity(row.id, row.name, row.kind)

    # -- people (accounts) ------------------------------------------------------------------

    def create_person(
        self, name: str, password: str, guest_key: str | None = None
    ) -> tuple[Identity, int]:
        """Register a person (argon2id password hash). With ``guest_key``, the games that guest
        identity played move to the new account (see :meth:`claim_guest`). Returns the identity
        and the number of guest seats claimed. Raises :class:`NameError_` (422 invalid, 409
        taken): the same namespace as bots, house bots and guests."""
        name = check_person_name(name)
        check_password(password)
        hashed = self.passwords.hash(password)  # slow on purpose: outside the transaction
        with self.engine.begin() as conn:
            taken = self.name_taken(name, conn)
            if taken is not None:
                raise _taken(name, taken)
            try:
                pid = conn.execute(
                    players.insert().values(
                        name=name,
                        kind="person",
                        password_hash=hashed,
                        session_gen=0,
                        created_at=now(),
                        **name_keys(name),
                    )
                ).inserted_primary_key
            except IntegrityError:
                raise NameError_(
                    409, f"the name {name!r} is taken", "name_taken", name=name
                ) from None
            assert pid is not None
            claimed = _claim(conn, int(pid[0]), guest_key) if guest_key else 0
        return Identity(int(pid[0]), name, "person"), claimed

    def verify_person(self, name: str, password: str) -> Identity | None:
        """The person called ``name`` (any case) if ``password`` is theirs, else ``None``. A
        missing name costs the same hash as a wrong password."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(players).where(
                    players.c.name_fold == names.fold(name), players.c.kind == "person"
                )
            ).first()
        if row is None or row.password_hash is None:
            with contextlib.suppress(argon2.exceptions.VerificationError):
                self.passwords.verify(_dummy_hash(self.passwords), password)
            return None
        try:
            self.passwords.verify(row.password_hash, password)
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            return None
        if self.passwords.check_needs_rehash(row.password_hash):
            with self.engine.begin() as conn:
                conn.execute(
                    update(players)
                    .where(players.c.id == row.id)
                    .values(password_hash=self.passwords.hash(password))
                )
        return Identity(row.id, row.name, row.kind)

    def change_password(self, player_id: int, old: str, new: str) -> bool:
        """Set a new password if ``old`` is the current one; every session is signed out
        (the generation moves on). False: ``old`` was wrong (nothing changed)."""
        check_password(new)
        with self.engine.connect() as conn:
            row = conn.execute(select(players).where(players.c.id == player_id)).first()
        if row is None or row.password_hash is None:
            return False
        try:
            self.passwords.verify(row.password_hash, old)
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            return False
        hashed = self.passwords.hash(new)
        with self.engine.begin() as conn:
            conn.execute(
                update(players)
                .where(players.c.id == player_id)
                .values(password_hash=hashed, session_gen=players.c.session_gen + 1)
            )
            conn.execute(sessions.delete().where(sessions.c.player_id == player_id))
        return True

    def language_of(self, player_id: int) -> str | None:
        """The language a person chose for the pages (a code), or ``None``."""
        with self.engine.connect() as conn:
            value = conn.execute(
                select(players.c.language).where(players.c.id == player_id)
            ).scalar()
        return str(value) if value else None

    def set_language(self, player_id: int, language: str | None) -> None:
        """Remember a person's language for the pages (the caller checked the code)."""
        with self.engine.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id).values(language=language))

    def new_session(self, player_id: int, days: float) -> str:
        """A new session for a person; returns the cookie's token (stored only as SHA-256)."""
        token = new_token()
        with self.engine.begin() as conn:
            gen = conn.execute(
                select(players.c.session_gen).where(players.c.id == player_id)
            ).scalar_one()
            # this person's expired sessions go (nothing else ever reads them)
            conn.execute(
                sessions.delete().where(
                    sessions.c.player_id == player_id, sessions.c.expires_at < now()
                )
            )
            conn.execute(
                sessions.insert().values(
                    token_hash=hashlib.sha256(token.encode()).hexdigest(),
                    player_id=player_id,
                    gen=gen,
                    created_at=now(),
                    expires_at=now() + timedelta(days=days),
                )
            )
        return token

    def session_identity(self, token: str) -> Identity | None:
        """The person a session token belongs to, or ``None`` (unknown, expired, or signed out
        everywhere since it was issued)."""
        if not token or len(token) > 200:
            return None
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(players, sessions.c.gen, sessions.c.expires_at)
                .join(sessions, sessions.c.player_id == players.c.id)
                .where(sessions.c.token_hash == digest)
            ).first()
        if row is None or row.gen != row.session_gen:
            return None
        expires = _aware(row.expires_at)
        if expires is None or expires <= now():
            return None
        return Identity(row.id, row.name, row.kind)

    def end_session(self, token: str) -> None:
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self.engine.begin() as conn:
            conn.execute(sessions.delete().where(sessions.c.token_hash == digest))

    def end_all_sessions(self, player_id: int) -> None:
        """Sign a person out everywhere: the generation moves on, every session row goes."""
        with self.engine.begin() as conn:
            conn.execute(
                update(players)
                .where(players.c.id == player_id)
                .values(session_gen=players.c.session_gen + 1)
            )
            conn.execute(sessions.delete().where(sessions.c.player_id == player_id))

    def claim_guest(self, player_id: int, guest_key: str) -> int:
        """Move the seats a guest identity played to a person's account; returns how many.
        The seats keep kind ``guest``: they were played unrated and stay unrated, so the
        stored ratings still equal a recomputation."""
        with self.engine.begin() as conn:
            return _claim(conn, player_id, guest_key)

    def guest_games(self, guest_key: str) -> int:
        """How many ended games this guest identity played (not yet claimed)."""
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(game_seats)
                    .where(game_seats.c.guest_key == guest_key, game_seats.c.player_id.is_(None))
                ).scalar_one()
            )

    def _insert(self, table: Any) -> Any:
        """An INSERT that can say ``ON CONFLICT DO NOTHING`` in this database's dialect."""
        if self.is_sqlite:
            return sqlite_insert(table)
        # imported here: the PostgreSQL dialect package loads all its drivers' modules (asyncpg's
        # among them), a cost a server on SQLite never needs
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)

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
        seats: Sequence[tuple[int | None, str, str] | tuple[int | None, str, str, str | None]],
        versions: Sequence[str | None] = (),
    ) -> None:
        """Store a game that begins: ``seats`` are ``(player_id, name, kind)`` or ``(player_id,
        name, kind, identity key)`` (a guest's key is kept so an account can claim the seat);
        ``versions`` the bots' versions per seat (from their ``hello``), if any."""
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
                    names_json=json.dumps([seat[1] for seat in seats]),
                    started_at=now(),
                )
            )
            conn.execute(
                game_seats.insert(),
                [
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "player_id": entry[0],
                        "name": entry[1],
                        "kind": entry[2],
                        "guest_key": entry[3] if len(entry) > 3 and entry[2] == "guest" else None,
                        "bot_version": versions[seat] if seat < len(versions) else None,
                        "faults": 0,
                        "taken_over": False,
                    }
                    for seat, entry in enumerate(seats)
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

        Several processes may end games at once on one PostgreSQL: the transaction locks the
        game row, then its seats' rating rows in one fixed order (by player id, ``SELECT ... FOR
        UPDATE``), so two game ends never wait on each other in a cycle; the new ratings are
        computed from the rows read under those locks, so they are applied in commit order, and
        the game takes its place in that order (``end_seq``) while it holds them. Should the
        database still refuse (a serialization failure, a deadlock with some other writer, a
        busy SQLite), the whole transaction runs again, up to :data:`ATTEMPTS` times with a
        jittered backoff; after that the error goes to the caller, which keeps the result and
        calls again. Raises :class:`AlreadyEnded` (storing nothing) when the game is no longer
        ``running`` (the reaper aborted it).
        """
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return self._finish_game_once(
                    game_id,
                    record=record,
                    result=result,
                    seats=seats,
                    fault_rows=fault_rows,
                    suspend_after=suspend_after,
                    suspend_window=suspend_window,
                    suspend_minutes=suspend_minutes,
                )
            except DBAPIError as exc:
                if attempt == ATTEMPTS or not retryable(exc):
                    raise
                log.warning(
                    "game %s: end not stored (%s), attempt %d of %d; trying again",
                    game_id,
                    str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__,
                    attempt,
                    ATTEMPTS,
                )
                time.sleep(random.uniform(0.0, 0.02 * 2**attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _finish_game_once(
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
        suspended: list[str] = []
        termination = str(result["termination"])
        status = "aborted" if termination == "aborted" else "finished"
        with self.engine.begin() as conn:
            game_row = conn.execute(
                select(games).where(games.c.id == game_id).with_for_update()
            ).one()
            if game_row.status != "running":
                raise AlreadyEnded(game_id, str(game_row.status))
            places = list(result.get("places") or [])
            scores = list(result.get("scores") or [])
            rated = status == "finished" and bool(game_row.rated)
            locked = (
                self._lock_ratings(conn, game_id, game_row.game, board_of(game_row))
                if rated
                else None
            )
            # the game's place in the order of game ends: taken while the rating rows are held,
            # so a later game of the same players always gets a larger number
            if self.is_sqlite:
                end_seq = (
                    int(
                        conn.execute(
                            select(func.coalesce(func.max(games.c.end_seq), 0))
                        ).scalar_one()
                    )
                    + 1
                )
            else:
                end_seq = int(conn.execute(select(END_SEQ.next_value())).scalar_one())
            ended = now()
            conn.execute(
                update(games)
                .where(games.c.id == game_id)
                .values(
                    status=status,
                    ended_at=ended,
                    end_seq=end_seq,
                    termination=termination,
                    result_json=json.dumps(result, sort_keys=True),
                    record_json=json.dumps(record, sort_keys=True),
                )
            )
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
                conn.execute(faults.insert(), [_fault_values(game_id, f) for f in fault_rows])
            if locked is not None:
                _apply_ratings(
                    conn, game_id, game_row.game, board_of(game_row), places, ended, locked
                )
            # players rows in the same fixed order as the rating rows
            for outcome in sorted(
                (o for o in seats if o.player_id is not None), key=lambda o: o.player_id or 0
            ):
                assert outcome.player_id is not None
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

    def add_faults(self, game_id: str, fault_rows: Sequence[FaultRow]) -> None:
        """Store faults of a game that has not ended yet (``FaultLog``: a process that dies
        mid-game keeps them), and its seats' fault counts with them. :meth:`finish_game` is
        then given only the faults not stored yet. Takes no lock a game end waits for in a
        cycle: the rows insert (a key-share lock on the game's row) and the seat rows of this
        game only, never while this game's end runs."""
        if not fault_rows:
            return
        with self.engine.begin() as conn:
            conn.execute(faults.insert(), [_fault_values(game_id, f) for f in fault_rows])
            for seat in sorted({f.seat for f in fault_rows}):
                count = (
                    select(func.count())
                    .select_from(faults)
                    .where(faults.c.game_id == game_id, faults.c.seat == seat)
                    .scalar_subquery()
                )
                conn.execute(
                    update(game_seats)
                    .where(game_seats.c.game_id == game_id, game_seats.c.seat == seat)
                    .values(faults=count)
                )

    def _lock_ratings(
        self, conn: Connection, game_id: str, game: str, board: str
    ) -> dict[int, Any]:
        """Create the missing rating rows of a game's rated seats on its ``board`` (its rule
        set's :func:`rules_label`), then lock all of them in the order of their player ids;
        returns them by player id (as they are now, committed)."""
        rules_key = board
        ids = sorted(
            {
                int(r.player_id)
                for r in conn.execute(
                    select(game_seats.c.player_id).where(
                        game_seats.c.game_id == game_id,
                        game_seats.c.player_id.is_not(None),
                        game_seats.c.kind != "guest",
                    )
                )
            }
        )
        if len(ids) < 2:
            return {}
        mu, sigma = rating_math.INITIAL
        for pid in ids:  # a new player's row: created (or found) in the same order
            conn.execute(
                self._insert(ratings)
                .values(
                    player_id=pid,
                    game=game,
                    rules=rules_key,
                    mu=mu,
                    sigma=sigma,
                    games=0,
                    wins=0,
                    last_played=None,
                )
                .on_conflict_do_nothing()
            )
        rows = conn.execute(
            select(ratings)
            .where(
                ratings.c.game == game,
                ratings.c.rules == rules_key,
                ratings.c.player_id.in_(ids),
            )
            .order_by(ratings.c.player_id)
            .with_for_update()
        ).all()
        return {int(r.player_id): r for r in rows}

    def abort_unfinished(self, instance: str | None = None) -> int:
        """Mark running games (of ``instance``, or all) aborted; returns how many."""
        return len(self.abort_running(instance))

    def abort_running(
        self, instance: str | None = None, ended_at: datetime | None = None, reason: str = ""
    ) -> list[str]:
        """Mark the running games of ``instance`` (or all) aborted, as having ended at
        ``ended_at`` (default now: a process reaped by the cluster ended when it was last seen);
        returns their ids. Only games still ``running`` change, so two reapers never count a
        game twice, and a game end written meanwhile stays as it is."""
        with self.engine.begin() as conn:
            stmt = update(games).where(games.c.status == "running")
            if instance is not None:
                stmt = stmt.where(games.c.instance == instance)
            rows = conn.execute(
                stmt.values(
                    status="aborted",
                    ended_at=ended_at or now(),
                    termination="aborted",
                    result_json=json.dumps(
                        {
                            "termination": "aborted",
                            "scores": [],
                            "places": [],
                            "reason": reason or "the server stopped while the game ran",
                            "details": {},
                        }
                    ),
                ).returning(games.c.id)
            ).all()
            return [str(r.id) for r in rows]

    def finished_results(self, game_ids: Sequence[str]) -> dict[str, tuple[dict[str, Any], bool]]:
        """The stored result and ``rated`` of those of ``game_ids`` that are ``finished`` (a
        game aborted, still running or never stored is not there)."""
        if not game_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games.c.id, games.c.result_json, games.c.rated).where(
                    games.c.id.in_(list(game_ids)), games.c.status == "finished"
                )
            ).all()
        return {str(r.id): (json.loads(r.result_json), bool(r.rated)) for r in rows}

    def running_instances(self) -> list[str]:
        """The processes that have games ``running`` in the database."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games.c.instance).where(games.c.status == "running").distinct()
            ).all()
        return [str(r.instance) for r in rows]

    def status_of(self, game_id: str) -> str | None:
        """``running``, ``finished`` or ``aborted`` (``games.status``); ``None``: no such game."""
        with self.engine.connect() as conn:
            value = conn.execute(select(games.c.status).where(games.c.id == game_id)).scalar()
        return None if value is None else str(value)

    def instance_of(self, game_id: str) -> str | None:
        """The process (``games.instance``) that ran or runs ``game_id``; ``None``: no such game."""
        with self.engine.connect() as conn:
            value = conn.execute(select(games.c.instance).where(games.c.id == game_id)).scalar()
        return None if value is None else str(value)

    # -- reads for the API ------------------------------------------------------------------

    def leaderboard(
        self, game: str, rules: str, limit: int = 100, kind: str = "all"
    ) -> list[dict[str, Any]]:
        """One ordering of people and bots by rating (μ − 3σ); ``kind`` (``all``, ``people``,
        ``bots``: registered and house bots) filters it, ``rank`` stays the place in the whole
        board."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ratings, players.c.name, players.c.kind)
                .join(players, players.c.id == ratings.c.player_id)
                .where(ratings.c.game == game, ratings.c.rules == rules)
            ).all()
            # the faults of each bot in the rated games of this board, by code
            same_rules = _on_board(conn, game, rules)
            fault_rows = conn.execute(
                select(faults.c.player_id, faults.c.code, func.count())
                .join(games, games.c.id == faults.c.game_id)
                .where(games.c.game == game, same_rules, games.c.rated.is_(True))
                .where(games.c.status != "running")  # stored as they happen, shown once ended
                .where(faults.c.player_id.in_([r.player_id for r in rows]))
                .group_by(faults.c.player_id, faults.c.code)
            ).all()
            # the rated games of this board where a fault of its own placed a seat last
            own_rows = conn.execute(
                select(faults.c.player_id, faults.c.game_id, faults.c.code, faults.c.detail)
                .join(games, games.c.id == faults.c.game_id)
                .where(games.c.game == game, same_rules, games.c.rated.is_(True))
                .where(games.c.status == "finished")
                .where(faults.c.player_id.in_([r.player_id for r in rows]))
            ).all()
        fault_counts: dict[int, dict[str, int]] = {}
        for player_id, code, n in fault_rows:
            fault_counts.setdefault(player_id, {})[str(code)] = int(n)
        placed_last: dict[int, set[str]] = {}
        for f in own_rows:
            if fair_play.own_fault(f.code, f.detail):
                placed_last.setdefault(int(f.player_id), set()).add(str(f.game_id))
        board = [
            {
                "name": r.name,
                "kind": r.kind,
                # not rounded: the page rounds once, to 2 places (3.0045 rounded to 3.005 first
                # read 3.01)
                "rating": rating_math.conservative(r.mu, r.sigma),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
                "wins": r.wins,
                "last_played": iso(r.last_played),
                "faults": sum(fault_counts.get(r.player_id, {}).values()),
                "fault_counts": dict(sorted(fault_counts.get(r.player_id, {}).items())),
                # its rated games counted as below every seat without a fault (fair_play)
                "placed_last_for_faults": len(placed_last.get(r.player_id, ())),
            }
            for r in rows
        ]
        board.sort(key=lambda e: (-e["rating"], e["name"]))
        for rank, entry in enumerate(board, 1):
            entry["rank"] = rank
        if kind == "people":
            board = [e for e in board if e["kind"] == "person"]
        elif kind == "bots":
            board = [e for e in board if e["kind"] != "person"]
        return board[:limit]

    def rating_boards(self, game: str) -> list[str]:
        """The boards of ``game`` that hold ratings (every rule set rated so far, by its
        :func:`rules_label`), in name order."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ratings.c.rules).where(ratings.c.game == game).distinct()
            ).all()
        return sorted(str(r.rules) for r in rows)

    def list_games(
        self,
        *,
        status: str | None = None,
        game: str | None = None,
        rules: str | None = None,
        player: str | None = None,
        limit: int = 50,
        exclude_lobbies: Sequence[str] = (),
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        stmt = (
            select(games)
            .order_by(games.c.started_at.desc(), games.c.id)
            .limit(limit)
            .offset(max(0, offset))
        )
        if exclude_lobbies:
            stmt = stmt.where(games.c.lobby.not_in(list(exclude_lobbies)))
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
            rows = conn.execute(stmt).all()
            pages = _pages(conn, [row.id for row in rows])
        out = []
        for row in rows:
            summary = _game_summary(row)
            summary["pages"] = [s in pages.get(row.id, ()) for s in range(row.seats)]
            out.append(summary)
        return out

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
            standing = fair_play.seat_standing(conn, [game_id])
        detail = _game_summary(row)
        detail["seats_detail"] = [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                # the name has a bot page (GET /api/bots/{name}): a registered or house bot
                "page": s.player_id is not None,
                "place": _place(s.place),
                **_counted(standing.get((game_id, int(s.seat)))),
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
                    games.c.rules_json,
                    games.c.ended_at,
                )
                .join(games, games.c.id == game_seats.c.game_id)
                .where(game_seats.c.player_id == p.id, game_seats.c.mu_after.is_not(None))
                .order_by(games.c.ended_at, games.c.id)
            ).all()
            # a running game's faults are stored as they happen (FaultLog) but shown once it
            # ended: a fault's reason may tell what the bot holds
            ended = games.c.status != "running"
            fault_rows = conn.execute(
                select(faults)
                .join(games, games.c.id == faults.c.game_id)
                .where(faults.c.player_id == p.id, ended)
                .order_by(faults.c.id.desc())
                .limit(limit)
            ).all()
            fault_counts = conn.execute(
                select(faults.c.code, func.count())
                .join(games, games.c.id == faults.c.game_id)
                .where(faults.c.player_id == p.id, ended)
                .group_by(faults.c.code)
            ).all()
            pages = _pages(conn, [s.game_id for s in seat_rows])
            standing = fair_play.seat_standing(conn, [s.game_id for s in seat_rows])
            shares = conn.execute(
                select(
                    games.c.game,
                    games.c.rules_name,
                    games.c.rules_json,
                    func.count(),
                    func.sum(case((game_seats.c.place == 0, 1), else_=0)),
                )
                .join(games, games.c.id == game_seats.c.game_id)
                .where(game_seats.c.player_id == p.id, games.c.status == "finished")
                .group_by(games.c.game, games.c.rules_name, games.c.rules_json)
            ).all()
        win_share: dict[tuple[str, str], list[int]] = {}
        for game_name, rules_name, rules_json, played, won in shares:
            label = rules_label(game_name, rules_json, rules_name)
            entry = win_share.setdefault((game_name, label), [0, 0])
            entry[0] += int(played)
            entry[1] += int(won or 0)
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
                    "rules": board_of(h),  # the board it was rated on
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
                    "rules_label": rules_label(s.game, s.rules_json, s.rules_name),
                    "lobby": s.lobby,
                    "rated": s.rated,
                    "status": s.status,
                    "termination": s.termination,
                    "seat": s.seat,
                    "seats": s.seats,
                    "names": json.loads(s.names_json),
                    "pages": [k in pages.get(s.game_id, ()) for k in range(s.seats)],
                    "place": _place(s.place),
                    # the place that counts for its rating and standings (docs/protocol.md
                    # "Faults"): below every seat without a fault when it had one of its own
                    **_counted(standing.get((str(s.game_id), int(s.seat)))),
                    "score": s.score,
                    "faults": s.faults,
                    "taken_over": s.taken_over,
                    "bot_version": s.bot_version,
                    "started_at": iso(s.started_at),
                    "ended_at": iso(s.ended_at),
                }
                for s in seat_rows
            ],
            "faults": [_fault_json(f) for f in fault_rows],
            "fault_counts": {str(code): int(n) for code, n in sorted(fault_counts)},
            # finished games per game and rule set, and the share of them won (first place,
            # ties included), rated or not
            "win_share": [
                {
                    "game": game_name,
                    "rules_label": label,
                    "games": played,
                    "wins": won,
                    "share": won / played if played else 0.0,
                }
                for (game_name, label), (played, won) in sorted(win_share.items())
            ],
        }

    def counts(self) -> dict[str, int]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(games.c.status, func.count()).group_by(games.c.status))
            return {str(status): int(n) for status, n in rows}

    # -- ratings ----------------------------------------------------------------------------

    def recompute_ratings(self) -> int:
        """Rebuild every rating from the stored finished, rated games in the order their ends
        were committed (``end_seq``).

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
                    games.c.rules_json,
                    games.c.result_json,
                    games.c.ended_at,
                )
                .where(games.c.status == "finished", games.c.rated.is_(True))
                .order_by(games.c.end_seq, games.c.ended_at, games.c.id)
            ).all()
            # every game's seats with a fault of their own, read once (not one scan a game)
            faulted: dict[str, set[int]] = {}
            for f in conn.execute(
                select(faults.c.game_id, faults.c.seat, faults.c.code, faults.c.detail)
            ):
                if fair_play.own_fault(f.code, f.detail):
                    faulted.setdefault(str(f.game_id), set()).add(int(f.seat))
            for row in rows:
                places = fair_play.fair_places(
                    json.loads(row.result_json)["places"], faulted.get(str(row.id), ())
                )
                _apply_ratings(
                    conn, row.id, row.game, board_of(row), places, row.ended_at, fair=True
                )
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
    board: str,
    places: Sequence[int],
    ended: datetime,
    current: Mapping[int, Any] | None = None,
    *,
    fair: bool = False,
) -> None:
    """Update the ratings of the rated seats of one finished game (inside the caller's
    transaction) and note before/after on its seats. ``current``: the seats' rating rows as
    locked by the caller (read here when not given: the recomputation holds the whole table).

    The places that count are :func:`~cardtable.server.fair_play.fair_places`: a seat with a
    fault of its own is placed below every seat without one (derived from the stored faults, so
    a recomputation gives the same ratings); ``fair``: ``places`` are those already.
    ``board``: the rating board, the game's rule set's :func:`rules_label`."""
    rules_key = board
    if not fair:
        places = fair_play.game_fair_places(conn, game_id, places)
    seat_rows = conn.execute(
        select(game_seats.c.seat, game_seats.c.player_id)
        .where(game_seats.c.game_id == game_id, game_seats.c.player_id.is_not(None))
        .where(game_seats.c.kind != "guest")  # a claimed guest seat was played unrated
        .order_by(game_seats.c.seat)
    ).all()
    if len(seat_rows) < 2:
        return
    if current is None:
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
    new = {
        s.player_id: (mu1, sigma1, 1 if place == best else 0)
        for s, (mu1, sigma1), place in zip(seat_rows, after, seat_places, strict=True)
    }
    for pid in sorted(new):  # rows in the same order as they were locked
        mu1, sigma1, won = new[pid]
        if pid in current:
            conn.execute(
                update(ratings)
                .where(
                    ratings.c.player_id == pid,
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
                    player_id=pid,
                    game=game,
                    rules=rules_key,
                    mu=mu1,
                    sigma=sigma1,
                    games=1,
                    wins=won,
                    last_played=ended,
                )
            )
    for s, (mu0, sigma0), (mu1, sigma1) in zip(seat_rows, before, after, strict=True):
        conn.execute(
            update(game_seats)
            .where(game_seats.c.game_id == game_id, game_seats.c.seat == s.seat)
            .values(mu_before=mu0, sigma_before=sigma0, mu_after=mu1, sigma_after=sigma1)
        )


def _suspension_reason(conn: Connection, player_id: int, after: int, window: int) -> str | None:
    """Why this bot should be suspended now, or ``None``: taken over by the fallback in at
    least ``after`` of its last ``window`` ended games (a new bot: as soon as it has ``after``),
    counting only the games that ended after its last suspension ended (a suspension served
    clears the slate: the games that earned it never earn another)."""
    if after <= 0:
        return None
    served = conn.execute(
        select(players.c.suspended_until).where(players.c.id == player_id)
    ).scalar_one_or_none()
    stmt = (
        select(game_seats.c.game_id, game_seats.c.taken_over)
        .join(games, games.c.id == game_seats.c.game_id)
        .where(game_seats.c.player_id == player_id, games.c.status != "running")
        .order_by(games.c.ended_at.desc(), games.c.id.desc())
        .limit(window)
    )
    if served is not None:
        stmt = stmt.where(games.c.ended_at > served)
    rows = conn.execute(stmt).all()
    bad = [r.game_id for r in rows if r.taken_over]
    if len(bad) < after:
        return None
    last = conn.execute(
        select(faults.c.code, faults.c.reason)
        .join(games, games.c.id == faults.c.game_id)
        .where(faults.c.player_id == player_id, games.c.status != "running")
        .order_by(faults.c.id.desc())
        .limit(1)
    ).first()
    detail = f"; last fault: {last.code}: {last.reason}" if last is not None else ""
    return (
        f"taken over by the fallback for repeated faults in {len(bad)} of its last "
        f"{len(rows)} games ({', '.join(bad)}){detail}"
    )


def _fault_values(game_id: str, f: FaultRow) -> dict[str, Any]:
    """A fault as a row of ``faults``."""
    return {
        "game_id": game_id,
        "seat": f.seat,
        "player_id": f.player_id,
        "decision": f.decision,
        "request_kind": f.request_kind,
        "code": f.code,
        "reason": f.reason,
        "at": f.at,
        "detail": None if f.detail is None else json.dumps(f.detail),
    }


#: Key in a fault's stored ``detail``: the seat's decision number (from 1) the fault was on.
SEAT_DECISION = "seat_decision"


def _fault_json(f: Any) -> dict[str, Any]:
    """A stored fault as the API gives it: ``move`` is the number of actions played before it (the
    replay page's ``?at=``), ``decision`` the seat's own decision number, counted from 1 as
    ``cardtable replay --seat N --at K`` counts them (``None`` for faults stored before it was)."""
    detail = json.loads(f.detail) if f.detail else {}
    decision = detail.pop(SEAT_DECISION, None)
    return {
        "game_id": f.game_id,
        "seat": f.seat,
        "move": f.decision,
        "decision": decision,
        "request_kind": f.request_kind,
        "code": f.code,
        "reason": f.reason,
        "at": iso(f.at),
        "detail": detail or None,
    }


def board_of(row: Any) -> str:
    """The rating board of a stored game (a row with ``game``, ``rules_json``, ``rules_name``):
    its rule set's :func:`rules_label`, the name the games list shows, so that every rated game
    lands on a board the leaderboard offers under that name (issue 37 item 7)."""
    return rules_label(row.game, row.rules_json, row.rules_name)


def _on_board(conn: Connection, game: str, board: str) -> Any:
    """A condition on ``games`` for the games of ``game`` rated on ``board``: a preset's games
    by their preset name, and the custom rule sets (stored without one) whose label is it."""
    customs = [
        str(json_text)
        for (json_text,) in conn.execute(
            select(games.c.rules_json)
            .where(games.c.game == game, games.c.rules_name.is_(None), games.c.rated.is_(True))
            .distinct()
        )
        if rules_label(game, str(json_text), None) == board
    ]
    named = games.c.rules_name == board
    if not customs:
        return named
    return or_(named, and_(games.c.rules_name.is_(None), games.c.rules_json.in_(customs)))


@functools.lru_cache(maxsize=256)
def rules_label(game: str, rules_json: str, rules_name: str | None) -> str:
    """The one name people see for a stored game's rule set (GameSpec.rules_label); a game
    stored as one of its game's presets keeps that preset's name (its rating board)."""
    try:
        spec = game_spec(game)
        if rules_name is not None and rules_name in spec.presets:
            return rules_name
        return spec.rules_label(spec.rules_from_json(json.loads(rules_json)))
    except (ValueError, TypeError, KeyError):
        return rules_name or "custom"


def _pages(conn: Any, game_ids: list[str]) -> dict[str, set[int]]:
    """The seats of these games whose names have a bot page (``GET /api/bots/{name}``): the
    seats of a stored player (a registered or house bot; a guest has no page)."""
    pages: dict[str, set[int]] = {}
    if game_ids:
        for row in conn.execute(
            select(game_seats.c.game_id, game_seats.c.seat).where(
                game_seats.c.game_id.in_(game_ids), game_seats.c.player_id.is_not(None)
            )
        ):
            pages.setdefault(row.game_id, set()).add(row.seat)
    return pages


def _counted(standing: fair_play.Standing | None) -> dict[str, Any]:
    """A seat's place that counts for ratings and standings (``rating_place``, 1 is first)
    and whether a fault of its own placed it below every seat without one."""
    return {
        "rating_place": None if standing is None else standing.place + 1,
        "placed_last_for_faults": standing is not None and standing.placed_last_for_faults,
    }


def _place(index: int | None) -> int | None:
    """A stored place (an index from 0, as in results) as people count it: 1 is first."""
    return None if index is None else index + 1


def _game_summary(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "game": row.game,
        "rules": row.rules_name,
        "rules_label": rules_label(row.game, row.rules_json, row.rules_name),
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
