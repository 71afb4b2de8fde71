"""Backup and restore (issue 34): ``cardtable backup`` while the server runs, ``cardtable restore``
into a fresh database, and every restored game replays to its stored result, the ratings
recompute to the stored ones. SQLite (the online backup API) and PostgreSQL (pg_dump /
pg_restore, skipped without PostgreSQL or its client tools).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from cardtable.cli import main
from cardtable.core import Record, verify
from cardtable.server.store import Store
from cardtable.server.store.models import ratings
from server.test_cluster import fresh_database
from server.wire import RunningServer, Wire, db_url, fast_settings, play_until_end, running_server

pytestmark = pytest.mark.timeout(180)


def _play_rated_games(server: RunningServer, name: str, games: int) -> None:
    token = server.register(name)
    with Wire(server.ws) as wire:
        wire.hello_bot(name, token)
        for _ in range(games):
            wire.send(
                {
                    "type": "join",
                    "lobby": "practice",
                    "game": "cunegonda",
                    "rules": "standard",
                    "opponents": "random",
                    "rated": True,
                }
            )
            play_until_end(wire, "cunegonda")


def _ratings(store: Store) -> list[tuple[Any, ...]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(ratings)).all()
    return sorted(
        (r.player_id, r.game, r.rules, round(r.mu, 9), round(r.sigma, 9), r.games, r.wins)
        for r in rows
    )


def _check_restored(db: str, finished: int, stored_ratings: list[tuple[Any, ...]]) -> None:
    store = Store(db)
    try:
        games = store.list_games(limit=100)
        ids = [g["id"] for g in games]
        assert len([g for g in games if g["status"] == "finished"]) == finished
        for game_id in ids:
            data = store.record(game_id)
            assert data is not None, game_id
            ok, why = verify(Record.from_json(data))
            assert ok, (game_id, why)
        assert stored_ratings and _ratings(store) == stored_ratings  # restored as they were
        assert store.recompute_ratings() == finished
        assert _ratings(store) == stored_ratings  # and recomputed from the results, the same
    finally:
        store.close()


def _backup_while_running(settings: Any, out: Path) -> tuple[int, list[tuple[Any, ...]]]:
    """Two rated games, a backup taken while the server runs (as an operator would), then a
    third game, which the backup must not hold. Returns what the backup must: its finished
    games and the ratings as they were when it was taken."""
    with running_server(settings) as server:
        _play_rated_games(server, "keeper", 2)
        assert main(["backup", "--db", settings.db, str(out)]) == 0
        store = Store(settings.db)
        try:
            finished, stored = store.counts().get("finished", 0), _ratings(store)
        finally:
            store.close()
        _play_rated_games(server, "latecomer", 1)
    return finished, stored


def test_sqlite_backup_restores_games_that_replay_and_ratings_that_recompute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = fast_settings(db_url(tmp_path))
    out = tmp_path / "backup.db"
    finished, stored = _backup_while_running(settings, out)
    assert finished == 2
    fresh = f"sqlite:///{tmp_path / 'restored' / 'cardtable.db'}"
    assert main(["restore", str(out), "--db", fresh]) == 0
    assert "2 finished" in capsys.readouterr().out
    _check_restored(fresh, finished, stored)
    # a second restore into the now used database is refused, and changes nothing
    assert main(["restore", str(out), "--db", fresh]) == 2
    assert "not a fresh database" in capsys.readouterr().err
    _check_restored(fresh, finished, stored)
    # and a backup never overwrites a file
    assert main(["backup", "--db", settings.db, str(out)]) == 2
    assert "exists" in capsys.readouterr().err


def test_restore_refuses_a_file_that_is_no_backup(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    target = tmp_path / "new.db"
    assert main(["restore", str(junk), "--db", f"sqlite:///{target}"]) == 2
    assert not target.exists() or target.stat().st_size == 0


def _skip_unless_pg_dump_reads(db: str) -> None:
    """pg_dump refuses a server of a newer major version than its own: skip then, as without."""
    import re
    import subprocess

    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    with engine.connect() as conn:
        server = int(conn.execute(text("SHOW server_version_num")).scalar_one()) // 10000
    engine.dispose()
    line = subprocess.run(["pg_dump", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"(\d+)\.", line)
    if match is None or int(match.group(1)) < server:
        pytest.skip(f"pg_dump ({line.strip()}) is older than the PostgreSQL server ({server})")


def test_postgresql_backup_with_pg_dump_restores_into_a_fresh_database(tmp_path: Path) -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump/pg_restore not installed (postgresql-client)")
    out = tmp_path / "backup.pgdump"
    with fresh_database("ct_backup") as db:
        _skip_unless_pg_dump_reads(db)
        finished, stored = _backup_while_running(fast_settings(db), out)
        assert finished == 2
        with fresh_database("ct_restored") as fresh:
            assert main(["restore", str(out), "--db", fresh]) == 0
            _check_restored(fresh, finished, stored)
            assert main(["restore", str(out), "--db", fresh]) == 2  # no longer fresh
