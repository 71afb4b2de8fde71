"""The schedule's claim on PostgreSQL (``SELECT ... FOR UPDATE SKIP LOCKED``): several processes'
schedulers claiming at once never claim one planned game twice, and a settled game is counted
once. Skips when PostgreSQL is not reachable."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from cardtable.server.store import Store
from cardtable.server.store.db import now
from cardtable.server.store.models import tournament_games
from cardtable.server.tournaments import STALE_CLAIM_S, TournamentSpec, TournamentStore

pytestmark = pytest.mark.timeout(120)


def test_concurrent_claims_take_each_game_once(pg_url: str) -> None:
    setup = Store(pg_url)
    setup.migrate()
    names = [f"pg{i}" for i in range(6)]
    for n in names:
        setup.create_bot(n)
    spec = TournamentSpec(name="pg", seats=4, entrants=names, deals=2, rules="classic")
    tid = TournamentStore(setup).create(spec)
    planned = TournamentStore(setup).get(tid)
    assert planned is not None and planned["games"]["planned"] == 15 * 2 * 4
    claimed: list[list[int]] = [[] for _ in range(4)]

    def scheduler(w: int) -> None:
        store = Store(pg_url)  # its own engine and connections, as another process has
        db = TournamentStore(store)
        while True:
            rows = db.claim(tid, set(range(6)), f"process-{w}", limit=1)
            claimed[w] += [r.row_id for r in rows]
            if not rows:
                # every planned row was locked by another claim (SKIP LOCKED): a scheduler
                # tries again on its next tick; stop when none is left
                info = db.get(tid)
                if info is None or info["games"]["planned"] == 0:
                    break
                time.sleep(0.005)
        store.close()

    threads = [threading.Thread(target=scheduler, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=100)
    every = [row for rows in claimed for row in rows]
    assert len(every) == len(set(every)) == 120  # each planned game claimed exactly once
    assert sum(1 for rows in claimed if rows) >= 2  # the claims really were shared
    db = TournamentStore(setup)
    info = db.get(tid)
    assert info is not None and info["games"]["running"] == 120
    # a game that never stored its start (its process died) is voided and planned again, once
    first = every[0]
    assert db.settle(first) == "void"
    assert db.settle(first) == "void"  # settling again changes nothing
    info = db.get(tid)
    assert info is not None
    assert info["games"]["void"] == 1 and info["games"]["planned"] == 1
    setup.close()


def test_a_claim_given_back_is_planned_again_and_accept_picks_the_games(pg_url: str) -> None:
    """In a cluster a process claims only the games it is to run (``accept``), and gives a
    claim back when an entrant it needed was seated by another process meanwhile: the row is
    planned again (no void, no new attempt) and claimed later under a new game id."""
    store = Store(pg_url)
    store.migrate()
    names = [f"gb{i}" for i in range(4)]
    for n in names:
        store.create_bot(n)
    spec = TournamentSpec(name="gb", seats=4, entrants=names, deals=1, rules="classic")
    db = TournamentStore(store)
    tid = db.create(spec)
    assert db.claim(tid, set(range(4)), "p0", accept=lambda seating: False) == []
    # only the game with entrant 2 in the first seat
    (row,) = db.claim(tid, set(range(4)), "p0", accept=lambda seating: seating[0] == 2)
    assert row.seating[0] == 2
    assert db.release(row.row_id, row.game_id)
    assert not db.release(row.row_id, row.game_id)  # given back once
    again = db.claim(tid, set(range(4)), "p1", limit=1, accept=lambda seating: seating[0] == 2)
    assert [(r.row_id, r.slot) for r in again] == [(row.row_id, row.slot)]
    assert again[0].game_id != row.game_id
    info = db.get(tid)
    assert info is not None and info["games"]["void"] == 0 and info["games"]["running"] == 1
    store.close()


def test_a_claim_of_a_process_without_a_lease_is_stale_at_once(pg_url: str) -> None:
    """The stale-claim rule (server/dead_claims.py): a claim whose game never started is given
    back at once when its process lost its lease (``instances_gone``, from the cluster), and
    only after ``STALE_CLAIM_S`` when its process still holds one (it may be slow to start)."""
    store = Store(pg_url)
    store.migrate()
    names = [f"sc{i}" for i in range(6)]
    for n in names:
        store.create_bot(n)
    spec = TournamentSpec(name="sc", seats=3, entrants=names, deals=1, rules="classic")
    db = TournamentStore(store)
    tid = db.create(spec)
    (live,) = db.claim(tid, {0, 1, 2}, "p-live", limit=1)
    (dead,) = db.claim(tid, {3, 4, 5}, "p-dead", limit=1)
    assert db.claimants() == {"p-live", "p-dead"}
    assert db.stale() == []  # both fresh, their processes' leases unknown: left alone
    assert db.stale({"p-other"}) == []  # a process without a lease and without a claim
    assert db.stale({"p-dead"}) == [dead.row_id]  # the live one's claim is left alone
    # the live process's claim is given up only once it is STALE_CLAIM_S old
    with store.engine.begin() as conn:
        conn.execute(
            update(tournament_games)
            .where(tournament_games.c.id == live.row_id)
            .values(claimed_at=now() - timedelta(seconds=STALE_CLAIM_S + 1))
        )
    assert db.stale() == [live.row_id]
    assert sorted(db.stale({"p-dead"})) == sorted([live.row_id, dead.row_id])
    # settled: void and the same slot planned again (the next attempt), its claimant gone
    assert db.settle(dead.row_id) == "void"
    again = [g for g in db.games_list(tid) if g["slot"] == dead.slot]
    assert [(g["attempt"], g["state"]) for g in again] == [(0, "void"), (1, "planned")]
    assert db.claimants() == {"p-live"}
    store.close()
