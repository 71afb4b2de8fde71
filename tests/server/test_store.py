"""The store on SQLite (always) and PostgreSQL (when one is reachable): migrations, the one-
transaction game end, ratings and their recomputation."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from cardtable.server.ratings import INITIAL, conservative, rate
from cardtable.server.store.db import HEAD_REVISION, MIGRATIONS, FaultRow, SeatOutcome, Store
from cardtable.server.store.fresh import (
    SCRIPT,
    create,
    migrated_schema,
    schema_of,
    statements_of,
)
from patience import patience

#: The newest migration (every start migrates to it).
HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:  # a private schema, created empty and dropped afterwards (conftest.py)
        url = request.getfixturevalue("pg_url")
    s = Store(url)
    s.migrate()
    yield s
    s.close()


def _start(store: Store, game_id: str, seats: Sequence[tuple[Any, ...]], **changes: Any) -> None:
    """``store.start_game`` of a rated short Cunegonda game of the ranked lobby on ``main`` (seed
    1, rules ``{}``), with ``changes`` to any of those."""
    game: dict[str, Any] = {
        "game": "cunegonda",
        "rules_name": "short",
        "rules": {},
        "seed": 1,
        "lobby": "ranked",
        "rated": True,
        "instance": "main",
        **changes,
    }
    store.start_game(game_id=game_id, seats=seats, **game)


def _finish(
    store: Store,
    game_id: str,
    *,
    record: dict[str, Any],
    result: dict[str, Any],
    seats: Sequence[SeatOutcome],
    fault_rows: Sequence[FaultRow] = (),
    suspend_after: int = 3,
    suspend_window: int = 5,
) -> list[str]:
    """``store.finish_game`` with a suspension of 1 minute (after 3 faulty games of 5 unless
    told); the names of the bots it suspended."""
    return store.finish_game(
        game_id,
        record=record,
        result=result,
        seats=seats,
        fault_rows=fault_rows,
        suspend_after=suspend_after,
        suspend_window=suspend_window,
        suspend_minutes=1,
    )


def _play(store: Store, game_id: str, players: list[int], places: list[int]) -> list[str]:
    _start(store, game_id, [(p, f"p{p}", "bot") for p in players], rules={"name": "short"})
    return _finish(
        store,
        game_id,
        record={"game": "cunegonda", "actions": []},
        result={"termination": "normal", "scores": [0] * len(players), "places": places},
        seats=[SeatOutcome(i, p, 0, False) for i, p in enumerate(players)],
    )


def test_migrations_are_idempotent_and_reach_head(store: Store) -> None:
    store.migrate()
    assert store.revision() == HEAD


def test_the_head_revision_the_store_knows_is_alembics() -> None:
    """A start compares the stored revision with ``HEAD_REVISION`` to skip alembic: a new
    migration without a new ``HEAD_REVISION`` would never be applied to a database at the old
    head."""
    assert HEAD_REVISION == HEAD


#: A server process starting: its app imported, then its database migrated as the app's start
#: does; prints the revision and which of the modules a start should not need were imported.
START = """
import sys
import cardtable.server.app
from cardtable.server.store.db import Store
store = Store(sys.argv[1])
store.migrate()
print(store.revision(), "alembic" in sys.modules, "sqlalchemy.dialects.postgresql" in sys.modules)
"""


def _server_start(url: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-c", START, url],
        capture_output=True,
        text=True,
        timeout=patience(60),
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_a_start_on_an_up_to_date_database_never_imports_alembic(store: Store) -> None:
    """Every start of a server migrates its database; one already at the head has nothing to
    migrate and does not import alembic (0.3 s CPU of a start on this machine, measured), nor, on
    SQLite, SQLAlchemy's PostgreSQL dialect (all its drivers' modules)."""
    assert _server_start(store.url) == [HEAD, "False", str(not store.is_sqlite)]


def test_a_start_on_an_older_database_migrates_it_with_alembic(tmp_path: Path) -> None:
    """The other way of a start: a database at an older revision is migrated by alembic (which
    imports every dialect it knows)."""
    from alembic import command
    from alembic.config import Config

    url = f"sqlite:///{tmp_path / 'older.db'}"
    store = Store(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0011")
    assert store.revision() == "0011"
    store.close()
    assert _server_start(url)[:2] == [HEAD, "True"]


def test_a_start_on_a_fresh_sqlite_database_builds_the_newest_schema_without_alembic(
    tmp_path: Path,
) -> None:
    """A fresh SQLite database is given the schema of the newest migration in one script
    (store/fresh.py): the start imports neither alembic nor the PostgreSQL dialect, and the
    database is the one the migrations build, statement for statement."""
    path = tmp_path / "fresh.db"
    assert _server_start(f"sqlite:///{path}") == [HEAD, "False", "False"]
    conn = sqlite3.connect(path)
    try:
        assert schema_of(conn) == migrated_schema()
    finally:
        conn.close()


def test_the_fresh_schema_script_is_what_the_migrations_build() -> None:
    """After a new migration this fails until ``python -m cardtable.server.store.fresh`` writes
    the script again (test_the_head_revision_the_store_knows_is_alembics fails as well)."""
    migrated = migrated_schema()
    assert f"INSERT INTO alembic_version (version_num) VALUES ('{HEAD}')" in migrated
    assert statements_of(SCRIPT.read_text(encoding="utf-8")) == migrated


def test_a_second_store_on_a_fresh_sqlite_database_finds_it_built(tmp_path: Path) -> None:
    """Two starts on one fresh file: the first builds the schema, the second finds it at the
    head; building again where tables exist is refused and changes nothing (an older database
    goes to alembic, test_a_start_on_an_older_database_migrates_it_with_alembic)."""
    url = f"sqlite:///{tmp_path / 'twice.db'}"
    first, second = Store(url), Store(url)
    try:
        first.migrate()
        second.migrate()
        assert first.revision() == second.revision() == HEAD
        conn = sqlite3.connect(tmp_path / "twice.db")
        try:
            assert create(conn) is False
            assert schema_of(conn) == migrated_schema()
        finally:
            conn.close()
    finally:
        first.close()
        second.close()


def test_bot_names_are_validated_unique_and_tokens_hashed(store: Store) -> None:
    identity, token = store.create_bot("Alice_1")
    assert store.authenticate("Alice_1", token) == identity
    assert store.authenticate("Alice_1", token + "x") is None
    with pytest.raises(ValueError) as taken:
        store.create_bot("alice_1")
    assert getattr(taken.value, "status", None) == 409
    for bad in ("a", "-dash", "has space", "x" * 33, "house-fake"):
        with pytest.raises(ValueError) as invalid:
            store.create_bot(bad)
        assert getattr(invalid.value, "status", None) == 422
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM players")).scalar_one()
    assert token not in stored and stored.startswith("h1$") and len(stored) == 100


def test_a_game_end_is_written_in_one_transaction(store: Store) -> None:
    players = [store.create_bot(f"bot{i}")[0].id for i in range(3)]
    _start(store, "g1", [(p, f"bot{i}", "bot") for i, p in enumerate(players)])
    result = {"termination": "normal", "scores": [1, 2, 3], "places": [2, 1, 0]}
    broken = FaultRow(0, players[0], 3, "play", "timeout", None)  # type: ignore[arg-type]
    with pytest.raises(Exception, match="(?i)null|not null"):
        _finish(
            store,
            "g1",
            record={"x": 1},
            result=result,
            seats=[SeatOutcome(i, p, 1, False) for i, p in enumerate(players)],
            fault_rows=[broken],
        )
    # nothing of the failed end is visible: the game still runs, no places, no ratings
    detail = store.game_detail("g1")
    assert detail is not None and detail["status"] == "running"
    assert all(s["place"] is None for s in detail["seats_detail"])
    assert store.leaderboard("cunegonda", "short") == []
    # and a good end writes everything together
    _ = _finish(
        store,
        "g1",
        record={"x": 1},
        result=result,
        seats=[SeatOutcome(i, p, 0, False) for i, p in enumerate(players)],
    )
    detail = store.game_detail("g1")
    assert detail is not None and detail["status"] == "finished"
    assert [s["place"] for s in detail["seats_detail"]] == [3, 2, 1]  # 1 is first
    board = store.leaderboard("cunegonda", "short")
    assert [e["name"] for e in board] == ["bot2", "bot1", "bot0"]
    assert store.record("g1") == {"x": 1}


def test_ratings_follow_plackett_luce_and_recompute_rebuilds_them(store: Store) -> None:
    rng = random.Random(5)
    ids = [store.create_bot(f"r{i}")[0].id for i in range(5)]
    expected = {p: INITIAL for p in ids}
    for g in range(12):
        players = rng.sample(ids, 4)
        places = [0, 1, 2, 3]
        rng.shuffle(places)
        _play(store, f"game{g}", players, places)
        after = rate([expected[p] for p in players], places)
        expected.update(zip(players, after, strict=True))
    board = {e["name"]: e for e in store.leaderboard("cunegonda", "short")}
    for i, p in enumerate(ids):
        mu, sigma = expected[p]
        assert board[f"r{i}"]["rating"] == pytest.approx(conservative(mu, sigma), abs=1e-3)
    before = store.leaderboard("cunegonda", "short")
    with store.engine.begin() as conn:  # wreck the ratings table; recompute must restore it
        conn.execute(text("UPDATE ratings SET mu = 0, games = 99"))
    assert store.recompute_ratings() == 12
    assert store.leaderboard("cunegonda", "short") == before


def test_people_and_bots_share_ratings_and_recompute_rebuilds_them(store: Store) -> None:
    """#21: people (accounts) are rated in the same table and order as bots; a guest seat an
    account claimed later stays unrated; stored ratings == recompute."""
    rng = random.Random(7)
    bots = [store.create_bot(f"b{i}")[0].id for i in range(3)]
    people = [store.create_person(f"Person {i}", "password!")[0].id for i in range(3)]
    ids = bots + people
    for g in range(10):
        players = rng.sample(ids, 4)
        places = [0, 1, 2, 3]
        rng.shuffle(places)
        _play(store, f"mixed{g}", players, places)
    # a guest's game, claimed by Person 0 afterwards
    _start(
        store,
        "guest-game",
        [(None, "Gast", "guest", "guest:abc"), (bots[0], "b0", "bot", None)],
        rules={"name": "short"},
        lobby="practice",
    )
    _finish(
        store,
        "guest-game",
        record={},
        result={"termination": "normal", "scores": [1, 0], "places": [0, 1]},
        seats=[SeatOutcome(0, None, 0, False), SeatOutcome(1, bots[0], 0, False)],
    )
    assert store.claim_guest(people[0], "guest:abc") == 1
    board = store.leaderboard("cunegonda", "short")
    kinds = {e["kind"] for e in board}
    assert kinds == {"bot", "person"} and [e["rank"] for e in board] == list(range(1, 7))
    people_only = store.leaderboard("cunegonda", "short", kind="people")
    assert {e["name"] for e in people_only} == {"Person 0", "Person 1", "Person 2"}
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE ratings SET mu = 0, games = 99"))
    assert store.recompute_ratings() == 11
    assert store.leaderboard("cunegonda", "short") == board
    assert "guest-game" in [g["game_id"] for g in store.bot_detail("Person 0")["games"]]


def test_unfinished_games_are_marked_aborted(store: Store) -> None:
    for game_id, guest, instance in [("left-over", "Ada", "main"), ("other", "Bo", "elsewhere")]:
        _start(
            store,
            game_id,
            [(None, guest, "guest")],
            game="kuhhandel",
            rules_name="classic",
            lobby="practice",
            rated=False,
            instance=instance,
        )
    assert store.abort_unfinished("main") == 1
    detail = store.game_detail("left-over")
    assert detail is not None and detail["status"] == "aborted"
    assert json.dumps(detail["result"]).count("aborted") == 1
    other = store.game_detail("other")
    assert other is not None and other["status"] == "running"  # another process's game


def test_suspension_after_games_taken_over(store: Store) -> None:
    pid = store.create_bot("faulty")[0].id
    others = [store.create_bot(f"o{i}")[0].id for i in range(2)]
    for g in range(2):
        _start(
            store,
            f"f{g}",
            [(p, str(p), "bot") for p in [pid, *others]],
            lobby="practice",
            rated=False,
        )
        suspended = _finish(
            store,
            f"f{g}",
            record={},
            result={"termination": "normal", "scores": [0, 0, 0], "places": [0, 1, 2]},
            seats=[
                SeatOutcome(0, pid, 3, True),
                *(SeatOutcome(i + 1, p, 0, False) for i, p in enumerate(others)),
            ],
            fault_rows=[FaultRow(0, pid, 1, "play", "timeout", "slow")],
            suspend_after=2,
            suspend_window=4,
        )
    assert suspended == ["faulty"]
    info = store.bot_detail("faulty")
    assert info is not None and info["suspended"] is True
    assert "timeout: slow" in info["suspension_reason"]
    assert store.bot_detail("o0")["suspended"] is False  # type: ignore[index]


def test_the_migrations_build_the_schema_the_code_declares(store: Store) -> None:
    """The tables, columns and indexes the migrations create are those of ``store/models.py``
    (alembic's own comparison, as its autogenerate uses it): a column or an index added to one
    and not the other (e.g. 0009's ``ix_faults_game``) is a difference."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from cardtable.server.store.models import metadata

    with store.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    # the migrations' own bookkeeping table is not part of the models
    differences = [d for d in differences if "alembic_version" not in repr(d)]
    assert differences == [], differences
